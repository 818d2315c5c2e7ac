/* What leaves the analyzer: the sinks that take its buckets and its report (the figures read while it runs: reading.c). */
#include <errno.h>
#include <stdio.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"

/* ---- sinks ---- */

void an_sink_failed(struct rt_analyzer *an, unsigned i, int rc, const char *msg)
{
	an->sinks.failed[i] = true;
	if (!an->sinks.err) {
		an->sinks.err = rc;
		snprintf(an->sinks.errbuf, sizeof(an->sinks.errbuf), "%s", msg);
	}
}

int an_sink_bucket(const struct rt_analyzer *an, unsigned i, const struct rt_an_bucket *b,
                   char *errbuf)
{
	const struct rt_an_sink *s = &an->sinks.s[i];
	*errbuf = '\0';
	return s->bucket ? s->bucket(s->ctx, an, b, errbuf) : 0;
}

int an_sinks_deliver(void *ctx, const struct rt_an_bucket *b)
{
	struct rt_analyzer *an = ctx;
	for (unsigned i = 0; i < an->sinks.n; i++) {
		char errbuf[RT_ERRBUF_SIZE];
		int rc;
		if (!an->sinks.failed[i] && (rc = an_sink_bucket(an, i, b, errbuf)) < 0)
			an_sink_failed(an, i, rc, errbuf);
	}
	return 0;
}

int rt_analyzer_add_sink(struct rt_analyzer *an, const struct rt_an_sink *sink, char *errbuf)
{
	int rc = 0;
	bool buckets = sink->bucket && sink->bucket_ns;
	if (an->sinks.n == RT_AN_SINKS_MAX)
		rc = rt_errmsg(errbuf, EINVAL, "analyzer: more than %d sinks", RT_AN_SINKS_MAX);
	else if (buckets && an->bk.len && an->bk.len != sink->bucket_ns)
		rc = rt_errmsg(errbuf, EINVAL,
		               "analyzer: sinks take buckets of %llu ns and of %llu ns",
		               (unsigned long long)an->bk.len, (unsigned long long)sink->bucket_ns);
	if (rc < 0) {
		if (sink->free)
			sink->free(sink->ctx);
		return rc;
	}
	an->sinks.s[an->sinks.n++] = *sink;
	if (buckets)
		an_bk_start(&an->bk, sink->bucket_ns, an_sinks_deliver, an);
	return 0;
}

int rt_analyzer_status(const struct rt_analyzer *an, char *errbuf)
{
	if (an->sinks.err && errbuf)
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s", an->sinks.errbuf);
	return an->sinks.err;
}

int rt_analyzer_report(struct rt_analyzer *an, char *errbuf)
{
	int first = 0;
	const struct rt_results *r = an->replay_view ? an->replay_view : rt_analyzer_results(an);
	if (!r)
		return rt_errorf(errbuf, ENOMEM, "the results of the analysis");
	for (unsigned i = 0; i < an->sinks.n; i++) {
		const struct rt_an_sink *s = &an->sinks.s[i];
		char eb[RT_ERRBUF_SIZE] = "";
		int rc;
		if (!s->report || an->sinks.failed[i] || (rc = s->report(s->ctx, r, eb)) == 0)
			continue;
		an_sink_failed(an, i, rc, eb);
		if (!first) {
			first = rc;
			snprintf(errbuf, RT_ERRBUF_SIZE, "%s", eb);
		}
	}
	return first;
}

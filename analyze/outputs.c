/* What leaves the analyzer: the sinks that take its buckets and its report, and the figures read while it runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The buckets' way out: every sink that takes them. */
static int deliver(void *ctx, const struct rt_an_bucket *b)
{
	struct rt_analyzer *an = ctx;
	for (unsigned i = 0; i < an->sinks.n; i++) {
		const struct rt_an_sink *s = &an->sinks.s[i];
		char errbuf[RT_ERRBUF_SIZE] = "";
		int rc;
		if (s->bucket && !an->sinks.failed[i] &&
		    (rc = s->bucket(s->ctx, an, b, errbuf)) < 0)
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
		an_bk_start(&an->bk, sink->bucket_ns, deliver, an);
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
	const struct rt_results *r = rt_analyzer_results(an);
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

/* ---- reading ---- */

int rt_analyzer_selected_ids(const struct rt_analyzer *an, uint32_t **ids, uint32_t *n)
{
	*n = 0;
	if (!(*ids = malloc((an->ft.next_id ? an->ft.next_id : 1) * sizeof(**ids))))
		return -ENOMEM;
	for (uint32_t id = 0; id < an->ft.next_id; id++)
		if (an_flow_by_id(&an->ft, id)->flags & AN_FLOW_SELECTED)
			(*ids)[(*n)++] = id;
	return 0;
}

uint64_t rt_analyzer_flow_count(const struct rt_analyzer *an)
{
	return an->ft.next_id;
}

void rt_analyzer_bucket_columns(const struct rt_analyzer *an, bool *source_log, bool *counters)
{
	*source_log = an->bk.srclog;
	*counters = an->bk.counters;
}

const struct rt_an_flow_key *rt_analyzer_flow_key(const struct rt_analyzer *an, uint32_t id)
{
	if (id < an->ft.next_id)
		return &an_flow_by_id(&an->ft, id)->key;
	return id < an->nstage_keys ? &an->stage_keys[id] : NULL;
}

void rt_analyzer_totals(const struct rt_analyzer *an, struct rt_an_counts *out)
{
	*out = an->tot.c;
	memcpy(out->pfc_xoff, an->pfc.xoff, sizeof(out->pfc_xoff));
	memcpy(out->pfc_xon, an->pfc.xon, sizeof(out->pfc_xon));
	memcpy(out->pfc_paused_ns, an->pfc.paused_ns, sizeof(out->pfc_paused_ns));
}

void rt_analyzer_totals_idle(const struct rt_analyzer *an, uint64_t idle_ns,
                             struct rt_an_counts *out)
{
	rt_analyzer_totals(an, out);
	uint64_t at = an->now + idle_ns < an->now ? UINT64_MAX : an->now + idle_ns;
	an_pfc_paused_at(&an->pfc, at, out->pfc_paused_ns);
}

void rt_analyzer_live(const struct rt_analyzer *an, uint64_t idle_ns, struct rt_an_live *out)
{
	out->flows = an->ft.next_id;
	rt_analyzer_totals_idle(an, idle_ns, &out->t);
}

void rt_analyzer_interval(struct rt_analyzer *an, struct rt_an_counts *out, bool reset)
{
	struct rt_an_counts now;
	rt_analyzer_totals(an, &now);
	const uint64_t *a = (const uint64_t *)&now, *b = (const uint64_t *)&an->iv_start;
	uint64_t *o = (uint64_t *)out;
	_Static_assert(sizeof(struct rt_an_counts) % sizeof(uint64_t) == 0, "counters only");
	for (size_t i = 0; i < sizeof(now) / sizeof(uint64_t); i++)
		o[i] = a[i] - b[i];
	if (reset)
		an->iv_start = now;
}

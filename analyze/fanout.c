/* A fan-out by capture point: each point's records to an analyzer of its own, as if its capture were read alone. */
#include "analyze/fanout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyze.h"

struct rt_an_fanout {
	struct rt_analyzer_opts o; /* the points' analyzers' */
	rt_an_fanout_sink_fn make_sink;
	void *ctx;
	struct rt_analyzer *sub[RT_AN_VANTAGE_MAX];
	uint64_t now; /* the latest time each point's analyzer has been told */
	int err;      /* the first failure setting up a point (its records then go nowhere) */
	char errbuf[RT_ERRBUF_SIZE];
};

int rt_an_fanout_new(struct rt_an_fanout **out, const struct rt_analyzer_opts *opts,
                     rt_an_fanout_sink_fn make_sink, void *ctx, char *errbuf)
{
	struct rt_an_fanout *fo = calloc(1, sizeof(*fo));
	if (!fo)
		return rt_errorf(errbuf, ENOMEM, "analyzer");
	fo->o = *opts;
	fo->o.vantage = false;
	fo->make_sink = make_sink;
	fo->ctx = ctx;
	*out = fo;
	return 0;
}

/* Point p's analyzer, made at its first record; NULL once setting up a point failed. */
static struct rt_analyzer *sub_of(struct rt_an_fanout *fo, unsigned p)
{
	if (fo->sub[p] || fo->err)
		return fo->sub[p];
	char eb[RT_ERRBUF_SIZE] = "";
	struct rt_an_sink sink;
	struct rt_analyzer *a = rt_analyzer_new(&fo->o, eb);
	int rc = a ? fo->make_sink(fo->ctx, p, &sink, eb) : -errno;
	if (rc == 0)
		rc = rt_analyzer_add_sink(a, &sink, eb);
	if (rc < 0) {
		rt_analyzer_free(a);
		fo->err = rc;
		snprintf(fo->errbuf, sizeof(fo->errbuf), "vantage point %u: %s", p, eb);
		return NULL;
	}
	if (fo->now)
		rt_analyzer_tick(a, fo->now);
	return fo->sub[p] = a;
}

void rt_an_fanout_feed(struct rt_an_fanout *fo, const struct rt_record *rec)
{
	struct rt_analyzer *mine = rec->point < RT_AN_VANTAGE_MAX ? sub_of(fo, rec->point) : NULL;
	if (mine)
		rt_analyzer_feed(mine, rec);
	rt_an_fanout_tick(fo, rec->ts_ns);
}

void rt_an_fanout_tick(struct rt_an_fanout *fo, uint64_t now_ns)
{
	if (now_ns <= fo->now)
		return;
	fo->now = now_ns;
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++)
		if (fo->sub[i])
			rt_analyzer_tick(fo->sub[i], now_ns);
}

int rt_an_fanout_status(const struct rt_an_fanout *fo, char *errbuf)
{
	if (fo->err) {
		if (errbuf)
			snprintf(errbuf, RT_ERRBUF_SIZE, "%s", fo->errbuf);
		return fo->err;
	}
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++) {
		int rc = fo->sub[i] ? rt_analyzer_status(fo->sub[i], errbuf) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int rt_an_fanout_finish(struct rt_an_fanout *fo, char *errbuf)
{
	int rc = fo->err ? rt_errmsg(errbuf, -fo->err, "%s", fo->errbuf) : 0;
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++) {
		char eb[RT_ERRBUF_SIZE];
		int r = fo->sub[i] ? rt_analyzer_finish(fo->sub[i], eb) : 0;
		if (r < 0 && !rc)
			rc = rt_errmsg(errbuf, -r, "%s", eb);
	}
	return rc;
}

void rt_an_fanout_free(struct rt_an_fanout *fo)
{
	if (!fo)
		return;
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++)
		rt_analyzer_free(fo->sub[i]);
	free(fo);
}

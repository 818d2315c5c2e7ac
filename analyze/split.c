/* Per vantage point, an analyzer of its own: each point's frames analyzed as if its capture were read alone. */
#include "analyze/split.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/analyze.h"

/*
 * Point p's analyzer gets the records of p, in stream order, and hears of
 * the others' times (rt_analyzer_tick): its buckets end when the whole
 * stream's do, so the points' buckets come out together. It counts what
 * its point saw, as an analysis of that point's capture alone would.
 */

static struct rt_analyzer *sub_of(struct an_split *s, unsigned p)
{
	if (s->sub[p] || s->err)
		return s->sub[p];
	char eb[RT_ERRBUF_SIZE] = "";
	struct rt_an_sink sink;
	struct rt_analyzer *a = rt_analyzer_new(&s->o, eb);
	int rc = a ? s->make_sink(s->ctx, p, &sink, eb) : -errno;
	if (rc == 0)
		rc = rt_analyzer_add_sink(a, &sink, eb);
	if (rc < 0) {
		rt_analyzer_free(a);
		s->err = rc;
		snprintf(s->errbuf, sizeof(s->errbuf), "vantage point %u: %s", p, eb);
		return NULL;
	}
	if (s->now)
		rt_analyzer_tick(a, s->now);
	return s->sub[p] = a;
}

void an_split_record(struct an_split *s, const struct rt_record *rec, int p)
{
	struct rt_analyzer *mine = p >= 0 ? sub_of(s, (unsigned)p) : NULL;
	if (mine)
		rt_analyzer_feed(mine, rec);
	an_split_tick(s, rec->ts_ns);
}

void an_split_tick(struct an_split *s, uint64_t now_ns)
{
	if (now_ns <= s->now)
		return;
	s->now = now_ns;
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++)
		if (s->sub[i])
			rt_analyzer_tick(s->sub[i], now_ns);
}

int an_split_finish(struct an_split *s, char *errbuf)
{
	int rc = s->err ? rt_errmsg(errbuf, -s->err, "%s", s->errbuf) : 0;
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++) {
		char eb[RT_ERRBUF_SIZE];
		int r = s->sub[i] ? rt_analyzer_finish(s->sub[i], eb) : 0;
		if (r < 0 && !rc)
			rc = rt_errmsg(errbuf, -r, "%s", eb);
	}
	return rc;
}

void an_split_free(struct an_split *s)
{
	for (unsigned i = 0; i < RT_AN_VANTAGE_MAX; i++)
		rt_analyzer_free(s->sub[i]);
	free(s);
}

/* The analyzer as its unit tests make it: time units, default options (a link speed aside), its JSON report as text. */
#ifndef RT_TEST_ANALYZE_ANALYZER_H
#define RT_TEST_ANALYZE_ANALYZER_H

/* include after <cmocka.h>: the helpers assert */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "render/sinks.h"

#define T0 1700000000000000000ull
#define US 1000ull
#define MS 1000000ull

static inline struct rt_analyzer *new_an(uint64_t link_bps)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	if (link_bps)
		o.link_speed_bps = link_bps;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	return an;
}

/* The JSON report of `an` as a string (caller frees). */
static inline char *report_json(struct rt_analyzer *an)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	/* the sink's report() called as the analyzer would, without adding it (a report each call) */
	struct rt_an_sink sink;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_an_report_json_sink(fp, &sink, errbuf), 0);
	const struct rt_results *r = rt_analyzer_results(an);
	assert_non_null(r);
	assert_int_equal(sink.report(sink.ctx, r, errbuf), 0);
	sink.free(sink.ctx);
	assert_int_equal(fclose(fp), 0);
	return text;
}

/* How often `needle` occurs in `hay` (overlaps counted). */
static inline unsigned count_str(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#endif

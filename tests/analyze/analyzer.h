/* The analyzer as its unit tests make it: time units, default options (a link speed aside), its JSON report as text. */
#ifndef RT_TEST_ANALYZE_ANALYZER_H
#define RT_TEST_ANALYZE_ANALYZER_H

/* include after <cmocka.h>: the helpers assert */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "render/sinks.h"

#define T0 1700000000000000000ull
#define US 1000ull
#define MS 1000000ull

/* The scenario folder a test is given (its one argument), or NULL with the usage said (main returns 2). */
static inline const char *scenario_dir_arg(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SCENARIO_DIR\n", argv[0]);
		return NULL;
	}
	return argv[1];
}

/* An analyzer of options o (it must start). */
static inline struct rt_analyzer *new_an_opts(const struct rt_analyzer_opts *o)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_analyzer *an = rt_analyzer_new(o, errbuf);
	assert_non_null(an);
	return an;
}

static inline struct rt_analyzer *new_an(uint64_t link_bps)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	if (link_bps)
		o.link_speed_bps = link_bps;
	return new_an_opts(&o);
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

/* Each frame of a classic pcap (little-endian, micro- or nanosecond; Ethernet), dissected and timed, to each(ctx, rec). */
static inline void each_pcap_record(const char *path,
                                    void (*each)(void *ctx, struct rt_record *rec), void *ctx)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	uint8_t hdr[24], rh[16];
	assert_int_equal(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
	uint32_t magic = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
	                 (uint32_t)hdr[3] << 24;
	assert_true(magic == 0xa1b2c3d4u || magic == 0xa1b23c4du);
	uint64_t frac = magic == 0xa1b23c4du ? 1 : 1000;
	struct rt_dissect_opts dopts;
	rt_dissect_opts_init(&dopts);
	uint8_t *buf = malloc(65536);
	assert_non_null(buf);
	while (fread(rh, 1, sizeof(rh), fp) == sizeof(rh)) {
		uint32_t f[4];
		for (int i = 0; i < 4; i++)
			f[i] = (uint32_t)rh[4 * i] | (uint32_t)rh[4 * i + 1] << 8 |
			       (uint32_t)rh[4 * i + 2] << 16 | (uint32_t)rh[4 * i + 3] << 24;
		assert_true(f[2] <= 65536);
		assert_int_equal(fread(buf, 1, f[2], fp), f[2]);
		struct rt_record rec;
		rt_dissect_buf(&dopts, RT_LINK_ETHERNET, buf, f[2], f[3], &rec);
		rec.ts_ns = (uint64_t)f[0] * 1000000000u + f[1] * frac;
		each(ctx, &rec);
	}
	free(buf);
	fclose(fp);
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

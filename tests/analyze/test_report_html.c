/*
 * Unit tests of the HTML report: downsampled series keep peaks (render/series.c); the page
 * escapes, follows the top flows, and lists at most RT_AN_HTML_MAX_FLOWS flows, saying how many
 * more there are.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "render/series.h"
#include "render/sinks.h"
#include "records.h"

/* ---- series ---- */

static struct an_band band;
static struct an_grid grid;

/* Place bucket k (of len 1000 ns from t = 1e9) with value v, halving the band as the grid asks. */
static uint32_t put(uint64_t k, double v)
{
	uint64_t t = 1000000000ull + k * 1000;
	while (an_grid_full(&grid, t)) {
		an_band_halve(&band, grid.nslots);
		an_grid_halve(&grid);
	}
	uint32_t s = an_grid_place(&grid, t);
	if (v != 0)
		an_band_add(&band, s, v, 1);
	return s;
}

static void test_series_keeps_peaks(void **state)
{
	(void)state;
	memset(&band, 0, sizeof(band));
	an_grid_init(&grid, 1000);
	/* 4096 buckets of 1, one of 1000, one idle (no value): four buckets a slot in the end */
	for (uint64_t k = 0; k < 4096; k++)
		put(k, k == 3001 ? 1000 : k == 2050 ? 0 : 1);
	assert_int_equal(grid.per_slot, 4);
	assert_int_equal(grid.nslots, 1024);
	double lo, mean, hi;
	/* the peak's slot: 3000..3003 */
	assert_true(an_band_point(&band, &grid, 750, true, &lo, &mean, &hi));
	assert_true(hi == 1000);
	assert_true(lo == 1);
	assert_true(fabs(mean - 1003.0 / 4) < 1e-9);
	/* the idle bucket's slot: its lowest is 0, its mean counts the idle bucket as 0 */
	assert_true(an_band_point(&band, &grid, 512, true, &lo, &mean, &hi));
	assert_true(lo == 0 && hi == 1 && fabs(mean - 0.75) < 1e-9);
	/* a quiet slot */
	assert_true(an_band_point(&band, &grid, 10, true, &lo, &mean, &hi));
	assert_true(lo == 1 && hi == 1 && mean == 1);
	assert_int_equal(an_grid_slot_start(&grid, 750), 1000000000ull + 3000 * 1000);
	/* one more bucket past the end halves again: the peak survives */
	uint32_t s = put(4096 * 2 - 1, 1);
	assert_int_equal(grid.per_slot, 8);
	assert_int_equal(s, 1023);
	assert_true(an_band_point(&band, &grid, 375, true, &lo, &mean, &hi));
	assert_true(hi == 1000);
	/* slots between the last bucket before and this one were idle: all zero */
	assert_true(an_band_point(&band, &grid, 600, true, &lo, &mean, &hi));
	assert_true(lo == 0 && hi == 0 && mean == 0);
	/* the last slot holds one bucket: its mean is over that one */
	assert_int_equal(an_grid_slot_buckets(&grid, 1023), 8);
	assert_int_equal(an_grid_slot_buckets(&grid, 1024), 0);
}

static void test_series_mean_of_samples(void **state)
{
	(void)state;
	memset(&band, 0, sizeof(band));
	an_grid_init(&grid, 1000);
	uint32_t s = an_grid_place(&grid, 5000);
	an_band_add(&band, s, 10, 1); /* one sample of 10 */
	s = an_grid_place(&grid, 6000);
	an_band_add(&band, s, 2, 3); /* three samples averaging 2 */
	an_band_halve(&band, grid.nslots);
	an_grid_halve(&grid);
	double lo, mean, hi;
	assert_true(an_band_point(&band, &grid, 0, false, &lo, &mean, &hi));
	assert_true(lo == 2 && hi == 10 && fabs(mean - 4.0) < 1e-9);
	/* a slot without samples has no point (not 0) */
	assert_false(an_band_point(&band, &grid, 1, false, &lo, &mean, &hi));
}

static void test_series_lines(void **state)
{
	(void)state;
	float v[AN_SER_SLOTS];
	for (unsigned i = 0; i < AN_SER_SLOTS; i++)
		v[i] = (float)i;
	an_line_halve(v, 5, AN_LINE_SUM);
	assert_true(v[0] == 1 && v[1] == 5 && v[2] == 4 && v[3] == 0);
	float w[AN_SER_SLOTS];
	for (unsigned i = 0; i < AN_SER_SLOTS; i++)
		w[i] = NAN;
	w[0] = 7;
	w[2] = 9;
	w[3] = NAN;
	an_line_halve(w, 4, AN_LINE_LAST);
	/* the later known value of each pair */
	assert_true(w[0] == 7 && w[1] == 9 && isnan(w[2]));
}

/* ---- the page ---- */

/* The base64 text between `open` and the next '<' of `page`, decoded and gunzipped (NUL ended), or NULL. */
static char *embedded(const char *page, const char *open)
{
	const char *p = strstr(page, open);
	if (!p)
		return NULL;
	p += strlen(open);
	const char *end = strchr(p, '<');
	size_t n = (size_t)(end - p), blen = 0;
	unsigned char *bin = malloc(n);
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		const char *abc =
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const char *c = p[i] ? strchr(abc, p[i]) : NULL;
		if (!c)
			continue;
		acc = (acc << 6) | (uint32_t)(c - abc);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			bin[blen++] = (unsigned char)(acc >> bits);
		}
	}
	size_t cap = 1 << 26;
	char *text = calloc(1, cap);
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = bin;
	z.avail_in = (uInt)blen;
	z.next_out = (Bytef *)text;
	z.avail_out = (uInt)(cap - 1);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	inflateEnd(&z);
	free(bin);
	return text;
}

/* The page an HTML sink of options *ho writes of what feed() gives the analyzer; *page (malloc'd). */
static void page_of(const struct rt_an_html_opts *ho,
                    void (*feed)(struct rt_analyzer *an, struct rt_an_html *html), char **page)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	size_t size = 0;
	FILE *fp = open_memstream(page, &size);
	struct rt_an_sink sink;
	struct rt_an_html *html = NULL;
	int rc = rt_an_report_html_sink(fp, ho, &sink, &html, errbuf);
	if (rc == -ENOTSUP) { /* built without the charting library: the sink says so */
		assert_non_null(strstr(errbuf, "libjs-dygraphs"));
		fclose(fp);
		free(*page);
		rt_analyzer_free(an);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	feed(an, html);
	assert_int_equal(finish(an), 0);
	assert_int_equal(rt_analyzer_report(an, errbuf), 0);
	rt_analyzer_free(an);
	assert_int_equal(fclose(fp), 0);
}

/* 40 flows send from the start; flow 40 starts later and sends the most; reading "failed" */
static void feed_late_big(struct rt_analyzer *an, struct rt_an_html *html)
{
	uint64_t t = 1000000000000ull;
	uint32_t psn[41] = {0};
	for (unsigned k = 0; k < 4000; k++) {
		unsigned f = k % 40;
		struct rt_record r = roce(t + k * 500, 0x0a000001 + f, 0x0a0000ff,
		                          RT_OPCODE_RC_SEND_ONLY, 0x100 + f, psn[f]++);
		rt_analyzer_feed(an, &r);
		if (k >= 2000) {
			for (unsigned m = 0; m < 4; m++) {
				r = roce(t + k * 500 + 100 + m * 50, 0x0a000064, 0x0a0000ff,
				         RT_OPCODE_RC_SEND_ONLY, 0x999, psn[40]++);
				rt_analyzer_feed(an, &r);
			}
		}
	}
	rt_an_html_input_error(html, "reading x: <truncated>", 1);
}

static void test_page(void **state)
{
	(void)state;
	char *page = NULL;
	const char *files[] = {"cap<1>&\".pcap"};
	struct rt_an_html_opts ho = {.bucket_ns = 1000,
	                             .title = "</title><script>alert('t')</script>",
	                             .files = files,
	                             .nfiles = 1};
	/* the late big flow is followed all the same */
	page_of(&ho, feed_late_big, &page);

	/* every string from outside is text: the title and the file name escaped */
	assert_null(strstr(page, "<script>alert"));
	assert_non_null(strstr(
	    page, "<title>&lt;/title&gt;&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;</title>"));
	assert_non_null(strstr(page, "cap&lt;1&gt;&amp;&quot;.pcap"));
	/* in the JSON of the page's data, no '<' can end its script element */
	const char *meta = strstr(page, "id=\"rt-meta\">");
	assert_non_null(meta);
	assert_non_null(strstr(meta, "\\u003c/title>\\u003cscript>"));
	assert_non_null(strstr(meta, "\"input_error\":\"reading x: \\u003ctruncated>\""));
	assert_non_null(strstr(meta, "\"exit_status\":1"));
	assert_null(strstr(page, "http://"));
	assert_null(strstr(page, "https://"));

	char *analysis = embedded(page, "id=\"rt-analysis\">");
	assert_non_null(analysis);
	assert_non_null(strstr(analysis, "\"packets\":12000,"));
	assert_non_null(strstr(analysis, "\"flow_count\":41,"));
	char *series = embedded(page, "id=\"rt-series\">");
	assert_non_null(series);
	/* the late big flow (id 40) leads the throughput chart, ahead of the others */
	const char *big = strstr(series, "\"label\":\"flow 40 10.0.0.100>10.0.0.255:0x000999\"");
	assert_non_null(big);
	assert_true(big < strstr(series, "\"label\":\"flow 0 "));
	assert_non_null(strstr(series, "\"label\":\"others\""));
	/* 2 ms of 1 us buckets: halved once into 1024 slots of 2 buckets */
	assert_non_null(strstr(
	    series, "\"bucket_ns\":1000,\"slot_ns\":2000,\"slots\":1000,\"last_slot_ns\":2000,"));
	free(analysis);
	free(series);
	free(page);
}

#define EXTRA_FLOWS 25
static const char *const many_files[] = {"many.pcap"};
static const struct rt_an_html_opts many_opts = {
    .bucket_ns = 1000, .title = "many flows", .files = many_files, .nfiles = 1};

/* RT_AN_HTML_MAX_FLOWS + 25 flows: the first 25 seen send one packet, every later one two. */
static void feed_many(struct rt_analyzer *an, struct rt_an_html *html)
{
	(void)html;
	uint64_t t = 1000000000000ull;
	for (uint32_t f = 0; f < RT_AN_HTML_MAX_FLOWS + EXTRA_FLOWS; f++) {
		for (uint32_t k = 0; k < (f < EXTRA_FLOWS ? 1u : 2u); k++) {
			struct rt_record r = roce(t, 0x0a000001 + f, 0x0b0000ff,
			                          RT_OPCODE_RC_SEND_ONLY, 0x100 + f, k);
			rt_analyzer_feed(an, &r);
			t += 100;
		}
	}
}

/* How often `what` occurs in `text` (a plain walk: the sanitizer's strstr measures the text at
 * every call). */
static size_t count(const char *text, const char *what)
{
	size_t n = 0, len = strlen(what);
	for (const char *p = text; *p; p++)
		n += !strncmp(p, what, len);
	return n;
}

static void test_page_bounds_flows(void **state)
{
	(void)state;
	char *page = NULL;
	page_of(&many_opts, feed_many, &page);
	/* the data says how many flows the page does not list, and what its bound is */
	const char *meta = strstr(page, "id=\"rt-meta\">");
	assert_non_null(meta);
	char want[96];
	snprintf(want, sizeof(want), "\"flows_listed_max\":%u,\"flows_not_listed\":%u}",
	         RT_AN_HTML_MAX_FLOWS, EXTRA_FLOWS);
	assert_non_null(strstr(meta, want));
	char *analysis = embedded(page, "id=\"rt-analysis\">");
	assert_non_null(analysis);
	/* the totals stay the capture's: every flow and packet */
	snprintf(want, sizeof(want), "\"flow_count\":%u,", RT_AN_HTML_MAX_FLOWS + EXTRA_FLOWS);
	assert_non_null(strstr(analysis, want));
	snprintf(want, sizeof(want), "\"packets\":%u,", 2 * RT_AN_HTML_MAX_FLOWS + EXTRA_FLOWS);
	assert_non_null(strstr(analysis, want));
	/* the listed flows: the ones with the most bytes (not the first seen), in the order seen */
	const char *flows = strstr(analysis, "\"flows\":[");
	assert_non_null(flows);
	assert_int_equal(count(flows, "{\"id\":"), RT_AN_HTML_MAX_FLOWS);
	assert_null(strstr(flows, "{\"id\":0,"));
	assert_null(strstr(flows, "{\"id\":24,"));
	assert_non_null(strstr(flows, "{\"id\":25,"));
	snprintf(want, sizeof(want), "{\"id\":%u,", RT_AN_HTML_MAX_FLOWS + EXTRA_FLOWS - 1);
	assert_true(strstr(flows, "{\"id\":25,") < strstr(flows, want));
	free(analysis);
	free(page);
}

/* A few flows: every one listed, none said to be missing. */
static void feed_few(struct rt_analyzer *an, struct rt_an_html *html)
{
	(void)html;
	for (uint32_t f = 0; f < 3; f++) {
		struct rt_record r = roce(1000000000000ull + f * 100, 0x0a000001 + f, 0x0b0000ff,
		                          RT_OPCODE_RC_SEND_ONLY, 0x100 + f, 0);
		rt_analyzer_feed(an, &r);
	}
}

static void test_page_lists_every_flow(void **state)
{
	(void)state;
	char *page = NULL;
	page_of(&many_opts, feed_few, &page);
	assert_non_null(strstr(page, "\"flows_not_listed\":0}"));
	char *analysis = embedded(page, "id=\"rt-analysis\">");
	assert_non_null(analysis);
	assert_int_equal(count(strstr(analysis, "\"flows\":["), "{\"id\":"), 3);
	free(analysis);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_series_keeps_peaks),
	    cmocka_unit_test(test_series_mean_of_samples),
	    cmocka_unit_test(test_series_lines),
	    cmocka_unit_test(test_page),
	    cmocka_unit_test(test_page_bounds_flows),
	    cmocka_unit_test(test_page_lists_every_flow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

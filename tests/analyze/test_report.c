/* Unit tests of the analyzer's figures and text: standard deviation and histograms, JSON nulls, the JSON Lines reader, timeline rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/hist.h"
#include "analyze/internal.h"
#include "render/sinks.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"

/* Standard deviation (round-trip jitter): population form, as JSON rtt_ns.stddev. */
static void test_stddev(void **state)
{
	(void)state;
	struct an_hist *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_true(an_hist_stddev(h) == 0.0);
	const uint64_t v[] = {2000, 4000, 4000, 4000, 5000, 5000, 7000, 9000};
	for (unsigned i = 0; i < 8; i++)
		an_hist_add(h, v[i]);
	assert_true(an_hist_stddev(h) > 1999.999 && an_hist_stddev(h) < 2000.001);
	free(h);
	/* large values with a small spread keep their precision */
	struct rt_analyzer *an = new_an(0);
	for (uint32_t p = 0; p < 4; p++) {
		struct rt_record r = roce(T0 + p * MS, 1, 2, 0x04, 0x10, p);
		r.ackreq = 1;
		rt_analyzer_feed(an, &r);
		r = ack(T0 + p * MS + 500 * US + (p & 1) * 2 * US, 2, 1, 0x20, p, 0x1f);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_non_null(strstr(js, "\"rtt_ns\":{\"min\":500000,\"median\":500000,\"p99\":502000,"
	                           "\"mean\":501000,\"stddev\":1000,"));
	free(js);
	rt_analyzer_free(an);
}

/*
 * An episode of 20 CE-marked flows lists the first 16 and counts all 20;
 * each flow says whether an episode counted it, the 17th to 20th too.
 */
static void test_episode_flows(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	for (uint32_t q = 1; q <= 21; q++) {
		struct rt_record r = roce(T0 + q * 10 * US, 1, 2, 0x04, q, 0);
		r.ecn = q <= 20 ? 3 : 2; /* flow 21: ECT(0), no mark */
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_non_null(strstr(js, "\"flow_count\":20,\"flows\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,"
	                           "14,15],\"ce\":20,"));
	assert_int_equal(count_str(js, "\"in_episodes\":true"), 20);
	assert_int_equal(count_str(js, "\"in_episodes\":false"), 1);
	free(js);
	rt_analyzer_free(an);
}

/* Unknown values are null: no packets, one packet, no CNP rate, no RTT. */
static void test_json_nulls(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_non_null(
	    strstr(js, "\"start\":null,\"start_ns\":null,\"end\":null,\"end_ns\":null"));
	assert_non_null(strstr(js, "\"incast\":null"));
	free(js);
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x10, 1);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + US, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	rt_analyzer_feed(an, &r);
	js = report_json(an);
	assert_non_null(strstr(js, "\"gbps\":null"));
	assert_non_null(strstr(js, "\"cnp_rate_per_s\":null"));
	assert_non_null(strstr(js, "\"cnp_interval_ns\":null"));
	assert_non_null(strstr(js, "\"rtt_ns\":null"));
	assert_null(strstr(js, ":nan"));
	assert_null(strstr(js, ":-nan"));
	assert_null(strstr(js, "\"transport\":\"none\""));
	free(js);
	rt_analyzer_free(an);
}

static void test_hist(void **state)
{
	(void)state;
	struct an_hist *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_int_equal(an_hist_quantile(h, 0.5), 0);
	for (uint64_t v = 1; v <= 5; v++)
		an_hist_add(h, v * 100);
	assert_int_equal(an_hist_quantile(h, 0.5), 300);
	assert_int_equal(an_hist_quantile(h, 0.99), 500);
	memset(h, 0, sizeof(*h));
	for (uint64_t v = 1; v <= 10000; v++)
		an_hist_add(h, v * 1000);
	uint64_t med = an_hist_quantile(h, 0.5), p99 = an_hist_quantile(h, 0.99);
	assert_true(med > 5000000 * 93 / 100 && med < 5000000 * 107 / 100);
	assert_true(p99 > 9900000 * 93 / 100 && p99 < 9900000 * 107 / 100);
	assert_int_equal(h->min, 1000);
	assert_int_equal(h->max, 10000000);
	free(h);
}

/*
 * Timeline rows of a bucket come in flow id order whether most flows or
 * few are in it (their ids marked in a bitmap), or very few among very
 * many (sorted).
 */
static void test_timeline_row_order(void **state)
{
	(void)state;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	/* rows with counts only: the zero rows of idle stretches have their own test */
	struct rt_an_timeline_opts tlo = {.bucket_ns = 1 * MS, .no_idle = true};
	struct rt_an_sink sink;
	assert_int_equal(rt_an_timeline_sink(fp, &tlo, &sink, errbuf), 0);
	assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	/* more than 16 words of 64 ids for each of 2 flows: a bucket of 2 sorts them */
	enum { N = 2100, BUCKETS = 4 };
	/* bucket 0: flows 0..N-1 (ids in first-seen order) */
	for (uint32_t i = 0; i < N; i++) {
		struct rt_record r = roce(T0 + i, 0x0a000001, 0x0a000002, 0x04, 0x100 + i, 0);
		rt_analyzer_feed(an, &r);
	}
	/* bucket 1: a few flows, out of order (their ids marked) */
	const uint32_t few[] = {1857, 3, 88};
	for (unsigned i = 0; i < 3; i++) {
		struct rt_record r =
		    roce(T0 + MS + i, 0x0a000001, 0x0a000002, 0x04, 0x100 + few[i], 1);
		rt_analyzer_feed(an, &r);
	}
	/* bucket 2: most flows, backwards */
	for (uint32_t i = N; i-- > 10;) {
		struct rt_record r =
		    roce(T0 + 2 * MS + (N - i), 0x0a000001, 0x0a000002, 0x04, 0x100 + i, 2);
		rt_analyzer_feed(an, &r);
	}
	/* bucket 3: two flows among N, out of order (their ids sorted) */
	const uint32_t two[] = {2050, 7};
	for (unsigned i = 0; i < 2; i++) {
		struct rt_record r =
		    roce(T0 + 3 * MS + i, 0x0a000001, 0x0a000002, 0x04, 0x100 + two[i], 3);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	rt_analyzer_free(an);
	assert_int_equal(fclose(fp), 0);
	/* the flow column of each row, per bucket */
	int64_t last[BUCKETS] = {-1, -1, -1, -1};
	unsigned rows[BUCKETS] = {0}, all[BUCKETS] = {0};
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "t_ns,", 5))
			continue;
		char *comma = strchr(line, ',');
		assert_non_null(comma);
		uint64_t t = strtoull(line, NULL, 10) - (T0 - T0 % MS);
		int b = t % MS == 0 && t / MS < BUCKETS ? (int)(t / MS) : -1;
		assert_true(b >= 0);
		if (!strncmp(comma + 1, "all,", 4)) {
			all[b]++;
			continue;
		}
		assert_int_equal(all[b], 0); /* the "all" row comes last */
		int64_t id = strtoll(comma + 1, NULL, 10);
		assert_true(id > last[b]);
		last[b] = id;
		rows[b]++;
	}
	assert_int_equal(rows[0], N);
	assert_int_equal(rows[1], 3);
	assert_int_equal(last[1], 1857);
	assert_int_equal(rows[2], N - 10);
	assert_int_equal(rows[3], 2);
	assert_int_equal(last[3], 2050);
	for (int b = 0; b < BUCKETS; b++)
		assert_int_equal(all[b], 1);
	free(text);
}

/* The timeline of `an` fed (t, qp) frames of 1 ms buckets, as text; idle stretches get zero rows unless no_idle. */
static char *timeline_of(const uint64_t (*frames)[2], unsigned n, bool no_idle)
{
	char errbuf[RT_ERRBUF_SIZE];
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	struct rt_analyzer *an = new_an(0);
	struct rt_an_timeline_opts tlo = {.bucket_ns = 1 * MS, .no_idle = no_idle};
	struct rt_an_sink sink;
	assert_int_equal(rt_an_timeline_sink(fp, &tlo, &sink, errbuf), 0);
	assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	for (unsigned i = 0; i < n; i++) {
		struct rt_record r = roce(T0 - T0 % MS + frames[i][0] * MS + i, 1, 2, 0x04,
		                          (uint32_t)frames[i][1], i);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	rt_analyzer_free(an);
	assert_int_equal(fclose(fp), 0);
	return text;
}

/*
 * Idle stretches: a zero row in the bucket after a flow's last row with counts and in the bucket
 * before its next (or first) one; a stretch with nothing at all gets zero 'all' rows at its first
 * and last bucket. Rows as (bucket, flow) pairs with their packets.
 */
static void test_timeline_idle_rows(void **state)
{
	(void)state;
	/* flow 0 (QP 5) in buckets 0, 1, 4 and 9; flow 1 (QP 6) in 0 and 2 */
	static const uint64_t frames[][2] = {{0, 5}, {0, 6}, {1, 5}, {2, 6}, {4, 5}, {9, 5}};
	char *text = timeline_of(frames, 6, false);
	unsigned n = 0;
	char got[64][32];
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "t_ns,", 5))
			continue;
		uint64_t t = strtoull(line, NULL, 10);
		char *flow = strchr(line, ',') + 1, *pk = strchr(flow, ',') + 1;
		char *fl_end = pk - 1;
		*fl_end = 0;
		assert_true(n < 64);
		snprintf(got[n++], sizeof(got[0]), "%llu,%s,%llu",
		         (unsigned long long)((t - (T0 - T0 % MS)) / MS), flow,
		         (unsigned long long)strtoull(pk, NULL, 10));
	}
	free(text);
	static const char *const rows[] = {
	    "0,0,1", "0,1,1",   "0,all,2", "1,0,1",   "1,1,0",   "1,all,1", "2,0,0",
	    "2,1,1", "2,all,1", "3,0,0",   "3,1,0",   "3,all,0", "4,0,1",   "4,all,1",
	    "5,0,0", "5,all,0", "8,0,0",   "8,all,0", "9,0,1",   "9,all,1",
	};
	assert_int_equal(n, sizeof(rows) / sizeof(rows[0]));
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(got[i], rows[i]);
	/* --no-idle: the rows with counts alone */
	text = timeline_of(frames, 6, true);
	unsigned lines = 0, zero = 0;
	save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), lines++)
		zero += strstr(line, ",0,0,0,0,0,0,0,0,0,") != NULL;
	free(text);
	assert_int_equal(lines, 1 + 11);
	assert_int_equal(zero, 0);
}

/* Source-log counts are exact up to 2^64-1; past it they saturate instead of wrapping. */
static void test_srclog_saturates(void **state)
{
	(void)state;
	/* a source log "end" line with counts past 2^64 */
	char path[] = "/tmp/rt-test-srclog-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs("{\"ts\":\"1700000000.000000100\",\"event\":\"end\",\"src\":\"0.0.0.1\",\"dst\":\"0."
	      "0.0.2\","
	      "\"dest_qp\":34,\"packets\":1e30,\"bytes\":1e999,\"retransmitted\":3,"
	      "\"cnp_handled\":9007199254740993,\"naks\":18446744073709551615}\n",
	      fp);
	assert_int_equal(fclose(fp), 0);
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x22, 1);
	rt_analyzer_feed(an, &r);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_load_source_log(an, path, errbuf), 0);
	unlink(path);
	struct an_flow *f = flow_of(an, 1, 2, 0x22);
	assert_non_null(f->src);
	assert_true(f->src->end_seen);
	assert_true(f->src->packets == UINT64_MAX);
	assert_true(f->src->bytes == UINT64_MAX);
	assert_int_equal(f->src->retrans, 3);
	assert_true(f->src->cnp_handled == 9007199254740993ull);
	assert_true(f->src->naks == UINT64_MAX);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_episode_flows),      cmocka_unit_test(test_stddev),
	    cmocka_unit_test(test_json_nulls),         cmocka_unit_test(test_hist),
	    cmocka_unit_test(test_timeline_row_order), cmocka_unit_test(test_timeline_idle_rows),
	    cmocka_unit_test(test_srclog_saturates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

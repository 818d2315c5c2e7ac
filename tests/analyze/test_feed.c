/* Unit tests of the analysis as a sink of the frame pump: both threads' paths alike, the points announced into the report, the end. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/feed.h"
#include "analyzer.h"
#include "records.h"

#define A      0x0a000001u /* 10.0.0.1 */
#define B      0x0a000002u
#define BUCKET (10 * US)

/* The buckets a sink was handed: each one's start and packets, in order. */
struct buckets {
	uint64_t t[4096], packets[4096];
	unsigned n;
	int fail; /* bucket() fails with this errno */
};

static int take_bucket(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
                       char *errbuf)
{
	struct buckets *s = ctx;
	(void)an;
	if (s->n < 4096) {
		s->t[s->n] = b->t_ns;
		s->packets[s->n++] = b->all.packets;
	}
	return s->fail ? rt_errmsg(errbuf, s->fail, "bucket refused") : 0;
}

static struct rt_an_sink bucket_sink(struct buckets *s)
{
	return (struct rt_an_sink){.bucket_ns = BUCKET, .bucket = take_bucket, .ctx = s};
}

/* Point p's sink of the fan-out: ctx is the array of the points' bucket lists. */
static int point_sink(void *ctx, unsigned point, struct rt_an_sink *out, char *errbuf)
{
	struct buckets *per_point = ctx;
	(void)errbuf;
	*out = bucket_sink(&per_point[point]);
	return 0;
}

/* Record i of the tests' stream: 5 flows at 3 capture points. */
static struct rt_record record(unsigned i)
{
	struct rt_record r = roce(T0 + i * 700, A + i % 5, B, 0x04, 0x11 + i % 5, i);
	r.point = (uint16_t)(i % 3);
	return r;
}

/*
 * As the pump hands records to the sink, in batches of a few sizes:
 * decoded into its room, then frame(). Returns how many went in before
 * frame() returned non-zero (*rc), or n.
 */
static unsigned feed_records(const struct rt_pump_sink *s, unsigned n, int *rc)
{
	static const unsigned sizes[] = {RT_PUMP_BATCH, 7, 1, 33};
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f = {0};
	unsigned i = 0;
	*rc = 0;
	for (unsigned b = 0; i < n; b++) {
		unsigned m = n - i < sizes[b % 4] ? n - i : sizes[b % 4];
		struct rt_record *room = s->record_room(s->ctx, m);
		for (unsigned k = 0; k < m; k++, i++) {
			room[k] = record(i);
			f.seq = i + 1;
			if ((*rc = s->frame(s->ctx, &f, &room[k], errbuf)) != 0)
				return i + 1;
		}
	}
	return n;
}

/* An analyzer whose buckets go to *whole, fed (on a thread or not) with a fan-out whose points' go to points[]. */
struct rig {
	struct rt_analyzer *an;
	struct rt_an_feed *feed;
	struct rt_pump_sink s;
};

static struct rig rig(bool thread, struct buckets *whole, struct buckets *points)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_analyzer_opts o;
	struct rt_an_fanout *fo;
	struct rig r;
	rt_analyzer_opts_init(&o);
	o.vantage = true;
	r.an = rt_analyzer_new(&o, errbuf);
	assert_non_null(r.an);
	struct rt_an_sink ws = bucket_sink(whole);
	assert_int_equal(rt_analyzer_add_sink(r.an, &ws, errbuf), 0);
	assert_int_equal(rt_an_feed_new(&r.feed, r.an, thread ? 2 : 1, errbuf), 0);
	assert_int_equal(rt_an_fanout_new(&fo, &o, point_sink, points, errbuf), 0);
	rt_an_feed_fanout(r.feed, fo);
	rt_an_feed_sink(r.feed, &r.s);
	return r;
}

/* One run: n records through a feed (thread or not) with a fan-out; the buckets of the whole and of each point. */
static void run(bool thread, unsigned n, struct buckets *whole, struct buckets *points)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rig r = rig(thread, whole, points);
	struct rt_an_feed *feed = r.feed;
	struct rt_analyzer *an = r.an;
	struct rt_pump_sink s = r.s;
	int rc;
	assert_int_equal(feed_records(&s, n, &rc), n);
	assert_int_equal(rc, 0);
	struct rt_pump_result res = {.end = RT_PUMP_EOF, .frames = n};
	assert_int_equal(s.end(s.ctx, &res, errbuf), 0);
	assert_int_equal(rt_an_feed_flows(feed), 5);
	assert_int_equal(rt_an_feed_finish(feed, errbuf), 0);
	struct rt_an_counts c;
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.packets, n);
	rt_an_feed_free(feed);
	rt_analyzer_free(an);
}

/* Fed on a thread of its own or on the pump's, the analyzer and the fan-out hand the same buckets over. */
static void test_threads_alike(void **state)
{
	static struct buckets whole[2], points[2][RT_AN_VANTAGE_MAX];
	(void)state;
	memset(whole, 0, sizeof(whole));
	memset(points, 0, sizeof(points));
	run(false, 3000, &whole[0], points[0]); /* more than a few of the feeder's batches */
	run(true, 3000, &whole[1], points[1]);
	assert_true(whole[0].n > 100);
	assert_memory_equal(&whole[0], &whole[1], sizeof(whole[0]));
	uint64_t sum = 0;
	for (unsigned p = 0; p < 3; p++) {
		assert_memory_equal(&points[0][p], &points[1][p], sizeof(points[0][p]));
		for (unsigned i = 0; i < points[0][p].n; i++)
			sum += points[0][p].packets[i];
	}
	assert_int_equal(sum, 3000); /* each record in its point's buckets */
	assert_int_equal(points[0][3].n, 0);
}

/* The points as last announced name them; at the end they are the report's, with the capture's drops. */
static void test_points_in_report(void **state)
{
	char errbuf[RT_ERRBUF_SIZE], name[64];
	struct rt_analyzer_opts o;
	(void)state;
	rt_analyzer_opts_init(&o);
	o.vantage = true;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	struct rt_an_feed *feed;
	struct rt_pump_sink s;
	assert_int_equal(rt_an_feed_new(&feed, an, 2, errbuf), 0);
	rt_an_feed_sink(feed, &s);
	assert_int_equal(rt_an_feed_point_name(feed, 0, name, sizeof(name)), -ENOENT);
	const unsigned files[] = {0, 2};
	const char *const paths[] = {"tx.pcap", "tx.pcap.1"};
	struct rt_pump_point tx = {.id = 0,
	                           .name = "tx",
	                           .vantage_name = "tx",
	                           .nfiles = 1,
	                           .files = files,
	                           .paths = paths,
	                           .frames = 1,
	                           .alone = true};
	assert_int_equal(s.point(s.ctx, &tx, errbuf), 0);
	assert_true(an->vp.alone); /* no second point can come: nothing waits for one */
	assert_int_equal(rt_an_feed_point_name(feed, 0, name, sizeof(name)), 0);
	assert_string_equal(name, "tx");
	int rc;
	assert_int_equal(feed_records(&s, 2, &rc), 2);
	/* renamed, with its second file; and a point of its own beside it */
	struct rt_pump_point tx2 = tx, rx = {.id = 1, .name = "rx", .vantage_name = "rx"};
	tx2.name = "tor/tx";
	tx2.nfiles = 2;
	tx2.frames = 7;
	assert_int_equal(s.point(s.ctx, &tx2, errbuf), 0);
	assert_int_equal(s.point(s.ctx, &rx, errbuf), 0);
	assert_int_equal(rt_an_feed_point_name(feed, 0, name, 4), 0);
	assert_string_equal(name, "tor"); /* cut to size */
	struct rt_pump_result res = {.end = RT_PUMP_EOF,
	                             .stats = {.drops_known = true, .dropped = 3, .if_dropped = 4}};
	assert_int_equal(s.end(s.ctx, &res, errbuf), 0);
	assert_int_equal(rt_an_feed_finish(feed, errbuf), 0);
	char *json = report_json(an);
	assert_non_null(strstr(json,
	                       "\"vantage_points\":[{\"name\":\"tor/tx\",\"files\":[\"tx.pcap\","
	                       "\"tx.pcap.1\"],\"frames\":7},{\"name\":\"rx\",\"files\":[],"
	                       "\"frames\":0}]"));
	assert_true(an->tally.drops_known);
	assert_int_equal(an->tally.os_dropped, 3);
	assert_int_equal(an->tally.if_dropped, 4);
	free(json);
	rt_an_feed_free(feed);
	rt_analyzer_free(an);
}

/*
 * A failure of the analysis (its sink's, or a point's) stops the pump
 * (checked every 4096 records); the finish returns it, the analyzer's
 * first when both failed.
 */
static void test_failures(void **state)
{
	static struct buckets whole, points[RT_AN_VANTAGE_MAX];
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;
	for (int thread = 0; thread < 2; thread++) {
		for (int fail = 1; fail <= 3;
		     fail++) { /* bit 0: the whole stream's sink, bit 1: point 1's */
			memset(&whole, 0, sizeof(whole));
			memset(points, 0, sizeof(points));
			whole.fail = fail & 1 ? EPIPE : 0;
			points[1].fail = fail & 2 ? ENOSPC : 0;
			struct rig r = rig(thread, &whole, points);
			struct rt_pump_sink s = r.s;
			int rc;
			unsigned i = feed_records(&s, 20000, &rc);
			assert_int_equal(rc, 1);
			assert_true(i % 4096 == 0 &&
			            i <= 12288); /* a thread may be a few batches behind */
			struct rt_pump_result res = {.end = RT_PUMP_STOPPED};
			assert_int_equal(s.end(s.ctx, &res, errbuf), 0);
			assert_int_equal(rt_an_feed_finish(r.feed, errbuf),
			                 fail & 1 ? -EPIPE : -ENOSPC);
			assert_string_equal(errbuf, "bucket refused");
			rt_an_feed_free(r.feed);
			rt_analyzer_free(r.an);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_alike),
	    cmocka_unit_test(test_points_in_report),
	    cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

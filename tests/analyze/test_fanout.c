/* Unit tests of the fan-out by capture point: each point's records to its own analyzer, the others' times as ticks, failures. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/fanout.h"
#include "records.h"

#define A      0x0a000001u /* 10.0.0.1 */
#define B      0x0a000002u
#define BUCKET 1000u /* ns */

/* What point p's sink was handed. */
struct seen {
	uint64_t buckets, bucket_packets; /* buckets ended, the packets in them */
	uint64_t end_packets;             /* its analyzer's total at the end */
	bool ended, fail_bucket;
};

static struct seen seen[RT_AN_VANTAGE_MAX];
static unsigned made;   /* sinks asked for */
static int refuse = -1; /* the point whose sink cannot be made */

static int seen_bucket(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
                       char *errbuf)
{
	struct seen *s = ctx;
	(void)an;
	s->buckets++;
	s->bucket_packets += b->all.packets;
	return s->fail_bucket ? rt_errmsg(errbuf, EPIPE, "writing: broken pipe") : 0;
}

static int seen_end(void *ctx, const struct rt_analyzer *an, char *errbuf)
{
	struct seen *s = ctx;
	struct rt_an_counts c;
	(void)errbuf;
	rt_analyzer_totals(an, &c);
	s->end_packets = c.packets;
	s->ended = true;
	return 0;
}

static int make_sink(void *ctx, unsigned point, struct rt_an_sink *out, char *errbuf)
{
	assert_ptr_equal(ctx, seen);
	made++;
	if ((int)point == refuse)
		return rt_errmsg(errbuf, ENOMEM, "no room");
	*out = (struct rt_an_sink){
	    .bucket_ns = BUCKET, .bucket = seen_bucket, .end = seen_end, .ctx = &seen[point]};
	return 0;
}

static int reset(void **state)
{
	(void)state;
	memset(seen, 0, sizeof(seen));
	made = 0;
	refuse = -1;
	return 0;
}

static struct rt_an_fanout *fanout(void)
{
	struct rt_analyzer_opts o;
	struct rt_an_fanout *fo;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.vantage = true; /* the points' analyzers see one point each: theirs is off */
	assert_int_equal(rt_an_fanout_new(&fo, &o, make_sink, seen, errbuf), 0);
	return fo;
}

static void feed_at(struct rt_an_fanout *fo, uint64_t ts, uint16_t point, uint32_t psn)
{
	struct rt_record r = roce(ts, A, B, 0x04, 0x11, psn);
	r.point = point;
	rt_an_fanout_feed(fo, &r);
}

/*
 * Each point's analyzer counts its point's records only; records of no
 * point, or of a point past the ones followed, make none; a point's
 * buckets end when another point's record passes them.
 */
static void test_each_point_alone(void **state)
{
	struct rt_an_fanout *fo = fanout();
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	feed_at(fo, 100, 0, 1);
	feed_at(fo, 600, 1, 1);
	feed_at(fo, 700, RT_AN_VANTAGE_MAX, 1);
	feed_at(fo, 800, RT_POINT_NONE, 1);
	feed_at(fo, 1100, 0, 2);
	assert_int_equal(made, 2);
	assert_int_equal(seen[0].buckets, 1); /* its own record at 1100 ended [0, 1000) */
	assert_int_equal(seen[1].buckets, 1); /* ... and point 0's time ended point 1's */
	assert_int_equal(seen[1].bucket_packets, 1);
	feed_at(fo, 2100, 0, 3);
	feed_at(fo, 5600, 1, 2); /* ends point 0's [2000, 3000) */
	assert_int_equal(seen[0].buckets, 3);
	assert_int_equal(seen[0].bucket_packets, 3);
	assert_false(seen[0].ended);
	assert_int_equal(rt_an_fanout_status(fo, errbuf), 0);
	assert_int_equal(rt_an_fanout_finish(fo, errbuf), 0);
	assert_true(seen[0].ended && seen[1].ended);
	assert_int_equal(seen[0].end_packets, 3);
	assert_int_equal(seen[1].end_packets, 2);
	assert_int_equal(seen[1].bucket_packets, 2);
	rt_an_fanout_free(fo);
}

/* Time passing without records ends the points' buckets too; before any point, nothing is made. */
static void test_ticks(void **state)
{
	struct rt_an_fanout *fo = fanout();
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	rt_an_fanout_tick(fo, 500);
	assert_int_equal(made, 0);
	feed_at(fo, 600, 2, 1);
	assert_int_equal(seen[2].buckets, 0);
	rt_an_fanout_tick(fo, 300); /* earlier: nothing */
	rt_an_fanout_tick(fo, 1500);
	assert_int_equal(seen[2].buckets, 1);
	assert_int_equal(rt_an_fanout_finish(fo, errbuf), 0);
	assert_int_equal(seen[2].end_packets, 1);
	rt_an_fanout_free(fo);
}

/* A point whose sink cannot be made: the failure is told, its records and later points' go nowhere. */
static void test_point_refused(void **state)
{
	struct rt_an_fanout *fo = fanout();
	char errbuf[RT_ERRBUF_SIZE] = "";
	(void)state;

	refuse = 1;
	feed_at(fo, 100, 0, 1);
	feed_at(fo, 200, 1, 1);
	feed_at(fo, 300, 2, 1);
	feed_at(fo, 400, 0, 2);
	assert_int_equal(made, 2);
	assert_int_equal(rt_an_fanout_status(fo, errbuf), -ENOMEM);
	assert_string_equal(errbuf, "vantage point 1: no room");
	errbuf[0] = 0;
	assert_int_equal(rt_an_fanout_finish(fo, errbuf), -ENOMEM);
	assert_string_equal(errbuf, "vantage point 1: no room");
	assert_int_equal(seen[0].end_packets, 2); /* the point made before goes on */
	rt_an_fanout_free(fo);
}

/* A point's sink that fails: the fan-out's status says so (a reader gone away stops the pump). */
static void test_sink_failure(void **state)
{
	struct rt_an_fanout *fo = fanout();
	char errbuf[RT_ERRBUF_SIZE] = "";
	(void)state;

	seen[1].fail_bucket = true;
	feed_at(fo, 100, 0, 1);
	feed_at(fo, 200, 1, 1);
	assert_int_equal(rt_an_fanout_status(fo, NULL), 0);
	feed_at(fo, 1200, 0, 2);
	assert_int_equal(rt_an_fanout_status(fo, errbuf), -EPIPE);
	assert_string_equal(errbuf, "writing: broken pipe");
	assert_int_equal(rt_an_fanout_finish(fo, errbuf), -EPIPE);
	rt_an_fanout_free(fo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_each_point_alone, reset),
	    cmocka_unit_test_setup(test_ticks, reset),
	    cmocka_unit_test_setup(test_point_refused, reset),
	    cmocka_unit_test_setup(test_sink_failure, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

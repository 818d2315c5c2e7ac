/* Unit tests for the vantage-point part: the offset estimator, matching across points, and the path figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/dedup.h"
#include "analyze/vantage.h"

#define T0 1700000000000000000ull
#define W  1000000ull /* the match window: 1 ms */

/* A RoCE packet from host `src` to host `dst` (10.0.0.x) at point `pt`. */
static struct rt_record pkt(unsigned pt, uint8_t src, uint8_t dst, uint8_t opcode, uint32_t psn,
                            uint64_t ts, uint8_t ecn)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.interface_id = pt;
	r.point = (uint16_t)pt;
	r.ts_ns = ts;
	r.kind = RT_KIND_ROCE;
	r.layers = RT_L_IPV4;
	r.ip_version = 4;
	r.ecn = ecn;
	r.ttl = 64;
	uint8_t s[4] = {10, 0, 0, src}, d[4] = {10, 0, 0, dst};
	memcpy(r.src_ip, s, 4);
	memcpy(r.dst_ip, d, 4);
	r.opcode = opcode;
	r.dest_qp = 0x100 + dst;
	r.psn = psn;
	r.payload_len = 256;
	return r;
}

static uint64_t now; /* the stream's time: the latest frame's */

static void feed(struct an_vantage *v, const struct rt_record *r, bool copy)
{
	if (r->ts_ns > now)
		now = r->ts_ns;
	an_vp_frame(v, r, an_dup_fingerprint(r), copy, now);
}

static const struct rt_an_vantage points[2] = {{.name = "a"}, {.name = "b"}};

/* The paths of a and b, from a to b in *ab and the other way in *ba (zeroed when absent); how many. */
static unsigned paths(struct an_vantage *v, struct an_vp_path *ab, struct an_vp_path *ba)
{
	struct an_vp_result r;
	assert_int_equal(an_vp_describe(v, points, 2), 0);
	assert_int_equal(an_vp_compute(v, &r), 0);
	memset(ab, 0, sizeof(*ab));
	memset(ba, 0, sizeof(*ba));
	for (unsigned i = 0; i < r.npaths; i++) {
		if (r.path[i].from == 0)
			*ab = r.path[i];
		else
			*ba = r.path[i];
	}
	unsigned n = r.npaths;
	an_vp_result_free(&r);
	return n;
}

static void test_offset(void **state)
{
	(void)state;
	/* t2 - t1 = 1000 + 300, t4 - t3 = 600 - 300 (delays 1000 and 600, offset 300): (1300 - 300) / 2 = 500 */
	assert_int_equal(an_vp_offset(1300, 300 - 600), 500);
	/* symmetric delays give the offset exactly, either sign */
	assert_int_equal(an_vp_offset(-437300 + 800, -437300 - 800), -437300);
	assert_int_equal(an_vp_offset(437300 + 800, 437300 - 800), 437300);
	/* halves round to the nearest, away from zero */
	assert_int_equal(an_vp_offset(3, 0), 2);
	assert_int_equal(an_vp_offset(-3, 0), -2);
}

/*
 * Data from host 1 to host 2 through a then b (2 us plus queueing), ACKs
 * back through b then a (1 us); b's clock 300 us ahead. A packet b never
 * saw in the middle is lost; one at the end, whose window closed after b's
 * last frame, is not judged.
 */
static void test_two_ways(void **state)
{
	(void)state;
	struct an_vantage v;
	const int64_t off = 300000;
	an_vp_init(&v, true, W);
	uint64_t t = T0;
	for (uint32_t k = 0; k < 200; k++, t += 20000) {
		uint64_t q = (k % 10) * 1000; /* queueing 0..9 us */
		struct rt_record d = pkt(0, 1, 2, 0x04, k, t, 2);
		feed(&v, &d, false);
		if (k == 50)
			continue; /* dropped between a and b */
		struct rt_record e =
		    pkt(1, 1, 2, 0x04, k, t + 2000 + q + (uint64_t)off, k % 4 == 0 ? 3 : 2);
		feed(&v, &e, true);
		if (k % 8 == 7) {
			struct rt_record ack_b =
			    pkt(1, 2, 1, 0x11, k, t + 5000 + q + (uint64_t)off, 2);
			struct rt_record ack_a = pkt(0, 2, 1, 0x11, k, t + 6000 + q, 2);
			feed(&v, &ack_b, false);
			feed(&v, &ack_a, true);
		}
	}
	/* the last one: b's capture ends before its window closes */
	struct rt_record last = pkt(0, 1, 2, 0x04, 999, t, 2);
	feed(&v, &last, false);
	an_vp_finish(&v);
	struct an_vp_path ab, ba;
	assert_int_equal(paths(&v, &ab, &ba), 2);
	assert_true(ab.offset_known);
	/* NTP's estimate: off + (2000 - 1000) / 2 */
	assert_int_equal(ab.offset_ns, off + 500);
	assert_int_equal(ba.offset_ns, -(off + 500));
	assert_int_equal(ab.matched, 199);
	assert_int_equal(ab.lost, 1);
	assert_int_equal(ab.ce_marked, 50); /* k % 4 == 0; k = 50 is not one */
	assert_int_equal(ba.matched, 25);
	assert_int_equal(ba.lost, 0);
	assert_int_equal(ba.ce_marked, 0);
	assert_true(ab.delay_known);
	assert_false(ab.delay_includes_offset);
	assert_int_equal(ab.delay_min, 1500);
	/* delays 2000 + 0..9 us in equal shares: the median 2000 + 4000 or 5000, less the estimate's 500 */
	assert_in_range(ab.delay_median, 5300, 6600);
	assert_in_range(ab.delay_p99, 10000, 10600);
	assert_int_equal(ba.delay_min, 1000 + 500);
	assert_null(ab.offset_null_reason);
	/* which point is upstream for each flow: the data from a to b, the ACKs from b to a */
	struct an_vp_result r;
	assert_int_equal(an_vp_compute(&v, &r), 0);
	const uint8_t h1[16] = {10, 0, 0, 1}, h2[16] = {10, 0, 0, 2}, h3[16] = {10, 0, 0, 3};
	unsigned on[AN_VP_PAIRS];
	assert_int_equal(an_vp_flow_paths(&v, &r, 4, h1, h2, on, NULL), 1);
	assert_int_equal(r.path[on[0]].from, 0);
	assert_int_equal(r.path[on[0]].to, 1);
	assert_int_equal(an_vp_flow_paths(&v, &r, 4, h2, h1, on, NULL), 1);
	assert_int_equal(r.path[on[0]].from, 1);
	assert_int_equal(an_vp_flow_paths(&v, &r, 4, h1, h3, on, NULL), 0);
	an_vp_result_free(&r);
	an_vp_free(&v);
}

/* Traffic one way only: the offset is not measurable; the delays are raw differences, said so. */
static void test_one_way(void **state)
{
	(void)state;
	struct an_vantage v;
	an_vp_init(&v, true, W);
	uint64_t t = T0;
	for (uint32_t k = 0; k < 40; k++, t += 5000) {
		struct rt_record d = pkt(0, 1, 2, 0x04, k, t, 2);
		struct rt_record e =
		    pkt(1, 1, 2, 0x04, k, t + 3000 - 200000, 2); /* b's clock 200 us behind */
		e.ttl = 63;                                      /* a router between them */
		feed(&v, &e, false);
		feed(&v, &d, true);
	}
	an_vp_finish(&v);
	struct an_vp_path ab, ba;
	assert_int_equal(paths(&v, &ab, &ba), 1);
	assert_false(ab.offset_known);
	assert_non_null(ab.offset_null_reason);
	assert_true(ab.delay_known);
	assert_true(ab.delay_includes_offset);
	assert_int_equal(ab.delay_min,
	                 3000 - 200000); /* upstream told by the TTL the router lowered */
	assert_int_equal(ab.matched, 40);
	an_vp_free(&v);
}

/*
 * Identical packets (CNPs to one QP) in flight together pair up in their
 * order; a copy at the same point (mirrored twice) is not a new packet; a
 * loss waits for the other point's next frame when the window closed after
 * its last one.
 */
static void test_identical_and_pending(void **state)
{
	(void)state;
	struct an_vantage v;
	an_vp_init(&v, true, W);
	/* the CNPs: at a at 0 and 4 us, at b 10 us after each */
	struct rt_record c0 = pkt(0, 2, 1, 0x81, 0, T0, 1),
	                 c1 = pkt(0, 2, 1, 0x81, 0, T0 + 4000, 1);
	struct rt_record c0b = pkt(1, 2, 1, 0x81, 0, T0 + 10000, 1),
	                 c1b = pkt(1, 2, 1, 0x81, 0, T0 + 14000, 1);
	feed(&v, &c0, false);
	feed(&v, &c0, true); /* mirrored twice at a */
	feed(&v, &c1, false);
	feed(&v, &c0b, true);
	feed(&v, &c1b, true);
	/* a packet only a saw; b's next frame comes after the window closed, then it is judged lost */
	struct rt_record lone = pkt(0, 2, 1, 0x04, 7, T0 + 20000, 2);
	feed(&v, &lone, false);
	struct rt_record tick = pkt(0, 3, 4, 0x04, 1, T0 + 20000 + W + 1, 2);
	feed(&v, &tick,
	     false); /* the window closed: b's last frame was before it, the judgement waits */
	struct an_vp_path ab, ba;
	paths(&v, &ab, &ba);
	assert_int_equal(ab.lost, 0);
	struct rt_record bnext = pkt(1, 3, 4, 0x04, 2, T0 + 20000 + W + 5, 2);
	feed(&v, &bnext, true);
	an_vp_finish(&v);
	paths(&v, &ab, &ba);
	assert_int_equal(ab.matched, 2);
	assert_int_equal(ab.delay_min,
	                 10000); /* one way only: raw differences, each CNP with its own copy */
	assert_int_equal(ab.delay_p99, 10000);
	assert_int_equal(ab.lost, 1);
	an_vp_free(&v);
}

/* One point, or points that never saw a packet in common: no path, or a path with nothing on it. */
static void test_nothing_in_common(void **state)
{
	(void)state;
	struct an_vantage v;
	an_vp_init(&v, true, W);
	struct rt_record a = pkt(0, 1, 2, 0x04, 1, T0, 2), b = pkt(1, 3, 4, 0x04, 1, T0 + 10, 2);
	feed(&v, &a, false);
	struct an_vp_path ab, ba;
	assert_int_equal(paths(&v, &ab, &ba), 0);
	feed(&v, &b, false);
	an_vp_finish(&v);
	assert_int_equal(paths(&v, &ab, &ba), 1);
	assert_int_equal(ab.matched, 0);
	assert_false(ab.offset_known);
	assert_false(ab.delay_known);
	assert_non_null(ab.delay_null_reason);
	an_vp_free(&v);
	/* off: nothing is kept */
	an_vp_init(&v, false, W);
	assert_false(v.on);
	an_vp_free(&v);
}

/*
 * A second point first seen after a's 100th packet (packets 20 us apart,
 * the 1 ms window holding a's last 50) matches the packets of the window
 * before it: they waited, unmatched, until it came. A copy at a (mirrored
 * twice) waited once; packets whose window closed before b came match
 * nothing; b is not judged to have lost what came before its first frame.
 * Told no second point can come, a keeps nothing waiting.
 */
static void test_second_point_late(void **state)
{
	(void)state;
	for (int told_alone = 0; told_alone < 2; told_alone++) {
		struct an_vantage v;
		now = 0;
		an_vp_init(&v, true, W);
		v.alone = told_alone;
		for (uint32_t k = 0; k < 100; k++) {
			struct rt_record d = pkt(0, 1, 2, 0x04, k, T0 + k * 20000, 2);
			feed(&v, &d, false);
		}
		struct rt_record c = pkt(0, 1, 2, 0x04, 99, T0 + 99 * 20000 + 100, 2);
		feed(&v, &c, true);
		/* b: packets 60..99 5 us after a (99 twice: the second is a packet of its own), then 0..9 */
		for (uint32_t k = 60; k < 100; k++) {
			struct rt_record e = pkt(1, 1, 2, 0x04, k, T0 + k * 20000 + 5000, 3);
			feed(&v, &e, false);
			if (k == 99)
				feed(&v, &e, false);
		}
		for (uint32_t k = 0; k < 10; k++) {
			struct rt_record e = pkt(1, 1, 2, 0x04, k, T0 + k * 20000 + 5000, 2);
			feed(&v, &e, false);
		}
		an_vp_finish(&v);
		struct an_vp_path ab, ba;
		if (told_alone) {
			paths(&v, &ab, &ba);
			assert_int_equal(ab.matched, 0);
			an_vp_free(&v);
			continue;
		}
		assert_int_equal(paths(&v, &ab, &ba), 1);
		assert_int_equal(ab.matched, 40);
		assert_int_equal(ab.ce_marked, 40);
		assert_int_equal(ab.lost, 0);
		assert_true(ab.delay_known);
		assert_int_equal(ab.delay_min, 5000);
		assert_int_equal(ab.delay_p99, 5000);
		an_vp_free(&v);
	}
}

/* Frames of a point beyond the 8 followed: the analyzer's warning says the paths miss them. */
static void test_warning(void **state)
{
	(void)state;
	char eb[RT_ERRBUF_SIZE];
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = true; /* points beyond the 8 followed too */
	o.vantage_clocks = true;
	struct rt_analyzer *an = rt_analyzer_new(&o, eb);
	assert_non_null(an);
	for (uint32_t pt = 0; pt <= RT_AN_VANTAGE_MAX; pt++) {
		struct rt_record r = pkt(pt, 1, 2, 0x04, 5, T0 + pt * 1000, 2);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(rt_analyzer_finish(an, eb), 0);
	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned n = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	bool found = false;
	for (unsigned i = 0; i < n && i < RT_AN_WARNINGS_MAX; i++) {
		if (strcmp(w[i].code, "vantage_incomplete"))
			continue;
		found = true;
		assert_string_equal(w[i].values[0].name, "frames_beyond");
		assert_int_equal(w[i].values[0].value, 1);
	}
	assert_true(found);
	rt_analyzer_free(an);
}

static int reset(void **state)
{
	(void)state;
	now = 0;
	return 0;
}

/*
 * 4000 packets from host 1 to host 2 through a then b, each a different PSN;
 * at b every packet is CE and its TTL one less, every 100th dropped; with
 * --vantage-sample k/m its paths.
 */
static void sampled_run(uint32_t k, uint32_t m, struct an_vp_path *ab)
{
	struct an_vantage v;
	struct an_vp_path ba;
	an_vp_init(&v, true, W);
	an_vp_sample(&v, k, m);
	now = 0;
	uint64_t t = T0;
	for (uint32_t n = 0; n < 4000; n++, t += 2000) {
		struct rt_record d = pkt(0, 1, 2, 0x04, n, t, 2);
		feed(&v, &d, false);
		if (n % 100 == 99)
			continue;
		struct rt_record e = pkt(1, 1, 2, 0x04, n, t + 1000, 3);
		e.ttl = 63;
		feed(&v, &e, true);
	}
	struct rt_record end =
	    pkt(1, 2, 1, 0x11, 0, t + 20 * W, 2); /* b captures past every window */
	feed(&v, &end, false);
	an_vp_finish(&v);
	paths(&v, ab, &ba);
	an_vp_free(&v);
}

/*
 * Trajectory sampling: both points keep the same packets though a hop
 * changed their ECN and TTL (no packet sampled at a only, called lost);
 * about k/m of them, a sample of one m holding the smaller k's; 0 or k >= m
 * is every packet.
 */
static void test_sampling(void **state)
{
	(void)state;
	struct an_vp_path all, one, two, same;
	sampled_run(1, 1, &all);
	assert_int_equal(all.matched, 3960);
	assert_int_equal(all.lost, 40);
	assert_int_equal(all.sample_m, 1);
	sampled_run(0, 8, &same);
	assert_int_equal(same.matched, all.matched);
	assert_int_equal(same.sample_k, 1);
	assert_int_equal(same.sample_m, 1);
	sampled_run(1, 8, &one);
	sampled_run(2, 8, &two);
	assert_int_equal(one.sample_k, 1);
	assert_int_equal(one.sample_m, 8);
	/* 3960 / 8 = 495, sd 20.8: within 5 sd */
	assert_in_range(one.matched, 495 - 104, 495 + 104);
	assert_in_range(two.matched, 990 - 136, 990 + 136);
	assert_true(one.matched <= two.matched && one.lost <= two.lost);
	assert_true(two.lost <= all.lost);
	assert_int_equal(one.ce_marked, one.matched); /* every matched packet became CE at b */
	assert_int_equal(one.judged, one.matched + one.lost);
	assert_int_equal(one.offset_ns, all.offset_ns);
	assert_int_equal(one.delay_min, all.delay_min);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_offset, reset),
	    cmocka_unit_test_setup(test_two_ways, reset),
	    cmocka_unit_test_setup(test_one_way, reset),
	    cmocka_unit_test_setup(test_identical_and_pending, reset),
	    cmocka_unit_test_setup(test_nothing_in_common, reset),
	    cmocka_unit_test_setup(test_second_point_late, reset),
	    cmocka_unit_test_setup(test_sampling, reset),
	    cmocka_unit_test(test_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the PFC/PAUSE merge: parts split by host pair, by time or by capture point (sending MACs) merged into what one pass holds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/merge_split.h"
#include "tests/analyze/records.h"

static const char *scenario_dir;

#define GBPS    1000000000ull
#define FULL_Q  0xffff    /* quanta: 33.554 ms at 1 Gb/s, a storm at the 10 ms threshold */
#define FULL_NS 33553920u /* FULL_Q's pause at 1 Gb/s */

/* The PFC state of the merged analyzer (got) is one pass's (want), every figure a renderer or finding reads. */
static void same_pfc(const struct an_pfc *got, const struct an_pfc *want)
{
	assert_int_equal(got->nmacs, want->nmacs);
	for (uint32_t i = 0; i < want->nmacs; i++) {
		const struct an_pfc_mac *g = &got->macs[i], *w = &want->macs[i];
		assert_memory_equal(g->mac, w->mac, 6);
		assert_int_equal(g->points, w->points);
		assert_int_equal(g->first_ts, w->first_ts);
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *gc = &g->cls[c], *wc = &w->cls[c];
			assert_int_equal(gc->xoff, wc->xoff);
			assert_int_equal(gc->xon, wc->xon);
			assert_int_equal(gc->storms, wc->storms);
			assert_int_equal(gc->paused_ns, wc->paused_ns);
			assert_int_equal(gc->first_xoff, wc->first_xoff);
			assert_int_equal(gc->longest_start, wc->longest_start);
			assert_int_equal(gc->longest_ns, wc->longest_ns);
		}
	}
	assert_memory_equal(got->xoff, want->xoff, sizeof(want->xoff));
	assert_memory_equal(got->xon, want->xon, sizeof(want->xon));
	assert_memory_equal(got->paused_ns, want->paused_ns, sizeof(want->paused_ns));
	assert_int_equal(got->pfc_frames, want->pfc_frames);
	assert_int_equal(got->pause_frames, want->pause_frames);
	assert_int_equal(got->last_run_end, want->last_run_end);
	assert_int_equal(got->nstorms, want->nstorms);
	for (uint32_t i = 0; i < want->nstorms; i++) {
		assert_memory_equal(got->storms[i].mac, want->storms[i].mac, 6);
		assert_int_equal(got->storms[i].cls, want->storms[i].cls);
		assert_int_equal(got->storms[i].start, want->storms[i].start);
		assert_int_equal(got->storms[i].end, want->storms[i].end);
	}
	assert_int_equal(got->ninc, want->ninc);
	assert_int_equal(got->inc_beyond, want->inc_beyond);
	for (uint32_t i = 0; i < want->ninc; i++) {
		const struct an_incident *g = &got->inc[i], *w = &want->inc[i];
		assert_int_equal(g->cls, w->cls);
		assert_int_equal(g->start, w->start);
		assert_int_equal(g->end, w->end);
		assert_int_equal(g->nmacs, w->nmacs);
		assert_int_equal(g->macs_total, w->macs_total);
		for (uint32_t k = 0; k < w->nmacs; k++) {
			assert_memory_equal(g->macs[k].mac, w->macs[k].mac, 6);
			assert_int_equal(g->macs[k].first, w->macs[k].first);
			assert_int_equal(g->macs[k].paused, w->macs[k].paused);
			assert_int_equal(g->macs[k].longest, w->macs[k].longest);
		}
	}
}

/*
 * Frames r[] to one analyzer and frame by frame to two parts (frame i to
 * part[i]), at 1 Gb/s; part 1 merged into part 0 reports and holds what
 * one pass does. Returns the one pass (the caller frees it).
 */
static struct rt_analyzer *merged_equals_one_pass(const char *name, const struct rt_record *r,
                                                  const unsigned *part, unsigned n)
{
	struct rt_analyzer *one = new_an(GBPS), *p[2] = {new_an(GBPS), new_an(GBPS)};
	feed_macs(one, p, 2, r, part, n);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), 0);
	same_report(name, one, p[0]);
	same_pfc(&p[0]->pfc, &one->pfc);
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
	return one;
}

/* A PFC frame from the MAC ending in `mac` at ts: quanta q on class c (0: an XON). */
static struct rt_record pause_of(uint8_t mac, uint64_t ts, unsigned c, uint16_t q)
{
	uint16_t quanta[8] = {0};
	quanta[c] = q;
	struct rt_record r = pfc_rec(ts, (uint16_t)(1u << c), quanta);
	r.src_mac[5] = mac;
	return r;
}

/* PFC and PAUSE frames (no IP) all in the first part, which gets the flows of one host pair: as one pass. */
static void test_pfc_pause(void **state)
{
	(void)state;
	split_merge(scenario_dir, "pfc.pcap", 0, 0);
	split_merge(scenario_dir, "pause.pcap", 0, 0);
}

/*
 * PFC frames all in the part merged in (src), the flows of one host pair
 * in the other: the storm incident, the pause a flow of dst stalled in and
 * the findings they make are one pass's.
 */
static void test_pfc_src_only(void **state)
{
	(void)state;
	static const char *const names[] = {"pfc.pcap", "pause.pcap"};
	for (unsigned i = 0; i < 2; i++) {
		struct rt_analyzer *one = new_an(0), *two[2] = {new_an(0), new_an(0)};
		assert_int_equal(feed_scenario(scenario_dir, names[i], one, two, 1), i ? 0 : 2);
		assert_int_equal(two[0]->pfc.pfc_frames + two[0]->pfc.pause_frames, 0);
		char errbuf[RT_ERRBUF_SIZE];
		assert_int_equal(rt_analyzer_merge(two[0], two[1], errbuf), 0);
		same_report(names[i], one, two[0]);
		same_pfc(&two[0]->pfc, &one->pfc);
		assert_int_equal(one->pfc.ninc, i ? 0 : 1); /* pfc.pcap: a storm on priority 4 */
		rt_analyzer_free(one);
		rt_analyzer_free(two[0]);
		rt_analyzer_free(two[1]);
	}
}

/*
 * Two capture points, each seeing the frames of its own MACs: MAC 0b (part
 * 1) pauses priority 3 first, MAC 0a (part 0) joins and pauses longest,
 * one incident of both; on priority 5 their storms overlap (MAC 0b's, the
 * later, ends first: one pass lists the pauses that end between two frames
 * by MAC, the merge by their end); MAC 0a's short pause of priority 4 is no
 * storm; MAC 0b's last storm is its own.
 */
static void test_pfc_points_overlap(void **state)
{
	(void)state;
	const struct rt_record r[] = {pause_of(0x0b, T0, 3, FULL_Q),
	                              pause_of(0x0a, T0 + 20 * MS, 4, 100),
	                              pause_of(0x0b, T0 + 25 * MS, 3, FULL_Q),
	                              pause_of(0x0a, T0 + 40 * MS, 3, FULL_Q),
	                              pause_of(0x0b, T0 + 50 * MS, 3, 0),
	                              pause_of(0x0a, T0 + 70 * MS, 3, FULL_Q),
	                              pause_of(0x0a, T0 + 300 * MS, 5, FULL_Q),
	                              pause_of(0x0b, T0 + 310 * MS, 5, 40000),
	                              pause_of(0x0b, T0 + 400 * MS, 3, FULL_Q)};
	static const unsigned part[] = {1, 0, 1, 0, 1, 0, 0, 1, 1};
	struct rt_analyzer *one = merged_equals_one_pass("points", r, part, 9);
	const struct an_pfc *p = &one->pfc;
	assert_int_equal(p->ninc, 3);
	assert_int_equal(p->inc[0].macs_total, 2);
	assert_int_equal(p->inc[0].macs[0].mac[5], 0x0b); /* first to pause */
	assert_int_equal(p->inc[0].macs[1].longest, 70 * MS + FULL_NS - 40 * MS);
	assert_int_equal(p->inc[1].cls, 5);
	assert_int_equal(p->inc[1].macs_total, 2);
	assert_int_equal(p->macs[0].mac[5], 0x0b);
	rt_analyzer_free(one);
}

/*
 * Split by time, the earlier second in the part merged in: MAC 0a storms
 * on priority 3 in both (its first XOFF in src, its longest pause in dst),
 * MAC 0b pauses briefly in src only, MAC 0c storms on priority 4 (ended by
 * an XON) in dst only.
 */
static void test_pfc_time_split(void **state)
{
	(void)state;
	const uint64_t s = T0 + 1000 * MS;
	const struct rt_record r[] = {
	    pause_of(0x0a, T0, 3, FULL_Q),           pause_of(0x0a, T0 + 20 * MS, 3, FULL_Q),
	    pause_of(0x0b, T0 + 200 * MS, 3, 1000),  pause_of(0x0a, s, 3, FULL_Q),
	    pause_of(0x0a, s + 20 * MS, 3, FULL_Q),  pause_of(0x0a, s + 40 * MS, 3, FULL_Q),
	    pause_of(0x0c, s + 100 * MS, 4, FULL_Q), pause_of(0x0c, s + 110 * MS, 4, 0)};
	static const unsigned part[] = {1, 1, 1, 0, 0, 0, 0, 0};
	struct rt_analyzer *one = merged_equals_one_pass("time", r, part, 8);
	const struct an_pfc_class *a = &one->pfc.macs[0].cls[3];
	assert_int_equal(a->first_xoff, T0);
	assert_int_equal(a->longest_start, s);
	assert_int_equal(one->pfc.ninc, 3);
	rt_analyzer_free(one);
}

#define CAP_STORMS 140 /* storms of two MACs, one after the other: 70 incidents a part */

/* The parts past AN_INCIDENTS_MAX each: the first 64 incidents by their end kept, the others counted. */
static void test_pfc_incidents_cap(void **state)
{
	(void)state;
	struct rt_record r[CAP_STORMS];
	unsigned part[CAP_STORMS];
	for (unsigned k = 0; k < CAP_STORMS; k++) {
		part[k] = k % 2;
		r[k] = pause_of((uint8_t)(0x0a + k % 2), T0 + k * 100 * MS, 3, FULL_Q);
	}
	struct rt_analyzer *one = merged_equals_one_pass("cap", r, part, CAP_STORMS);
	assert_int_equal(one->pfc.ninc, AN_INCIDENTS_MAX);
	assert_int_equal(one->pfc.inc_beyond, CAP_STORMS - AN_INCIDENTS_MAX);
	rt_analyzer_free(one);
}

/*
 * What the merge cannot know, as analyze/README.md says it: MAC 0b's short
 * pause (part 1) inside MAC 0a's storm (part 0) was in no storm incident of
 * its part, so the merged incident lacks it; MAC 0c, seen at both points,
 * pauses priority 4 in both, overlapping: one pass follows one pause, the
 * merge sums the two parts' paused time.
 */
static void test_pfc_unknown_to_merge(void **state)
{
	(void)state;
	const struct rt_record r[] = {
	    pause_of(0x0a, T0, 3, FULL_Q), pause_of(0x0b, T0 + 10 * MS, 3, 1000),
	    pause_of(0x0c, T0 + 100 * MS, 4, FULL_Q), pause_of(0x0c, T0 + 110 * MS, 4, FULL_Q)};
	static const unsigned part[] = {0, 1, 0, 1};
	struct rt_analyzer *one = new_an(GBPS), *p[2] = {new_an(GBPS), new_an(GBPS)};
	feed_macs(one, p, 2, r, part, 4);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), 0);
	const struct an_pfc *m = &p[0]->pfc, *w = &one->pfc;
	assert_int_equal(m->ninc, 2);
	assert_int_equal(w->inc[0].macs_total, 2);
	assert_int_equal(m->inc[0].macs_total, 1); /* MAC 0b's pause: not kept by part 1 */
	assert_int_equal(m->inc[0].end, w->inc[0].end);
	assert_int_equal(m->inc[1].start, w->inc[1].start); /* the two parts' incidents joined */
	assert_int_equal(m->inc[1].end, w->inc[1].end);
	assert_int_equal(m->inc[1].macs_total, 1);
	assert_int_equal(w->paused_ns[4], 10 * MS + FULL_NS);
	assert_int_equal(m->paused_ns[4], 2 * FULL_NS); /* the overlap once per part */
	assert_int_equal(m->macs[2].cls[4].paused_ns, 2 * FULL_NS);
	assert_int_equal(m->inc[1].macs[0].paused, 2 * FULL_NS);
	assert_int_equal(m->macs[2].cls[4].longest_ns, FULL_NS);
	assert_int_equal(w->macs[2].cls[4].longest_ns, 10 * MS + FULL_NS);
	rt_analyzer_free(one);
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
}

/* An analyzer with a pause still running is refused whole, before anything of it moves into dst. */
static void test_pfc_running_refused(void **state)
{
	(void)state;
	struct rt_analyzer *p[2] = {new_an(GBPS), new_an(GBPS)};
	const uint16_t q[8] = {[3] = 65535};
	struct rt_record a = pfc_rec(T0, 1u << 3, q), b = pfc_rec(T0 + MS, 1u << 3, q);
	rt_analyzer_feed_frame(p[0], &a, 1);
	assert_int_equal(finish(p[0]), 0);
	rt_analyzer_feed_frame(p[1], &b, 1); /* not finished: its pause runs */
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "pause still running"));
	assert_int_equal(p[0]->tot.c.packets, 1);
	assert_int_equal(p[0]->pfc.pfc_frames, 1);
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
}

/* One sending MAC and class in both parts: counts and paused time summed, storms in the order of their ends. */
static void test_pfc_rule(void **state)
{
	(void)state;
	struct rt_analyzer *p[2] = {new_an(GBPS), new_an(GBPS)};
	const uint16_t q[8] = {[3] = 65535};
	for (unsigned i = 0; i < 2; i++) {
		uint64_t t = T0 + i * 500 * MS;
		for (unsigned k = 0; k < 40; k++) { /* 160 ms of continuous pause: a storm */
			struct rt_record r = pfc_rec(t + k * 4 * MS, 1u << 3, q);
			rt_analyzer_feed_frame(p[i], &r, 1 + i * 40 + k);
		}
		assert_int_equal(finish(p[i]), 0);
	}
	uint64_t paused = p[0]->pfc.paused_ns[3] + p[1]->pfc.paused_ns[3];
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), 0);
	const struct an_pfc *m = &p[0]->pfc;
	assert_int_equal(m->nmacs, 1);
	assert_int_equal(m->macs[0].cls[3].xoff, 80);
	assert_int_equal(m->macs[0].cls[3].storms, 2);
	assert_int_equal(m->paused_ns[3], paused);
	assert_int_equal(m->pfc_frames, 80);
	assert_int_equal(m->nstorms, 2);
	assert_true(m->storms[0].end < m->storms[1].end);
	assert_int_equal(p[0]->tot.c.packets, 80);
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
}

/*
 * A MAC of both parts, one pause of the same length in each (vantage
 * point 0 and frame 1 in a, point 1 and frame 5 in b, 100 ms later),
 * merged either way: points united, the earlier first XOFF, the earlier of
 * the equal longest pauses, the later frame's note, the later end of a
 * pause, the incidents by their ends; a part with a pause running does not
 * merge.
 */
static void test_pfc_mac_rule(void **state)
{
	(void)state;
	for (unsigned way = 0; way < 2; way++) {
		struct an_pfc pf[2];
		for (unsigned i = 0; i < 2; i++) {
			an_pfc_init(&pf[i], GBPS, 10 * MS, NULL);
			struct rt_record r = pause_of(0x0a, T0 + i * 100 * MS, 3, FULL_Q);
			struct rt_an_note note = {.frame = 1 + 4 * i};
			an_pfc_frame(&pf[i], &r, r.ts_ns, (int)i, &note);
		}
		struct an_pfc *dst = &pf[way], *src = &pf[!way];
		assert_int_equal(an_pfc_merge(dst, src), -EINVAL);
		an_pfc_advance(&pf[0], UINT64_MAX);
		an_pfc_advance(&pf[1], UINT64_MAX);
		assert_int_equal(an_pfc_merge(dst, src), 0);
		assert_int_equal(dst->nmacs, 1);
		const struct an_pfc_mac *m = &dst->macs[0];
		const struct an_pfc_class *c = &m->cls[3];
		assert_int_equal(m->points, 3);
		assert_int_equal(m->first_ts, T0);
		assert_int_equal(c->first_xoff, T0);
		assert_int_equal(c->longest_start, T0);
		assert_int_equal(c->longest_ns, FULL_NS);
		assert_int_equal(c->note_frame, 5);
		assert_int_equal(c->note_ts, T0 + 100 * MS);
		assert_int_equal(dst->last_run_end, T0 + 100 * MS + FULL_NS);
		assert_int_equal(dst->ninc, 2);
		assert_true(dst->inc[0].start == T0 && dst->inc[1].start == T0 + 100 * MS);
		an_pfc_free(&pf[0]);
		an_pfc_free(&pf[1]);
	}
}

int main(int argc, char **argv)
{
	if (!(scenario_dir = scenario_dir_arg(argc, argv)))
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pfc_pause),
	    cmocka_unit_test(test_pfc_src_only),
	    cmocka_unit_test(test_pfc_points_overlap),
	    cmocka_unit_test(test_pfc_time_split),
	    cmocka_unit_test(test_pfc_incidents_cap),
	    cmocka_unit_test(test_pfc_rule),
	    cmocka_unit_test(test_pfc_running_refused),
	    cmocka_unit_test(test_pfc_mac_rule),
	    cmocka_unit_test(test_pfc_unknown_to_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

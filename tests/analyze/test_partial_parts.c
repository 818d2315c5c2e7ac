/* Unit tests of the partials' merge parts (paths, PFC, MACs, episodes, capture facts): two points analyzed alone, merged, against one pass over both. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/analyze/partial_fixture.h"

/*
 * Data from host 1 to host 2 through a, then b (b's clock OFF ahead; queueing
 * 0..9 us), ACKs back through b then a: a few packets lost between them, a
 * quarter CE-marked on the way, b capturing from a little after a to a
 * little before it ends. Every tenth packet a CNP back to host 1's QP.
 */
static void paths_scenario(struct scen *s, bool cnps)
{
	s->n = 0;
	uint64_t t = T0;
	for (uint32_t k = 0; k < 600; k++, t += 20000) {
		uint64_t q = (k % 10) * 1000, tb = t + 2000 + q + OFF;
		struct rt_record d =
		    roce(t, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, k);
		add(s, d, 0);
		bool b_on = k >= 20 && k < 580;
		if (b_on && k % 97 != 50) {
			d.ts_ns = tb;
			if (k % 4 == 0)
				d.ecn = 3;
			d.ttl = 63;
			add(s, d, 1);
		}
		if (k % 8 == 7) {
			struct rt_record a2 = ack(tb + 3000, 0x0a000002, 0x0a000001, 0x34, k, 0);
			if (b_on)
				add(s, a2, 1);
			a2.ts_ns = tb + 3000 + 1000 - OFF;
			add(s, a2, 0);
		}
		if (cnps && k % 10 == 0 && b_on) {
			struct rt_record c =
			    roce(tb + 4000, 0x0a000002, 0x0a000001, RT_OPCODE_CNP, 0x34, 0);
			add(s, c, 1);
			c.ts_ns = tb + 5000 - OFF;
			add(s, c, 0);
		}
	}
}

static void paths_at(uint32_t k, uint32_t m)
{
	paths_scenario(&sc, true);
	merged(k, m, an_pm_paths);
	same_paths(&fx.m.out->r, fx.want);
	/* the scenario's figures: the data's path lost some, saw CE set, judged the edges apart */
	const struct rt_res_path *ab = &fx.want->paths[0];
	assert_string_equal(ab->from, "a");
	assert_true(ab->matched > 0);
	if (m == 1) {
		assert_int_equal(ab->lost, 6); /* k % 97 == 50 within b's span */
		assert_true(ab->ce_marked > 100);
		assert_true(ab->not_judged > 0);
	}
	fixture_free(&fx);
}

static void test_paths_every_packet(void **state)
{
	(void)state;
	paths_at(1, 1);
}

static void test_paths_sampled(void **state)
{
	(void)state;
	paths_at(1, 4);
}

/* A frame other than RoCE (one the partial keeps nothing of) at `point`. */
static void other_at(struct scen *s, uint64_t ts, unsigned point)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 60;
	r.kind = RT_KIND_OTHER;
	r.layers = RT_L_ETH;
	add(s, r, point);
}

/*
 * The points' capture spans are their frames', not their packets': a sees
 * host 1's packets for 1 ms, then other frames only, and b starts 20 ms
 * later (past the window: those packets count neither way); both see
 * packets both ways from 21 to 30 ms, b missing the last ten of a's, and
 * other frames until 35 ms at b (they were lost: b was capturing).
 */
static void test_paths_edges(void **state)
{
	(void)state;
	sc.n = 0;
	for (uint32_t k = 0; k < 50; k++)
		add(&sc,
		    roce(T0 + k * 20000, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, k),
		    0);
	for (uint64_t t = T0 + 1000000; t <= T0 + 40000000; t += 1000000)
		other_at(&sc, t, 0);
	for (uint64_t t = T0 + 20000000; t <= T0 + 35000000; t += 1000000)
		other_at(&sc, t + OFF, 1);
	for (uint32_t k = 0; k < 450; k++) {
		uint64_t t = T0 + 21000000 + k * 20000;
		struct rt_record d =
		    roce(t, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, 100 + k);
		add(&sc, d, 0);
		if (k < 440) {
			d.ts_ns = t + 2000 + OFF;
			add(&sc, d, 1);
		}
		if (k % 8 == 7) {
			struct rt_record a2 =
			    ack(t + 5000 + OFF, 0x0a000002, 0x0a000001, 0x34, k, 0);
			add(&sc, a2, 1);
			a2.ts_ns = t + 7000;
			add(&sc, a2, 0);
		}
	}
	merged(1, 1, an_pm_paths);
	same_paths(&fx.m.out->r, fx.want);
	assert_string_equal(fx.want->paths[0].from, "a");
	assert_int_equal(fx.want->paths[0].lost, 10);
	assert_int_equal(fx.want->paths[0].matched, 440);
	fixture_free(&fx);
}

/* Episodes of CE marks seen at b only: one pass's (start, end, counts, flows), peak and rates null. */
static void test_episodes(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	merged(1, 1, an_pm_episodes);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_true(want->nepisodes > 0);
	assert_int_equal(got->nepisodes, want->nepisodes);
	for (uint32_t i = 0; i < want->nepisodes; i++) {
		const struct rt_res_episode *g = &got->episodes[i], *w = &want->episodes[i];
		assert_int_equal(g->start_ns, w->start_ns);
		assert_int_equal(g->end_ns, w->end_ns);
		assert_int_equal(g->ce, w->ce);
		assert_int_equal(g->cnp, w->cnp);
		assert_int_equal(g->flow_count, w->flow_count);
		assert_int_equal(g->nflows, w->nflows);
		assert_memory_equal(g->flows, w->flows, w->nflows * sizeof(w->flows[0]));
		assert_true(isnan(g->peak_ce_per_s));
		assert_true(isnan(g->gbps_before) && isnan(g->gbps_during) && isnan(g->gbps_after));
	}
	for (uint32_t id = 0; id < want->nflows; id++)
		assert_int_equal(got->flows[id].in_episodes, want->flows[id].in_episodes);
	fixture_free(&fx);
}

/* The CNPs the merged episodes count, and one pass's. */
static void episode_cnps(uint64_t *got, uint64_t *want)
{
	*got = *want = 0;
	for (uint32_t i = 0; i < fx.m.out->r.nepisodes; i++)
		*got += fx.m.out->r.episodes[i].cnp;
	for (uint32_t i = 0; i < fx.want->nepisodes; i++)
		*want += fx.want->episodes[i].cnp;
}

/*
 * A CNP seen at both points: counted at each when the partials do not keep
 * the CNPs (one pass's twice), once when they do.
 */
static void test_episodes_cnp(void **state)
{
	(void)state;
	uint64_t got, want;
	paths_scenario(&sc, true);
	merged(1, 1, an_pm_episodes);
	episode_cnps(&got, &want);
	assert_true(want > 0);
	assert_int_equal(got, 2 * want);
	fixture_free(&fx);
	keep_cnps = true;
	merged(1, 1, an_pm_episodes);
	keep_cnps = false;
	episode_cnps(&got, &want);
	assert_int_equal(got, want);
	assert_int_equal(fx.m.out->r.nepisodes, fx.want->nepisodes);
	assert_int_equal(fx.m.out->r.episodes[0].start_ns, fx.want->episodes[0].start_ns);
	fixture_free(&fx);
}

/* CE marks made before a, seen at both points: each counted once, where first seen. */
static void test_episodes_ce_twice(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	for (unsigned i = 0; i < sc.n; i++)
		if (sc.r[i].opcode == RT_OPCODE_RC_SEND_ONLY && sc.r[i].psn % 4 == 0)
			sc.r[i].ecn = 3;
	merged(1, 1, an_pm_episodes);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_true(want->nepisodes > 0);
	assert_int_equal(got->nepisodes, want->nepisodes);
	for (uint32_t i = 0; i < want->nepisodes; i++) {
		assert_int_equal(got->episodes[i].start_ns, want->episodes[i].start_ns);
		assert_true(got->episodes[i].end_ns >= want->episodes[i].end_ns);
		assert_int_equal(got->episodes[i].ce, want->episodes[i].ce);
	}
	fixture_free(&fx);
}

/* A PFC frame of MAC ..:mac (priority 3, quanta q) at `point`. */
static void pfc_at(struct scen *s, uint64_t ts, uint8_t mac, uint16_t q, unsigned point)
{
	const uint16_t quanta[8] = {0, 0, 0, q, 0, 0, 0, 0};
	struct rt_record r = pfc_rec(ts, 1u << 3, quanta);
	r.src_mac[5] = mac;
	add(s, r, point);
}

/*
 * The switch pauses host 1 (seen at a, MAC ..:0a) and host 2 (seen at b,
 * MAC ..:0b): storms of priority 3 (quanta 0xffff at 1 Gb/s, 33 ms, over
 * the 1 ms threshold) and short pauses; RoCE traffic both ways gives the
 * MAC table (hosts' MACs at both points).
 */
static void pfc_scenario(struct scen *s)
{
	paths_scenario(s, false);
	for (unsigned i = 0; i < s->n; i++) { /* the hosts' MACs, the same at both points */
		s->r[i].src_mac[5] = (uint8_t)(0x10 + s->r[i].src_ip[3]);
		s->r[i].dst_mac[5] = (uint8_t)(0x10 + s->r[i].dst_ip[3]);
	}
	pfc_at(s, T0 + 100000, 0x0a, 0xffff, 0);
	pfc_at(s, T0 + 2000000, 0x0a, 0, 0);
	pfc_at(s, T0 + 3000000 + OFF, 0x0b, 0xffff, 1);
	pfc_at(s, T0 + 3500000 + OFF, 0x0b, 0xffff, 1);
	pfc_at(s, T0 + 6000000 + OFF, 0x0b, 0, 1);
	pfc_at(s, T0 + 9000000, 0x0a, 100, 0);
	pfc_at(s, T0 + 11000000 + OFF, 0x0b, 100, 1);
}

static void test_pfc_one_point_each(void **state)
{
	(void)state;
	pfc_scenario(&sc);
	merged(1, 1, an_pm_pfc);
	assert_int_equal(fx.want->npfc_sources, 2);
	assert_int_equal(fx.want->nstorms, 2);
	same_pfc(&fx.m.out->r, fx.want);
	fixture_free(&fx);
}

/* One MAC's PFC frames at both points (a link tapped twice): frames counted at each, paused time an upper bound. */
static void test_pfc_both_points(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	pfc_at(&sc, T0 + 100000, 0x0a, 0xffff, 0);
	pfc_at(&sc, T0 + 100000 + OFF, 0x0a, 0xffff, 1);
	pfc_at(&sc, T0 + 2000000, 0x0a, 0, 0);
	pfc_at(&sc, T0 + 2000000 + OFF, 0x0a, 0, 1);
	merged(1, 1, an_pm_pfc);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_int_equal(got->pfc[3].xoff, want->pfc[3].xoff);
	assert_int_equal(got->pfc[3].xon, want->pfc[3].xon);
	assert_int_equal(got->npfc_sources, 1);
	assert_int_equal(got->pfc_sources[0].points.nwords, 1);
	assert_int_equal(got->pfc_sources[0].points.words[0], 3);
	same_points(&got->pfc_sources[0].points, &want->pfc_sources[0].points);
	assert_int_equal(got->pfc_sources[0].first_xoff_ns, want->pfc_sources[0].first_xoff_ns);
	assert_true(got->pfc[3].paused_ns >= want->pfc[3].paused_ns);
	assert_int_equal(got->pfc[3].paused_ns, 2 * (2000000 - 100000));
	fixture_free(&fx);
}

/* The MAC table: each MAC's points, sources, frames and IP are one pass's. */
static void test_macs(void **state)
{
	(void)state;
	pfc_scenario(&sc);
	merged(1, 1, an_pm_macs);
	assert_int_equal(fx.want->nmacs, 4);
	same_macs(&fx.m.out->r, fx.want);
	fixture_free(&fx);
}

/* Capture facts: counts summed, each point's warning said as its own. */
static void test_capture(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	for (unsigned i = 0; i < sc.n; i++)
		if (sc.r[i].point == 1 && i % 50 == 0) { /* b's snap length cut some ICRCs */
			sc.r[i].events |= RT_EV_ICRC_TRUNCATED;
			sc.r[i].caplen = sc.r[i].wirelen - 4;
		}
	b_if_dropped = 7;
	merged(1, 1, an_pm_capture);
	b_if_dropped = 0;
	const struct rt_results *got = &fx.m.out->r;
	assert_string_equal(got->drops_source, "pcapng");
	assert_int_equal(got->if_dropped, 7);
	assert_int_equal(got->os_dropped, 2);
	assert_true(got->icrc_unchecked > 0);
	assert_int_equal(got->icrc_unchecked, fx.want->icrc_unchecked);
	assert_int_equal(got->headers_cut, fx.want->headers_cut);
	unsigned named = 0;
	for (unsigned i = 0; i < got->nwarnings; i++) {
		const struct rt_an_warning *w = &got->warnings[i];
		assert_true(!strncmp(w->message, "at a: ", 6) || !strncmp(w->message, "at b: ", 6));
		for (unsigned k = 0; k < w->nvalues; k++)
			named += !strcmp(w->values[k].name, "point");
	}
	assert_int_equal(named, fx.p[0]->r->nwarnings + fx.p[1]->r->nwarnings);
	fixture_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths_every_packet),
	    cmocka_unit_test(test_paths_sampled),
	    cmocka_unit_test(test_paths_edges),
	    cmocka_unit_test(test_episodes),
	    cmocka_unit_test(test_episodes_cnp),
	    cmocka_unit_test(test_episodes_ce_twice),
	    cmocka_unit_test(test_pfc_one_point_each),
	    cmocka_unit_test(test_pfc_both_points),
	    cmocka_unit_test(test_macs),
	    cmocka_unit_test(test_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the partials' merge parts on every scenario capture at two points, and on three points in a row, against one pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/analyze/analyzer.h"
#include "tests/analyze/partial_fixture.h"

static const char *scenario_dir;

/*
 * A frame of a scenario capture at two points: all at a, the RoCE ones at b
 * too (b's clock OFF ahead): from the lower IP to the higher through a
 * then b, the other way through b then a; every 53rd lost between them,
 * every 7th ECN-capable one CE-marked between them.
 */
static void two_points(void *ctx, struct rt_record *rec)
{
	(void)ctx;
	bool roce = rec->kind == RT_KIND_ROCE || rec->kind == RT_KIND_CNP;
	bool up = memcmp(rec->src_ip, rec->dst_ip, 16) < 0;
	struct rt_record second = *rec;
	add(&sc, *rec, roce && !up ? 1 : 0);
	if (!roce || sc.n % 53 == 0)
		return;
	second.ts_ns += 2000 + (up ? OFF : 0);
	if (!up)
		sc.r[sc.n - 1].ts_ns += OFF;
	if ((second.ecn & 3) && (second.ecn & 3) != 3 && sc.n % 7 == 0)
		second.ecn = 3;
	add(&sc, second, up ? 1 : 0);
	sc.r[sc.n - 1].ttl = 63;
}

/* Every scenario capture at two points: paths, episodes, PFC and MACs against one pass. */
static void test_scenarios(void **state)
{
	(void)state;
	static const char *const names[] = {"cm",       "dcqcn",       "incast", "incast_one_host",
	                                    "nak_gbn",  "np_limited",  "pause",  "pfc",
	                                    "psn_wrap", "read_atomic", "rnr"};
	char eb[RT_ERRBUF_SIZE], path[512];
	uint64_t matched = 0, lost = 0, ce = 0, cnp = 0, episodes = 0, sources = 0;
	keep_cnps = true;
	for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		sc.n = 0;
		snprintf(path, sizeof(path), "%s/%s.pcap", scenario_dir, names[k]);
		each_pcap_record(path, two_points, NULL);
		fixture_make(&fx, &sc, 2, 1, 4); /* paths of a sample, 1 in 4 */
		assert_int_equal(an_pm_paths(&fx.m, eb), 0);
		same_paths(&fx.m.out->r, fx.want);
		fixture_free(&fx);
		fixture_make(&fx, &sc, 2, 1, 1);
		assert_int_equal(an_pm_paths(&fx.m, eb), 0);
		assert_int_equal(an_pm_pfc(&fx.m, eb), 0);
		assert_int_equal(an_pm_macs(&fx.m, eb), 0);
		assert_int_equal(an_pm_episodes(&fx.m, eb), 0);
		const struct rt_results *got = &fx.m.out->r, *want = fx.want;
		same_paths(got, want);
		for (unsigned i = 0; i < want->npaths; i++) {
			matched += want->paths[i].matched;
			lost += want->paths[i].lost;
			ce += want->paths[i].ce_marked;
		}
		for (uint32_t i = 0; i < want->nepisodes; i++)
			cnp += want->episodes[i].cnp;
		episodes += want->nepisodes;
		sources += want->npfc_sources;
		same_pfc(got, want);
		same_macs(got, want);
		assert_int_equal(got->nepisodes, want->nepisodes);
		for (uint32_t i = 0; i < want->nepisodes; i++) {
			assert_int_equal(got->episodes[i].start_ns, want->episodes[i].start_ns);
			assert_true(got->episodes[i].end_ns >= want->episodes[i].end_ns);
			assert_int_equal(got->episodes[i].ce, want->episodes[i].ce);
			assert_int_equal(got->episodes[i].cnp, want->episodes[i].cnp);
			assert_int_equal(got->episodes[i].pfc_xoff, want->episodes[i].pfc_xoff);
		}
		fixture_free(&fx);
	}
	keep_cnps = false;
	/* what they hold: matches, losses and CE marks between the points, episodes with CNPs, pauses */
	assert_true(matched > 1000 && lost > 10 && ce > 10);
	assert_true(episodes > 5 && cnp > 10 && sources > 0);
}

/*
 * Host 1 sends to host 2 through a, b and c in a row (b's clock OFF ahead,
 * c's 150 us behind; queueing on both hops), the ACKs and CNPs come back
 * through c, b and a: packets lost between a and b and between b and c, CE
 * marks set between b and c, and on the ACKs before c.
 */
static void three_points(void)
{
	sc.n = 0;
	const uint64_t c_off = 150000;
	for (uint32_t k = 0; k < 500; k++) {
		uint64_t t = T0 + k * 20000, q = (k % 7) * 1000;
		struct rt_record d =
		    roce(t, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, k);
		add(&sc, d, 0);
		if (k <
		    50) /* host 3 to host 2, through c only: the first flow there and in one pass */
			add(&sc,
			    roce(t + 1000 - c_off, 0x0a000003, 0x0a000002, RT_OPCODE_RC_SEND_ONLY,
			         0x56, k),
			    2);
		if (k % 97 != 40) {
			d.ts_ns = t + 2000 + q + OFF;
			add(&sc, d, 1);
			if (k % 89 != 30) {
				d.ts_ns = t + 4000 + 2 * q - c_off;
				d.ecn = k % 5 == 0 ? 3 : d.ecn;
				add(&sc, d, 2);
			}
		}
		if (k % 8 == 7 || k % 10 == 0) {
			struct rt_record b =
			    k % 8 == 7 ? ack(t, 0x0a000002, 0x0a000001, 0x34, k, 0)
			               : roce(t, 0x0a000002, 0x0a000001, RT_OPCODE_CNP, 0x34, 0);
			if (k % 8 == 7) /* CE-marked before c: seen so at every point */
				b.ecn = 3;
			b.ts_ns = t + 9000 - c_off;
			add(&sc, b, 2);
			b.ts_ns = t + 11000 + OFF;
			add(&sc, b, 1);
			b.ts_ns = t + 13000;
			add(&sc, b, 0);
		}
	}
	for (unsigned i = 0; i < sc.n; i++) { /* each host's MAC */
		sc.r[i].src_mac[5] = sc.r[i].src_ip[3];
		sc.r[i].dst_mac[5] = sc.r[i].dst_ip[3];
	}
}

static void test_three_points(void **state)
{
	(void)state;
	char eb[RT_ERRBUF_SIZE];
	three_points();
	keep_cnps = true;
	fixture_make(&fx, &sc, 3, 1, 1);
	keep_cnps = false;
	assert_int_equal(an_pm_paths(&fx.m, eb), 0);
	assert_int_equal(an_pm_macs(&fx.m, eb), 0);
	assert_int_equal(an_pm_episodes(&fx.m, eb), 0);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_true(want->npaths >= 3);
	same_paths(got, want);
	same_macs(got, want);
	assert_true(want->nepisodes > 0);
	assert_int_equal(got->nepisodes, want->nepisodes);
	for (uint32_t i = 0; i < want->nepisodes; i++) {
		const struct rt_res_episode *g = &got->episodes[i], *w = &want->episodes[i];
		assert_int_equal(g->start_ns, w->start_ns);
		assert_true(g->end_ns >= w->end_ns);
		assert_int_equal(g->ce, w->ce);
		assert_int_equal(g->cnp, w->cnp);
		assert_int_equal(g->flow_count, w->flow_count);
		assert_int_equal(g->nflows, w->nflows);
		assert_memory_equal(g->flows, w->flows, w->nflows * sizeof(w->flows[0]));
	}
	fixture_free(&fx);
}

int main(int argc, char **argv)
{
	scenario_dir = scenario_dir_arg(argc, argv);
	if (!scenario_dir)
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scenarios),
	    cmocka_unit_test(test_three_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of split and merge: each scenario split by host pair into two analyzers, merged, reports what one pass does; the merge rules of the global parts (PFC: test_merge_pfc.c). */
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

/* The scenario split by host pair (frames without IP in the first part), merged, reports what one pass does. */
static void split_merge_equals_one_pass(const char *name, unsigned min_pairs)
{
	split_merge(scenario_dir, name, min_pairs, 0);
}

/* Flows, pairing (ACK, NAK) and transport: go-back-N after NAKs, RNR retries, PSN wrap. */
static void test_flows_transport(void **state)
{
	(void)state;
	split_merge_equals_one_pass("nak_gbn.pcap", 2);
	split_merge_equals_one_pass("rnr.pcap", 2);
	split_merge_equals_one_pass("psn_wrap.pcap", 2);
}

/* Pairing by read responses and atomic ACKs. */
static void test_pairing_read_atomic(void **state)
{
	(void)state;
	split_merge_equals_one_pass("read_atomic.pcap", 2);
}

/* ECN marks and CNPs, the NP and RP reactions, the episodes they make across host pairs. */
static void test_ecn_reaction_episodes(void **state)
{
	(void)state;
	split_merge_equals_one_pass("dcqcn.pcap", 2);
	split_merge_equals_one_pass("np_limited.pcap", 2);
	split_merge_equals_one_pass("incast.pcap", 2);
	split_merge_equals_one_pass("incast_one_host.pcap", 2);
}

/* RDMA CM REQ/REP pairing. */
static void test_cm(void **state)
{
	(void)state;
	split_merge_equals_one_pass("cm.pcap", 2);
}

/* An episode of one part bridged by the other's: one episode, as one pass makes it; a flow of two parts counted once. */
static void test_episode_chain_rule(void **state)
{
	(void)state;
	struct an_episodes a, b;
	an_ep_init(&a, 1 * MS);
	an_ep_init(&b, 1 * MS);
	struct an_flow fa = {.id = 0}, fb = {.id = 0};
	an_ep_event(&a, T0, &fa, AN_EP_CE, false);
	an_ep_packet(&a, T0 + 1800 * US, 100, false); /* past the gap: a's first episode ends */
	an_ep_event(&a, T0 + 1800 * US, &fa, AN_EP_CE, false);
	an_ep_event(&b, T0 + 900 * US, &fb, AN_EP_CNP, false);
	an_ep_finish(&a);
	an_ep_finish(&b);
	assert_int_equal(a.n, 2);
	assert_int_equal(b.n, 1);
	uint32_t map_a[1] = {1}, map_b[1] = {0}; /* b's flow came first */
	assert_int_equal(an_ep_merge(&a, &b, map_a, map_b), 0);
	assert_int_equal(a.n, 1);
	const struct an_episode *e = &a.list[0];
	assert_true(e->start == T0 && e->end == T0 + 1800 * US);
	assert_int_equal(e->ce, 2);
	assert_int_equal(e->cnp, 1);
	assert_int_equal(e->flows, 2);       /* a's flow in both of a's episodes: once */
	assert_int_equal(e->flow_ids[0], 1); /* a's flow, counted first (T0), now id 1 */
	assert_int_equal(e->flow_ids[1], 0);
	assert_true(e->merged);
	an_ep_free(&a);
	an_ep_free(&b);
}

/* The MAC table of `got` is one pass's (`want`): the same MACs in the same order, each the same. */
static void same_macs(const struct an_macs *got, const struct an_macs *want)
{
	assert_int_equal(got->n, want->n);
	assert_int_equal(got->beyond, want->beyond);
	for (uint32_t i = 0; i < want->n; i++)
		assert_memory_equal(&got->e[i], &want->e[i], sizeof(got->e[i]));
}

/*
 * Frames 1..3 of hosts 1 to 2 (part 0), 3 to 4 (part 1), 1 to 2 (part 0),
 * with the MACs mac[i] (their last byte: source, destination) and frame 1
 * PFC when `pfc`, split and merged against one pass: one pass's first MAC.
 */
static struct an_mac merge_macs(bool pfc, const uint8_t mac[3][2], unsigned want_n)
{
	struct rt_analyzer *one = new_an(0), *p[2] = {new_an(0), new_an(0)};
	const uint16_t q[8] = {0};
	struct rt_record r[3] = {pfc ? pfc_rec(T0, 0, q)
	                             : roce(T0, 0x0a000001, 0x0a000002, 4, 0x11, 1),
	                         roce(T0 + 1, 0x0a000003, 0x0a000004, 4, 0x11, 1),
	                         roce(T0 + 2, 0x0a000001, 0x0a000002, 4, 0x11, 2)};
	static const unsigned part[3] = {0, 1, 0};
	for (unsigned i = 0; i < 3; i++) {
		r[i].src_mac[5] = mac[i][0];
		r[i].dst_mac[5] = mac[i][1];
	}
	feed_macs(one, p, 2, r, part, 3);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), 0);
	assert_int_equal(one->macs.n, want_n);
	same_macs(&p[0]->macs, &one->macs);
	struct an_mac first = one->macs.e[0];
	rt_analyzer_free(one);
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
	return first;
}

/* A MAC of both parts: frames summed, a router's where the IPs differ. */
static void test_macs_rule(void **state)
{
	(void)state;
	/* MAC 1 (host 1) to MAC 2; MAC 1 routing host 3 to MAC 3 (part 1); again */
	static const uint8_t mac[3][2] = {{1, 2}, {1, 3}, {1, 2}};
	struct an_mac e = merge_macs(false, mac, 3);
	assert_true(e.several);
	assert_int_equal(e.frames, 3);
}

/* MACs in the order one pass first saw them (a frame's source first), whichever part saw them. */
static void test_macs_order(void **state)
{
	(void)state;
	/* MAC 1 to 2 (part 0), MAC 3 to 4 (part 1), MAC 5 to 6 (part 0) */
	static const uint8_t mac[3][2] = {{1, 2}, {3, 4}, {5, 6}};
	merge_macs(false, mac, 6);
}

/* A router's IP is the first one seen with it, though the other part saw the MAC (without IP) before. */
static void test_macs_first_ip(void **state)
{
	(void)state;
	/* PFC from MAC 1 (part 0); MAC 1 routing host 3 to MAC 3 (part 1); host 1 (part 0) */
	static const uint8_t mac[3][2] = {{1, 0}, {1, 3}, {1, 3}};
	struct an_mac e = merge_macs(true, mac, 2);
	assert_true(e.several);
	assert_int_equal(e.ip[3], 3);
}

#define CAP_CROWD (AN_MACS_MAX + 904) /* MACs part 1 sees before MAC 1 */

/*
 * The cap: MAC 1, first seen in part 0, comes to part 1 after 5000 others
 * there; the merge keeps the MACs one pass keeps (the first AN_MACS_MAX),
 * MAC 1 with its frames of both parts, and counts the later MACs' frames
 * in `beyond`, merged into the first part or, part by part, into a third
 * analyzer as the stage does.
 */
static void test_macs_cap(void **state)
{
	(void)state;
	unsigned n = CAP_CROWD + 2, *part = malloc(n * sizeof(*part));
	struct rt_record *r = malloc(n * sizeof(*r));
	assert_true(part && r);
	/* frame 1: MAC 1 to MAC 2 (part 0); then MACs 3.. to MAC 2 (part 1); then MAC 1 to MAC 2 (part 1) */
	for (unsigned i = 0; i < n; i++) {
		bool first = !i, late = i == n - 1;
		part[i] = !first;
		r[i] = roce(T0 + i, first ? 0x0a000001 : 0x0a000003,
		            first ? 0x0a000002 : 0x0a000004, 4, 0x11, i);
		uint32_t src = first || late ? 1 : i + 2;
		r[i].src_mac[3] = (uint8_t)(src >> 16);
		r[i].src_mac[4] = (uint8_t)(src >> 8);
		r[i].src_mac[5] = (uint8_t)src;
		r[i].dst_mac[5] = 2;
	}
	for (unsigned way = 0; way < 2; way++) {
		struct rt_analyzer *one = new_an(0), *p[3] = {new_an(0), new_an(0), new_an(0)};
		p[0]->part = p[1]->part = true;
		feed_macs(one, p, 3, r, part, n);
		char errbuf[RT_ERRBUF_SIZE];
		struct rt_analyzer *dst = way ? p[2] : p[0];
		if (way) /* into the third, the part that saw MAC 1 late first */
			assert_int_equal(rt_analyzer_merge(dst, p[1], errbuf), 0);
		assert_int_equal(rt_analyzer_merge(dst, p[way ? 0 : 1], errbuf), 0);
		assert_int_equal(one->macs.n, AN_MACS_MAX);
		assert_int_equal(one->macs.e[0].frames, 2);
		same_macs(&dst->macs, &one->macs);
		for (unsigned k = 0; k < 3; k++)
			rt_analyzer_free(p[k]);
		rt_analyzer_free(one);
	}
	free(part);
	free(r);
}

/* A flow's facts (the priority of its CNPs) move with it into dst's table. */
static void test_facts_rule(void **state)
{
	(void)state;
	struct rt_analyzer *p[2] = {new_an(0), new_an(0)};
	struct rt_record r[2] = {roce(T0, 0x0a000002, 0x0a000001, RT_OPCODE_CNP, 0x11, 0),
	                         roce(T0 + 1, 0x0a000004, 0x0a000003, RT_OPCODE_CNP, 0x12, 0)};
	for (unsigned i = 0; i < 2; i++) {
		r[i].dscp = (uint8_t)(24 + i * 2);
		rt_analyzer_feed_frame(p[i], &r[i], i + 1);
		assert_int_equal(finish(p[i]), 0);
	}
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), 0);
	for (unsigned i = 0; i < 2; i++) {
		const struct an_flow *f =
		    flow_of(p[0], 0x0a000002 + 2 * i, 0x0a000001 + 2 * i, 0x11 + i);
		assert_non_null(f);
		const struct an_fact *e =
		    an_facts_find(&p[0]->facts, (uint32_t)(f - p[0]->ft.flows));
		assert_non_null(e);
		assert_true(e->cnp_seen);
		assert_int_equal(e->cnp_dscp, 24 + i * 2);
	}
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
}

/* Flows of the two parts take their ids in the order of their first frames. */
static void test_flow_ids_by_first_frame(void **state)
{
	(void)state;
	struct rt_analyzer *p[2] = {new_an(0), new_an(0)};
	/* frames 1..4: flows of hosts 1>2 (part 0), 3>4 (part 1), 1>2 QP 0x12 (part 0), 3>4 QP 0x13 */
	struct rt_record r[4] = {roce(T0, 0x0a000001, 0x0a000002, 4, 0x11, 1),
	                         roce(T0 + 1, 0x0a000003, 0x0a000004, 4, 0x11, 1),
	                         roce(T0 + 2, 0x0a000001, 0x0a000002, 4, 0x12, 1),
	                         roce(T0 + 3, 0x0a000003, 0x0a000004, 4, 0x13, 1)};
	for (unsigned i = 0; i < 4; i++)
		rt_analyzer_feed_frame(p[i % 2], &r[i], i + 1);
	assert_int_equal(finish(p[0]), 0);
	assert_int_equal(finish(p[1]), 0);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), 0);
	assert_int_equal(rt_analyzer_flow_count(p[0]), 4);
	static const uint32_t qp[4] = {0x11, 0x11, 0x12, 0x13};
	for (uint32_t id = 0; id < 4; id++)
		assert_int_equal(rt_analyzer_flow_key(p[0], id)->dest_qp, qp[id]);
	assert_non_null(flow_of(p[0], 0x0a000003, 0x0a000004, 0x13));
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
}

/* Records by time, then by PSN (none of the same time and PSN come in this test). */
static int by_time(const void *a, const void *b)
{
	const struct rt_record *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->psn < y->psn ? -1 : x->psn > y->psn;
}

/* An analyzer that follows vantage points, as analyze makes it for several files (their own clocks). */
static struct rt_analyzer *vantage_an(void)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = o.vantage_clocks = true;
	return new_an_opts(&o);
}

/*
 * Vantage points, split by host pair: four host pairs, each sending through
 * a tap `a` then a tap `b` (b's clock 250 us ahead) and ACKing back, each
 * with its own delay and queueing (so each link's first delay is another),
 * 80 packets each way or so (past the sketches' exact values), a few lost
 * between the taps and some marked CE; host pairs 0 and 2 in one part, 1
 * and 3 in the other. The merged paths (offset, delays, lost, judged, CE
 * marked) and every other figure are one pass's.
 */
static void test_vantage_rule(void **state)
{
	(void)state;
	static const struct rt_an_vantage pts[2] = {{.name = "a"}, {.name = "b"}};
	struct rt_analyzer *one = vantage_an(), *two[2] = {vantage_an(), vantage_an()};
	const uint64_t t0 = 1700000000000000000ull, off = 250000;
	enum { N = 4 * 90 * 4 };
	struct rt_record *rec = calloc(N, sizeof(*rec));
	assert_non_null(rec);
	unsigned nrec = 0;
	for (unsigned k = 0; k < 4 * 90; k++) {
		unsigned hp = k % 4, n = k / 4;
		uint32_t src = 0x0a000001 + hp, dst = 0x0a000101 + hp;
		uint64_t t = t0 + (uint64_t)k * 3000, wire = 2000 + hp * 700 + (n * 37 % 11) * 900;
		rec[nrec] = roce(t, src, dst, RT_OPCODE_RC_SEND_ONLY, 0x100 + hp, n);
		rec[nrec++].point = 0;
		if (n % 29 == 28)
			continue; /* lost between the taps */
		rec[nrec] = roce(t + wire + off, src, dst, RT_OPCODE_RC_SEND_ONLY, 0x100 + hp, n);
		rec[nrec].ecn = n % 5 == 0 ? 3 : 2;
		rec[nrec++].point = 1;
		rec[nrec] = ack(t + wire + off + 500, dst, src, 0x200 + hp, n, 0);
		rec[nrec++].point = 1;
		rec[nrec] = ack(t + wire + 1800 + hp * 100, dst, src, 0x200 + hp, n, 0);
		rec[nrec++].point = 0;
	}
	qsort(rec, nrec, sizeof(*rec), by_time); /* one stream in time order: b's clock is ahead */
	for (unsigned i = 0; i < nrec; i++) {
		unsigned hp = (rec[i].src_ip[3] - 1) % 4; /* 10.0.0.1-4 and 10.0.1.1-4 */
		rt_analyzer_feed(one, &rec[i]);
		rt_analyzer_feed_frame(two[hp % 2], &rec[i], i + 1);
	}
	free(rec);
	for (unsigned i = 0; i < 3; i++) {
		struct rt_analyzer *an = i ? two[i - 1] : one;
		assert_int_equal(finish(an), 0);
		assert_int_equal(rt_analyzer_vantage_points(an, pts, 2, NULL), 0);
	}
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(two[0], two[1], errbuf), 0);
	const struct rt_results *r = rt_analyzer_results(one);
	assert_int_equal(r->npaths, 2);
	assert_true(r->paths[0].matched > 2 * 64 && r->paths[0].lost > 0 &&
	            r->paths[0].ce_marked > 0);
	same_report("vantage", one, two[0]);
	rt_analyzer_free(one);
	rt_analyzer_free(two[0]);
	rt_analyzer_free(two[1]);
}

/* Matches of one host pair in both analyzers (not a split by host pair) are refused, before anything merges. */
static void test_vantage_same_pair_refused(void **state)
{
	(void)state;
	struct rt_analyzer *p[2] = {vantage_an(), vantage_an()};
	const uint64_t t0 = 1700000000000000000ull;
	for (unsigned k = 0; k < 2; k++)
		for (unsigned pt = 0; pt < 2; pt++) {
			struct rt_record rec =
			    roce(t0 + k * 100000 + pt * 2000, 0x0a000001, 0x0a000002, 4, 7, k);
			rec.point = (uint16_t)pt;
			rt_analyzer_feed(p[k], &rec);
		}
	assert_int_equal(finish(p[0]), 0);
	assert_int_equal(finish(p[1]), 0);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_merge(p[0], p[1], errbuf), -ENOTSUP);
	assert_non_null(strstr(errbuf, "split by host pair"));
	assert_int_equal(rt_analyzer_results(p[0])->c.packets, 2);
	rt_analyzer_free(p[0]);
	rt_analyzer_free(p[1]);
}

int main(int argc, char **argv)
{
	if (!(scenario_dir = scenario_dir_arg(argc, argv)))
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flows_transport),
	    cmocka_unit_test(test_pairing_read_atomic),
	    cmocka_unit_test(test_ecn_reaction_episodes),
	    cmocka_unit_test(test_cm),
	    cmocka_unit_test(test_episode_chain_rule),
	    cmocka_unit_test(test_macs_rule),
	    cmocka_unit_test(test_macs_order),
	    cmocka_unit_test(test_macs_first_ip),
	    cmocka_unit_test(test_macs_cap),
	    cmocka_unit_test(test_facts_rule),
	    cmocka_unit_test(test_flow_ids_by_first_frame),
	    cmocka_unit_test(test_vantage_rule),
	    cmocka_unit_test(test_vantage_same_pair_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

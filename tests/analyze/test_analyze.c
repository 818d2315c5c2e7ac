/* Unit tests of the analyzer's core: flow table, PSN logic with wraparound, NAKs and go-back-N, pairing, PFC arithmetic, episodes, counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/hist.h"
#include "analyze/internal.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"
#include "dissect/opcodes.h"

/* A flow's rare transport counters (all 0 before it had any). */
static const struct an_xport *xp(const struct an_flow *f)
{
	static const struct an_xport none;
	return f->x ? f->x : &none;
}

static void test_flow_table_growth(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	const uint32_t n = 300000;
	uint8_t a[16], b[16];
	struct rt_an_flow_key k;
	for (uint32_t i = 0; i < n; i++) {
		ip4(a, 0x0a000000u + (i % 1000));
		ip4(b, 0x0b000000u + (i / 1000));
		an_key_from(&k, 4, a, b, i);
		assert_int_equal(an_flow_get(&an->ft, &k, true), i);
	}
	assert_int_equal(an->ft.n, n);
	/* load factor stays at most 1/2, and every key is found again */
	assert_true(an->ft.tab_mask + 1 >= 2 * n);
	for (uint32_t i = 0; i < n; i += 7) {
		ip4(a, 0x0a000000u + (i % 1000));
		ip4(b, 0x0b000000u + (i / 1000));
		an_key_from(&k, 4, a, b, i);
		assert_int_equal(an_flow_get(&an->ft, &k, false), i);
	}
	an_key_from(&k, 4, a, b, 0xabcdef);
	assert_int_equal(an_flow_get(&an->ft, &k, false), AN_NONE);
	rt_analyzer_free(an);
}

static void test_flow_ids_first_seen(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	for (uint32_t i = 0; i < 50; i++) {
		struct rt_record r = roce(T0 + i, 1, 2, 0x04, 100 - i, i);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(rt_analyzer_flow_count(an), 50);
	for (uint32_t id = 0; id < 50; id++)
		assert_int_equal(an_flow_by_id(&an->ft, id)->key.dest_qp, 100 - id);
	rt_analyzer_free(an);
}

static void test_psn_wraparound(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	const uint32_t psns[] = {0xfffffe, 0xffffff, 0x000000, 0x000001};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 7, psns[i]);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 7);
	assert_non_null(f);
	assert_int_equal(xp(f)->gaps, 0);
	assert_int_equal(xp(f)->retransmitted, 0);
	/* 0x000002 missing: one gap of one PSN */
	struct rt_record r = roce(t += US, 1, 2, 0x04, 7, 3);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 1);
	assert_int_equal(xp(f)->gap_psns, 1);
	/* back across the wrap: resends with no NAK → one implied timeout, two packets (a timeout
	 * is far longer than the window in which the same packet again is a copy) */
	r = roce(t += 100 * US, 1, 2, 0x04, 7, 0xffffff);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 1, 2, 0x04, 7, 0);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->retransmitted, 2);
	assert_int_equal(xp(f)->timeouts, 1);
	assert_int_equal(xp(f)->go_back_n, 0);
	/* new data again, then an absurd jump: resynchronised, not a gap */
	r = roce(t += US, 1, 2, 0x04, 7, 4);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 1, 2, 0x04, 7, 0x800004);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 1, 2, 0x04, 7, 0x800005);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 1);
	assert_int_equal(xp(f)->psn_jumps, 1);
	assert_int_equal(xp(f)->retransmitted, 2);
	assert_true(rt_psn_diff(0, 0xffffff) == 1);
	assert_true(rt_psn_diff(0xffffff, 0) == -1);
	rt_analyzer_free(an);
}

/*
 * A request the capture wrote late (its time before the flow's previous
 * request's) fills the gap it left: no gap, no resend, no timeout. Sent
 * again later, it is a resend.
 */
static void test_late_frame_fills_gap(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	/* PSNs 1..10, 1 us apart; 5 and 6 written after 8, with their own times */
	const uint32_t order[] = {1, 2, 3, 4, 7, 8, 5, 6, 9, 10};
	for (unsigned i = 0; i < 10; i++) {
		struct rt_record r = roce(T0 + order[i] * US, 1, 2, 0x04, 7, order[i]);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 0);
	assert_int_equal(xp(f)->gap_psns, 0);
	assert_int_equal(xp(f)->retransmitted, 0);
	assert_int_equal(xp(f)->timeouts, 0);
	/* 12 and 13 missing, 12 comes late: one PSN still missing */
	struct rt_record r = roce(T0 + 11 * US, 1, 2, 0x04, 7, 11);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + 14 * US, 1, 2, 0x04, 7, 14);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + 12 * US, 1, 2, 0x04, 7, 12);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 1);
	assert_int_equal(xp(f)->gap_psns, 1);
	assert_int_equal(xp(f)->retransmitted, 0);
	/* 13 sent again after 14 (a later time): a resend after a timeout */
	r = roce(T0 + 900 * US, 1, 2, 0x04, 7, 13);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->retransmitted, 1);
	assert_int_equal(xp(f)->timeouts, 1);
	assert_int_equal(xp(f)->gap_psns, 1);
	rt_analyzer_free(an);
}

/* A late READ request fills as many PSNs of the gap as it reserves (4 at a 1024-byte MTU). */
static void test_late_read_fills_gap(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record w = roce(T0, 1, 2, 0x06, 7, 0); /* RDMA WRITE FIRST: the path MTU */
	w.payload_len = 1024;
	rt_analyzer_feed(an, &w);
	/* READs of 4096 bytes at PSN 1, 5, 9, 13; the one at 9 written after 13 */
	const uint32_t order[] = {1, 5, 13, 9};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record r = roce(T0 + order[i] * US, 1, 2, 0x0C, 7, order[i]);
		r.hdrs = RT_H_RETH;
		r.reth_len = 4096;
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 0);
	assert_int_equal(xp(f)->gap_psns, 0);
	assert_int_equal(xp(f)->gap_ts, 0);
	assert_int_equal(xp(f)->retransmitted, 0);
	rt_analyzer_free(an);
}

static void test_nak_go_back_n(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	for (uint32_t p = 10; p < 14; p++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x22, p);
		rt_analyzer_feed(an, &r);
	}
	struct rt_record n = ack(t += US, 2, 1, 0x11, 12, 0x60); /* NAK PSN sequence error at 12 */
	rt_analyzer_feed(an, &n);
	uint64_t nak_ts = t;
	for (uint32_t p = 12; p < 16; p++) {
		struct rt_record r = roce(t += 5 * US, 1, 2, 0x04, 0x22, p);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 0x22);
	assert_int_equal(f->peer_qp, 0x11);
	assert_int_equal(xp(f)->naks_received, 1);
	assert_int_equal(xp(f)->go_back_n, 1);
	assert_int_equal(xp(f)->retransmitted, 2);
	assert_int_equal(f->x->gbn_delay->min, nak_ts + 5 * US - nak_ts);
	assert_int_equal(f->x->nak_codes[0], 1);
	struct rt_an_counts c;
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.nak, 1);
	assert_int_equal(c.retransmitted, 2);
	rt_analyzer_free(an);
}

static void test_nak_twice_and_fatal(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	const uint32_t sent[] = {20, 21, 22, 23, 21, 22, 22, 23, 24};
	for (unsigned i = 0; i < sizeof(sent) / sizeof(sent[0]); i++) {
		if (i == 4) { /* NAK at 21: go back */
			struct rt_record n = ack(t += US, 2, 1, 0x11, 21, 0x60);
			rt_analyzer_feed(an, &n);
		}
		if (i == 6) { /* lost again: NAK at 22 while still resending */
			struct rt_record n = ack(t += US, 2, 1, 0x11, 22, 0x60);
			rt_analyzer_feed(an, &n);
		}
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x22, sent[i]);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 0x22);
	assert_int_equal(xp(f)->naks_received, 2);
	assert_int_equal(xp(f)->go_back_n, 2);
	assert_int_equal(xp(f)->retransmitted, 4);
	assert_int_equal(xp(f)->timeouts, 0);
	/* a remote access error NAK is fatal: a later resend is a timeout, not go-back-N */
	struct rt_record n = ack(t += US, 2, 1, 0x11, 25, 0x62);
	rt_analyzer_feed(an, &n);
	struct rt_record r = roce(t += MS, 1, 2, 0x04, 0x22, 24);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 0x22);
	assert_int_equal(xp(f)->naks_received, 3);
	assert_int_equal(xp(f)->go_back_n, 2);
	assert_int_equal(xp(f)->timeouts, 1);
	assert_int_equal(f->x->nak_codes[2], 1);
	rt_analyzer_free(an);
}

static void test_pairing_by_psn(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	/* two QPs from host 1 to host 2, PSN ranges far apart */
	for (uint32_t i = 0; i < 4; i++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x30, 1000 + i);
		rt_analyzer_feed(an, &r);
		r = roce(t += US, 1, 2, 0x04, 0x31, 500000 + i);
		rt_analyzer_feed(an, &r);
	}
	/* an ACK whose PSN matches neither: no pairing */
	struct rt_record a = ack(t += US, 2, 1, 0x40, 9000, 0x1f);
	rt_analyzer_feed(an, &a);
	assert_int_equal(flow_of(an, 2, 1, 0x40)->peer_qp, AN_NONE);
	/* ACK of QP 0x31's requests comes back to host 1's QP 0x41 */
	a = ack(t += US, 2, 1, 0x41, 500002, 0x1f);
	rt_analyzer_feed(an, &a);
	a = ack(t += US, 2, 1, 0x42, 1003, 0x1f);
	rt_analyzer_feed(an, &a);
	assert_int_equal(flow_of(an, 1, 2, 0x31)->peer_qp, 0x41);
	assert_int_equal(flow_of(an, 2, 1, 0x41)->peer_qp, 0x31);
	assert_int_equal(flow_of(an, 1, 2, 0x30)->peer_qp, 0x42);
	assert_int_equal(flow_of(an, 2, 1, 0x42)->peer_qp, 0x30);
	assert_int_equal(flow_of(an, 1, 2, 0x30)->pairing, AN_PAIR_ACK);
	/* a CNP to QP 0x42 throttles the 0x30 data flow; one for an unknown QP matches nothing */
	struct rt_record c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x42, 0);
	rt_analyzer_feed(an, &c);
	c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x777, 0);
	rt_analyzer_feed(an, &c);
	c = roce(t += US, 9, 8, RT_OPCODE_CNP, 0x778, 0);
	rt_analyzer_feed(an, &c);
	assert_int_equal(flow_of(an, 1, 2, 0x30)->cnp_received, 1);
	assert_int_equal(an->tot.cnp_unattributed, 2);
	rt_analyzer_free(an);
}

static void test_pairing_ud_deth(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x64, 0x50, 1);
	r.hdrs = RT_H_DETH;
	r.deth_src_qp = 0x60;
	rt_analyzer_feed(an, &r);
	assert_int_equal(flow_of(an, 1, 2, 0x50)->peer_qp, 0x60);
	r = roce(T0 + US, 2, 1, 0x64, 0x60, 7);
	r.hdrs = RT_H_DETH;
	r.deth_src_qp = 0x50;
	rt_analyzer_feed(an, &r);
	struct an_flow *f = flow_of(an, 1, 2, 0x50), *g = flow_of(an, 2, 1, 0x60);
	assert_int_equal(g->peer_qp, 0x50);
	assert_true(&an->ft.flows[f->reverse] == g);
	rt_analyzer_free(an);
}

static void test_pfc_paused_time(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(100000000000ull);
	uint16_t q[8] = {0};
	/* priority 3: XOFF 0xFFFF, XON after 100 us → 100 us */
	q[3] = 0xffff;
	struct rt_record r = pfc_rec(T0, 1 << 3, q);
	rt_analyzer_feed(an, &r);
	q[3] = 0;
	r = pfc_rec(T0 + 100 * US, 1 << 3, q);
	rt_analyzer_feed(an, &r);
	assert_int_equal(an->pfc.macs[0].cls[3].paused_ns, 100 * US);
	/* priority 2: 100 quanta (512 ns), refreshed after 200 ns → 712 ns, counted once */
	q[2] = 100;
	r = pfc_rec(T0 + MS, 1 << 2, q);
	rt_analyzer_feed(an, &r);
	r = pfc_rec(T0 + MS + 200, 1 << 2, q);
	rt_analyzer_feed(an, &r);
	/* a later unrelated frame sees the pause expired */
	q[2] = 0;
	r = pfc_rec(T0 + 2 * MS, 0, q);
	rt_analyzer_feed(an, &r);
	assert_int_equal(an->pfc.macs[0].cls[2].paused_ns, 712);
	/* priority 6 still paused at the end: counted to its expiry (0xFFFF quanta = 335539 ns) */
	q[6] = 0xffff;
	r = pfc_rec(T0 + 3 * MS, 1 << 6, q);
	rt_analyzer_feed(an, &r);
	finish(an);
	assert_int_equal(an->pfc.macs[0].cls[6].paused_ns, 335539);
	assert_int_equal(an->pfc.xoff[2], 2);
	assert_int_equal(an->pfc.xon[3], 1);
	assert_int_equal(an->pfc.nstorms, 0);
	rt_analyzer_free(an);

	/* 25 Gb/s: a quantum is 20.48 ns; a storm when paused 1 ms continuously */
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = 25000000000ull;
	o.storm_ns = MS;
	an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	memset(q, 0, sizeof(q));
	q[4] = 1000; /* 20480 ns */
	for (uint64_t t = 0; t < 2 * MS; t += 10 * US) {
		r = pfc_rec(T0 + t, 1 << 4, q);
		rt_analyzer_feed(an, &r);
	}
	finish(an);
	assert_int_equal(an->pfc.nstorms, 1);
	assert_int_equal(an->pfc.storms[0].end - an->pfc.storms[0].start, 2 * MS - 10 * US + 20480);
	assert_int_equal(an->pfc.macs[0].cls[4].paused_ns, 2 * MS - 10 * US + 20480);
	rt_analyzer_free(an);
}

/*
 * 4096 sending MACs pausing all 8 priorities: every figure as one sender's,
 * and a PFC frame's cost not growing with the senders (each frame scanned
 * every sender's classes: 100k frames took minutes of CPU).
 */
static void test_pfc_many_senders(void **state)
{
	(void)state;
	enum { SENDERS = 4096, PAIRS = SENDERS * 8 };
	struct rt_analyzer *an = new_an(100000000000ull); /* 0xFFFF quanta: 335539 ns */
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	/* each (sender, priority) pair: XOFF, XON 327680 ns later, XOFF again, left to expire */
	for (uint32_t i = 0; i < 3 * PAIRS; i++) {
		uint16_t q[8] = {0};
		unsigned c = i / SENDERS % 8;
		q[c] = i / PAIRS == 1 ? 0 : 0xffff;
		struct rt_record r = pfc_rec(T0 + i * 10ull, (uint16_t)(1u << c), q);
		uint32_t s = i % SENDERS;
		memcpy(r.src_mac + 2, &s, 4);
		rt_analyzer_feed(an, &r);
	}
	finish(an);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double cpu = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (cpu > 20)
		fail_msg("%u PFC frames from %u senders took %.1f s of CPU", 3 * PAIRS, SENDERS,
		         cpu);
	assert_int_equal(an->pfc.nmacs, SENDERS);
	for (unsigned c = 0; c < 8; c++) {
		assert_int_equal(an->pfc.xoff[c], 2 * SENDERS);
		assert_int_equal(an->pfc.xon[c], SENDERS);
		assert_int_equal(an->pfc.paused_ns[c], SENDERS * (327680ull + 335539ull));
	}
	for (uint32_t m = 0; m < SENDERS; m += 1021)
		for (unsigned c = 0; c < 8; c++)
			assert_int_equal(an->pfc.macs[m].cls[c].paused_ns, 327680ull + 335539ull);
	assert_int_equal(an->pfc.active, 0);
	rt_analyzer_free(an);
}

static void test_episodes(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	const uint64_t at[] = {0, 500 * US, 1400 * US, 5 * MS};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record r = roce(T0 + at[i], 1, 2, 0x04, 9, i);
		r.ecn = 3;
		rt_analyzer_feed(an, &r);
		/* plain traffic in between does not extend an episode */
		r = roce(T0 + at[i] + 100 * US, 1, 2, 0x04, 9, 100 + i);
		r.ecn = 2;
		rt_analyzer_feed(an, &r);
	}
	finish(an);
	assert_int_equal(an->ep.n, 2);
	assert_int_equal(an->ep.list[0].start, T0);
	assert_int_equal(an->ep.list[0].end, T0 + 1400 * US);
	assert_int_equal(an->ep.list[0].ce, 3);
	assert_int_equal(an->ep.list[0].flows, 1);
	assert_int_equal(an->ep.list[1].start, T0 + 5 * MS);
	assert_int_equal(an->ep.list[1].end, T0 + 5 * MS);
	rt_analyzer_free(an);
}

static void test_interval_counts(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x04, 3, 1);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	struct rt_an_counts c;
	rt_analyzer_interval(an, &c, true);
	assert_int_equal(c.packets, 1);
	assert_int_equal(c.ce, 1);
	assert_int_equal(c.bytes, 100);
	r = roce(T0 + 1, 1, 2, 0x04, 3, 2);
	rt_analyzer_feed(an, &r);
	rt_analyzer_interval(an, &c, false);
	assert_int_equal(c.packets, 1);
	assert_int_equal(c.ce, 0);
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.packets, 2);
	assert_int_equal(c.roce_packets, 2);
	rt_analyzer_free(an);
}

/* NAK codes 5..31 all name "reserved": one key with their sum, never the same key twice. */
static void test_nak_codes_reserved_once(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	for (uint32_t p = 10; p < 14; p++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x22, p);
		rt_analyzer_feed(an, &r);
	}
	const uint8_t syn[] = {0x65, 0x66, 0x7f, 0x61};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record n = ack(t += US, 2, 1, 0x11, 12, syn[i]);
		rt_analyzer_feed(an, &n);
	}
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_int_equal(count_str(js, "\"reserved\""), 1);
	assert_non_null(strstr(js, "\"nak_codes\":{\"invalid_request\":1,\"reserved\":3}"));
	free(js);
	rt_analyzer_free(an);
}

/* The analyzer parses --flow with analyze/flowsel.c (tested in test_flowsel.c) and refuses a bad one. */
static void test_flow_selector_numbers(void **state)
{
	(void)state;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.flow = "qp:010";
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	assert_int_equal(an->sel.flow.n, 1);
	assert_int_equal(an->sel.flow.v[0].kind, RT_FLOWSEL_QP);
	assert_int_equal(an->sel.flow.v[0].qp, 10);
	rt_analyzer_free(an);
	o.flow = "qp:-1";
	assert_null(rt_analyzer_new(&o, errbuf));
	assert_non_null(strstr(errbuf, "bad flow selector 'qp:-1'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flow_table_growth),
	    cmocka_unit_test(test_flow_ids_first_seen),
	    cmocka_unit_test(test_psn_wraparound),
	    cmocka_unit_test(test_late_frame_fills_gap),
	    cmocka_unit_test(test_late_read_fills_gap),
	    cmocka_unit_test(test_nak_go_back_n),
	    cmocka_unit_test(test_nak_twice_and_fatal),
	    cmocka_unit_test(test_pairing_by_psn),
	    cmocka_unit_test(test_pairing_ud_deth),
	    cmocka_unit_test(test_pfc_paused_time),
	    cmocka_unit_test(test_pfc_many_senders),
	    cmocka_unit_test(test_episodes),
	    cmocka_unit_test(test_interval_counts),
	    cmocka_unit_test(test_nak_codes_reserved_once),
	    cmocka_unit_test(test_flow_selector_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

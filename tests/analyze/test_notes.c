/* Unit tests of the analyzer's per-frame notes: gaps, resends and their waits, NAKs, round trips, pairing, CE->CNP and its delay, PFC time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/results.h"
#include "dissect/dissect.h"

#define QP_A     0x22 /* requester's QP on host A */
#define QP_B     0x11 /* responder's QP on host B */
#define ECN_CE   3
#define ECN_ECT0 2

/* A RoCEv2 IPv4 record from host a (10.0.0.a) to host b with a BTH. */
static struct rt_record pkt(uint8_t a, uint8_t b, uint8_t opcode, uint32_t dest_qp, uint32_t psn,
                            uint64_t ts)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.kind = opcode == 0x81 ? RT_KIND_CNP : RT_KIND_ROCE;
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.ip_version = 4;
	r.src_ip[0] = 10, r.src_ip[3] = a;
	r.dst_ip[0] = 10, r.dst_ip[3] = b;
	r.ecn = ECN_ECT0;
	r.opcode = opcode;
	r.dest_qp = dest_qp;
	r.psn = psn;
	r.ts_ns = ts;
	r.caplen = r.wirelen = 100;
	return r;
}

static struct rt_record ack(uint8_t a, uint8_t b, uint32_t dest_qp, uint32_t psn, uint8_t syndrome,
                            uint64_t ts)
{
	struct rt_record r = pkt(a, b, 0x11, dest_qp, psn, ts);
	r.hdrs = RT_H_AETH;
	r.aeth_syndrome = syndrome;
	return r;
}

static struct rt_analyzer *analyzer(uint64_t speed)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = speed;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	return an;
}

static void feed(struct rt_analyzer *an, const struct rt_record *r, struct rt_an_note *n)
{
	rt_analyzer_feed_note(an, r, n);
}

/* RC SEND only (0x04) requests A->B at PSNs, notes in n[]. */
static void sends(struct rt_analyzer *an, const uint32_t *psns, size_t count, struct rt_an_note *n)
{
	for (size_t i = 0; i < count; i++) {
		struct rt_record r = pkt(1, 2, 0x04, QP_B, psns[i], 1000 * (i + 1));
		feed(an, &r, &n[i]);
	}
}

static void test_frame_numbers(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n;
	struct rt_record other;
	memset(&other, 0, sizeof(other));
	other.kind = RT_KIND_OTHER;
	feed(an, &other, &n);
	assert_int_equal(n.frame, 1);
	assert_int_equal(n.flow_id, RT_AN_NONE);
	assert_int_equal(n.peer_flow_id, RT_AN_NONE);
	assert_int_equal(n.pause_classes, 0);
	rt_analyzer_feed(an, &other); /* the plain feed counts too */
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 5, 10);
	feed(an, &r, &n);
	assert_int_equal(n.frame, 3);
	assert_int_equal(n.flow_id, 0);
	assert_int_equal(n.flags, 0);
	assert_int_equal(n.peer_flow_id, RT_AN_NONE); /* requests name no peer */
	rt_analyzer_free(an);
}

static void test_in_order_gap_and_resend(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	const uint32_t psns[] = {100, 101, 102, 105, 106, 103, 104, 107};
	struct rt_an_note n[8];
	sends(an, psns, 8, n);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(n[i].flags, 0);
		assert_int_equal(n[i].psn_gap, 0);
		assert_int_equal(n[i].flow_id, 0);
	}
	assert_int_equal(n[3].psn_gap, 2); /* 103 and 104 missing */
	assert_int_equal(n[4].psn_gap, 0);
	assert_int_equal(n[5].flags, RT_AN_NOTE_RETRANS);
	assert_int_equal(n[5].nak_frame, 0); /* no NAK: a timeout resend */
	assert_int_equal(n[6].flags, RT_AN_NOTE_RETRANS);
	assert_int_equal(n[7].flags, 0); /* 107 is new again */
	assert_int_equal(n[7].psn_gap, 0);
	struct rt_an_counts c;
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.retransmitted, 2);
	rt_analyzer_free(an);
}

static void test_psn_wrap_and_jump(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	const uint32_t psns[] = {0xfffffe, 0xffffff, 0, 2, 0x500000, 0x500001, 0x10};
	struct rt_an_note n[7];
	sends(an, psns, 7, n);
	assert_int_equal(n[2].flags, 0);
	assert_int_equal(n[2].psn_gap, 0); /* 0 follows 0xffffff */
	assert_int_equal(n[3].psn_gap, 1);
	assert_int_equal(n[4].flags, RT_AN_NOTE_PSN_JUMP);
	assert_int_equal(n[4].psn_gap, 0);
	assert_int_equal(n[5].flags, 0);
	assert_int_equal(n[6].flags, RT_AN_NOTE_PSN_JUMP); /* far behind: a jump, not a resend */
	rt_analyzer_free(an);
}

static void test_uc_duplicate(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n[3];
	const uint32_t psns[] = {7, 8, 8};
	for (int i = 0; i < 3; i++) {
		/* UC SEND only, 100 us apart (closer, the same packet again is a copy) */
		struct rt_record r = pkt(1, 2, 0x24, QP_B, psns[i], ((uint64_t)i + 1) * 100000);
		feed(an, &r, &n[i]);
	}
	assert_int_equal(n[1].flags, 0);
	assert_int_equal(n[2].flags, RT_AN_NOTE_DUPLICATE);
	rt_analyzer_free(an);
}

/* A resend run's first request: the NAK that started it (0: a timeout) and its wait. */
static void assert_resend(const struct rt_an_note *n, uint64_t nak_frame, uint64_t wait_ns)
{
	assert_int_equal(n->flags, RT_AN_NOTE_RETRANS);
	assert_int_equal(n->nak_frame, nak_frame);
	assert_int_equal(n->resend_wait_ns, wait_ns);
}

/* A NAK from B pairs with A's flow by PSN; the resends that follow point at it. */
static void test_nak_go_back_n(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	const uint32_t psns[] = {10, 11, 12, 13};
	struct rt_an_note n[4], nak, r1, r2, fresh, rnr, r3, again;
	sends(an, psns, 4, n);
	struct rt_record r = ack(2, 1, QP_A, 11, 0x60 /* NAK, PSN sequence error */, 5000);
	feed(an, &r, &nak);
	assert_int_equal(nak.frame, 5);
	assert_int_equal(nak.flags, RT_AN_NOTE_NAK);
	assert_int_equal(nak.nak_code, 0);
	assert_int_equal(nak.flow_id, 1);
	assert_int_equal(nak.peer_flow_id, 0);
	r = pkt(1, 2, 0x04, QP_B, 11, 6000);
	feed(an, &r, &r1);
	r = pkt(1, 2, 0x04, QP_B, 12, 7000);
	feed(an, &r, &r2);
	assert_resend(&r1, 5, 1000); /* the NAK at 5000, the resend at 6000 */
	assert_resend(&r2, 5, 0);    /* the run's second packet */
	r = pkt(1, 2, 0x04, QP_B, 14, 8000);
	feed(an, &r, &fresh);
	assert_int_equal(fresh.flags, 0);
	assert_int_equal(fresh.nak_frame, 0);
	/* an RNR NAK is named with its timer, and the resend after it points at it */
	r = ack(2, 1, QP_A, 14, 0x2e, 9000);
	feed(an, &r, &rnr);
	assert_int_equal(rnr.flags, RT_AN_NOTE_RNR_NAK);
	assert_int_equal(rnr.nak_code, 0x0e);
	assert_int_equal(rnr.peer_flow_id, 0);
	r = pkt(1, 2, 0x04, QP_B, 14, 9000 + 1280000); /* after its timer (code 14: 1.28 ms) */
	feed(an, &r, &r3);
	assert_resend(&r3, rnr.frame, 1280000);
	/* a later resend run with no NAK before it is a timeout (long after: no copy) */
	r = pkt(1, 2, 0x04, QP_B, 15, 1300000);
	feed(an, &r, &fresh);
	r = pkt(1, 2, 0x04, QP_B, 15, 1800000);
	feed(an, &r, &again);
	assert_resend(&again, 0, 500000); /* after the flow's previous request */
	assert_int_equal(rt_analyzer_flow_count(an), 2);
	rt_analyzer_free(an);
}

/* Flow `id`'s transport figures in the results view (finished first). */
static const struct rt_res_transport *xport_of(struct rt_analyzer *an, uint32_t id)
{
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_finish(an, errbuf), 0);
	const struct rt_results *res = rt_analyzer_results(an);
	assert_non_null(res);
	assert_true(id < res->nflows);
	assert_non_null(res->flows[id].xport);
	return res->flows[id].xport;
}

/*
 * A resend in a frame older than the NAK, RNR NAK or request it is timed from
 * (the capture's time went backwards): the wait is unknown, so no sample and
 * no wait in the note (not one of 2^64 ns less the gap).
 */
static void test_resend_time_backwards(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	const uint32_t psns[] = {10, 11, 12, 13};
	struct rt_an_note n[4], nak, r1, fresh, rnr, r2, again;
	sends(an, psns, 4, n);
	struct rt_record r = ack(2, 1, QP_A, 11, 0x60, 50000);
	feed(an, &r, &nak);
	r = pkt(1, 2, 0x04, QP_B, 11, 40000); /* before the NAK */
	feed(an, &r, &r1);
	assert_resend(&r1, nak.frame, 0);
	r = pkt(1, 2, 0x04, QP_B, 14, 60000);
	feed(an, &r, &fresh);
	r = ack(2, 1, QP_A, 14, 0x2e, 200000);
	feed(an, &r, &rnr);
	r = pkt(1, 2, 0x04, QP_B, 14, 150000); /* before the RNR NAK */
	feed(an, &r, &r2);
	assert_resend(&r2, rnr.frame, 0);
	r = pkt(1, 2, 0x04, QP_B, 15, 1300000);
	feed(an, &r, &fresh);
	r = pkt(1, 2, 0x04, QP_B, 15, 1200000); /* a timeout resend before the previous request */
	feed(an, &r, &again);
	assert_resend(&again, 0, 0);
	const struct rt_res_transport *x = xport_of(an, 0);
	assert_int_equal(x->go_back_n, 1);
	assert_int_equal(x->go_back_n_delay.samples, 0);
	assert_int_equal(x->rnr_retries, 1);
	assert_int_equal(x->rnr_wait.samples, 0);
	assert_int_equal(x->timeouts, 1);
	assert_int_equal(x->timeout_idle.samples, 0);
	rt_analyzer_free(an);
}

/*
 * An ACK names the round trip of the newest request with AckReq it acknowledges, and that
 * request's frame; a coalesced ACK covers two; a resent request gives none (Karn).
 */
static void test_ack_rtt(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n[8];
	struct rt_record r = pkt(1, 2, 0x04, QP_B, 20, 1000);
	r.ackreq = 1;
	feed(an, &r, &n[0]);
	r = ack(2, 1, QP_A, 20, 0x1f, 4000);
	feed(an, &r, &n[1]);
	assert_int_equal(n[1].rtt_ns, 3000);
	assert_int_equal(n[1].rtt_frame, 1);
	/* two requests, one ACK for both: the newest one's round trip */
	r = pkt(1, 2, 0x04, QP_B, 21, 5000);
	r.ackreq = 1;
	feed(an, &r, &n[2]);
	r.psn = 22;
	r.ts_ns = 6000;
	feed(an, &r, &n[3]);
	r = ack(2, 1, QP_A, 22, 0x1f, 6500);
	feed(an, &r, &n[4]);
	assert_int_equal(n[4].rtt_ns, 500);
	assert_int_equal(n[4].rtt_frame, 4);
	/* an ACK of nothing waiting: no sample */
	feed(an, &r, &n[5]);
	assert_int_equal(n[5].rtt_ns, 0);
	assert_int_equal(n[5].rtt_frame, 0);
	/* a resent request (beyond the window where it would be a copy) is not timed */
	r = pkt(1, 2, 0x04, QP_B, 22, 100000);
	r.ackreq = 1;
	feed(an, &r, &n[6]);
	assert_int_equal(n[6].flags, RT_AN_NOTE_RETRANS);
	r = ack(2, 1, QP_A, 22, 0x1f, 100500);
	feed(an, &r, &n[7]);
	assert_int_equal(n[7].rtt_ns, 0);
	rt_analyzer_free(an);
}

/* A READ request uses one PSN per response packet; the next request after it is no gap. */
static void test_read_span(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n1, n2, resp;
	struct rt_record r = pkt(1, 2, 0x0c, QP_B, 50, 1);
	r.hdrs = RT_H_RETH;
	r.reth_len = 4096; /* PMTU unknown: 1 to 16 packets */
	feed(an, &r, &n1);
	r = pkt(2, 1, 0x0e /* READ response middle */, QP_A, 52, 2);
	feed(an, &r, &resp);
	assert_int_equal(resp.flow_id, 1);
	assert_int_equal(resp.peer_flow_id, 0); /* paired by PSN 52 inside 50..65 */
	r = pkt(1, 2, 0x04, QP_B, 54, 3);
	feed(an, &r, &n2);
	assert_int_equal(n2.flags, 0);
	assert_int_equal(n2.psn_gap, 0);
	rt_analyzer_free(an);
}

/*
 * A CNP names the CE-marked frame it answers: two marks (frames 2, 3) and two
 * CNPs 8 ns after each; a later mark answered 1 ns after it (the NP's delay is
 * learned from the CNPs, not assumed).
 */
static void test_ce_to_cnp(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n[8];
	for (uint32_t psn = 0; psn < 3; psn++) {
		struct rt_record r = pkt(1, 2, 0x0a, QP_B, psn, psn + 1);
		r.ecn = psn ? ECN_CE : ECN_ECT0;
		feed(an, &r, &n[psn]);
	}
	struct rt_record c = pkt(2, 1, 0x81, QP_A, 0, 10);
	c.becn = 1;
	feed(an, &c, &n[3]);
	assert_int_equal(n[0].flags, 0);
	assert_int_equal(n[1].flags, RT_AN_NOTE_CE);
	assert_int_equal(n[2].flags, RT_AN_NOTE_CE);
	assert_int_equal(n[3].flow_id, 1);
	assert_int_equal(n[3].cnp_for_frame, 2);
	assert_int_equal(n[3].cnp_delay_ns, 8); /* the mark at 2, the CNP at 10 */
	assert_int_equal(n[3].peer_flow_id, 0);
	/* the second CNP, as late after the second mark as the first after the first, answers it */
	c.ts_ns = 11;
	feed(an, &c, &n[4]);
	assert_int_equal(n[4].cnp_for_frame, 3);
	assert_int_equal(n[4].cnp_delay_ns, 8);
	assert_int_equal(n[4].peer_flow_id, 0);
	/* a new mark: the only one no CNP answered yet */
	struct rt_record r = pkt(1, 2, 0x0a, QP_B, 3, 12);
	r.ecn = ECN_CE;
	feed(an, &r, &n[5]);
	c.ts_ns = 13;
	feed(an, &c, &n[6]);
	assert_int_equal(n[6].cnp_for_frame, 6);
	assert_int_equal(n[6].cnp_delay_ns, 1);
	struct rt_an_counts t;
	rt_analyzer_totals(an, &t);
	assert_int_equal(t.ce, 3);
	assert_int_equal(t.cnp, 3);
	rt_analyzer_free(an);
}

/* Two data flows A->B: the CNP goes to the only CE-marked one. */
static void test_cnp_picks_ce_flow(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n[3];
	struct rt_record r = pkt(1, 2, 0x04, 0x100, 0, 1);
	feed(an, &r, &n[0]);
	r = pkt(1, 2, 0x04, 0x200, 0, 2);
	r.ecn = ECN_CE;
	feed(an, &r, &n[1]);
	r = pkt(2, 1, 0x81, 0x300, 0, 3);
	feed(an, &r, &n[2]);
	assert_int_equal(n[2].peer_flow_id, 1);
	assert_int_equal(n[2].cnp_for_frame, 2);
	/* a CNP between hosts that sent nothing else is attributed to no flow */
	struct rt_an_note lone;
	r = pkt(3, 4, 0x81, 0x300, 0, 4);
	feed(an, &r, &lone);
	assert_int_equal(lone.flow_id, 3);
	assert_int_equal(lone.peer_flow_id, RT_AN_NONE);
	assert_int_equal(lone.cnp_for_frame, 0);
	rt_analyzer_free(an);
}

/* UD: the DETH source QP tells which flow a CNP to that QP throttles, among several. */
static void test_cnp_by_deth(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	struct rt_an_note n[3];
	for (uint32_t i = 0; i < 2; i++) {
		struct rt_record r = pkt(1, 2, 0x64, 0x400 + i, i, i + 1);
		r.hdrs = RT_H_DETH;
		r.deth_src_qp = 0x500 + i;
		r.ecn = ECN_CE;
		feed(an, &r, &n[i]);
	}
	struct rt_record c = pkt(2, 1, 0x81, 0x501, 0, 5);
	feed(an, &c, &n[2]);
	assert_int_equal(n[2].peer_flow_id, 1);
	assert_int_equal(n[2].cnp_for_frame, 2);
	rt_analyzer_free(an);
}

static struct rt_record pfc(uint8_t mac, uint8_t enable, const uint16_t quanta[8], uint64_t ts)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.kind = RT_KIND_PFC;
	r.layers = RT_L_ETH | RT_L_MACC;
	r.src_mac[5] = mac;
	r.macc_opcode = RT_MACC_PFC;
	r.pfc_enable = enable;
	memcpy(r.pfc_quanta, quanta, sizeof(r.pfc_quanta));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 64;
	return r;
}

/* Pause time is the quanta at the link speed, cut short by the sender's next frame for it. */
static void test_pfc_pause_time(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(100000000000ull);
	const uint16_t xoff[8] = {0, 0, 0, 0xffff, 0, 0, 1000, 0};
	const uint16_t xon[8] = {0};
	struct rt_an_note p1, p2, p3, p4;
	struct rt_record r = pfc(1, 0x48, xoff, 1000000);
	feed(an, &r, &p1);
	assert_int_equal(p1.flow_id, RT_AN_NONE);
	assert_int_equal(p1.pause_classes, 0x48);
	assert_int_equal(p1.paused_ns[3], 335539); /* 0xffff x 5.12 ns */
	assert_int_equal(p1.paused_ns[6], 5120);
	assert_int_equal(p1.paused_ns[0], 0);
	assert_int_equal(p1.pause_cut, 0);
	/* XON for priority 3 after 2 us ends frame 1's pause of it; priority 6 runs on */
	r = pfc(1, 0x08, xon, 1002000);
	feed(an, &r, &p2);
	assert_int_equal(p2.pause_classes, 0x08);
	assert_int_equal(p2.paused_ns[3], 0);
	assert_int_equal(p2.pause_cut, 1u << 3);
	assert_int_equal(p2.pause_cut_frame[3], 1);
	assert_int_equal(p2.pause_cut_ns[3], 2000);
	/* another sender's frame cuts nothing of the first's */
	r = pfc(2, 0x40, xoff, 1003000);
	feed(an, &r, &p3);
	assert_int_equal(p3.pause_cut, 0);
	/* the first sender's priority 6 pause (5.12 us) ended on its own before this XOFF */
	r = pfc(1, 0x40, xoff, 1010000);
	feed(an, &r, &p4);
	assert_int_equal(p4.pause_cut, 0);
	assert_int_equal(p4.paused_ns[6], 5120);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_finish(an, errbuf), 0);
	rt_analyzer_free(an);

	/* 802.3x PAUSE at 25 Gb/s: one quantum is 20.48 ns; a refresh restarts it */
	an = analyzer(25000000000ull);
	memset(&r, 0, sizeof(r));
	r.kind = RT_KIND_PAUSE;
	r.layers = RT_L_ETH | RT_L_MACC;
	r.pause_quanta = 100;
	r.ts_ns = 1000;
	feed(an, &r, &p1);
	assert_int_equal(p1.pause_classes, 1u << RT_AN_PAUSE_CLASS);
	assert_int_equal(p1.paused_ns[RT_AN_PAUSE_CLASS], 2048);
	r.ts_ns = 2000;
	feed(an, &r, &p2);
	assert_int_equal(p2.pause_cut, 1u << RT_AN_PAUSE_CLASS);
	assert_int_equal(p2.pause_cut_frame[RT_AN_PAUSE_CLASS], 1);
	assert_int_equal(p2.pause_cut_ns[RT_AN_PAUSE_CLASS], 1000);
	assert_int_equal(p2.paused_ns[RT_AN_PAUSE_CLASS], 2048);
	rt_analyzer_free(an);
}

/* Many flows: ids stay in first-seen order and every flow is found again after the tables grow. */
static void test_many_flows(void **state)
{
	(void)state;
	struct rt_analyzer *an = analyzer(0);
	enum { N = 3000 };
	struct rt_an_note *n = calloc(2 * N, sizeof(*n));
	assert_non_null(n);
	for (uint32_t i = 0; i < 2 * N; i++) {
		uint32_t q = i % N;
		struct rt_record r = pkt((uint8_t)(1 + q % 7), 200, 0x04, q, i / N, i + 1);
		feed(an, &r, &n[i]);
	}
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(n[i].flow_id, i);
		assert_int_equal(n[N + i].flow_id, i);
		assert_int_equal(n[N + i].flags, 0);
		assert_int_equal(n[N + i].psn_gap, 0);
	}
	assert_int_equal(rt_analyzer_flow_count(an), N);
	free(n);
	rt_analyzer_free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frame_numbers),
	    cmocka_unit_test(test_in_order_gap_and_resend),
	    cmocka_unit_test(test_psn_wrap_and_jump),
	    cmocka_unit_test(test_uc_duplicate),
	    cmocka_unit_test(test_nak_go_back_n),
	    cmocka_unit_test(test_resend_time_backwards),
	    cmocka_unit_test(test_ack_rtt),
	    cmocka_unit_test(test_read_span),
	    cmocka_unit_test(test_ce_to_cnp),
	    cmocka_unit_test(test_cnp_picks_ce_flow),
	    cmocka_unit_test(test_cnp_by_deth),
	    cmocka_unit_test(test_pfc_pause_time),
	    cmocka_unit_test(test_many_flows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

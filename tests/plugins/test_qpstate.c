/* Unit tests of the plugin's per-QP engine: gaps, resends, NAKs, pairing, CE->CNP, PFC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"
#include "plugins/qpstate.h"

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

static struct rt_qp *engine(uint64_t speed)
{
	struct rt_qp *qp = rt_qp_new(speed);
	assert_non_null(qp);
	return qp;
}

/* RC SEND only (0x04) requests A->B at PSNs, notes in n[]. */
static void sends(struct rt_qp *qp, const uint32_t *psns, size_t count, struct rt_qp_note *n,
                  uint32_t frame0)
{
	for (size_t i = 0; i < count; i++) {
		struct rt_record r = pkt(1, 2, 0x04, QP_B, psns[i], 1000 * (frame0 + i));
		assert_int_equal(rt_qp_roce(qp, &r, frame0 + (uint32_t)i, &n[i]), 0);
	}
}

static void test_in_order_gap_and_resend(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	const uint32_t psns[] = {100, 101, 102, 105, 106, 103, 104, 107};
	struct rt_qp_note n[8];
	sends(qp, psns, 8, n, 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(n[i].flags, 0);
		assert_int_equal(n[i].psn_gap, 0);
		assert_int_equal(n[i].flow_id, 0);
	}
	assert_int_equal(n[3].psn_gap, 2); /* 103 and 104 missing */
	assert_int_equal(n[4].psn_gap, 0);
	assert_int_equal(n[5].flags, RT_QP_RETRANS);
	assert_int_equal(n[5].nak_frame, 0); /* no NAK: a timeout resend */
	assert_int_equal(n[6].flags, RT_QP_RETRANS);
	assert_int_equal(n[7].flags, 0); /* 107 is new again */
	assert_int_equal(n[7].psn_gap, 0);
	rt_qp_free(qp);
}

static void test_psn_wrap_and_jump(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	const uint32_t psns[] = {0xfffffe, 0xffffff, 0, 2, 0x500000, 0x500001};
	struct rt_qp_note n[6];
	sends(qp, psns, 6, n, 1);
	assert_int_equal(n[2].flags, 0);
	assert_int_equal(n[2].psn_gap, 0); /* 0 follows 0xffffff */
	assert_int_equal(n[3].psn_gap, 1);
	assert_int_equal(n[4].flags, RT_QP_PSN_JUMP);
	assert_int_equal(n[4].psn_gap, 0);
	assert_int_equal(n[5].flags, 0);
	rt_qp_free(qp);
}

static void test_uc_duplicate(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	struct rt_qp_note n[3];
	const uint32_t psns[] = {7, 8, 8};
	for (int i = 0; i < 3; i++) {
		struct rt_record r = pkt(1, 2, 0x24 /* UC SEND only */, QP_B, psns[i], (uint64_t)i);
		assert_int_equal(rt_qp_roce(qp, &r, (uint32_t)i + 1, &n[i]), 0);
	}
	assert_int_equal(n[2].flags, RT_QP_DUPLICATE);
	rt_qp_free(qp);
}

/* A NAK from B pairs with A's flow by PSN; the resends that follow point at it. */
static void test_nak_go_back_n(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	const uint32_t psns[] = {10, 11, 12, 13};
	struct rt_qp_note n[4], nak, r1, r2, fresh, a2;
	sends(qp, psns, 4, n, 1);
	struct rt_record r = ack(2, 1, QP_A, 11, 0x60 /* NAK, PSN sequence error */, 5000);
	assert_int_equal(rt_qp_roce(qp, &r, 5, &nak), 0);
	assert_int_equal(nak.flags, RT_QP_NAK);
	assert_int_equal(nak.nak_code, 0);
	assert_int_equal(nak.flow_id, 1);
	assert_int_equal(nak.peer_flow_id, 0);
	r = pkt(1, 2, 0x04, QP_B, 11, 6000);
	assert_int_equal(rt_qp_roce(qp, &r, 6, &r1), 0);
	r = pkt(1, 2, 0x04, QP_B, 12, 7000);
	assert_int_equal(rt_qp_roce(qp, &r, 7, &r2), 0);
	assert_int_equal(r1.flags, RT_QP_RETRANS);
	assert_int_equal(r1.nak_frame, 5);
	assert_int_equal(r2.flags, RT_QP_RETRANS);
	assert_int_equal(r2.nak_frame, 5);
	r = pkt(1, 2, 0x04, QP_B, 14, 8000);
	assert_int_equal(rt_qp_roce(qp, &r, 8, &fresh), 0);
	assert_int_equal(fresh.flags, 0);
	/* an RNR NAK is named with its timer, and the ACK flow stays paired */
	r = ack(2, 1, QP_A, 14, 0x2e, 9000);
	assert_int_equal(rt_qp_roce(qp, &r, 9, &a2), 0);
	assert_int_equal(a2.flags, RT_QP_RNR_NAK);
	assert_int_equal(a2.nak_code, 0x0e);
	assert_int_equal(a2.peer_flow_id, 0);
	assert_int_equal(rt_qp_flow_count(qp), 2);
	rt_qp_free(qp);
}

/* A READ request uses one PSN per response packet; the next request after it is no gap. */
static void test_read_span(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	struct rt_qp_note n1, n2, resp;
	struct rt_record r = pkt(1, 2, 0x0c, QP_B, 50, 1);
	r.hdrs = RT_H_RETH;
	r.reth_len = 4096; /* PMTU unknown: 1 to 16 packets */
	assert_int_equal(rt_qp_roce(qp, &r, 1, &n1), 0);
	r = pkt(2, 1, 0x0e /* READ response middle */, QP_A, 52, 2);
	assert_int_equal(rt_qp_roce(qp, &r, 2, &resp), 0);
	assert_int_equal(resp.peer_flow_id, 0); /* paired by PSN 52 inside 50..65 */
	r = pkt(1, 2, 0x04, QP_B, 54, 3);
	assert_int_equal(rt_qp_roce(qp, &r, 3, &n2), 0);
	assert_int_equal(n2.flags, 0);
	assert_int_equal(n2.psn_gap, 0);
	rt_qp_free(qp);
}

/* The CNP names the first CE-marked frame since the previous CNP; that frame names the CNP. */
static void test_ce_to_cnp(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	struct rt_qp_note n[8];
	uint32_t f = 1;
	for (uint32_t psn = 0; psn < 3; psn++, f++) {
		struct rt_record r = pkt(1, 2, 0x0a, QP_B, psn, f);
		r.ecn = psn ? ECN_CE : ECN_ECT0;
		assert_int_equal(rt_qp_roce(qp, &r, f, &n[f - 1]), 0);
	}
	struct rt_record c = pkt(2, 1, 0x81, QP_A, 0, 10);
	c.becn = 1;
	assert_int_equal(rt_qp_roce(qp, &c, 4, &n[3]), 0);
	assert_int_equal(n[1].flags, RT_QP_CE);
	assert_int_equal(n[3].cnp_for_frame, 2);
	assert_int_equal(n[3].peer_flow_id, 0);
	assert_int_equal(n[1].cnp_frame, 4);
	assert_int_equal(n[2].cnp_frame, 0); /* CE, but the CNP answered frame 2 */
	/* a second CNP without a new CE marking answers nothing */
	c.ts_ns = 11;
	assert_int_equal(rt_qp_roce(qp, &c, 5, &n[4]), 0);
	assert_int_equal(n[4].cnp_for_frame, 0);
	assert_int_equal(n[4].peer_flow_id, 0);
	/* the next CE marking starts a new round */
	struct rt_record r = pkt(1, 2, 0x0a, QP_B, 3, 12);
	r.ecn = ECN_CE;
	assert_int_equal(rt_qp_roce(qp, &r, 6, &n[5]), 0);
	c.ts_ns = 13;
	assert_int_equal(rt_qp_roce(qp, &c, 7, &n[6]), 0);
	assert_int_equal(n[6].cnp_for_frame, 6);
	assert_int_equal(n[5].cnp_frame, 7);
	rt_qp_free(qp);
}

/* Two data flows A->B: the CNP goes to the only CE-marked one. */
static void test_cnp_picks_ce_flow(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	struct rt_qp_note n[3];
	struct rt_record r = pkt(1, 2, 0x04, 0x100, 0, 1);
	assert_int_equal(rt_qp_roce(qp, &r, 1, &n[0]), 0);
	r = pkt(1, 2, 0x04, 0x200, 0, 2);
	r.ecn = ECN_CE;
	assert_int_equal(rt_qp_roce(qp, &r, 2, &n[1]), 0);
	r = pkt(2, 1, 0x81, 0x300, 0, 3);
	assert_int_equal(rt_qp_roce(qp, &r, 3, &n[2]), 0);
	assert_int_equal(n[2].peer_flow_id, 1);
	assert_int_equal(n[2].cnp_for_frame, 2);
	/* a CNP between hosts that sent nothing else is attributed to no flow */
	struct rt_qp_note lone;
	r = pkt(3, 4, 0x81, 0x300, 0, 4);
	assert_int_equal(rt_qp_roce(qp, &r, 4, &lone), 0);
	assert_int_equal(lone.peer_flow_id, RT_QP_NONE);
	assert_int_equal(lone.cnp_for_frame, 0);
	rt_qp_free(qp);
}

/* UD: the DETH source QP tells which flow a CNP to that QP throttles, among several. */
static void test_cnp_by_deth(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	struct rt_qp_note n[3];
	for (uint32_t i = 0; i < 2; i++) {
		struct rt_record r = pkt(1, 2, 0x64, 0x400 + i, i, i);
		r.hdrs = RT_H_DETH;
		r.deth_src_qp = 0x500 + i;
		r.ecn = ECN_CE;
		assert_int_equal(rt_qp_roce(qp, &r, i + 1, &n[i]), 0);
	}
	struct rt_record c = pkt(2, 1, 0x81, 0x501, 0, 5);
	assert_int_equal(rt_qp_roce(qp, &c, 3, &n[2]), 0);
	assert_int_equal(n[2].peer_flow_id, 1);
	assert_int_equal(n[2].cnp_for_frame, 2);
	assert_int_equal(n[1].cnp_frame, 3);
	assert_int_equal(n[0].cnp_frame, 0);
	rt_qp_free(qp);
}

static struct rt_record pfc(uint16_t enable, const uint16_t quanta[8], uint64_t ts)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.kind = RT_KIND_PFC;
	r.layers = RT_L_ETH | RT_L_MACC;
	r.src_mac[5] = 1;
	r.macc_opcode = RT_MACC_PFC;
	r.pfc_enable = enable;
	memcpy(r.pfc_quanta, quanta, sizeof(r.pfc_quanta));
	r.ts_ns = ts;
	return r;
}

/* Pause time is the quanta at the link speed, cut short by the sender's next frame for the
 * priority. */
static void test_pfc_pause_time(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(100000000000ull);
	const uint16_t xoff[8] = {0, 0, 0, 0xffff, 0, 0, 1000, 0};
	const uint16_t xon[8] = {0};
	struct rt_qp_pause_note p1, p2, p3;
	struct rt_record r = pfc(0x48, xoff, 1000000);
	assert_int_equal(rt_qp_pause(qp, &r, &p1), 0);
	assert_int_equal(p1.classes, 0x48);
	assert_int_equal(p1.paused_ns[3], 335539); /* 0xffff x 5.12 ns */
	assert_int_equal(p1.paused_ns[6], 5120);
	assert_int_equal(p1.paused_ns[0], 0);
	/* XON for priority 3 after 2 us ends its pause; priority 6 runs on */
	r = pfc(0x08, xon, 1002000);
	assert_int_equal(rt_qp_pause(qp, &r, &p2), 0);
	assert_int_equal(p1.paused_ns[3], 2000);
	assert_int_equal(p1.paused_ns[6], 5120);
	assert_int_equal(p2.paused_ns[3], 0);
	/* another sender's frame changes nothing of the first */
	r = pfc(0x40, xoff, 1003000);
	r.src_mac[5] = 2;
	assert_int_equal(rt_qp_pause(qp, &r, &p3), 0);
	assert_int_equal(p1.paused_ns[6], 5120);
	rt_qp_free(qp);

	/* 802.3x PAUSE at 25 Gb/s: one quantum is 20.48 ns */
	qp = engine(25000000000ull);
	memset(&r, 0, sizeof(r));
	r.kind = RT_KIND_PAUSE;
	r.pause_quanta = 100;
	assert_int_equal(rt_qp_pause(qp, &r, &p1), 0);
	assert_int_equal(p1.classes, 1u << RT_QP_PAUSE_CLASS);
	assert_int_equal(p1.paused_ns[RT_QP_PAUSE_CLASS], 2048);
	rt_qp_free(qp);
}

/* Many flows: ids stay in first-seen order and every flow is found again after the tables grow. */
static void test_many_flows(void **state)
{
	(void)state;
	struct rt_qp *qp = engine(0);
	enum { N = 3000 };
	struct rt_qp_note *n = calloc(2 * N, sizeof(*n));
	assert_non_null(n);
	for (uint32_t i = 0; i < 2 * N; i++) {
		uint32_t q = i % N;
		struct rt_record r = pkt((uint8_t)(1 + q % 7), 200, 0x04, q, i / N, i);
		assert_int_equal(rt_qp_roce(qp, &r, i + 1, &n[i]), 0);
	}
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(n[i].flow_id, i);
		assert_int_equal(n[N + i].flow_id, i);
		assert_int_equal(n[N + i].flags, 0);
		assert_int_equal(n[N + i].psn_gap, 0);
	}
	assert_int_equal(rt_qp_flow_count(qp), N);
	free(n);
	rt_qp_free(qp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_order_gap_and_resend),
	    cmocka_unit_test(test_psn_wrap_and_jump),
	    cmocka_unit_test(test_uc_duplicate),
	    cmocka_unit_test(test_nak_go_back_n),
	    cmocka_unit_test(test_read_span),
	    cmocka_unit_test(test_ce_to_cnp),
	    cmocka_unit_test(test_cnp_picks_ce_flow),
	    cmocka_unit_test(test_cnp_by_deth),
	    cmocka_unit_test(test_pfc_pause_time),
	    cmocka_unit_test(test_many_flows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

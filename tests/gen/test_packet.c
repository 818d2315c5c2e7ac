/* Unit tests of the packet builder: frames it builds decode with rt_dissect() to the same fields, ICRC ok. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "capture/gen/packet.h"
#include "capture/gen/pfc.h"
#include "dissect/dissect.h"

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 1}, mac_b[6] = {0x02, 0, 0, 0, 0, 2};

static struct rt_gen_ipv4 ipv4(void)
{
	struct rt_gen_ipv4 ip = {.src = {10, 1, 2, 3}, .dst = {10, 4, 5, 6}, .sport = 49152,
				 .dport = 4791, .tos = 26 << 2 | 2, .ttl = 64, .id = 0, .df = true};
	return ip;
}

static void dissect(const uint8_t *frame, int len, struct rt_record *rec)
{
	struct rt_dissect_opts o;
	rt_dissect_opts_init(&o);
	assert_int_equal(rt_dissect(&o, RT_LINK_ETHERNET, frame, (uint32_t)len, (uint32_t)len, rec), 0);
}

static void test_write_only(void **state)
{
	(void)state;
	uint8_t payload[1023];
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	struct rt_gen_pkt p = {.opcode = 0x0A, .ackreq = true, .pkey = 0xffff, .dest_qp = 0x123456,
			       .psn = 0xabcdef, .has_reth = true, .reth_va = 0x1122334455667788ull,
			       .reth_rkey = 0xdeadbeef, .reth_len = 1023, .payload = payload,
			       .payload_len = sizeof(payload)};
	struct rt_gen_ipv4 ip = ipv4();
	uint8_t frame[2048];
	int len = rt_gen_build_frame(&p, &ip, mac_a, mac_b, frame, sizeof(frame));
	/* 14 + 20 + 8 + BTH 12 + RETH 16 + 1023 + pad 1 + ICRC 4 */
	assert_int_equal(len, 14 + 20 + 8 + 12 + 16 + 1023 + 1 + 4);
	assert_int_equal(rt_gen_udp_payload_len(&p), 12 + 16 + 1024 + 4);
	struct rt_record r;
	dissect(frame, len, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.opcode, 0x0A);
	assert_int_equal(r.dest_qp, 0x123456);
	assert_int_equal(r.psn, 0xabcdef);
	assert_int_equal(r.ackreq, 1);
	assert_int_equal(r.padcnt, 1);
	assert_int_equal(r.pkey, 0xffff);
	assert_int_equal(r.dscp, 26);
	assert_int_equal(r.ecn, 2);
	assert_int_equal(r.udp_sport, 49152);
	assert_true(r.hdrs & RT_H_RETH);
	assert_true(r.reth_va == 0x1122334455667788ull);
	assert_int_equal(r.reth_rkey, 0xdeadbeef);
	assert_int_equal(r.reth_len, 1023);
	assert_int_equal(r.payload_len, 1023);
	assert_memory_equal(frame + r.payload_off, payload, sizeof(payload));
	assert_false(r.truncated);
}

static void test_cnp(void **state)
{
	(void)state;
	struct rt_gen_pkt p = {.opcode = 0x81, .becn = true, .pkey = 0xffff, .dest_qp = 0x10203,
			       .cnp_body = true};
	struct rt_gen_ipv4 ip = ipv4();
	ip.tos = 48 << 2;
	uint8_t frame[256];
	int len = rt_gen_build_frame(&p, &ip, mac_a, mac_b, frame, sizeof(frame));
	assert_int_equal(len, 14 + 20 + 8 + 12 + 16 + 4);
	struct rt_record r;
	dissect(frame, len, &r);
	assert_int_equal(r.kind, RT_KIND_CNP);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.becn, 1);
	assert_int_equal(r.fecn, 0);
	assert_int_equal(r.dest_qp, 0x10203);
	assert_int_equal(r.psn, 0);
	assert_int_equal(r.dscp, 48);
	assert_int_equal(r.events & RT_EV_CNP_NOT_BECN, 0);
}

static void test_ack_nak(void **state)
{
	(void)state;
	struct rt_gen_ipv4 ip = ipv4();
	uint8_t frame[256];
	static const uint8_t syn[] = {RT_GEN_SYNDROME_ACK, RT_GEN_SYNDROME_NAK_PSN};
	for (int i = 0; i < 2; i++) {
		struct rt_gen_pkt p = {.opcode = 0x11, .pkey = 0xffff, .dest_qp = 77, .psn = 5000,
				       .has_aeth = true, .aeth_syndrome = syn[i], .aeth_msn = 0x345678};
		int len = rt_gen_build_frame(&p, &ip, mac_a, mac_b, frame, sizeof(frame));
		struct rt_record r;
		dissect(frame, len, &r);
		assert_int_equal(r.icrc, RT_ICRC_OK);
		assert_true(r.hdrs & RT_H_AETH);
		assert_int_equal(r.aeth_syndrome, syn[i]);
		assert_int_equal(r.aeth_msn, 0x345678);
		assert_int_equal(rt_aeth_type(r.aeth_syndrome), i ? RT_AETH_NAK : RT_AETH_ACK);
	}
}

/* The ICRC masks TOS and TTL, but covers the IP id, flags and addresses. */
static void test_icrc_coverage(void **state)
{
	(void)state;
	uint8_t buf[128];
	struct rt_gen_pkt p = {.opcode = 0x04, .dest_qp = 9, .psn = 1, .payload_len = 8};
	struct rt_gen_ipv4 a = ipv4(), b = a;
	int n = rt_gen_build(&p, &a, buf, sizeof(buf));
	assert_int_equal(n, 12 + 8 + 4);
	uint32_t base = rt_gen_icrc(&a, buf, (size_t)n);
	b.tos = 0xff;
	b.ttl = 1;
	assert_int_equal(rt_gen_icrc(&b, buf, (size_t)n), base);
	b = a;
	b.id = 1;
	assert_int_not_equal(rt_gen_icrc(&b, buf, (size_t)n), base);
	b = a;
	b.df = false;
	assert_int_not_equal(rt_gen_icrc(&b, buf, (size_t)n), base);
	b = a;
	b.src[3] ^= 1;
	assert_int_not_equal(rt_gen_icrc(&b, buf, (size_t)n), base);
	/* FECN/BECN are masked too */
	buf[4] = 0xc0;
	assert_int_equal(rt_gen_icrc(&a, buf, (size_t)n), base);
	assert_int_equal(rt_gen_build(&p, &a, buf, 10), -ENOSPC);
}

/* PFC frames the server sends decode as PFC naming the priority and quanta; the parser reads them back. */
static void test_pfc(void **state)
{
	(void)state;
	uint8_t frame[RT_PFC_FRAME_LEN];
	assert_int_equal(rt_pfc_build(frame, sizeof(frame), mac_a, 3, 0xffff), RT_PFC_FRAME_LEN);
	struct rt_record r;
	dissect(frame, RT_PFC_FRAME_LEN, &r);
	assert_int_equal(r.kind, RT_KIND_PFC);
	assert_int_equal(r.pfc_enable, 1u << 3);
	assert_int_equal(r.pfc_quanta[3], 0xffff);
	assert_int_equal(r.pfc_quanta[0], 0);
	assert_memory_equal(r.dst_mac, ((uint8_t[]){0x01, 0x80, 0xc2, 0, 0, 1}), 6);
	uint16_t q = 1;
	assert_true(rt_pfc_parse(frame, sizeof(frame), 3, &q));
	assert_int_equal(q, 0xffff);
	assert_false(rt_pfc_parse(frame, sizeof(frame), 4, &q)); /* another priority */
	assert_false(rt_pfc_parse(frame, 20, 3, &q));		   /* short */
	rt_pfc_build(frame, sizeof(frame), mac_a, 3, 0);
	assert_true(rt_pfc_parse(frame, sizeof(frame), 3, &q));
	assert_int_equal(q, 0); /* XON */
	assert_int_equal(rt_pfc_build(frame, 10, mac_a, 3, 1), -ENOSPC);
	/* 0xFFFF quanta of 512 bit times: 335.5 us at 100 Gb/s, 33.55 ms at 1 Gb/s */
	assert_int_equal(rt_pfc_quanta_ns(0xffff, 100.0), 335539);
	assert_int_equal(rt_pfc_quanta_ns(0xffff, 1.0), 33553920);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_only),
		cmocka_unit_test(test_cnp),
		cmocka_unit_test(test_ack_nak),
		cmocka_unit_test(test_icrc_coverage),
		cmocka_unit_test(test_pfc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

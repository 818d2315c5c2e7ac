/* Unit tests of the dissector on the BTH's extended headers (RETH, ImmDt, AETH, AtomicETH, DETH, IETH, RDETH, XRCETH, FETH) and CNPs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "frames.h"

/* Build an Ethernet/IPv4 frame with `opcode` and ext bytes; dissect it. */
static void ext_frame(uint8_t opcode, const struct pkt *ext, uint32_t payload, struct rt_record *r)
{
	struct spec s = spec_default();
	struct pkt p;

	s.opcode = opcode;
	s.ext = ext->b;
	s.ext_len = ext->len;
	s.payload = payload;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, r);
	assert_int_equal(r->icrc, RT_ICRC_OK);
	assert_int_equal(r->payload_off, 14 + 20 + 8 + 12 + ext->len);
	assert_int_equal(r->payload_len, payload);
	assert_int_equal(r->events, 0);
	assert_false(r->truncated);
}

static void test_reth_immdt(void **state)
{
	struct pkt e = {.len = 0};
	struct rt_record r;
	(void)state;

	pk_be64(&e, 0x1122334455667788ull);
	pk_be32(&e, 0xCAFEF00D);
	pk_be32(&e, 65536);
	ext_frame(0x06, &e, 32, &r);
	check_common_roce(&r);
	assert_int_equal(r.hdrs, RT_H_RETH);
	assert_true(r.reth_va == 0x1122334455667788ull);
	assert_int_equal(r.reth_rkey, 0xCAFEF00D);
	assert_int_equal(r.reth_len, 65536);

	pk_be32(&e, 0xDEADBEEF);
	ext_frame(0x0B, &e, 4, &r);
	assert_int_equal(r.hdrs, RT_H_RETH | RT_H_IMMDT);
	assert_int_equal(r.reth_len, 65536);
	assert_int_equal(r.immediate, 0xDEADBEEF);

	/* UC write only with immediate: same layout */
	ext_frame(0x2B, &e, 0, &r);
	assert_int_equal(r.hdrs, RT_H_RETH | RT_H_IMMDT);
	assert_int_equal(r.immediate, 0xDEADBEEF);

	/* ATOMIC WRITE: RETH and an 8-byte payload */
	e.len = 16;
	ext_frame(0x1D, &e, 8, &r);
	assert_int_equal(r.hdrs, RT_H_RETH);
	assert_int_equal(r.reth_rkey, 0xCAFEF00D);
}

static void test_aeth(void **state)
{
	static const char *const codes[] = {"psn_seq_error", "invalid_request",
	                                    "remote_access_error", "remote_op_error",
	                                    "invalid_rd_request"};
	struct pkt e = {.len = 0};
	struct rt_record r;
	(void)state;

	/* ACK with credit count 0x1F (invalid credits) */
	pk_u8(&e, 0x1F);
	pk_be24(&e, 0xABCDEF);
	ext_frame(RT_OPCODE_RC_ACK, &e, 0, &r);
	assert_int_equal(r.hdrs, RT_H_AETH);
	assert_int_equal(r.aeth_syndrome, 0x1F);
	assert_int_equal(r.aeth_msn, 0xABCDEF);
	assert_int_equal(rt_aeth_type(r.aeth_syndrome), RT_AETH_ACK);
	assert_string_equal(rt_aeth_type_name(r.aeth_syndrome), "ack");

	/* RNR NAK, timer 14 */
	e.b[0] = 0x20 | 14;
	ext_frame(RT_OPCODE_RC_ACK, &e, 0, &r);
	assert_int_equal(rt_aeth_type(r.aeth_syndrome), RT_AETH_RNR_NAK);
	assert_string_equal(rt_aeth_type_name(r.aeth_syndrome), "rnr");
	assert_int_equal(r.aeth_syndrome & 0x1F, 14);

	/* NAK codes 0..4 */
	for (uint8_t code = 0; code < 5; code++) {
		e.b[0] = (uint8_t)(0x60 | code);
		ext_frame(RT_OPCODE_RC_ACK, &e, 0, &r);
		assert_int_equal(rt_aeth_type(r.aeth_syndrome), RT_AETH_NAK);
		assert_string_equal(rt_aeth_type_name(r.aeth_syndrome), "nak");
		assert_string_equal(rt_nak_code_name(r.aeth_syndrome & 0x1F), codes[code]);
	}
	assert_string_equal(rt_nak_code_name(5), "reserved");
	assert_string_equal(rt_aeth_type_name(0x40), "reserved");

	/* READ RESPONSE FIRST carries AETH then payload */
	e.b[0] = 0;
	ext_frame(0x0D, &e, 100, &r);
	assert_int_equal(r.hdrs, RT_H_AETH);
	assert_int_equal(r.aeth_msn, 0xABCDEF);

	/* ATOMIC ACK: AETH + AtomicAckETH */
	pk_be64(&e, 0x0102030405060708ull);
	ext_frame(RT_OPCODE_RC_ATOMIC_ACK, &e, 0, &r);
	assert_int_equal(r.hdrs, RT_H_AETH | RT_H_ATOMICACKETH);
	assert_true(r.atomic_ack_orig == 0x0102030405060708ull);
}

static void test_atomiceth(void **state)
{
	struct pkt e = {.len = 0};
	struct rt_record r;
	(void)state;

	pk_be64(&e, 0x00007F0000001000ull);
	pk_be32(&e, 0x1234);
	pk_be64(&e, 0xAAAAAAAABBBBBBBBull);
	pk_be64(&e, 0xCCCCCCCCDDDDDDDDull);
	ext_frame(0x13, &e, 0, &r);
	assert_int_equal(r.hdrs, RT_H_ATOMICETH);
	assert_true(r.atomic_va == 0x00007F0000001000ull);
	assert_int_equal(r.atomic_rkey, 0x1234);
	assert_true(r.atomic_swap_add == 0xAAAAAAAABBBBBBBBull);
	assert_true(r.atomic_compare == 0xCCCCCCCCDDDDDDDDull);
	ext_frame(0x14, &e, 0, &r);
	assert_int_equal(r.hdrs, RT_H_ATOMICETH);
	assert_true(r.atomic_swap_add == 0xAAAAAAAABBBBBBBBull);
}

static void test_deth_ieth_rdeth_xrceth_feth(void **state)
{
	struct pkt e = {.len = 0};
	struct rt_record r;
	(void)state;

	/* UD SEND ONLY with immediate: DETH + ImmDt */
	pk_be32(&e, 0x11111111);
	pk_u8(&e, 0);
	pk_be24(&e, 0x000ABC);
	pk_be32(&e, 42);
	ext_frame(0x65, &e, 256, &r);
	assert_int_equal(r.hdrs, RT_H_DETH | RT_H_IMMDT);
	assert_int_equal(r.deth_qkey, 0x11111111);
	assert_int_equal(r.deth_src_qp, 0xABC);
	assert_int_equal(r.immediate, 42);
	assert_string_equal(rt_opcode_lookup(r.opcode)->name, "UD_SEND_ONLY_IMM");

	/* SEND ONLY with invalidate: IETH */
	e.len = 0;
	pk_be32(&e, 0x0BADCAFE);
	ext_frame(0x17, &e, 10, &r);
	assert_int_equal(r.hdrs, RT_H_IETH);
	assert_int_equal(r.ieth_rkey, 0x0BADCAFE);

	/* RD SEND ONLY: RDETH + DETH */
	e.len = 0;
	pk_be32(&e, 0x00654321);
	pk_be32(&e, 0x22222222);
	pk_be32(&e, 0x00000777);
	ext_frame(0x44, &e, 7, &r);
	assert_int_equal(r.hdrs, RT_H_RDETH | RT_H_DETH);
	assert_int_equal(r.rdeth_eecnxt, 0x654321);
	assert_int_equal(r.deth_qkey, 0x22222222);
	assert_int_equal(r.deth_src_qp, 0x777);

	/* XRC SEND ONLY: XRCETH */
	e.len = 0;
	pk_be32(&e, 0x00FEDCBA);
	ext_frame(0xA4, &e, 3, &r);
	assert_int_equal(r.hdrs, RT_H_XRCETH);
	assert_int_equal(r.xrc_srq, 0xFEDCBA);

	/* FLUSH: FETH + RETH */
	e.len = 0;
	pk_be32(&e, 0x00000011);
	pk_be64(&e, 0x1000);
	pk_be32(&e, 0x99);
	pk_be32(&e, 4096);
	ext_frame(0x1C, &e, 0, &r);
	assert_int_equal(r.hdrs, RT_H_FETH | RT_H_RETH);
	assert_int_equal(r.feth, 0x11);
	assert_true(r.reth_va == 0x1000);
	assert_int_equal(r.reth_rkey, 0x99);
	assert_int_equal(r.reth_len, 4096);
}

static void test_cnp(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	uint8_t zeros[16] = {0};
	(void)state;

	s.opcode = RT_OPCODE_CNP;
	s.becn = 1;
	s.ext = zeros;
	s.ext_len = sizeof(zeros);
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_CNP);
	assert_int_equal(r.hdrs, RT_H_CNP);
	assert_int_equal(r.becn, 1);
	assert_int_equal(r.events, 0);
	assert_int_equal(r.payload_len, 0);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_string_equal(rt_kind_name(r.kind), "cnp");

	s.becn = 0;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_CNP);
	assert_int_equal(r.events, RT_EV_CNP_NOT_BECN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reth_immdt), cmocka_unit_test(test_aeth),
	    cmocka_unit_test(test_atomiceth),  cmocka_unit_test(test_deth_ieth_rdeth_xrceth_feth),
	    cmocka_unit_test(test_cnp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

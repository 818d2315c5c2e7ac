/* Unit tests of dissect/pktkind.c: each kind from the fields that decide it, and --kind's words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/opcodes.h"
#include "dissect/pktkind.h"

/* A record with a BTH of this opcode (and an AETH of this syndrome when aeth). */
static struct rt_record bth(uint8_t opcode, bool aeth, uint8_t syndrome)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.kind = opcode == RT_OPCODE_CNP ? RT_KIND_CNP : RT_KIND_ROCE;
	r.opcode = opcode;
	if (aeth) {
		r.hdrs = RT_H_AETH;
		r.aeth_syndrome = syndrome;
	}
	return r;
}

static void test_kinds(void **state)
{
	(void)state;
	struct rt_record r = bth(RT_OPCODE_RC_SEND_ONLY, false, 0);
	assert_int_equal(rt_pkt_kind(&r), RT_PK_DATA);
	r = bth(RT_OPCODE_RC_RDMA_WRITE_FIRST, false, 0);
	assert_int_equal(rt_pkt_kind(&r), RT_PK_DATA);
	r = bth(RT_OPCODE_RC_ACK, true, RT_AETH_SYNDROME(RT_AETH_ACK, 3));
	assert_int_equal(rt_pkt_kind(&r), RT_PK_ACK);
	r = bth(RT_OPCODE_RC_ACK, true, RT_AETH_SYNDROME(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR));
	assert_int_equal(rt_pkt_kind(&r), RT_PK_NAK);
	r = bth(RT_OPCODE_RC_ACK, true, RT_AETH_SYNDROME(RT_AETH_RNR_NAK, 4));
	assert_int_equal(rt_pkt_kind(&r), RT_PK_RNR);
	r = bth(0x0C, false, 0); /* RC RDMA READ request */
	assert_int_equal(rt_pkt_kind(&r), RT_PK_READ);
	r = bth(0x10, true, RT_AETH_SYNDROME(RT_AETH_ACK, 0)); /* READ response only */
	assert_int_equal(rt_pkt_kind(&r), RT_PK_READ);
	r = bth(0x10, true, RT_AETH_SYNDROME(RT_AETH_NAK, RT_NAK_REMOTE_ACCESS_ERROR));
	assert_int_equal(rt_pkt_kind(&r), RT_PK_NAK); /* the AETH says more than the opcode */
	r = bth(0x14, false, 0);                      /* RC FETCH_ADD */
	assert_int_equal(rt_pkt_kind(&r), RT_PK_ATOMIC);
	r = bth(RT_OPCODE_RC_ATOMIC_ACK, true, RT_AETH_SYNDROME(RT_AETH_ACK, 0));
	assert_int_equal(rt_pkt_kind(&r), RT_PK_ATOMIC);
	r = bth(RT_OPCODE_CNP, false, 0);
	assert_int_equal(rt_pkt_kind(&r), RT_PK_CNP);
	r = bth(0x64, false, 0); /* UD SEND ONLY on QP 1 carrying a CM MAD */
	r.layers |= RT_L_CM;
	assert_int_equal(rt_pkt_kind(&r), RT_PK_CM);
	r.layers &= ~(unsigned)RT_L_BTH; /* RoCE cut before its BTH ends */
	r.layers &= ~(unsigned)RT_L_CM;
	assert_int_equal(rt_pkt_kind(&r), RT_PK_OTHER);
	memset(&r, 0, sizeof(r));
	r.layers = RT_L_ETH | RT_L_MACC;
	r.kind = RT_KIND_PFC;
	assert_int_equal(rt_pkt_kind(&r), RT_PK_PFC);
	r.kind = RT_KIND_PAUSE;
	assert_int_equal(rt_pkt_kind(&r), RT_PK_PAUSE);
	r.kind = RT_KIND_OTHER;
	assert_int_equal(rt_pkt_kind(&r), RT_PK_OTHER);
}

static void test_names(void **state)
{
	(void)state;
	char names[256] = "", bad[16];
	for (unsigned k = 0; k < RT_PK_COUNT; k++) {
		unsigned mask = 0;
		assert_int_equal(rt_pkt_kinds_parse(rt_pkt_kind_name(k), &mask, bad, sizeof(bad)),
		                 0);
		assert_int_equal(mask, 1u << k);
		strcat(names, k ? ", " : "");
		strcat(names, rt_pkt_kind_name(k));
	}
	assert_string_equal(names, RT_PK_NAMES); /* the list the usage error prints */
	unsigned mask = 1u << RT_PK_CNP;
	assert_int_equal(rt_pkt_kinds_parse("nak,rnr", &mask, bad, sizeof(bad)), 0);
	assert_int_equal(mask, 1u << RT_PK_CNP | 1u << RT_PK_NAK | 1u << RT_PK_RNR);
	assert_int_equal(rt_pkt_kinds_parse("ack,acks", &mask, bad, sizeof(bad)), -1);
	assert_string_equal(bad, "acks");
	assert_int_equal(rt_pkt_kinds_parse("ack,", &mask, bad, sizeof(bad)), -1);
	assert_string_equal(bad, "");
	assert_int_equal(rt_pkt_kinds_parse("a-very-long-word-indeed", &mask, bad, 8), -1);
	assert_string_equal(bad, "a-very-");
	assert_int_equal(RT_PK_FLOW_KINDS, (1u << RT_PK_CM) * 2 - 1); /* data .. cm have a BTH */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

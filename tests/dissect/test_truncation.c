/* Unit tests of the dissector on frames cut at every byte (truncated) and on frames really that short (invalid). */
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

static void test_truncation_ipv4_vlan(void **state)
{
	struct spec s = spec_default();
	struct pkt p, e = {.len = 0};
	(void)state;

	s.ntags = 1;
	s.tpid[0] = 0x8100;
	s.opcode = 0x06;
	pk_be64(&e, 1);
	pk_be32(&e, 2);
	pk_be32(&e, 3);
	s.ext = e.b;
	s.ext_len = e.len;
	s.payload = 10;
	s.pad = 2;
	build(&p, &s);
	const struct cut cuts[] = {
	    {18, RT_EV_LINK_TRUNCATED}, {38, RT_EV_IP_TRUNCATED},  {46, RT_EV_UDP_TRUNCATED},
	    {58, RT_EV_BTH_TRUNCATED},  {74, RT_EV_EXT_TRUNCATED}, {p.len, RT_EV_ICRC_TRUNCATED},
	};
	check_cuts(&p, RT_LINK_ETHERNET, cuts, sizeof(cuts) / sizeof(cuts[0]), 0);

	/* with the whole packet captured it is complete */
	struct rt_record r;
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_false(r.truncated);
	assert_int_equal(r.icrc, RT_ICRC_OK);

	/* a cut inside the BTH keeps the IP and UDP fields */
	struct rt_dissect_opts o = opts_default();
	dissect_n(&o, RT_LINK_ETHERNET, &p, 50, p.len, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_VLAN | RT_L_IPV4 | RT_L_UDP);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.udp_sport, SPORT);
	assert_int_equal(r.dscp, 26);
	/* a cut in the payload keeps every header */
	dissect_n(&o, RT_LINK_ETHERNET, &p, 80, p.len, &r);
	assert_int_equal(r.hdrs, RT_H_RETH);
	assert_int_equal(r.reth_len, 3);
	assert_int_equal(r.payload_len, 10);
}

/* Multi-header truncation keeps the headers before the cut. */
static void test_truncation_partial_ext(void **state)
{
	struct spec s = spec_default();
	struct pkt p, e = {.len = 0};
	struct rt_record r;
	struct rt_dissect_opts o = opts_default();
	(void)state;

	s.opcode = 0x44; /* RD SEND ONLY: RDETH + DETH */
	pk_be32(&e, 0x00000005);
	pk_be32(&e, 0x01020304);
	pk_be32(&e, 0x00000006);
	s.ext = e.b;
	s.ext_len = e.len;
	build(&p, &s);
	dissect_n(&o, RT_LINK_ETHERNET, &p, 54 + 4 + 7, p.len, &r);
	assert_true(r.truncated);
	assert_int_equal(r.events, RT_EV_EXT_TRUNCATED);
	assert_int_equal(r.hdrs, RT_H_RDETH);
	assert_int_equal(r.rdeth_eecnxt, 5);
}

static void test_truncation_other_links(void **state)
{
	struct pkt p;
	(void)state;

	{
		struct spec s = spec_default();

		s.link = RT_LINK_LINUX_SLL2;
		s.ip = 6;
		s.payload = 3;
		build(&p, &s);
		const struct cut cuts[] = {
		    {20, RT_EV_LINK_TRUNCATED},    {60, RT_EV_IP_TRUNCATED},
		    {68, RT_EV_UDP_TRUNCATED},     {80, RT_EV_BTH_TRUNCATED},
		    {p.len, RT_EV_ICRC_TRUNCATED},
		};
		check_cuts(&p, s.link, cuts, 5, RT_L_SLL2);
	}
	{
		struct spec s = spec_default();

		s.link = RT_LINK_LINUX_SLL;
		build(&p, &s);
		const struct cut cuts[] = {
		    {16, RT_EV_LINK_TRUNCATED},    {36, RT_EV_IP_TRUNCATED},
		    {44, RT_EV_UDP_TRUNCATED},     {56, RT_EV_BTH_TRUNCATED},
		    {p.len, RT_EV_ICRC_TRUNCATED},
		};
		check_cuts(&p, s.link, cuts, 5, RT_L_SLL);
	}
	{
		struct spec s = spec_default();

		s.link = RT_LINK_RAW;
		s.opcode = 0x12;
		s.ext = (const uint8_t[12]){0, 0, 0, 1, 9, 9, 9, 9, 9, 9, 9, 9};
		s.ext_len = 12;
		build(&p, &s);
		const struct cut cuts[] = {
		    {20, RT_EV_IP_TRUNCATED},      {28, RT_EV_UDP_TRUNCATED},
		    {40, RT_EV_BTH_TRUNCATED},     {52, RT_EV_EXT_TRUNCATED},
		    {p.len, RT_EV_ICRC_TRUNCATED},
		};
		check_cuts(&p, s.link, cuts, 5, 0);
	}
	{
		struct spec s = spec_default();
		uint8_t zeros[16] = {0};

		s.ip = 1; /* RoCEv1 CNP over GRH, with two tags */
		s.ntags = 2;
		s.tpid[0] = 0x88A8;
		s.tpid[1] = 0x8100;
		s.opcode = RT_OPCODE_CNP;
		s.becn = 1;
		s.ext = zeros;
		s.ext_len = 16;
		build(&p, &s);
		const struct cut cuts[] = {
		    {22, RT_EV_LINK_TRUNCATED},    {62, RT_EV_IP_TRUNCATED},
		    {74, RT_EV_BTH_TRUNCATED},     {90, RT_EV_EXT_TRUNCATED},
		    {p.len, RT_EV_ICRC_TRUNCATED},
		};
		check_cuts(&p, RT_LINK_ETHERNET, cuts, 5, RT_L_ETH | RT_L_VLAN | RT_L_QINQ);
	}
	{
		build_macc(&p, RT_MACC_PFC, 0);
		p.len = 14 + 2 + 18; /* no padding: every cut is inside a header */
		const struct cut cuts[] = {{14, RT_EV_LINK_TRUNCATED},
		                           {p.len, RT_EV_MACC_TRUNCATED}};
		check_cuts(&p, RT_LINK_ETHERNET, cuts, 2, RT_L_ETH);
		build_macc(&p, RT_MACC_PAUSE, 0);
		p.len = 14 + 4;
		check_cuts(&p, RT_LINK_ETHERNET, cuts, 2, RT_L_ETH);
	}
}

/* Cut frames whose wire length says they really are that short are invalid, not truncated. */
static void test_short_is_not_truncated(void **state)
{
	struct spec s = spec_default();
	struct rt_dissect_opts o = opts_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.payload = 20;
	build(&p, &s);
	for (uint32_t len = 34; len < p.len; len++) {
		dissect_n(&o, RT_LINK_ETHERNET, &p, len, len, &r);
		assert_false(r.truncated);
		assert_int_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.events, RT_EV_IP_BAD_LENGTH);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_truncation_ipv4_vlan),
	    cmocka_unit_test(test_truncation_partial_ext),
	    cmocka_unit_test(test_truncation_other_links),
	    cmocka_unit_test(test_short_is_not_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

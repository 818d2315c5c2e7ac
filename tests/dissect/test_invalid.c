/* Unit tests of the dissector on invalid IP, UDP and BTH fields, frames that are not RoCE, and the decode-event table. */
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

/* Ethernet/IPv4/UDP frame to port 4791 with `n` bytes of UDP payload (no ICRC computed). */
static uint32_t build_udp_raw(struct pkt *p, uint32_t n)
{
	uint32_t ip_off, udp_off;

	memset(p, 0, sizeof(*p));
	pk_eth(p, 0x0800);
	ip_off = pk_ipv4(p, 0, 64, 17);
	udp_off = pk_udp(p, 1000, RT_ROCEV2_PORT);
	pk_fill(p, 0, n);
	pk_udp_done(p, udp_off);
	pk_ipv4_done(p, ip_off);
	return ip_off;
}

static void expect_malformed(const struct pkt *p, int link, uint32_t event)
{
	struct rt_record r;

	dissect_full(p, link, &r);
	assert_int_equal(r.kind, RT_KIND_MALFORMED);
	assert_int_equal(r.events, event);
	assert_false(r.truncated);
	assert_false(r.layers & RT_L_BTH && event != RT_EV_BTH_BAD_TVER &&
	             event != RT_EV_TOO_SHORT_FOR_ICRC);
}

static void test_invalid_ip(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	uint32_t ip_off;
	(void)state;

	ip_off = build(&p, &s);
	p.b[ip_off] = 0x65; /* version 6 under Ethertype 0x0800 */
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_IP_BAD_VERSION);

	ip_off = build(&p, &s);
	p.b[ip_off] = 0x44; /* IHL 16 bytes */
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_IPV4_BAD_IHL);

	ip_off = build(&p, &s);
	pk_set_be16(&p, ip_off + 2, (uint16_t)(p.len - ip_off + 1)); /* beyond the frame */
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_IP_BAD_LENGTH);
	pk_set_be16(&p, ip_off + 2, 19); /* below the header */
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_IP_BAD_LENGTH);

	s.ip = 6;
	ip_off = build(&p, &s);
	p.b[ip_off] = 0x45;
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_IP_BAD_VERSION);
	ip_off = build(&p, &s);
	pk_set_be16(&p, ip_off + 4, (uint16_t)(p.len - ip_off - 40 + 1));
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_IP_BAD_LENGTH);

	/* raw IP with version 5 */
	memset(&p, 0, sizeof(p));
	pk_u8(&p, 0x55);
	pk_fill(&p, 0, 30);
	expect_malformed(&p, RT_LINK_RAW, RT_EV_IP_BAD_VERSION);

	/* fragments: not invalid, no transport decode */
	s.ip = 4;
	ip_off = build(&p, &s);
	pk_set_be16(&p, ip_off + 6, 0x2000); /* more fragments */
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.events, RT_EV_IP_FRAGMENT);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
	pk_set_be16(&p, ip_off + 6, 0x0010); /* offset 128 */
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.events, RT_EV_IP_FRAGMENT);
	assert_false(r.layers & RT_L_UDP);
}

static void test_invalid_udp_bth(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	uint32_t ip_off;
	(void)state;

	ip_off = build(&p, &s);
	pk_set_be16(&p, ip_off + 20 + 4, 7); /* UDP length below its header */
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_UDP_BAD_LENGTH);
	pk_set_be16(&p, ip_off + 20 + 4, (uint16_t)(p.len - ip_off - 20 + 1)); /* beyond IP */
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_UDP_BAD_LENGTH);

	/* IP payload too short for a UDP header */
	ip_off = build(&p, &s);
	pk_set_be16(&p, ip_off + 2, 20 + 7);
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_UDP_BAD_LENGTH);

	/* transport version 1 */
	ip_off = build(&p, &s);
	p.b[ip_off + 28 + 1] |= 1;
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_BTH_BAD_TVER);

	/* UDP payload shorter than BTH + ICRC */
	build_udp_raw(&p, 15);
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_TOO_SHORT_FOR_ICRC);

	/* WRITE FIRST whose RETH does not fit before the ICRC */
	build_udp_raw(&p, 12 + 10 + 4);
	p.b[42] = 0x06;
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_TOO_SHORT_FOR_ICRC);

	/*
	 * PadCnt larger than what lies between the BTH and the ICRC: the ICRC is
	 * there and checked, the pad count is what is wrong (a receiver drops it)
	 */
	build_udp_raw(&p, 12 + 2 + 4);
	p.b[42] = 0x04;
	p.b[43] = 3 << 4;
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_MALFORMED);
	assert_int_equal(r.events, RT_EV_BTH_BAD_PAD | RT_EV_ICRC_BAD);
	assert_int_equal(r.icrc, RT_ICRC_BAD);
	assert_true(r.layers & RT_L_BTH);
	assert_false(r.truncated);
	p.b[43] = 2 << 4; /* exactly fits: fine */
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.payload_len, 0);
	assert_int_equal(r.icrc, RT_ICRC_BAD);
	assert_int_equal(r.events, RT_EV_ICRC_BAD);

	/* unknown opcode: still RoCE, ICRC still checked */
	s.opcode = 0x1E;
	s.payload = 9;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.events, RT_EV_UNKNOWN_OPCODE);
	assert_int_equal(r.hdrs, 0);
	assert_int_equal(r.payload_len, 9);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

static void test_not_roce(void **state)
{
	struct spec s = spec_default();
	struct rt_dissect_opts o = opts_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.dport = 4792;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4 | RT_L_UDP);
	assert_int_equal(r.udp_dport, 4792);
	assert_int_equal(r.events, 0);
	/* ... but a whole RoCEv2 packet all the same: known opcode, valid ICRC */
	assert_true(r.other_port_rocev2);
	/* not looked for without ICRC checks, nor in a datagram cut by the snap length */
	o.verify_icrc = false;
	dissect_n(&o, RT_LINK_ETHERNET, &p, p.len, p.len, &r);
	assert_false(r.other_port_rocev2);
	o.verify_icrc = true;
	dissect_n(&o, RT_LINK_ETHERNET, &p, p.len - 1, p.len, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_false(r.other_port_rocev2);
	/*
	 * one bit off anywhere in the BTH (but its byte 4, FECN/BECN/resv6, which
	 * the ICRC masks) or payload, an unknown opcode, a TVer: not RoCEv2
	 */
	for (uint32_t i = 14 + 20 + 8; i < p.len - 4; i++) {
		if (i == 14 + 20 + 8 + 4)
			continue;
		p.b[i] ^= 0x10;
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_false(r.other_port_rocev2);
		p.b[i] ^= 0x10;
	}
	s.opcode = 0xEE;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_false(r.other_port_rocev2);
	s.opcode = 0x04;
	build(&p, &s);
	p.b[14 + 20 + 8 + 1] |= 1; /* TVer 1, ICRC recomputed */
	uint32_t crc;
	assert_int_equal(rt_icrc_compute(p.b + 14, p.len - 4 - 14, &crc), 0);
	p.len -= 4;
	pk_le32(&p, crc);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_false(r.other_port_rocev2);
	/* IPv6 */
	s.ip = 6;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_true(r.other_port_rocev2);
	s = spec_default();
	s.dport = 4792;
	build(&p, &s);

	/* the same frame with the RoCE port set to 4792 */
	o.udp_port = 4792;
	dissect_n(&o, RT_LINK_ETHERNET, &p, p.len, p.len, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_false(r.other_port_rocev2);

	/* ARP */
	memset(&p, 0, sizeof(p));
	pk_eth(&p, 0x0806);
	pk_fill(&p, 0, 46);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.ethertype, 0x0806);
	assert_int_equal(r.layers, RT_L_ETH);

	/* 802.3 length field */
	memset(&p, 0, sizeof(p));
	pk_eth(&p, 46);
	pk_fill(&p, 0x42, 46);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_LLC); /* its LLC header named (test_other.c) */
	assert_int_equal(r.events, 0);

	/* TCP over IPv4 */
	memset(&p, 0, sizeof(p));
	pk_eth(&p, 0x0800);
	uint32_t ip_off = pk_ipv4(&p, 0, 64, 6);
	pk_fill(&p, 0, 20);
	pk_ipv4_done(&p, ip_off);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
}

/* The decode-event table: a row per bit in use, names unique, classes and layers as the output needs them. */
static void test_names(void **state)
{
	static const char *const layers[] = {"link", "ip",  "udp",  "gre",
	                                     "bth",  "ext", "icrc", "macc"};
	const char *seen[64] = {0};
	(void)state;

	assert_int_equal(RT_EV_COUNT, 26);
	for (int bit = 0; bit < 64; bit++) {
		uint64_t ev = UINT64_C(1) << bit;
		const char *n = rt_event_name(ev);
		const struct rt_event_info *e = rt_event_info(ev);
		bool known_layer = false;

		if (bit >= RT_EV_COUNT) {
			assert_null(n);
			assert_null(e);
			continue;
		}
		assert_non_null(n);
		assert_ptr_equal(e, &rt_events[bit]);
		assert_true(e->bit == ev);
		assert_string_equal(e->name, n);
		assert_int_equal(rt_event_is_truncation(ev), bit < 8);
		assert_int_equal(e->cls == RT_EVC_TRUNCATION, bit < 8);
		assert_int_equal(e->cls == RT_EVC_NOTICE,
		                 ev == RT_EV_IP_FRAGMENT || ev == RT_EV_ICRC_IPV6_EXT ||
		                     ev == RT_EV_VLAN_EXTRA || ev == RT_EV_WIRE_SHORT);
		/* a notice is printed without its layer: its name starts with it */
		if (e->cls == RT_EVC_NOTICE)
			assert_int_equal(strncmp(n, e->layer, strlen(e->layer)), 0);
		assert_int_equal(strstr(n, "truncated") != NULL, bit < 8);
		for (size_t k = 0; k < sizeof(layers) / sizeof(layers[0]); k++)
			known_layer |= strcmp(e->layer, layers[k]) == 0;
		assert_true(known_layer);
		/* a truncation is named after the layer its " [|layer]" marker shows */
		if (e->cls == RT_EVC_TRUNCATION) {
			assert_memory_equal(n, e->layer, strlen(e->layer));
			assert_string_equal(n + strlen(e->layer), "_truncated");
		}
		for (int j = 0; j < bit; j++)
			if (seen[j])
				assert_string_not_equal(seen[j], n);
		seen[bit] = n;
	}
	assert_true(RT_EV_TRUNCATION_MASK == 0xff);
	assert_string_equal(rt_event_info(RT_EV_IP_FRAGMENT)->layer, "ip");
	assert_string_equal(rt_event_info(RT_EV_UNKNOWN_OPCODE)->layer, "bth");
	assert_int_equal(rt_event_info(RT_EV_CNP_NOT_BECN)->cls, RT_EVC_INVALID);
	assert_null(rt_event_info(0));
	assert_string_equal(rt_event_name(RT_EV_BTH_TRUNCATED), "bth_truncated");
	assert_string_equal(rt_event_name(RT_EV_ICRC_BAD), "icrc_bad");
	assert_string_equal(rt_event_name(RT_EV_GRE_TRUNCATED), "gre_truncated");
	assert_string_equal(rt_event_name(RT_EV_GRE_BAD), "gre_bad");
	assert_string_equal(rt_event_name(RT_EV_ERSPAN_BAD_VERSION), "erspan_bad_version");
	assert_null(rt_event_name(RT_EV_ICRC_BAD | RT_EV_IP_FRAGMENT));
	assert_string_equal(rt_kind_name(RT_KIND_OTHER), "other");
	assert_string_equal(rt_kind_name(RT_KIND_ROCE), "roce");
	assert_string_equal(rt_kind_name(RT_KIND_PFC), "pfc");
	assert_string_equal(rt_kind_name(RT_KIND_PAUSE), "pause");
	assert_string_equal(rt_kind_name(RT_KIND_MALFORMED), "malformed");
	assert_string_equal(rt_icrc_name(RT_ICRC_OK), "ok");
	assert_string_equal(rt_icrc_name(RT_ICRC_BAD), "bad");
	assert_string_equal(rt_icrc_name(RT_ICRC_UNCHECKED), "unchecked");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_invalid_ip),
	    cmocka_unit_test(test_invalid_udp_bth),
	    cmocka_unit_test(test_not_roce),
	    cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

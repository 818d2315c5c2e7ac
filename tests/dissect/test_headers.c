/* Unit tests of rt_dissect() and rt_dissect_buf() on the link and network layers: Ethernet, VLAN tags, SLL, SLL2, raw IP, IPv4/IPv6, the RoCEv1 GRH, PFC and PAUSE, the record reused. */
#include <errno.h>
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

static void test_ipv4_send_only(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	static const uint8_t ip1[4] = {10, 0, 0, 1}, ip2[4] = {10, 0, 0, 2};
	static const uint8_t mac1[6] = {2, 0, 0, 0, 0, 1}, mac2[6] = {2, 0, 0, 0, 0, 2};
	(void)state;

	s.payload = 13;
	s.pad = 3;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.events, 0);
	assert_int_equal(r.hdrs, 0);
	assert_memory_equal(r.src_mac, mac1, 6);
	assert_memory_equal(r.dst_mac, mac2, 6);
	assert_int_equal(r.ethertype, 0x0800);
	assert_int_equal(r.nvlan, 0);
	assert_int_equal(r.ip_version, 4);
	assert_int_equal(r.dscp, 26);
	assert_int_equal(r.ecn, 2);
	assert_int_equal(r.ttl, 64);
	assert_memory_equal(r.src_ip, ip1, 4);
	assert_memory_equal(r.dst_ip, ip2, 4);
	assert_int_equal(r.udp_sport, SPORT);
	assert_int_equal(r.udp_dport, RT_ROCEV2_PORT);
	assert_int_equal(r.opcode, 0x04);
	assert_int_equal(r.padcnt, 3);
	assert_int_equal(r.fecn, 0);
	assert_int_equal(r.becn, 0);
	assert_int_equal(r.payload_off, 14 + 20 + 8 + 12);
	assert_int_equal(r.payload_len, 13);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.icrc_stored, r.icrc_computed);
	assert_int_equal(r.caplen, p.len);
	assert_int_equal(r.wirelen, p.len);
	assert_false(r.rocev1);
}

static void test_fecn_becn_ce(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	uint32_t ip_off;
	(void)state;

	s.fecn = 1;
	s.becn = 1;
	ip_off = build(&p, &s);
	p.b[ip_off + 1] |= 3; /* CE: a masked field, the ICRC still holds */
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.fecn, 1);
	assert_int_equal(r.becn, 1);
	assert_int_equal(r.ecn, 3);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

static void test_vlan_tags(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.ntags = 1;
	s.tpid[0] = 0x8100;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_VLAN | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.nvlan, 1);
	assert_int_equal(r.vlan[0], 100);
	assert_int_equal(r.pcp[0], 3);
	assert_int_equal(r.ethertype, 0x0800);
	assert_int_equal(r.icrc, RT_ICRC_OK);

	/* 802.1ad outer + 802.1Q inner */
	s.ntags = 2;
	s.tpid[0] = 0x88A8;
	s.tpid[1] = 0x8100;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_true(r.layers & RT_L_VLAN);
	assert_true(r.layers & RT_L_QINQ);
	assert_int_equal(r.nvlan, 2);
	assert_int_equal(r.vlan[0], 100);
	assert_int_equal(r.pcp[0], 3);
	assert_int_equal(r.vlan[1], 200);
	assert_int_equal(r.pcp[1], 4);
	assert_int_equal(r.icrc, RT_ICRC_OK);

	/* the old 0x9100 TPID, and a third tag that is skipped but not recorded */
	s.ntags = 3;
	s.tpid[0] = 0x9100;
	s.tpid[1] = 0x8100;
	s.tpid[2] = 0x8100;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_int_equal(r.nvlan, 2);
	assert_int_equal(r.vlan[1], 200);
	assert_int_equal(r.payload_off, 14 + 12 + 20 + 8 + 12);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

static void test_sll_sll2_raw(void **state)
{
	static const uint8_t mac1[6] = {2, 0, 0, 0, 0, 1};
	static const int links[] = {RT_LINK_LINUX_SLL, RT_LINK_LINUX_SLL2, RT_LINK_RAW};
	static const uint32_t hlen[] = {16, 20, 0};
	static const uint32_t layer[] = {RT_L_SLL, RT_L_SLL2, 0};
	(void)state;

	for (int i = 0; i < 3; i++) {
		for (int ip = 4; ip <= 6; ip += 2) {
			struct spec s = spec_default();
			struct pkt p;
			struct rt_record r;

			s.link = links[i];
			s.ip = ip;
			s.payload = 5;
			build(&p, &s);
			dissect_full(&p, s.link, &r);
			check_common_roce(&r);
			assert_int_equal(r.layers, layer[i] | (ip == 4 ? RT_L_IPV4 : RT_L_IPV6) |
			                               RT_L_UDP | RT_L_BTH);
			assert_int_equal(r.ip_version, ip);
			assert_int_equal(r.ethertype, ip == 4 ? 0x0800 : 0x86DD);
			assert_int_equal(r.payload_off, hlen[i] + (ip == 4 ? 20 : 40) + 8 + 12);
			assert_int_equal(r.payload_len, 5);
			assert_int_equal(r.icrc, RT_ICRC_OK);
			if (s.link != RT_LINK_RAW)
				assert_memory_equal(r.src_mac, mac1, 6);
		}
	}
}

static void test_sll_vlan(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.link = RT_LINK_LINUX_SLL;
	s.ntags = 1;
	s.tpid[0] = 0x8100;
	build(&p, &s);
	dissect_full(&p, s.link, &r);
	check_common_roce(&r);
	assert_int_equal(r.nvlan, 1);
	assert_int_equal(r.vlan[0], 100);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

static void test_ipv6(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	static const uint8_t ip1[16] = {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t ip2[16] = {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	(void)state;

	s.ip = 6;
	s.payload = 64;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV6 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.ip_version, 6);
	assert_int_equal(r.dscp, 26);
	assert_int_equal(r.ecn, 2);
	assert_int_equal(r.ttl, 63);
	assert_memory_equal(r.src_ip, ip1, 16);
	assert_memory_equal(r.dst_ip, ip2, 16);
	assert_int_equal(r.payload_len, 64);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

static void test_rocev1_grh(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.ip = 1;
	s.opcode = 0x11;
	s.ext = (const uint8_t[]){0x1F, 0, 0, 9};
	s.ext_len = 4;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_true(r.rocev1);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_GRH | RT_L_BTH);
	assert_int_equal(r.ethertype, 0x8915);
	assert_int_equal(r.ip_version, 6);
	assert_int_equal(r.ttl, 62);
	assert_int_equal(r.dscp, 26);
	assert_int_equal(r.hdrs, RT_H_AETH);
	assert_int_equal(r.aeth_msn, 9);
	assert_int_equal(r.payload_off, 14 + 40 + 12 + 4);
	assert_int_equal(r.payload_len, 0);
	assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
	assert_int_equal(r.icrc_stored, 0x11223344);
	assert_int_equal(r.events, 0);

	/* next header other than 0x1B: invalid */
	p.b[14 + 6] = 17;
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_MALFORMED);
	assert_int_equal(r.events, RT_EV_GRH_BAD_NEXT_HEADER);
	assert_true(r.rocev1);
	assert_false(r.layers & RT_L_BTH);
}

static void test_pfc_pause(void **state)
{
	struct pkt p;
	struct rt_record r;
	(void)state;

	build_macc(&p, RT_MACC_PFC, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_PFC);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_MACC);
	assert_int_equal(r.ethertype, 0x8808);
	assert_int_equal(r.macc_opcode, RT_MACC_PFC);
	assert_int_equal(r.pfc_enable, 9);
	assert_int_equal(r.pfc_quanta[0], 0);
	assert_int_equal(r.pfc_quanta[3], 0xFFFF);
	assert_int_equal(r.pfc_quanta[7], 700);
	assert_int_equal(r.events, 0);
	assert_false(r.truncated);

	build_macc(&p, RT_MACC_PFC, 1);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_PFC);
	assert_int_equal(r.pcp[0], 7);
	assert_int_equal(r.pfc_quanta[3], 0xFFFF);

	build_macc(&p, RT_MACC_PAUSE, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_PAUSE);
	assert_int_equal(r.pause_quanta, 0x1234);
	assert_int_equal(r.events, 0);

	build_macc(&p, 0x0002, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.macc_opcode, 2);
	assert_int_equal(r.events, RT_EV_MACC_UNKNOWN_OPCODE);
}

/* Ethernet padding after the IP packet does not move the ICRC. */
static void test_ethernet_padding(void **state)
{
	struct spec s = spec_default();
	struct pkt p;
	struct rt_record r;
	uint32_t len;
	(void)state;

	s.opcode = RT_OPCODE_RC_ACK;
	s.ext = (const uint8_t[]){0, 0, 0, 1};
	s.ext_len = 4;
	build(&p, &s);
	len = p.len;
	pk_fill(&p, 0xEE, 18);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_common_roce(&r);
	assert_int_equal(r.payload_len, 0);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	/* a snap length that keeps the packet but cuts the padding: still complete */
	dissect_n(&(struct rt_dissect_opts){.udp_port = RT_ROCEV2_PORT, .verify_icrc = true},
	          RT_LINK_ETHERNET, &p, len, p.len, &r);
	assert_false(r.truncated);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

static void test_record_reuse_and_link_types(void **state)
{
	struct spec s = spec_default();
	struct rt_dissect_opts o = opts_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.ip = 6;
	s.opcode = 0x0B;
	s.ext =
	    (const uint8_t[20]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0, 0, 5};
	s.ext_len = 20;
	build(&p, &s);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.immediate, 5);
	r.ts_ns = 123456789;
	build_macc(&p, RT_MACC_PAUSE, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_true(r.ts_ns == 123456789);
	assert_int_equal(r.ip_version, 0);
	assert_int_equal(r.immediate, 0);
	assert_int_equal(r.hdrs, 0);
	assert_true(r.reth_va == 0);
	assert_int_equal(r.kind, RT_KIND_PAUSE);

	assert_int_equal(rt_dissect_buf(&o, 105, p.b, p.len, p.len, &r), -EPROTONOSUPPORT);

	/* a frame brings its timestamp, link type and interface into the record */
	struct rt_frame f = {.data = p.b,
	                     .caplen = p.len - 1,
	                     .wirelen = p.len,
	                     .ts_ns = 42,
	                     .seq = 9,
	                     .linktype = RT_LINK_ETHERNET,
	                     .interface_id = 3};
	r.ts_ns = 7;
	assert_int_equal(rt_dissect(&o, &f, &r), 0);
	assert_true(r.ts_ns == 42);
	assert_int_equal(r.interface_id, 3);
	assert_int_equal(r.caplen, p.len - 1);
	assert_int_equal(r.wirelen, p.len);
	assert_int_equal(r.kind, RT_KIND_PAUSE);
	f.linktype = 105;
	f.interface_id = 0;
	assert_int_equal(rt_dissect(&o, &f, &r), -EPROTONOSUPPORT);
	assert_true(r.ts_ns == 42);
	assert_int_equal(r.interface_id, 0);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, 0);
	assert_true(rt_linktype_supported(RT_LINK_ETHERNET));
	assert_true(rt_linktype_supported(RT_LINK_RAW));
	assert_true(rt_linktype_supported(RT_LINK_LINUX_SLL));
	assert_true(rt_linktype_supported(RT_LINK_LINUX_SLL2));
	assert_false(rt_linktype_supported(0));
	assert_false(rt_linktype_supported(105));
	assert_true(rt_linktype_supported(RT_LINK_IPV4)); /* 228 and 229: raw IP too */
	assert_true(rt_linktype_supported(RT_LINK_IPV6));
	assert_false(rt_linktype_supported(230));
	assert_int_equal(o.udp_port, 4791);
	assert_true(o.verify_icrc);

	/* empty frames */
	dissect_n(&o, RT_LINK_ETHERNET, &p, 0, 0, &r);
	assert_int_equal(r.events, RT_EV_LINK_TRUNCATED);
	dissect_n(&o, RT_LINK_RAW, &p, 0, 0, &r);
	assert_int_equal(r.events, RT_EV_IP_TRUNCATED);
}

/*
 * IPv6 extension headers as the walk meets them: a hop-by-hop header
 * (16 bytes) before UDP, cut by the snap length inside it (ip_truncated),
 * claiming more than the payload (ip_bad_length), and a fragment header of
 * a non-first fragment (ip_fragment, no UDP decoded).
 */
static void test_ipv6_ext_walk(void **state)
{
	struct rt_dissect_opts o;
	struct pkt p = {.len = 0};
	struct rt_record r;
	(void)state;

	rt_dissect_opts_init(&o);
	pk_eth(&p, 0x86DD);
	uint32_t ip_off = pk_ipv6(&p, 0, 64, 0);
	pk_u8(&p, 17); /* hop-by-hop: next UDP, 16 bytes */
	pk_u8(&p, 1);
	pk_fill(&p, 0, 14);
	uint32_t udp_off = pk_udp(&p, 1000, 53);
	pk_fill(&p, 0, 4);
	pk_udp_done(&p, udp_off);
	pk_ipv6_done(&p, ip_off);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_true(r.layers & RT_L_UDP);
	assert_int_equal(r.udp_dport, 53);
	assert_int_equal(r.ip_proto, 17);
	assert_int_equal(r.events, 0);

	dissect_n(&o, RT_LINK_ETHERNET, &p, udp_off - 1, p.len, &r);
	assert_int_equal(r.events, RT_EV_IP_TRUNCATED);
	assert_true(r.truncated);

	p.b[ip_off + 41] = 9; /* 80 bytes: past the payload */
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_MALFORMED);
	assert_int_equal(r.events, RT_EV_IP_BAD_LENGTH);

	p.b[ip_off + 6] = 44; /* a fragment header at offset 8 bytes: a later piece */
	p.b[ip_off + 41] = 0;
	pk_set_be16(&p, ip_off + 42, 8);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.events, RT_EV_IP_FRAGMENT);
	assert_int_equal(r.ip_proto, 17);
	assert_false(r.layers & RT_L_UDP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ipv4_send_only),
	    cmocka_unit_test(test_fecn_becn_ce),
	    cmocka_unit_test(test_vlan_tags),
	    cmocka_unit_test(test_sll_sll2_raw),
	    cmocka_unit_test(test_sll_vlan),
	    cmocka_unit_test(test_ipv6),
	    cmocka_unit_test(test_rocev1_grh),
	    cmocka_unit_test(test_pfc_pause),
	    cmocka_unit_test(test_ethernet_padding),
	    cmocka_unit_test(test_record_reuse_and_link_types),
	    cmocka_unit_test(test_ipv6_ext_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of what the dissector names in frames that are not RoCE (dissect/other.c, proto_names.c): TCP, UDP, ICMP, ICMPv6, ARP, LLC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dissect/dissect.h"
#include "frames.h"

/* The frame cut by the snap length after `caplen` bytes. */
static void dissect_cut(const struct pkt *p, uint32_t caplen, struct rt_record *r)
{
	struct rt_dissect_opts o = opts_default();
	dissect_n(&o, RT_LINK_ETHERNET, p, caplen, p->len, r);
}

/* A TCP header (options of `opt` bytes) with `payload` bytes after it, over IPv4 or IPv6. */
static void tcp_frame(struct pkt *p, int ipver, uint8_t flags, uint32_t opt, uint32_t payload)
{
	memset(p, 0, sizeof(*p));
	pk_eth(p, ipver == 4 ? 0x0800 : 0x86DD);
	uint32_t ip = ipver == 4 ? pk_ipv4(p, 0, 64, 6) : pk_ipv6(p, 0, 64, 6);
	pk_be16(p, 40312);
	pk_be16(p, 22);
	pk_be32(p, 0xDEADBEEF);
	pk_be32(p, 0x01020304);
	pk_u8(p, (uint8_t)((20 + opt) / 4 << 4));
	pk_u8(p, flags);
	pk_be16(p, 64240);
	pk_be32(p, 0);
	pk_fill(p, 1, opt + payload);
	if (ipver == 4)
		pk_ipv4_done(p, ip);
	else
		pk_ipv6_done(p, ip);
}

static void test_tcp(void **state)
{
	struct pkt p;
	struct rt_record r;
	(void)state;

	tcp_frame(&p, 4, 0x12, 12, 100);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4 | RT_L_TCP);
	assert_int_equal(r.ip_proto, 6);
	assert_int_equal(r.other.tcp.sport, 40312);
	assert_int_equal(r.other.tcp.dport, 22);
	assert_int_equal(r.other.tcp.seq, 0xDEADBEEF);
	assert_int_equal(r.other.tcp.ack, 0x01020304);
	assert_int_equal(r.other.tcp.flags, 0x12);
	assert_int_equal(r.other.tcp.window, 64240);
	assert_int_equal(r.payload_len, 100);
	assert_int_equal(r.payload_off, 14 + 20 + 32);
	tcp_frame(&p, 6, 0x02, 0, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV6 | RT_L_TCP);
	assert_int_equal(r.payload_len, 0);
	/* cut inside the header: named by its protocol only, and no truncation of a needed layer */
	tcp_frame(&p, 4, 0x10, 0, 0);
	dissect_cut(&p, 14 + 20 + 19, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
	assert_int_equal(r.ip_proto, 6);
	assert_false(r.truncated);
	/* a data offset under 5 words, or past the packet */
	tcp_frame(&p, 4, 0x10, 0, 0);
	p.b[14 + 20 + 12] = 4 << 4;
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
	p.b[14 + 20 + 12] = 6 << 4;
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
}

static void test_udp_payload(void **state)
{
	struct pkt p;
	struct rt_record r;
	(void)state;

	memset(&p, 0, sizeof(p));
	pk_eth(&p, 0x0800);
	uint32_t ip = pk_ipv4(&p, 0, 64, 17);
	uint32_t udp = pk_udp(&p, 5353, 53);
	pk_fill(&p, 0, 12);
	pk_udp_done(&p, udp);
	pk_ipv4_done(&p, ip);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4 | RT_L_UDP);
	assert_int_equal(r.udp_dport, 53);
	assert_int_equal(r.payload_len, 12);
	assert_int_equal(r.payload_off, 14 + 20 + 8);
}

/* ICMP (IPv4) or ICMPv6 of `type`/`code`, echo id 7 and sequence 9. */
static void icmp_frame(struct pkt *p, int ipver, uint8_t type, uint8_t code)
{
	memset(p, 0, sizeof(*p));
	pk_eth(p, ipver == 4 ? 0x0800 : 0x86DD);
	uint32_t ip = ipver == 4 ? pk_ipv4(p, 0, 64, 1) : pk_ipv6(p, 0, 255, 58);
	pk_u8(p, type);
	pk_u8(p, code);
	pk_be16(p, 0);
	pk_be16(p, 7);
	pk_be16(p, 9);
	pk_fill(p, 0, 16);
	if (ipver == 4)
		pk_ipv4_done(p, ip);
	else
		pk_ipv6_done(p, ip);
}

static void test_icmp(void **state)
{
	struct pkt p;
	struct rt_record r;
	(void)state;

	icmp_frame(&p, 4, 8, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4 | RT_L_ICMP);
	assert_int_equal(r.other.icmp.type, 8);
	assert_int_equal(r.other.icmp.id, 7);
	assert_int_equal(r.other.icmp.seq, 9);
	assert_string_equal(rt_icmp_type_name(8, false), "echo-request");
	icmp_frame(&p, 4, 3, 3);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.other.icmp.code, 3);
	assert_int_equal(r.other.icmp.id, 0); /* not an echo */
	icmp_frame(&p, 6, 135, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV6 | RT_L_ICMP);
	assert_int_equal(r.ip_proto, 58);
	assert_string_equal(rt_icmp_type_name(135, true), "neighbor-solicitation");
	assert_string_equal(rt_icmp_type_name(129, true), "echo-reply");
	assert_string_equal(rt_icmp_type_name(2, true), "packet-too-big");
	assert_null(rt_icmp_type_name(200, true));
	assert_null(rt_icmp_type_name(42, false));
	/* ICMPv6's number in IPv4 is not ICMP */
	icmp_frame(&p, 4, 8, 0);
	p.b[14 + 9] = 58;
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
}

static void test_arp_llc(void **state)
{
	static const uint8_t sha[6] = {2, 0, 0, 0, 0, 1}, tha[6] = {0};
	struct pkt p;
	struct rt_record r;
	(void)state;

	memset(&p, 0, sizeof(p));
	pk_eth(&p, 0x0806);
	pk_be16(&p, 1);
	pk_be16(&p, 0x0800);
	pk_be16(&p, 0x0604);
	pk_be16(&p, 2);
	memcpy(p.b + p.len, sha, 6);
	p.len += 6;
	pk_be32(&p, 0x0A000001);
	memcpy(p.b + p.len, tha, 6);
	p.len += 6;
	pk_be32(&p, 0x0A000002);
	pk_fill(&p, 0, 18);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_ARP);
	assert_int_equal(r.other.arp.op, 2);
	assert_memory_equal(r.other.arp.sender_mac, sha, 6);
	assert_int_equal(r.other.arp.sender_ip[3], 1);
	assert_int_equal(r.other.arp.target_ip[3], 2);
	/* cut in the target address: not decoded */
	dissect_cut(&p, 14 + 27, &r);
	assert_int_equal(r.layers, RT_L_ETH);
	/* an 802.3 frame: its LLC header */
	memset(&p, 0, sizeof(p));
	pk_eth(&p, 38);
	pk_u8(&p, 0x42);
	pk_u8(&p, 0x43);
	pk_fill(&p, 0, 44);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_LLC);
	assert_int_equal(r.other.llc.dsap, 0x42);
	assert_int_equal(r.other.llc.ssap, 0x43);
}

static void test_names(void **state)
{
	char b[9];
	(void)state;

	assert_string_equal(rt_tcp_flags_text(0x02, b), "S");
	assert_string_equal(rt_tcp_flags_text(0x12, b), "S.");
	assert_string_equal(rt_tcp_flags_text(0x18, b), "P.");
	assert_string_equal(rt_tcp_flags_text(0x11, b), "F.");
	assert_string_equal(rt_tcp_flags_text(0x04, b), "R");
	assert_string_equal(rt_tcp_flags_text(0xFF, b), "FSRP.UEW");
	assert_string_equal(rt_tcp_flags_text(0, b), "none");
	assert_string_equal(rt_ip_proto_name(6), "tcp");
	assert_string_equal(rt_ip_proto_name(89), "ospf");
	assert_null(rt_ip_proto_name(250));
	assert_string_equal(rt_ethertype_name(0x88CC), "lldp");
	assert_string_equal(rt_ethertype_name(0x0806), "arp");
	assert_null(rt_ethertype_name(0x1234));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp),   cmocka_unit_test(test_udp_payload),
	    cmocka_unit_test(test_icmp),  cmocka_unit_test(test_arp_llc),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

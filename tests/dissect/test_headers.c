/* Unit tests of rt_dissect() and rt_dissect_buf(): hand-built frames for every link type and header, invalid input, truncation at every byte. */
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
#include "test_pkt.h"

#define TOS_DSCP26_ECT0 ((26 << 2) | 2)
#define SPORT 49152

/* How to build a RoCE frame. */
struct spec {
	int link;	  /* RT_LINK_* */
	int ntags;	  /* VLAN tags before the IP header (Ethernet and SLL) */
	uint16_t tpid[3]; /* their TPIDs, outer first */
	int ip;		  /* 4, 6, or 1 for RoCEv1 (GRH) */
	uint16_t dport;
	uint8_t opcode, pad, fecn, becn;
	const uint8_t *ext; /* extended header bytes */
	uint32_t ext_len;
	uint32_t payload;
};

static struct spec spec_default(void)
{
	struct spec s = {.link = RT_LINK_ETHERNET, .ip = 4, .dport = RT_ROCEV2_PORT, .opcode = 0x04};

	return s;
}

static struct rt_dissect_opts opts_default(void)
{
	struct rt_dissect_opts o;

	rt_dissect_opts_init(&o);
	return o;
}

/* Link header up to the network layer; `type` is the Ethertype after the tags. */
static void put_link(struct pkt *p, const struct spec *s, uint16_t type)
{
	uint16_t first = s->ntags ? s->tpid[0] : type;

	switch (s->link) {
	case RT_LINK_ETHERNET:
		pk_eth(p, first);
		break;
	case RT_LINK_LINUX_SLL:
		pk_be16(p, 4);	/* sent by us */
		pk_be16(p, 1);	/* ARPHRD_ETHER */
		pk_be16(p, 6);	/* address length */
		pk_be32(p, 0x02000000);
		pk_be32(p, 0x00010000); /* 02:00:00:00:00:01 + 2 bytes of padding */
		pk_be16(p, first);
		break;
	case RT_LINK_LINUX_SLL2:
		pk_be16(p, first);
		pk_be16(p, 0);
		pk_be32(p, 3); /* ifindex */
		pk_be16(p, 1);
		pk_u8(p, 0);
		pk_u8(p, 6);
		pk_be32(p, 0x02000000);
		pk_be32(p, 0x00010000);
		break;
	default:
		break; /* raw IP */
	}
	for (int i = 0; i < s->ntags; i++)
		pk_vlan(p, (uint8_t)(3 + i), (uint16_t)(100 * (i + 1)),
			i + 1 < s->ntags ? s->tpid[i + 1] : type);
}

/* Build the frame; returns the offset of the IP header (or GRH). */
static uint32_t build(struct pkt *p, const struct spec *s)
{
	uint32_t ip_off, udp_off = 0;
	uint32_t crc;

	memset(p, 0, sizeof(*p));
	put_link(p, s, s->ip == 4 ? 0x0800 : s->ip == 6 ? 0x86DD : 0x8915);
	if (s->ip == 4) {
		ip_off = pk_ipv4(p, TOS_DSCP26_ECT0, 64, 17);
	} else if (s->ip == 6) {
		ip_off = pk_ipv6(p, TOS_DSCP26_ECT0, 63, 17);
	} else {
		ip_off = pk_ipv6(p, TOS_DSCP26_ECT0, 62, 0x1B); /* a GRH has the IPv6 layout */
	}
	if (s->ip != 1)
		udp_off = pk_udp(p, SPORT, s->dport);
	pk_bth(p, s->opcode, 1, s->pad, 0xFFFF, s->fecn, s->becn, 0x000123, 1, 0x00ABCDEF);
	if (s->ext_len)
		memcpy(p->b + p->len, s->ext, s->ext_len);
	p->len += s->ext_len;
	for (uint32_t i = 0; i < s->payload; i++)
		pk_u8(p, (uint8_t)(0xA0 + i));
	pk_fill(p, 0, s->pad);
	if (s->ip == 4) {
		pk_set_be16(p, ip_off + 2, (uint16_t)(p->len + 4 - ip_off));
	} else {
		pk_set_be16(p, ip_off + 4, (uint16_t)(p->len + 4 - ip_off - 40));
	}
	if (udp_off)
		pk_set_be16(p, udp_off + 4, (uint16_t)(p->len + 4 - udp_off));
	if (s->ip == 1)
		crc = 0x11223344; /* RoCEv1: stored, never verified */
	else
		assert_int_equal(rt_icrc_compute(p->b + ip_off, p->len - ip_off, &crc), 0);
	pk_le32(p, crc);
	return ip_off;
}

/* Dissect from a heap copy of exactly `caplen` bytes so ASan catches any overread. */
static void dissect_n(const struct rt_dissect_opts *o, int link, const struct pkt *p,
		      uint32_t caplen, uint32_t wirelen, struct rt_record *rec)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);

	assert_non_null(copy);
	memcpy(copy, p->b, caplen);
	assert_int_equal(rt_dissect_buf(o, link, copy, caplen, wirelen, rec), 0);
	free(copy);
}

static void dissect_full(const struct pkt *p, int link, struct rt_record *rec)
{
	struct rt_dissect_opts o = opts_default();

	dissect_n(&o, link, p, p->len, p->len, rec);
}

/* The fields every default frame carries. */
static void check_common_roce(const struct rt_record *r)
{
	assert_int_equal(r->kind, RT_KIND_ROCE);
	assert_true(r->layers & RT_L_BTH);
	assert_int_equal(r->se, 1);
	assert_int_equal(r->migreq, 1);
	assert_int_equal(r->tver, 0);
	assert_int_equal(r->pkey, 0xFFFF);
	assert_int_equal(r->dest_qp, 0x123);
	assert_int_equal(r->ackreq, 1);
	assert_int_equal(r->psn, 0xABCDEF);
	assert_false(r->truncated);
}

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
	static const char *const codes[] = {"psn_seq_error", "invalid_request", "remote_access_error",
					    "remote_op_error", "invalid_rd_request"};
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

/* MAC control frame: PFC/PAUSE body after the opcode. */
static void build_macc(struct pkt *p, uint16_t opcode, int ntags)
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xC2, 0, 0, 1};

	memset(p, 0, sizeof(*p));
	memcpy(p->b, dst, 6);
	p->len = 6;
	pk_be32(p, 0x02000000);
	pk_be16(p, 0x0001);
	if (ntags) {
		pk_be16(p, 0x8100);
		pk_vlan(p, 7, 0, 0x8808);
	} else {
		pk_be16(p, 0x8808);
	}
	pk_be16(p, opcode);
	if (opcode == RT_MACC_PFC) {
		pk_be16(p, 0x0009); /* priorities 0 and 3 */
		for (uint16_t i = 0; i < 8; i++)
			pk_be16(p, i == 3 ? 0xFFFF : i == 0 ? 0 : (uint16_t)(i * 100));
	} else {
		pk_be16(p, 0x1234);
	}
	pk_fill(p, 0, 60 - p->len); /* minimum frame padding */
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

	/* PadCnt larger than the payload */
	build_udp_raw(&p, 12 + 2 + 4);
	p.b[42] = 0x04;
	p.b[43] = 3 << 4;
	expect_malformed(&p, RT_LINK_ETHERNET, RT_EV_TOO_SHORT_FOR_ICRC);
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
	assert_int_equal(r.layers, RT_L_ETH);
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
	dissect_n(&(struct rt_dissect_opts){RT_ROCEV2_PORT, true}, RT_LINK_ETHERNET, &p, len,
		  p.len, &r);
	assert_false(r.truncated);
	assert_int_equal(r.icrc, RT_ICRC_OK);
}

/* Truncation expectations: cuts before `end` give `event`. */
struct cut {
	uint32_t end;
	uint32_t event;
};

/*
 * Dissect every prefix of `p` (wirelen = full length) from an exact-size
 * heap copy: each must be truncated with exactly the expected event, never
 * malformed; layers decoded before the cut stay.
 */
static void check_cuts(const struct pkt *p, int link, const struct cut *cuts, size_t ncuts,
		       uint32_t layers_after_link)
{
	struct rt_dissect_opts o = opts_default();

	for (uint32_t caplen = 0; caplen < p->len; caplen++) {
		struct rt_record r;
		uint32_t want = 0;

		for (size_t i = 0; i < ncuts && !want; i++)
			if (caplen < cuts[i].end)
				want = cuts[i].event;
		assert_int_not_equal(want, 0);
		dissect_n(&o, link, p, caplen, p->len, &r);
		if (r.events != want || !r.truncated)
			fail_msg("caplen %u: events 0x%llx (want 0x%llx) truncated %d", caplen,
				 (unsigned long long)r.events, (unsigned long long)want, r.truncated);
		assert_int_not_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
		assert_true(rt_event_is_truncation(r.events));
		if (caplen >= cuts[0].end)
			assert_int_equal(r.layers & layers_after_link, layers_after_link);
	}
}

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
		{18, RT_EV_LINK_TRUNCATED}, {38, RT_EV_IP_TRUNCATED},
		{46, RT_EV_UDP_TRUNCATED},  {58, RT_EV_BTH_TRUNCATED},
		{74, RT_EV_EXT_TRUNCATED},  {p.len, RT_EV_ICRC_TRUNCATED},
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
			{20, RT_EV_LINK_TRUNCATED}, {60, RT_EV_IP_TRUNCATED},
			{68, RT_EV_UDP_TRUNCATED},  {80, RT_EV_BTH_TRUNCATED},
			{p.len, RT_EV_ICRC_TRUNCATED},
		};
		check_cuts(&p, s.link, cuts, 5, RT_L_SLL2);
	}
	{
		struct spec s = spec_default();

		s.link = RT_LINK_LINUX_SLL;
		build(&p, &s);
		const struct cut cuts[] = {
			{16, RT_EV_LINK_TRUNCATED}, {36, RT_EV_IP_TRUNCATED},
			{44, RT_EV_UDP_TRUNCATED},  {56, RT_EV_BTH_TRUNCATED},
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
			{20, RT_EV_IP_TRUNCATED},   {28, RT_EV_UDP_TRUNCATED},
			{40, RT_EV_BTH_TRUNCATED},  {52, RT_EV_EXT_TRUNCATED},
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
			{22, RT_EV_LINK_TRUNCATED}, {62, RT_EV_IP_TRUNCATED},
			{74, RT_EV_BTH_TRUNCATED},  {90, RT_EV_EXT_TRUNCATED},
			{p.len, RT_EV_ICRC_TRUNCATED},
		};
		check_cuts(&p, RT_LINK_ETHERNET, cuts, 5, RT_L_ETH | RT_L_VLAN | RT_L_QINQ);
	}
	{
		build_macc(&p, RT_MACC_PFC, 0);
		p.len = 14 + 2 + 18; /* no padding: every cut is inside a header */
		const struct cut cuts[] = {{14, RT_EV_LINK_TRUNCATED}, {p.len, RT_EV_MACC_TRUNCATED}};
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

static void test_record_reuse_and_link_types(void **state)
{
	struct spec s = spec_default();
	struct rt_dissect_opts o = opts_default();
	struct pkt p;
	struct rt_record r;
	(void)state;

	s.ip = 6;
	s.opcode = 0x0B;
	s.ext = (const uint8_t[20]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0, 0, 5};
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
	struct rt_frame f = {.data = p.b, .caplen = p.len - 1, .wirelen = p.len, .ts_ns = 42,
			     .seq = 9, .linktype = RT_LINK_ETHERNET, .interface_id = 3};
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
	assert_false(rt_linktype_supported(228));
	assert_int_equal(o.udp_port, 4791);
	assert_true(o.verify_icrc);

	/* empty frames */
	dissect_n(&o, RT_LINK_ETHERNET, &p, 0, 0, &r);
	assert_int_equal(r.events, RT_EV_LINK_TRUNCATED);
	dissect_n(&o, RT_LINK_RAW, &p, 0, 0, &r);
	assert_int_equal(r.events, RT_EV_IP_TRUNCATED);
}

/* The decode-event table: a row per bit in use, names unique, classes and layers as the output needs them. */
static void test_names(void **state)
{
	static const char *const layers[] = {"link", "ip", "udp", "gre", "bth", "ext", "icrc", "macc"};
	const char *seen[64] = {0};
	(void)state;

	assert_int_equal(RT_EV_COUNT, 22);
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
		assert_int_equal(e->cls == RT_EVC_NOTICE, ev == RT_EV_IP_FRAGMENT);
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

/* ------------------------------------------------------------ GRE / ERSPAN */

#define GRE_C 0x8000
#define GRE_R 0x4000
#define GRE_K 0x2000
#define GRE_S 0x1000

/* How to wrap an inner frame: outer IP version, GRE flags/version/protocol, ERSPAN header. */
struct tunnel {
	int ip;		/* 4 or 6 */
	uint16_t flags; /* C, R, K, S bits */
	uint8_t ver;	/* GRE version */
	uint16_t proto;
	uint8_t erspan_ver;  /* the Ver field written (0x88BE with S: type II; 0x22EB: type III) */
	uint16_t session;
	uint8_t ft, o;	     /* type III frame type and O bit */
	uint32_t ip_len_cut; /* bytes taken off the outer IP length (0: exact) */
};

/*
 * Outer Ethernet / IP 192.0.2.1 -> 192.0.2.2 (or 2001:db8::1 -> ::2) / GRE
 * (+ERSPAN), then `inner` from byte `skip` on. Returns the offset of the inner frame.
 */
static uint32_t wrap(struct pkt *p, const struct tunnel *t, const struct pkt *inner, uint32_t skip)
{
	uint32_t ip_off, start;

	memset(p, 0, sizeof(*p));
	pk_eth(p, t->ip == 4 ? 0x0800 : 0x86DD);
	if (t->ip == 4) {
		ip_off = pk_ipv4(p, 0, 63, 47);
		p->b[ip_off + 12] = 192;
		p->b[ip_off + 13] = 0;
		p->b[ip_off + 14] = 2;
		p->b[ip_off + 15] = 1;
		p->b[ip_off + 16] = 192;
		p->b[ip_off + 17] = 0;
		p->b[ip_off + 18] = 2;
		p->b[ip_off + 19] = 2;
	} else {
		ip_off = pk_ipv6(p, 0, 63, 47);
		p->b[ip_off + 8] = 0x20;
		p->b[ip_off + 9] = 0x01;
		p->b[ip_off + 10] = 0x0D;
		p->b[ip_off + 11] = 0xB8;
		p->b[ip_off + 24] = 0x20;
		p->b[ip_off + 25] = 0x01;
		p->b[ip_off + 26] = 0x0D;
		p->b[ip_off + 27] = 0xB8;
	}
	pk_be16(p, (uint16_t)(t->flags | t->ver));
	pk_be16(p, t->proto);
	if (t->flags & GRE_C)
		pk_be32(p, 0xC0DE0000);
	if (t->flags & GRE_K)
		pk_be32(p, 0x0000BEEF);
	if (t->flags & GRE_S)
		pk_be32(p, 77);
	if (t->proto == 0x88BE && (t->flags & GRE_S)) {
		pk_be16(p, (uint16_t)(t->erspan_ver << 12 | 10));  /* VLAN 10 */
		pk_be16(p, (uint16_t)(7u << 13 | 3u << 11 | 1u << 10 | t->session)); /* COS 7, En 3, T */
		pk_be32(p, 0xFFF12345); /* reserved bits set, index */
	} else if (t->proto == 0x22EB) {
		pk_be16(p, (uint16_t)(t->erspan_ver << 12 | 20));
		pk_be16(p, (uint16_t)(5u << 13 | 2u << 11 | 1u << 10 | t->session)); /* COS 5, BSO 2, T */
		pk_be32(p, 0x01020304); /* timestamp */
		pk_be16(p, 0x5555);	/* SGT */
		pk_be16(p, (uint16_t)(1u << 15 | t->ft << 10 | 0x3Fu << 4 | 1u << 3 | 2u << 1 | t->o));
		if (t->o) {
			pk_be32(p, 3u << 26 | 0x1234);
			pk_be32(p, 0xCAFEF00D);
		}
	}
	start = p->len;
	memcpy(p->b + p->len, inner->b + skip, inner->len - skip);
	p->len += inner->len - skip;
	if (t->ip == 4) {
		pk_ipv4_done(p, ip_off);
		pk_set_be16(p, ip_off + 2, (uint16_t)(p->len - ip_off - t->ip_len_cut));
	} else {
		pk_ipv6_done(p, ip_off);
		pk_set_be16(p, ip_off + 4, (uint16_t)(p->len - ip_off - 40 - t->ip_len_cut));
	}
	return start;
}

/* A default RoCEv2 IPv4 frame with one VLAN tag, ECN CE, 16 bytes of payload. */
static void inner_roce(struct pkt *p)
{
	struct spec s = spec_default();

	s.ntags = 1;
	s.tpid[0] = 0x8100;
	s.payload = 16;
	s.becn = 1;
	build(p, &s);
	p->b[14 + 4 + 1] |= 3; /* CE: masked by the ICRC */
}

/* What a decapsulated default inner frame must hold. */
static void check_inner(const struct rt_record *r, uint32_t inner_off, int outer_ip)
{
	static const uint8_t ip1[4] = {10, 0, 0, 1}, out1[4] = {192, 0, 2, 1}, out2[4] = {192, 0, 2, 2};
	static const uint8_t out6[4] = {0x20, 0x01, 0x0D, 0xB8};

	check_common_roce(r);
	assert_int_equal(r->layers & ~(uint32_t)RT_L_ERSPAN,
			 RT_L_GRE | RT_L_ETH | RT_L_VLAN | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r->events, 0);
	assert_int_equal(r->ip_version, 4);
	assert_memory_equal(r->src_ip, ip1, 4);
	assert_int_equal(r->ecn, 3);
	assert_int_equal(r->dscp, 26);
	assert_int_equal(r->ttl, 64);
	assert_int_equal(r->nvlan, 1);
	assert_int_equal(r->vlan[0], 100);
	assert_int_equal(r->pcp[0], 3);
	assert_int_equal(r->becn, 1);
	assert_int_equal(r->icrc, RT_ICRC_OK);
	assert_int_equal(r->payload_off, inner_off + 14 + 4 + 20 + 8 + 12);
	assert_int_equal(r->payload_len, 16);
	assert_int_equal(r->encap.outer_ip_version, outer_ip);
	if (outer_ip == 4) {
		assert_memory_equal(r->encap.outer_src_ip, out1, 4);
		assert_memory_equal(r->encap.outer_dst_ip, out2, 4);
	} else {
		assert_memory_equal(r->encap.outer_src_ip, out6, 4);
		assert_int_equal(r->encap.outer_dst_ip[15], 2);
	}
}

static void test_gre_flags_lengths(void **state)
{
	static const uint16_t protos[] = {0x6558, 0x88BE};
	struct pkt in, p;
	struct rt_record r;
	(void)state;

	inner_roce(&in);
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		for (unsigned f = 0; f < 8; f++) {
			struct tunnel t = {.ip = 4, .proto = protos[i], .erspan_ver = 1, .session = 5};
			uint32_t off, hlen = 4;

			t.flags = (uint16_t)((f & 1 ? GRE_C : 0) | (f & 2 ? GRE_K : 0) | (f & 4 ? GRE_S : 0));
			hlen += 4 * (uint32_t)__builtin_popcount(f);
			off = wrap(&p, &t, &in, 0);
			if (t.proto == 0x88BE && (t.flags & GRE_S))
				hlen += 8;
			assert_int_equal(off, 14 + 20 + hlen);
			dissect_full(&p, RT_LINK_ETHERNET, &r);
			check_inner(&r, off, 4);
			assert_int_equal(r.encap.gre_proto, t.proto);
			assert_int_equal(r.caplen, p.len);
			if (t.proto == 0x6558) {
				assert_false(r.layers & RT_L_ERSPAN);
			} else {
				assert_true(r.layers & RT_L_ERSPAN);
				/* no S bit: type I, the frame right after the GRE header */
				assert_int_equal(r.encap.erspan_version, (t.flags & GRE_S) ? 1 : 0);
				assert_int_equal(r.encap.erspan_session, (t.flags & GRE_S) ? 5 : 0);
			}
		}
	}
}

static void test_erspan2(void **state)
{
	struct tunnel t = {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 0x3FF};
	struct pkt in, p;
	struct rt_record r;
	uint32_t off;
	(void)state;

	inner_roce(&in);
	off = wrap(&p, &t, &in, 0);
	assert_int_equal(off, 14 + 20 + 8 + 8);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_inner(&r, off, 4);
	assert_int_equal(r.encap.erspan_version, 1);
	assert_int_equal(r.encap.erspan_session, 0x3FF); /* COS, En and T bits not taken in */
	assert_int_equal(r.encap.gre_proto, 0x88BE);

	/* a PFC frame mirrored: kind pfc, the inner MACs */
	struct pkt pf;
	static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xC2, 0, 0, 1};
	memset(&pf, 0, sizeof(pf));
	pk_eth(&pf, 0x8808);
	memcpy(pf.b, pfc_dst, 6);
	pk_be16(&pf, 0x0101);
	pk_be16(&pf, 0x0008);
	for (int i = 0; i < 8; i++)
		pk_be16(&pf, i == 3 ? 0xFFFF : 0);
	pk_fill(&pf, 0, 60 - pf.len);
	off = wrap(&p, &t, &pf, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_PFC);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_ERSPAN | RT_L_ETH | RT_L_MACC);
	assert_memory_equal(r.dst_mac, pfc_dst, 6);
	assert_int_equal(r.ip_version, 0);
	assert_int_equal(r.pfc_enable, 0x08);
	assert_int_equal(r.pfc_quanta[3], 0xFFFF);
	assert_int_equal(r.events, 0);
}

static void test_erspan3(void **state)
{
	struct pkt in, p;
	struct rt_record r;
	(void)state;

	inner_roce(&in);
	for (uint8_t o = 0; o < 2; o++) {
		struct tunnel t = {.ip = 4, .proto = 0x22EB, .erspan_ver = 2, .session = 0x201, .o = o};
		uint32_t off = wrap(&p, &t, &in, 0);

		assert_int_equal(off, 14 + 20 + 4 + 12 + 8 * o);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		check_inner(&r, off, 4);
		assert_true(r.layers & RT_L_ERSPAN);
		assert_int_equal(r.encap.erspan_version, 2);
		assert_int_equal(r.encap.erspan_session, 0x201);
		/* GRE options before a type III header are skipped too */
		t.flags = GRE_K | GRE_S;
		off = wrap(&p, &t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		check_inner(&r, off, 4);
	}
	/* frame type 2: an IP packet, no Ethernet header */
	struct tunnel t = {.ip = 4, .proto = 0x22EB, .erspan_ver = 2, .session = 1, .ft = 2, .o = 1};
	uint32_t off = wrap(&p, &t, &in, 18);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_ERSPAN | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.payload_off, off + 20 + 8 + 12);
	assert_int_equal(r.nvlan, 0);
	/* another frame type: nothing known follows, the record stays the outer packet */
	t.ft = 1;
	wrap(&p, &t, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);
	assert_int_equal(r.src_ip[0], 192);
	assert_int_equal(r.events, 0);
}

static void test_gre_ipv6_outer_and_ip_payload(void **state)
{
	struct pkt in, p;
	struct rt_record r;
	uint32_t off;
	(void)state;

	inner_roce(&in);
	struct tunnel t = {.ip = 6, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 9};
	off = wrap(&p, &t, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	check_inner(&r, off, 6);
	assert_int_equal(r.encap.erspan_session, 9);

	/* IP-in-GRE: the IPv4 packet right after the GRE header */
	struct tunnel ipt = {.ip = 6, .proto = 0x0800};
	off = wrap(&p, &ipt, &in, 18);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_ROCE);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_IPV4 | RT_L_UDP | RT_L_BTH);
	assert_int_equal(r.ecn, 3);
	assert_int_equal(r.icrc, RT_ICRC_OK);
	assert_int_equal(r.encap.outer_ip_version, 6);
	assert_int_equal(r.ethertype, 0x0800);
}

static void test_gre_invalid(void **state)
{
	static const struct {
		struct tunnel t;
		uint32_t event;
	} cases[] = {
	    {{.ip = 4, .flags = GRE_S, .ver = 1, .proto = 0x88BE, .erspan_ver = 1}, RT_EV_GRE_BAD},
	    {{.ip = 4, .ver = 7, .proto = 0x6558}, RT_EV_GRE_BAD},
	    {{.ip = 6, .flags = GRE_R, .proto = 0x6558}, RT_EV_GRE_BAD},
	    {{.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 2}, RT_EV_ERSPAN_BAD_VERSION},
	    {{.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 0}, RT_EV_ERSPAN_BAD_VERSION},
	    {{.ip = 6, .proto = 0x22EB, .erspan_ver = 1}, RT_EV_ERSPAN_BAD_VERSION},
	    {{.ip = 4, .proto = 0x22EB, .erspan_ver = 3}, RT_EV_ERSPAN_BAD_VERSION},
	};
	struct pkt in, p;
	struct rt_record r;
	(void)state;

	inner_roce(&in);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wrap(&p, &cases[i].t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_int_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.events, cases[i].event);
		assert_false(r.truncated);
		assert_false(r.layers & (RT_L_GRE | RT_L_ERSPAN));
		assert_int_equal(r.ip_version, cases[i].t.ip); /* the outer packet */
	}
	/* the GRE + ERSPAN header (or the type III subheader) beyond the outer IP packet */
	memset(&in, 0, sizeof(in));
	for (int o = 0; o < 2; o++) {
		struct tunnel t = {.ip = 4, .proto = 0x22EB, .erspan_ver = 2, .o = (uint8_t)o};

		t.ip_len_cut = o ? 4 : 10;
		in.len = 0;
		wrap(&p, &t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_int_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.events, RT_EV_GRE_BAD);
	}
	/* an inner frame longer than the wholly captured tunnel packet: invalid, not cut */
	inner_roce(&in);
	for (uint32_t cut = 1; cut < in.len; cut += 7) {
		struct tunnel t = {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1};

		t.ip_len_cut = cut;
		wrap(&p, &t, &in, 0);
		dissect_full(&p, RT_LINK_ETHERNET, &r);
		assert_false(r.truncated);
		if (r.kind != RT_KIND_MALFORMED || !(r.events & (RT_EV_GRE_BAD | RT_EV_IP_BAD_LENGTH |
								   RT_EV_UDP_BAD_LENGTH)))
			fail_msg("cut %u: kind %d events 0x%llx", cut, r.kind,
				 (unsigned long long)r.events);
	}
}

static void test_gre_not_followed(void **state)
{
	struct pkt in, p, p2;
	struct rt_record r;
	uint32_t off;
	(void)state;

	/* PPTP's enhanced GRE (version 1, PPP): not ours, not invalid */
	inner_roce(&in);
	struct tunnel pptp = {.ip = 4, .flags = GRE_K, .ver = 1, .proto = 0x880B};
	wrap(&p, &pptp, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.events, 0);
	assert_int_equal(r.layers, RT_L_ETH | RT_L_IPV4);

	/* an IP packet too short for a GRE header */
	struct tunnel shortgre = {.ip = 4, .proto = 0x6558, .ip_len_cut = 2};
	in.len = 0;
	wrap(&p, &shortgre, &in, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.events, 0);

	/* one level only: ERSPAN inside ERSPAN leaves the inner GRE packet undecoded */
	inner_roce(&in);
	struct tunnel t = {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 3};
	wrap(&p2, &t, &in, 0);
	t.session = 4;
	off = wrap(&p, &t, &p2, 0);
	dissect_full(&p, RT_LINK_ETHERNET, &r);
	assert_int_equal(r.kind, RT_KIND_OTHER);
	assert_int_equal(r.layers, RT_L_GRE | RT_L_ERSPAN | RT_L_ETH | RT_L_IPV4);
	assert_int_equal(r.encap.erspan_session, 4);
	assert_int_equal(r.src_ip[0], 192);
	assert_int_equal(r.events, 0);
	assert_int_equal(off, 14 + 20 + 8 + 8);
}

/* Every prefix of a mirrored RoCE frame: each cut names the header it falls in. */
static void test_truncation_erspan(void **state)
{
	static const struct tunnel tunnels[] = {
	    {.ip = 4, .flags = GRE_S, .proto = 0x88BE, .erspan_ver = 1, .session = 1},
	    {.ip = 6, .flags = GRE_K, .proto = 0x22EB, .erspan_ver = 2, .session = 2, .o = 1},
	    {.ip = 4, .flags = GRE_C, .proto = 0x6558},
	};
	struct pkt in, p;
	(void)state;

	inner_roce(&in);
	for (size_t i = 0; i < sizeof(tunnels) / sizeof(tunnels[0]); i++) {
		uint32_t off = wrap(&p, &tunnels[i], &in, 0);
		uint32_t ip_end = 14 + (tunnels[i].ip == 4 ? 20 : 40);
		const struct cut cuts[] = {
		    {14, RT_EV_LINK_TRUNCATED},
		    {ip_end, RT_EV_IP_TRUNCATED},
		    {off, RT_EV_GRE_TRUNCATED},
		    {off + 18, RT_EV_LINK_TRUNCATED},
		    {off + 38, RT_EV_IP_TRUNCATED},
		    {off + 46, RT_EV_UDP_TRUNCATED},
		    {off + 58, RT_EV_BTH_TRUNCATED},
		    {p.len, RT_EV_ICRC_TRUNCATED},
		};
		struct rt_dissect_opts o = opts_default();

		check_cuts(&p, RT_LINK_ETHERNET, cuts, sizeof(cuts) / sizeof(cuts[0]), 0);
		for (uint32_t caplen = 0; caplen < p.len; caplen++) {
			struct rt_record r;

			dissect_n(&o, RT_LINK_ETHERNET, &p, caplen, p.len, &r);
			/* decapsulated exactly when the whole tunnel header was captured */
			assert_int_equal((r.layers & RT_L_GRE) != 0, caplen >= off);
			if (caplen >= off + 58)
				assert_int_equal(r.psn, 0xABCDEF);
		}
	}
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
		cmocka_unit_test(test_reth_immdt),
		cmocka_unit_test(test_aeth),
		cmocka_unit_test(test_atomiceth),
		cmocka_unit_test(test_deth_ieth_rdeth_xrceth_feth),
		cmocka_unit_test(test_cnp),
		cmocka_unit_test(test_pfc_pause),
		cmocka_unit_test(test_invalid_ip),
		cmocka_unit_test(test_invalid_udp_bth),
		cmocka_unit_test(test_not_roce),
		cmocka_unit_test(test_ethernet_padding),
		cmocka_unit_test(test_truncation_ipv4_vlan),
		cmocka_unit_test(test_truncation_partial_ext),
		cmocka_unit_test(test_truncation_other_links),
		cmocka_unit_test(test_short_is_not_truncated),
		cmocka_unit_test(test_record_reuse_and_link_types),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_gre_flags_lengths),
		cmocka_unit_test(test_erspan2),
		cmocka_unit_test(test_erspan3),
		cmocka_unit_test(test_gre_ipv6_outer_and_ip_payload),
		cmocka_unit_test(test_gre_invalid),
		cmocka_unit_test(test_gre_not_followed),
		cmocka_unit_test(test_truncation_erspan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

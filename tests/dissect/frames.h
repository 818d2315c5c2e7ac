/* RoCE frames for the dissector's unit tests: built from a spec, dissected from exact-size copies, cut at every byte. */
#ifndef RT_TEST_DISSECT_FRAMES_H
#define RT_TEST_DISSECT_FRAMES_H

/* include after <cmocka.h>: the builders assert */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "test_pkt.h"

#define TOS_DSCP26_ECT0 ((26 << 2) | 2)
#define SPORT           49152

/* How to build a RoCE frame. */
struct spec {
	int link;         /* RT_LINK_* */
	int ntags;        /* VLAN tags before the IP header (Ethernet and SLL) */
	uint16_t tpid[3]; /* their TPIDs, outer first */
	int ip;           /* 4, 6, or 1 for RoCEv1 (GRH) */
	uint16_t dport;
	uint8_t opcode, pad, fecn, becn;
	const uint8_t *ext; /* extended header bytes */
	uint32_t ext_len;
	uint32_t payload;
};

static inline struct spec spec_default(void)
{
	struct spec s = {
	    .link = RT_LINK_ETHERNET, .ip = 4, .dport = RT_ROCEV2_PORT, .opcode = 0x04};

	return s;
}

static inline struct rt_dissect_opts opts_default(void)
{
	struct rt_dissect_opts o;

	rt_dissect_opts_init(&o);
	return o;
}

/* Link header up to the network layer; `type` is the Ethertype after the tags. */
static inline void put_link(struct pkt *p, const struct spec *s, uint16_t type)
{
	uint16_t first = s->ntags ? s->tpid[0] : type;

	switch (s->link) {
	case RT_LINK_ETHERNET:
		pk_eth(p, first);
		break;
	case RT_LINK_LINUX_SLL:
		pk_be16(p, 4); /* sent by us */
		pk_be16(p, 1); /* ARPHRD_ETHER */
		pk_be16(p, 6); /* address length */
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
static inline uint32_t build(struct pkt *p, const struct spec *s)
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
static inline void dissect_n(const struct rt_dissect_opts *o, int link, const struct pkt *p,
                             uint32_t caplen, uint32_t wirelen, struct rt_record *rec)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);

	assert_non_null(copy);
	memcpy(copy, p->b, caplen);
	assert_int_equal(rt_dissect_buf(o, link, copy, caplen, wirelen, rec), 0);
	free(copy);
}

static inline void dissect_full(const struct pkt *p, int link, struct rt_record *rec)
{
	struct rt_dissect_opts o = opts_default();

	dissect_n(&o, link, p, p->len, p->len, rec);
}

/* The fields every default frame carries. */
static inline void check_common_roce(const struct rt_record *r)
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

/* MAC control frame: PFC/PAUSE body after the opcode. */
static inline void build_macc(struct pkt *p, uint16_t opcode, int ntags)
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
static inline void check_cuts(const struct pkt *p, int link, const struct cut *cuts, size_t ncuts,
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
		/* a needed header cut is `truncated`; the payload, pad or ICRC alone is not */
		if (r.events != want || r.truncated != (want != RT_EV_ICRC_TRUNCATED))
			fail_msg("caplen %u: events 0x%llx (want 0x%llx) truncated %d", caplen,
			         (unsigned long long)r.events, (unsigned long long)want,
			         r.truncated);
		assert_int_not_equal(r.kind, RT_KIND_MALFORMED);
		assert_int_equal(r.icrc, RT_ICRC_UNCHECKED);
		assert_true(rt_event_is_truncation(r.events));
		if (caplen >= cuts[0].end)
			assert_int_equal(r.layers & layers_after_link, layers_after_link);
	}
}

#endif

/* Frame decoding from the link layer to UDP: Ethernet + VLAN tags, Linux SLL/SLL2, raw IP, IPv4, IPv6, RoCEv1 GRH, GRE/ERSPAN. */
#include "dissect/dissect.h"

#include <errno.h>
#include <stddef.h>

#include "dissect/internal.h"
#include "dissect/wire.h"

#define ETH_HLEN        14
#define VLAN_TAG_LEN    4
#define SLL_HLEN        16
#define SLL2_HLEN       20
#define IPV4_MIN_HLEN   20
#define IPV6_HLEN       40
#define GRH_HLEN        40
#define UDP_HLEN        8
#define GRE_HLEN        4 /* flags/version + protocol; C, K and S add 4 bytes each */
#define ERSPAN2_HLEN    8
#define ERSPAN3_HLEN    12
#define ERSPAN3_SUB_LEN 8 /* platform-specific subheader (O bit) */

#define ETHERTYPE_IPV4     0x0800
#define ETHERTYPE_IPV6     0x86DD
#define ETHERTYPE_VLAN     0x8100
#define ETHERTYPE_QINQ     0x88A8
#define ETHERTYPE_QINQ_OLD 0x9100
#define ETHERTYPE_ROCEV1   0x8915
#define ETHERTYPE_MACC     0x8808
#define ETHERTYPE_ARP      0x0806
#define ETHERTYPE_MIN      0x0600 /* below: an 802.3 length field */

#define IPPROTO_UDP_NUM     17
#define IPPROTO_GRE_NUM     47
#define GREPROTO_TEB        0x6558 /* transparent Ethernet bridging */
#define GREPROTO_ERSPAN2    0x88BE /* ERSPAN type I (no S bit) and II */
#define GREPROTO_ERSPAN3    0x22EB
#define GRE_F_C             0x8000 /* checksum present */
#define GRE_F_R             0x4000 /* routing present (RFC 1701, not allowed by RFC 2784) */
#define GRE_F_K             0x2000 /* key present */
#define GRE_F_S             0x1000 /* sequence number present */
#define GRE_VER_MASK        0x0007
#define ERSPAN3_FT_ETHERNET 0
#define ERSPAN3_FT_IP       2
#define GRH_NEXT_HEADER_BTH 0x1B
#define IPV4_FRAG_MASK      0x3FFF /* more-fragments flag and fragment offset */

/* One frame being decoded. */
struct frame {
	const struct rt_dissect_opts *opts;
	const uint8_t *p;
	uint32_t cap;  /* bytes captured: the read bound */
	uint32_t wire; /* bytes on the wire (never below cap): the length bound */
	struct rt_record *rec;
	bool inner; /* inside a GRE tunnel: no further decapsulation */
};

static inline void dissect_ethernet(const struct frame *f, uint32_t off);
static void dissect_raw(const struct frame *f, uint32_t off);
static void dissect_gre(const struct frame *f, uint32_t off, uint32_t ip_end);

/*
 * UDP (8 bytes)
 *  +---------------+---------------+---------------+---------------+
 *  |          source port          |        destination port       |
 *  +-------------------------------+-------------------------------+
 *  |            length             |           checksum            |
 *  +-------------------------------+-------------------------------+
 * `ip_end` is where the IP packet ends on the wire.
 */
static void dissect_udp(const struct frame *f, uint32_t off, uint32_t ip_off, uint32_t ip_end)
{
	struct rt_record *rec = f->rec;
	bool ok = true;
	uint16_t ulen;

	if (ip_end - off < UDP_HLEN) {
		rt_rec_malformed(rec, RT_EV_UDP_BAD_LENGTH);
		return;
	}
	if (!rt_wire_has(f->cap, off, UDP_HLEN)) {
		rt_rec_truncated(rec, RT_EV_UDP_TRUNCATED);
		return;
	}
	/* from the header's start: the bounds checks fold into the one above */
	const uint8_t *h = f->p + off;
	uint32_t hlen = f->cap - off;
	rec->udp_sport = rt_get_be16(h, hlen, 0, &ok);
	rec->udp_dport = rt_get_be16(h, hlen, 2, &ok);
	ulen = rt_get_be16(h, hlen, 4, &ok);
	rec->layers |= RT_L_UDP;
	if (ulen < UDP_HLEN || ulen > ip_end - off) {
		rt_rec_malformed(rec, RT_EV_UDP_BAD_LENGTH);
		return;
	}
	if (rec->udp_dport == f->opts->udp_port) {
		rt_dissect_transport(rec, f->p, f->cap, off + UDP_HLEN, off + ulen, ip_off,
		                     f->opts);
		return;
	}
	rec->payload_off = off + UDP_HLEN;
	rec->payload_len = ulen - UDP_HLEN;
	if (f->opts->verify_icrc)
		rec->other_port_rocev2 =
		    rt_dissect_is_rocev2(f->p, f->cap, off + UDP_HLEN, off + ulen, ip_off);
}

/*
 * IPv4 (20 bytes + options)
 *  +-------+-------+-----------+---+-------------------------------+
 *  |Version|  IHL  |   DSCP    |ECN|         Total Length          |
 *  +-------+-------+-----------+---+-----+-------------------------+
 *  |        Identification         |Flags|     Fragment Offset     |
 *  +---------------+---------------+-----+-------------------------+
 *  |      TTL      |   Protocol    |        Header Checksum        |
 *  +---------------+---------------+-------------------------------+
 *  |                  Source, then Destination Address             |
 *  +---------------------------------------------------------------+
 */
static void dissect_ipv4(const struct frame *f, uint32_t off)
{
	struct rt_record *rec = f->rec;
	const uint8_t *p = f->p;
	bool ok = true;
	uint8_t vihl, tos, proto;
	uint16_t total, frag;
	uint32_t ihl;

	if (!rt_wire_has(f->cap, off, IPV4_MIN_HLEN)) {
		rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
		return;
	}
	/* read from the header's start, so the compiler folds the bounds checks into the one above */
	const uint8_t *h = p + off;
	uint32_t hlen = f->cap - off;
	vihl = rt_get_u8(h, hlen, 0, &ok);
	if (vihl >> 4 != 4) {
		rt_rec_malformed(rec, RT_EV_IP_BAD_VERSION);
		return;
	}
	tos = rt_get_u8(h, hlen, 1, &ok);
	total = rt_get_be16(h, hlen, 2, &ok);
	frag = rt_get_be16(h, hlen, 6, &ok);
	rec->ip_id = rt_get_be16(h, hlen, 4, &ok);
	rec->ttl = rt_get_u8(h, hlen, 8, &ok);
	proto = rt_get_u8(h, hlen, 9, &ok);
	rt_get_bytes(h, hlen, 12, rec->src_ip, 4, &ok);
	rt_get_bytes(h, hlen, 16, rec->dst_ip, 4, &ok);
	rec->layers |= RT_L_IPV4;
	rec->ip_version = 4;
	rec->ip_proto = proto;
	rec->dscp = tos >> 2;
	rec->ecn = tos & 3;

	ihl = (uint32_t)(vihl & 0x0F) * 4;
	if (ihl < IPV4_MIN_HLEN) {
		rt_rec_malformed(rec, RT_EV_IPV4_BAD_IHL);
		return;
	}
	if (total < ihl || !rt_wire_has(f->wire, off, total)) {
		rt_rec_malformed(rec, RT_EV_IP_BAD_LENGTH);
		return;
	}
	if (!rt_wire_has(f->cap, off, ihl)) {
		rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
		return;
	}
	if (frag & IPV4_FRAG_MASK) {
		rec->events |= RT_EV_IP_FRAGMENT;
		return;
	}
	if (f->opts->addresses_only && (proto != IPPROTO_GRE_NUM || f->inner))
		return;
	if (proto == IPPROTO_UDP_NUM)
		dissect_udp(f, off + ihl, off, off + total);
	else if (proto == IPPROTO_GRE_NUM && !f->inner)
		dissect_gre(f, off + ihl, off + total);
	else
		rt_dissect_ip_other(rec, f->p, f->cap, off + ihl, off + total);
}

/*
 * The fields IPv6 and the RoCEv1 GRH share (40 bytes, whole in the capture):
 * traffic class into DSCP/ECN, hop limit, addresses; returns the payload
 * length and sets *next to the next header.
 */
static uint16_t read_ipv6_fields(const struct frame *f, uint32_t off, uint8_t *next)
{
	struct rt_record *rec = f->rec;
	const uint8_t *p = f->p;
	bool ok = true;
	uint8_t tc = (uint8_t)(rt_get_be16(p, f->cap, off, &ok) >> 4);
	uint16_t plen = rt_get_be16(p, f->cap, off + 4, &ok);
	*next = rt_get_u8(p, f->cap, off + 6, &ok);
	rec->ttl = rt_get_u8(p, f->cap, off + 7, &ok);
	rt_get_bytes(p, f->cap, off + 8, rec->src_ip, 16, &ok);
	rt_get_bytes(p, f->cap, off + 24, rec->dst_ip, 16, &ok);
	rec->ip_version = 6;
	rec->dscp = tc >> 2;
	rec->ecn = tc & 3;
	return plen;
}

/*
 * IPv6 (40 bytes, then extension headers: rt_ipv6_ext_walk())
 *  +-------+---------------+---------------------------------------+
 *  |Version| Traffic Class |              Flow Label               |
 *  +-------+---------------+-------+---------------+---------------+
 *  |        Payload Length         |  Next Header  |   Hop Limit   |
 *  +-------------------------------+---------------+---------------+
 *  |            Source, then Destination Address (16 bytes each)   |
 *  +---------------------------------------------------------------+
 */
static void dissect_ipv6(const struct frame *f, uint32_t off)
{
	struct rt_record *rec = f->rec;
	bool ok = true;
	uint32_t at = off + IPV6_HLEN, end;
	uint8_t next;

	if (!rt_wire_has(f->cap, off, IPV6_HLEN)) {
		rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
		return;
	}
	if (rt_get_be16(f->p, f->cap, off, &ok) >> 12 != 6) {
		rt_rec_malformed(rec, RT_EV_IP_BAD_VERSION);
		return;
	}
	end = at + read_ipv6_fields(f, off, &next);
	rec->layers |= RT_L_IPV6;
	rec->ip_proto = next;
	if (!rt_wire_has(f->wire, at, end - at)) {
		rt_rec_malformed(rec, RT_EV_IP_BAD_LENGTH);
		return;
	}
	if (!rt_ipv6_ext_walk(rec, f->p, f->cap, end, &at))
		return;
	next = rec->ip_proto;
	if (f->opts->addresses_only && (next != IPPROTO_GRE_NUM || f->inner))
		return;
	if (next == IPPROTO_UDP_NUM)
		dissect_udp(f, at, off, end);
	else if (next == IPPROTO_GRE_NUM && !f->inner)
		dissect_gre(f, at, end);
	else
		rt_dissect_ip_other(rec, f->p, f->cap, at, end);
}

/*
 * RoCEv1 GRH (40 bytes, IPv6-like; GIDs are recorded as IPv6 addresses)
 *  +-------+---------------+---------------------------------------+
 *  |IPVer  |    TClass     |              Flow Label               |
 *  +-------+---------------+-------+---------------+---------------+
 *  |        Payload Length         | NxtHdr (0x1B) |    HopLmt     |
 *  +-------------------------------+---------------+---------------+
 *  |                  SGID, then DGID (16 bytes each)              |
 *  +---------------------------------------------------------------+
 * Payload Length counts from the BTH up to and including the ICRC.
 */
static void dissect_grh(const struct frame *f, uint32_t off)
{
	struct rt_record *rec = f->rec;
	uint16_t plen;
	uint8_t next;

	rec->rocev1 = true;
	rec->kind = RT_KIND_ROCE;
	if (!rt_wire_has(f->cap, off, GRH_HLEN)) {
		rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
		return;
	}
	plen = read_ipv6_fields(f, off, &next);
	rec->layers |= RT_L_GRH;
	if (f->opts->addresses_only)
		return;
	if (next != GRH_NEXT_HEADER_BTH) {
		rt_rec_malformed(rec, RT_EV_GRH_BAD_NEXT_HEADER);
		return;
	}
	if (!rt_wire_has(f->wire, off + GRH_HLEN, plen)) {
		rt_rec_malformed(rec, RT_EV_IP_BAD_LENGTH);
		return;
	}
	rt_dissect_transport(rec, f->p, f->cap, off + GRH_HLEN, off + GRH_HLEN + plen, off,
	                     f->opts);
}

/*
 * What follows an Ethertype (or SLL protocol) at `off`: VLAN tags first,
 * each 4 bytes (TCI: PCP(3) DEI(1) VID(12), then the next Ethertype); the
 * first two are recorded, outer first, more are walked and noted.
 */
static void dissect_ethertype(const struct frame *f, uint32_t off, uint16_t type)
{
	struct rt_record *rec = f->rec;
	bool ok = true;

	while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD) {
		uint16_t tci;

		if (!rt_wire_has(f->cap, off, VLAN_TAG_LEN)) {
			rt_rec_truncated(rec, RT_EV_LINK_TRUNCATED);
			return;
		}
		tci = rt_get_be16(f->p, f->cap, off, &ok);
		type = rt_get_be16(f->p, f->cap, off + 2, &ok);
		if (rec->nvlan < 2) {
			rec->vlan[rec->nvlan] = tci & 0x0FFF;
			rec->pcp[rec->nvlan] = (uint8_t)(tci >> 13);
			rec->nvlan++;
			rec->layers |= rec->nvlan == 1 ? RT_L_VLAN : RT_L_QINQ;
		} else {
			rec->events |= RT_EV_VLAN_EXTRA;
		}
		off += VLAN_TAG_LEN;
	}
	rec->ethertype = type;
	switch (type) {
	case ETHERTYPE_IPV4:
		dissect_ipv4(f, off);
		break;
	case ETHERTYPE_IPV6:
		dissect_ipv6(f, off);
		break;
	case ETHERTYPE_ROCEV1:
		dissect_grh(f, off);
		break;
	case ETHERTYPE_MACC:
		rt_dissect_macc(rec, f->p, f->cap, off);
		break;
	case ETHERTYPE_ARP:
		rt_dissect_arp(rec, f->p, f->cap, off);
		break;
	default:
		break;
	}
}

/*
 * Ethernet II (14 bytes)
 *  | destination MAC (6) | source MAC (6) | Ethertype (2) |
 */
static inline void dissect_ethernet(const struct frame *f, uint32_t off)
{
	struct rt_record *rec = f->rec;
	bool ok = true;
	uint16_t type;
	const uint8_t *e;
	uint32_t elen;

	if (!rt_wire_has(f->cap, off, ETH_HLEN)) {
		rt_rec_truncated(rec, RT_EV_LINK_TRUNCATED);
		return;
	}
	/* read from the header's start, so the compiler folds the bounds checks into the one above */
	e = f->p + off;
	elen = f->cap - off;
	rt_get_bytes(e, elen, 0, rec->dst_mac, 6, &ok);
	rt_get_bytes(e, elen, 6, rec->src_mac, 6, &ok);
	type = rt_get_be16(e, elen, 12, &ok);
	rec->layers |= RT_L_ETH;
	if (type < ETHERTYPE_MIN) {
		rt_dissect_llc(rec, f->p, f->cap, off + ETH_HLEN); /* 802.3 length: LLC follows */
		return;
	}
	dissect_ethertype(f, off + ETH_HLEN, type);
}

/*
 * Linux cooked capture v1 (16 bytes)
 *  | packet type (2) | ARPHRD type (2) | address length (2) | address (8) | protocol (2) |
 */
static void dissect_sll(const struct frame *f)
{
	struct rt_record *rec = f->rec;
	bool ok = true;
	uint16_t alen, proto;

	if (!rt_wire_has(f->cap, 0, SLL_HLEN)) {
		rt_rec_truncated(rec, RT_EV_LINK_TRUNCATED);
		return;
	}
	alen = rt_get_be16(f->p, f->cap, 4, &ok);
	if (alen == 6)
		rt_get_bytes(f->p, f->cap, 6, rec->src_mac, 6, &ok);
	proto = rt_get_be16(f->p, f->cap, 14, &ok);
	rec->layers |= RT_L_SLL;
	if (proto < ETHERTYPE_MIN) {
		rec->ethertype = proto; /* a Linux pseudo-protocol (802.2, 802.3, ...) */
		return;
	}
	dissect_ethertype(f, SLL_HLEN, proto);
}

/*
 * Linux cooked capture v2 (20 bytes)
 *  | protocol (2) | reserved (2) | interface index (4) | ARPHRD type (2) |
 *  | packet type (1) | address length (1) | address (8) |
 */
static void dissect_sll2(const struct frame *f)
{
	struct rt_record *rec = f->rec;
	bool ok = true;
	uint16_t proto;

	if (!rt_wire_has(f->cap, 0, SLL2_HLEN)) {
		rt_rec_truncated(rec, RT_EV_LINK_TRUNCATED);
		return;
	}
	proto = rt_get_be16(f->p, f->cap, 0, &ok);
	rec->sll_ifindex = rt_get_be32(f->p, f->cap, 4, &ok);
	if (rt_get_u8(f->p, f->cap, 11, &ok) == 6)
		rt_get_bytes(f->p, f->cap, 12, rec->src_mac, 6, &ok);
	rec->layers |= RT_L_SLL2;
	if (proto < ETHERTYPE_MIN) {
		rec->ethertype = proto;
		return;
	}
	dissect_ethertype(f, SLL2_HLEN, proto);
}

/* Raw IP: the version nibble picks IPv4 or IPv6. */
static void dissect_raw(const struct frame *f, uint32_t off)
{
	struct rt_record *rec = f->rec;
	bool ok = true;
	uint8_t v = rt_get_u8(f->p, f->cap, off, &ok);

	if (!ok) {
		rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
		return;
	}
	switch (v >> 4) {
	case 4:
		rec->ethertype = ETHERTYPE_IPV4;
		dissect_ipv4(f, off);
		break;
	case 6:
		rec->ethertype = ETHERTYPE_IPV6;
		dissect_ipv6(f, off);
		break;
	default:
		rt_rec_malformed(rec, RT_EV_IP_BAD_VERSION);
		break;
	}
}

/*
 * Continue with the frame a GRE tunnel carries at `off` (the tunnel's IP
 * packet ends at `ip_end`): the outer addresses move to outer_*, every
 * link/network field is cleared, and the inner frame, bounded by the outer
 * IP packet, is decoded as usual (Ethernet, or IP when `raw_ip`). An inner
 * header running past a wholly captured tunnel packet is invalid (GRE_BAD),
 * not a truncation.
 */
static void decapsulate(const struct frame *f, uint32_t off, uint32_t ip_end, uint32_t layers,
                        bool raw_ip)
{
	struct rt_record *rec = f->rec;
	struct frame in = {
	    .opts = f->opts,
	    .p = f->p,
	    .cap = f->cap < ip_end ? f->cap : ip_end,
	    .wire = ip_end,
	    .rec = rec,
	    .inner = true,
	};

	rec->encap.outer_ip_version = rec->ip_version;
	memcpy(rec->encap.outer_src_ip, rec->src_ip, sizeof(rec->src_ip));
	memcpy(rec->encap.outer_dst_ip, rec->dst_ip, sizeof(rec->dst_ip));
	memset(rec->src_ip, 0, sizeof(rec->src_ip));
	memset(rec->dst_ip, 0, sizeof(rec->dst_ip));
	memset(rec->src_mac, 0, sizeof(rec->src_mac));
	memset(rec->dst_mac, 0, sizeof(rec->dst_mac));
	rec->ip_version = 0;
	rec->dscp = 0;
	rec->ecn = 0;
	rec->ttl = 0;
	rec->ip_proto = 0;
	rec->ip_id = 0;
	rec->nvlan = 0;
	rec->vlan[0] = rec->vlan[1] = 0;
	rec->pcp[0] = rec->pcp[1] = 0;
	rec->ethertype = 0;
	rec->layers = layers;
	if (raw_ip)
		dissect_raw(&in, off);
	else
		dissect_ethernet(&in, off);
	if ((rec->events & RT_EV_TRUNCATION_MASK) && f->cap >= ip_end) {
		/* the whole tunnel packet was captured: its payload is too short, not cut */
		rec->events &= ~RT_EV_TRUNCATION_MASK;
		rec->truncated = false;
		rt_rec_malformed(rec, RT_EV_GRE_BAD);
	}
}

/*
 * GRE (RFC 2784, RFC 2890), 4 bytes + optional fields in this order
 *  +-+-+-+-+-----------------------+-----+-------------------------+
 *  |C|R|K|S|   reserved0 (9 bits)  | Ver |      Protocol Type      |
 *  +-+-+-+-+-----------------------+-----+-------------------------+
 *  |   Checksum (C)  |  Reserved1 (C)  |  Key (K)  |  Sequence (S) |  4 bytes each
 *  +---------------------------------------------------------------+
 * Only these protocols are followed:
 *  0x0800, 0x86DD: an IPv4 / IPv6 packet follows (IP-in-GRE tunnel);
 *  0x6558 transparent Ethernet bridging: the Ethernet frame follows;
 *  0x88BE without S: ERSPAN type I, the Ethernet frame follows;
 *  0x88BE with S: ERSPAN type II header (8 bytes), then the frame
 *   | Ver=1 (4) | VLAN (12) | COS (3) | En (2) | T (1) | Session ID (10) |
 *   | Reserved (12) | Index (20) |
 *  0x22EB: ERSPAN type III header (12 bytes), then, when O is set, an
 *   8-byte platform-specific subheader, then the frame (FT 0) or IP packet (FT 2)
 *   | Ver=2 (4) | VLAN (12) | COS (3) | BSO (2) | T (1) | Session ID (10) |
 *   | Timestamp (32) |
 *   | SGT (16) | P (1) | FT (5) | Hw ID (6) | D (1) | Gra (2) | O (1) |
 * Other protocols (including version 1, PPTP) are left undecoded.
 */
static void dissect_gre(const struct frame *f, uint32_t off, uint32_t ip_end)
{
	struct rt_record *rec = f->rec;
	const uint8_t *p = f->p;
	bool ok = true;
	uint16_t flags, proto, w0, w1;
	uint32_t hlen, layers = RT_L_GRE, w3;
	bool raw_ip = false;

	if (ip_end - off < GRE_HLEN)
		return; /* no room for a GRE header: not a tunnel we can follow */
	if (!rt_wire_has(f->cap, off, GRE_HLEN)) {
		rt_rec_truncated(rec, RT_EV_GRE_TRUNCATED);
		return;
	}
	flags = rt_get_be16(p, f->cap, off, &ok);
	proto = rt_get_be16(p, f->cap, off + 2, &ok);
	if (proto != GREPROTO_TEB && proto != GREPROTO_ERSPAN2 && proto != GREPROTO_ERSPAN3 &&
	    proto != ETHERTYPE_IPV4 && proto != ETHERTYPE_IPV6)
		return;
	if ((flags & GRE_VER_MASK) != 0 || (flags & GRE_F_R)) {
		rt_rec_malformed(rec, RT_EV_GRE_BAD);
		return;
	}
	hlen = GRE_HLEN + ((flags & GRE_F_C) ? 4 : 0) + ((flags & GRE_F_K) ? 4 : 0) +
	       ((flags & GRE_F_S) ? 4 : 0);
	if (proto == GREPROTO_ERSPAN2 && (flags & GRE_F_S))
		hlen += ERSPAN2_HLEN;
	else if (proto == GREPROTO_ERSPAN3)
		hlen += ERSPAN3_HLEN;
	if (ip_end - off < hlen) {
		rt_rec_malformed(rec, RT_EV_GRE_BAD);
		return;
	}
	if (!rt_wire_has(f->cap, off, hlen)) {
		rt_rec_truncated(rec, RT_EV_GRE_TRUNCATED);
		return;
	}
	if (proto == ETHERTYPE_IPV4 || proto == ETHERTYPE_IPV6) {
		raw_ip = true;
	} else if (proto != GREPROTO_TEB) {
		uint32_t e = off + hlen - (proto == GREPROTO_ERSPAN3 ? ERSPAN3_HLEN : ERSPAN2_HLEN);
		uint8_t want = proto == GREPROTO_ERSPAN3 ? 2 : 1;

		layers |= RT_L_ERSPAN;
		if (proto == GREPROTO_ERSPAN2 && !(flags & GRE_F_S)) {
			rec->encap.erspan_version =
			    0; /* type I: the frame follows the GRE header */
		} else {
			w0 = rt_get_be16(p, f->cap, e, &ok);
			w1 = rt_get_be16(p, f->cap, e + 2, &ok);
			if (w0 >> 12 != want) {
				rt_rec_malformed(rec, RT_EV_ERSPAN_BAD_VERSION);
				return;
			}
			rec->encap.erspan_version = want;
			rec->encap.erspan_session = w1 & 0x03FF;
		}
		if (proto == GREPROTO_ERSPAN3) {
			w3 = rt_get_be16(p, f->cap, e + 10, &ok);
			raw_ip = ((w3 >> 10) & 0x1F) == ERSPAN3_FT_IP;
			if (((w3 >> 10) & 0x1F) != ERSPAN3_FT_ETHERNET && !raw_ip)
				return; /* another frame type: nothing we know follows */
			if (w3 & 1) {
				if (ip_end - off - hlen < ERSPAN3_SUB_LEN) {
					rt_rec_malformed(rec, RT_EV_GRE_BAD);
					return;
				}
				if (!rt_wire_has(f->cap, off + hlen, ERSPAN3_SUB_LEN)) {
					rt_rec_truncated(rec, RT_EV_GRE_TRUNCATED);
					return;
				}
				hlen += ERSPAN3_SUB_LEN;
			}
		}
	}
	rec->encap.gre_proto = proto;
	decapsulate(f, off + hlen, ip_end, layers, raw_ip);
}

static const struct rt_record zero_record;

/* Clear `rec` but for the timestamp, for the frame about to be decoded. */
static inline void clear_record(struct rt_record *rec, uint32_t caplen, uint32_t wirelen)
{
	uint64_t ts_ns = rec->ts_ns;

	/* a copy of a zero record compiles to vector stores (a memset: rep stos); beyond about 256 bytes
	 * it becomes rep movs too, so the encapsulation, CM and other-protocol parts are cleared apart */
	memcpy(rec, &zero_record, offsetof(struct rt_record, encap));
	rec->encap = zero_record.encap;
	rec->cm = zero_record.cm;
	rec->other = zero_record.other;
	rec->ts_ns = ts_ns;
	rec->caplen = caplen;
	rec->wirelen = wirelen < caplen ? caplen : wirelen; /* a record short of its own bytes */
	rec->events = wirelen < caplen ? RT_EV_WIRE_SHORT : 0;
	rec->point = RT_POINT_NONE;
}

void rt_dissect_roce(const uint8_t *buf, uint32_t len, struct rt_record *rec)
{
	static const struct rt_dissect_opts no_icrc = {.udp_port = RT_ROCEV2_PORT};

	clear_record(rec, len, len);
	rt_dissect_transport(rec, buf, len, 0, len, 0, &no_icrc);
}

int rt_dissect(const struct rt_dissect_opts *opts, const struct rt_frame *frame,
               struct rt_record *rec)
{
	struct frame f = {
	    .opts = opts,
	    .p = frame->data,
	    .cap = frame->caplen,
	    .wire = frame->wirelen < frame->caplen ? frame->caplen : frame->wirelen,
	    .rec = rec,
	};

	clear_record(rec, frame->caplen, frame->wirelen);
	rec->ts_ns = frame->ts_ns;
	rec->interface_id = frame->interface_id;
	switch (frame->linktype) {
	case RT_LINK_ETHERNET:
		dissect_ethernet(&f, 0);
		break;
	case RT_LINK_LINUX_SLL:
		dissect_sll(&f);
		break;
	case RT_LINK_LINUX_SLL2:
		dissect_sll2(&f);
		break;
	case RT_LINK_RAW:
	case RT_LINK_IPV4:
	case RT_LINK_IPV6:
		dissect_raw(&f, 0);
		break;
	default:
		return -EPROTONOSUPPORT;
	}
	return 0;
}

int rt_dissect_buf(const struct rt_dissect_opts *opts, int linktype, const uint8_t *buf,
                   uint32_t caplen, uint32_t wirelen, struct rt_record *rec)
{
	struct rt_frame f = {.data = buf,
	                     .caplen = caplen,
	                     .wirelen = wirelen,
	                     .ts_ns = rec->ts_ns,
	                     .linktype = linktype};

	return rt_dissect(opts, &f, rec);
}

/* Frame builder for the dissector unit tests: headers written byte by byte into a fixed buffer. */
#ifndef RT_TEST_PKT_H
#define RT_TEST_PKT_H

#include <stdint.h>
#include <string.h>

struct pkt {
	uint8_t b[9216]; /* a jumbo frame */
	uint32_t len;
};

static inline void pk_u8(struct pkt *p, uint8_t v)
{
	p->b[p->len++] = v;
}

static inline void pk_be16(struct pkt *p, uint16_t v)
{
	pk_u8(p, (uint8_t)(v >> 8));
	pk_u8(p, (uint8_t)v);
}

static inline void pk_be24(struct pkt *p, uint32_t v)
{
	pk_u8(p, (uint8_t)(v >> 16));
	pk_be16(p, (uint16_t)v);
}

static inline void pk_be32(struct pkt *p, uint32_t v)
{
	pk_be16(p, (uint16_t)(v >> 16));
	pk_be16(p, (uint16_t)v);
}

static inline void pk_be64(struct pkt *p, uint64_t v)
{
	pk_be32(p, (uint32_t)(v >> 32));
	pk_be32(p, (uint32_t)v);
}

static inline void pk_fill(struct pkt *p, uint8_t v, uint32_t n)
{
	memset(p->b + p->len, v, n);
	p->len += n;
}

static inline void pk_set_be16(struct pkt *p, uint32_t off, uint16_t v)
{
	p->b[off] = (uint8_t)(v >> 8);
	p->b[off + 1] = (uint8_t)v;
}

/* Ethernet II: dst 02:00:00:00:00:02, src 02:00:00:00:00:01. */
static inline void pk_eth(struct pkt *p, uint16_t type)
{
	static const uint8_t dst[6] = {2, 0, 0, 0, 0, 2}, src[6] = {2, 0, 0, 0, 0, 1};

	memcpy(p->b + p->len, dst, 6);
	memcpy(p->b + p->len + 6, src, 6);
	p->len += 12;
	pk_be16(p, type);
}

/* One VLAN tag body (after its TPID): TCI, then the next Ethertype. */
static inline void pk_vlan(struct pkt *p, uint8_t pcp, uint16_t vid, uint16_t next)
{
	pk_be16(p, (uint16_t)(pcp << 13 | vid));
	pk_be16(p, next);
}

/* IPv4 header without options, 10.0.0.1 -> 10.0.0.2; returns its offset (fix lengths with pk_ipv4_done). */
static inline uint32_t pk_ipv4(struct pkt *p, uint8_t tos, uint8_t ttl, uint8_t proto)
{
	uint32_t off = p->len;

	pk_u8(p, 0x45);
	pk_u8(p, tos);
	pk_be16(p, 0); /* total length, set later */
	pk_be16(p, 0x1234);
	pk_be16(p, 0x4000); /* DF */
	pk_u8(p, ttl);
	pk_u8(p, proto);
	pk_be16(p, 0xBEEF); /* checksum: not checked by the dissector */
	pk_be32(p, 0x0A000001);
	pk_be32(p, 0x0A000002);
	return off;
}

static inline void pk_ipv4_done(struct pkt *p, uint32_t ip_off)
{
	pk_set_be16(p, ip_off + 2, (uint16_t)(p->len - ip_off));
}

/* IPv6 header fd00::1 -> fd00::2 with a flow label; returns its offset (fix with pk_ipv6_done). */
static inline uint32_t pk_ipv6(struct pkt *p, uint8_t tclass, uint8_t hop, uint8_t next)
{
	uint32_t off = p->len;

	pk_be32(p, 6u << 28 | (uint32_t)tclass << 20 | 0xABCDE);
	pk_be16(p, 0); /* payload length, set later */
	pk_u8(p, next);
	pk_u8(p, hop);
	pk_be32(p, 0xFD000000);
	pk_be32(p, 0);
	pk_be32(p, 0);
	pk_be32(p, 1);
	pk_be32(p, 0xFD000000);
	pk_be32(p, 0);
	pk_be32(p, 0);
	pk_be32(p, 2);
	return off;
}

static inline void pk_ipv6_done(struct pkt *p, uint32_t ip_off)
{
	pk_set_be16(p, ip_off + 4, (uint16_t)(p->len - ip_off - 40));
}

/* UDP header; returns its offset (fix the length with pk_udp_done). */
static inline uint32_t pk_udp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	uint32_t off = p->len;

	pk_be16(p, sport);
	pk_be16(p, dport);
	pk_be16(p, 0);
	pk_be16(p, 0x5A5A); /* checksum: masked by the ICRC */
	return off;
}

static inline void pk_udp_done(struct pkt *p, uint32_t udp_off)
{
	pk_set_be16(p, udp_off + 4, (uint16_t)(p->len - udp_off));
}

/* BTH with the given fields (TVer 0, MigReq 1). */
static inline void pk_bth(struct pkt *p, uint8_t opcode, uint8_t se, uint8_t pad, uint16_t pkey,
                          uint8_t fecn, uint8_t becn, uint32_t qp, uint8_t ackreq, uint32_t psn)
{
	pk_u8(p, opcode);
	pk_u8(p, (uint8_t)(se << 7 | 1 << 6 | pad << 4));
	pk_be16(p, pkey);
	pk_u8(p, (uint8_t)(fecn << 7 | becn << 6));
	pk_be24(p, qp);
	pk_u8(p, (uint8_t)(ackreq << 7));
	pk_be24(p, psn);
}

/* Append 4 bytes of ICRC, little-endian. */
static inline void pk_le32(struct pkt *p, uint32_t v)
{
	pk_u8(p, (uint8_t)v);
	pk_u8(p, (uint8_t)(v >> 8));
	pk_u8(p, (uint8_t)(v >> 16));
	pk_u8(p, (uint8_t)(v >> 24));
}

#endif

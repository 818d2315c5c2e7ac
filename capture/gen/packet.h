/* RoCEv2 packet builder of the traffic source: BTH, RETH/AETH, CNP body, payload, pad and ICRC. */
#ifndef RT_GEN_PACKET_H
#define RT_GEN_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_GEN_BTH_LEN 12
#define RT_GEN_RETH_LEN 16
#define RT_GEN_AETH_LEN 4
#define RT_GEN_CNP_BODY_LEN 16
#define RT_GEN_ICRC_LEN 4
#define RT_GEN_IPV4_LEN 20
#define RT_GEN_UDP_LEN 8
#define RT_GEN_ETH_LEN 14

/* AETH syndromes the source sends: ACK with an invalid credit count, NAK PSN sequence error. */
#define RT_GEN_SYNDROME_ACK 0x1f
#define RT_GEN_SYNDROME_NAK_PSN 0x60

/*
 * The IPv4 and UDP headers a packet will travel in, as the kernel will put
 * them on the wire. The ICRC covers the addresses, total length, id,
 * flags/fragment offset, protocol and UDP ports and length; TOS, TTL and the
 * two checksums are masked, so `tos`/`ttl` only matter for whole frames.
 */
struct rt_gen_ipv4 {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint8_t tos, ttl;
	uint16_t id;
	bool df; /* don't-fragment bit */
};

/* One transport packet to build. Headers appear in wire order: BTH, RETH, AETH, CNP body. */
struct rt_gen_pkt {
	uint8_t opcode;
	bool se, ackreq, fecn, becn;
	uint16_t pkey;
	uint32_t dest_qp; /* 24 bits */
	uint32_t psn;	  /* 24 bits */
	bool has_reth;
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	bool has_aeth;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn; /* 24 bits */
	bool cnp_body;	   /* 16 reserved zero bytes (CNP) */
	const uint8_t *payload; /* NULL: payload_len zero bytes */
	uint32_t payload_len;
};

/* Bytes of the UDP payload (BTH .. ICRC) that rt_gen_build() writes for `p`. */
size_t rt_gen_udp_payload_len(const struct rt_gen_pkt *p);

/*
 * Write the UDP payload of `p` (BTH, extended headers, payload, pad, ICRC)
 * into buf. The ICRC is computed over the IPv4/UDP headers `ip` describes.
 * Returns the length written, or -ENOSPC when cap is too small.
 */
int rt_gen_build(const struct rt_gen_pkt *p, const struct rt_gen_ipv4 *ip, uint8_t *buf,
		 size_t cap);

/*
 * The ICRC of a RoCEv2 UDP payload of `len` bytes (the last 4 being the ICRC
 * field itself, not covered) carried in the headers `ip` describes.
 */
uint32_t rt_gen_icrc(const struct rt_gen_ipv4 *ip, const uint8_t *udp_payload, size_t len);

/*
 * A whole Ethernet II frame: MACs, IPv4 (with header checksum), UDP (checksum
 * 0), then rt_gen_build()'s bytes. Returns the frame length or -ENOSPC.
 */
int rt_gen_build_frame(const struct rt_gen_pkt *p, const struct rt_gen_ipv4 *ip,
		       const uint8_t src_mac[6], const uint8_t dst_mac[6], uint8_t *buf, size_t cap);

#endif

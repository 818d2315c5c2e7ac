/* The frame builder beside the dissector: RoCEv2 packets, PFC and PAUSE frames from fields, with
 * their ICRC. */
#ifndef RT_BUILD_H
#define RT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/dissect.h"

/* Big-endian (and the ICRC's little-endian) stores; the caller owns the room. */
static inline void rt_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void rt_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}
static inline void rt_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	rt_put_be24(p + 1, v);
}
static inline void rt_put_be64(uint8_t *p, uint64_t v)
{
	rt_put_be32(p, (uint32_t)(v >> 32));
	rt_put_be32(p + 4, (uint32_t)v);
}
static inline void rt_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/*
 * The link, IP and UDP headers a RoCEv2 packet travels in. For a UDP
 * payload handed to the kernel (rt_build_udp_payload) only the IP and UDP
 * fields count: they are what the kernel will put on the wire, and the
 * ICRC covers them (addresses, lengths, id, flags, protocol, ports; TOS,
 * TTL and checksums are masked).
 */
struct rt_build_net {
	uint8_t dst_mac[6], src_mac[6];
	uint8_t nvlan;      /* 0, 1 or 2 tags, outer first (two: 802.1ad outside 802.1Q) */
	uint16_t vlan[2];   /* VIDs */
	uint8_t pcp[2];     /* priorities */
	uint8_t ip_version; /* 4 or 6 */
	uint8_t src_ip[16], dst_ip[16]; /* IPv4 in the first 4 bytes */
	uint8_t dscp, ecn;
	uint8_t ttl;         /* TTL or hop limit */
	uint16_t ip_id;      /* IPv4 identification */
	bool df;             /* IPv4 don't-fragment */
	uint32_t flow_label; /* IPv6, 20 bits */
	uint16_t udp_sport, udp_dport;
};

/*
 * Transport packets are described by the fields of a packet record, as
 * rt_dissect() fills them: opcode, se, migreq, ackreq, fecn, becn, pkey,
 * dest_qp, psn, and the extended headers the opcode table gives the opcode
 * (RDETH, XRCETH, DETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
 * IETH, a CNP's 16 zero bytes), then payload_len bytes of payload (zeros
 * when `payload` is NULL), the pad to 4 bytes and the ICRC. Other fields of
 * the record are not read; padcnt and tver are derived (tver 0).
 */

/* Bytes of the transport packet of `t` (BTH .. ICRC), or 0 for an opcode outside the table. */
size_t rt_build_transport_len(const struct rt_record *t);

/*
 * The UDP payload of `t` (BTH .. ICRC) into buf, its ICRC computed over the
 * IPv4/IPv6 and UDP headers `net` describes. Returns the length, -ENOSPC
 * when cap is too small, -EINVAL for an opcode outside the table or an IP
 * version other than 4 or 6.
 */
int rt_build_udp_payload(const struct rt_build_net *net, const struct rt_record *t,
                         const uint8_t *payload, uint8_t *buf, size_t cap);

/*
 * The ICRC of a transport packet of `len` bytes (BTH .. ICRC field, which
 * is not covered) carried in the headers `net` describes. Returns 0 or
 * -EINVAL (len shorter than a BTH and an ICRC, IP version not 4 or 6).
 */
int rt_build_udp_icrc(const struct rt_build_net *net, const uint8_t *udp_payload, uint32_t len,
                      uint32_t *crc);

/*
 * A whole Ethernet frame: MACs, the VLAN tags, IPv4 (with its header
 * checksum) or IPv6, UDP (checksum 0), the transport packet of `t` and its
 * ICRC over the frame's own headers. Returns the length or -ENOSPC/-EINVAL.
 */
int rt_build_frame(const struct rt_build_net *net, const struct rt_record *t,
                   const uint8_t *payload, uint8_t *buf, size_t cap);

#define RT_MACC_FRAME_LEN 60 /* a MAC control frame: the Ethernet minimum without FCS */

/*
 * An 802.1Qbb PFC frame from src_mac to 01:80:c2:00:00:01: class-enable
 * vector `enable` (bit n = priority n), quanta[n] the pause time of
 * priority n (0: resume). Returns RT_MACC_FRAME_LEN or -ENOSPC.
 */
int rt_build_pfc(uint8_t *buf, size_t cap, const uint8_t src_mac[6], uint8_t enable,
                 const uint16_t quanta[8]);

/* An 802.3x PAUSE frame pausing for `quanta`. Returns RT_MACC_FRAME_LEN or -ENOSPC. */
int rt_build_pause(uint8_t *buf, size_t cap, const uint8_t src_mac[6], uint16_t quanta);

#endif

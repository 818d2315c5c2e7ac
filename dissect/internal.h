/* Internal interfaces between the dissector's files (not for use outside dissect/). */
#ifndef RT_DISSECT_INTERNAL_H
#define RT_DISSECT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"

/*
 * Decode a BTH at `bth_off`, its extended headers, payload bounds and ICRC.
 * `end` is where the transport packet ends on the wire (UDP or GRH payload
 * end, so the ICRC is the 4 bytes before it); `ip_off` is the offset of the
 * IPv4/IPv6 header covered by the ICRC (unused for RoCEv1). Sets the kind.
 */
void rt_dissect_transport(struct rt_record *rec, const uint8_t *buf, uint32_t caplen,
                          uint32_t bth_off, uint32_t end, uint32_t ip_off,
                          const struct rt_dissect_opts *opts);

/*
 * True when the transport packet at `bth_off` (ending at `end`, IP header at
 * `ip_off`) is whole in the capture and a RoCEv2 packet: BTH version 0, an
 * opcode of the table, room for its headers, pad and ICRC, and a valid ICRC.
 * Touches no record (a UDP datagram to another port).
 */
bool rt_dissect_is_rocev2(const uint8_t *buf, uint32_t caplen, uint32_t bth_off, uint32_t end,
                          uint32_t ip_off);

/* Decode the RDMA CM MAD a UD packet on QP 1 carries as payload (RT_L_CM), if it is a CM message. */
void rt_dissect_cm(struct rt_record *rec, const uint8_t *buf, uint32_t caplen);

/*
 * What an IP packet that is not RoCE carries at `off` (its IP packet ends at
 * `end` on the wire): TCP (ports, sequence numbers, flags, window, payload
 * length), ICMP or ICMPv6 (type, code, echo id and sequence), by
 * rec->ip_proto (IPv6: the header after the extension headers, at `off`).
 * Decodes nothing of a header the capture cut.
 */
void rt_dissect_ip_other(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off,
                         uint32_t end);
/* An Ethernet/IPv4 ARP packet at `off` (RT_L_ARP). */
void rt_dissect_arp(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off);
/* The LLC header of an 802.3 frame at `off` (RT_L_LLC). */
void rt_dissect_llc(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off);

/*
 * Walk the IPv6 extension headers (hop-by-hop 0, routing 43, fragment 44,
 * destination options 60) from `*off`, rec->ip_proto being the type of the
 * first, bounded by the IPv6 payload's end `end` (on the wire) and the
 * capture. True at the upper-layer header (or AH, ESP, no next header,
 * which are not walked): *off is its offset, rec->ip_proto its type. False,
 * with the event set, for a header cut (ip_truncated), one past the payload
 * (ip_bad_length) or a fragment of a packet in pieces (ip_fragment,
 * rec->ip_proto the type the fragment header names).
 */
bool rt_ipv6_ext_walk(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t end,
                      uint32_t *off);

/* Decode a MAC control frame body (opcode first) at `off`. Sets the kind. */
void rt_dissect_macc(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off);

/* Record the truncation of a header the dissector needed: sets the event and the `truncated` flag. */
static inline void rt_rec_truncated(struct rt_record *rec, uint64_t event)
{
	rec->events |= event;
	rec->truncated = true;
}

/* Record an invalid-input event that makes the frame uninterpretable. */
static inline void rt_rec_malformed(struct rt_record *rec, uint64_t event)
{
	rec->events |= event;
	rec->kind = RT_KIND_MALFORMED;
}

#endif

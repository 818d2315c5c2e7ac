/* What frames that are not RoCE carry, for the printers: TCP, ICMP and ICMPv6, ARP, the LLC header of 802.3 frames. */
#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/internal.h"
#include "dissect/wire.h"

#define TCP_MIN_HLEN   20
#define ICMP_HLEN      8 /* type, code, checksum, and the 4 bytes of the message's first word */
#define ARP_ETH4_LEN   28
#define IPPROTO_TCP    6
#define IPPROTO_ICMP   1
#define IPPROTO_ICMPV6 58

/*
 * TCP (20 bytes + options)
 *  +-------------------------------+-------------------------------+
 *  |          Source Port          |       Destination Port        |
 *  +-------------------------------+-------------------------------+
 *  |                        Sequence Number                        |
 *  +---------------------------------------------------------------+
 *  |                    Acknowledgment Number                      |
 *  +-------+-------+---------------+-------------------------------+
 *  | Offset| Rsvd  |C|E|U|A|P|R|S|F|            Window             |
 *  +-------+-------+---------------+-------------------------------+
 *  |           Checksum            |        Urgent Pointer         |
 *  +-------------------------------+-------------------------------+
 * `end` is where the IP packet ends on the wire: what the header leaves of
 * it is the payload.
 */
static void dissect_tcp(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off,
                        uint32_t end)
{
	bool ok = true;
	if (end - off < TCP_MIN_HLEN || !rt_wire_has(caplen, off, TCP_MIN_HLEN))
		return;
	uint32_t hlen = (uint32_t)(rt_get_u8(buf, caplen, off + 12, &ok) >> 4) * 4;
	if (hlen < TCP_MIN_HLEN || hlen > end - off)
		return;
	rec->other.tcp.sport = rt_get_be16(buf, caplen, off, &ok);
	rec->other.tcp.dport = rt_get_be16(buf, caplen, off + 2, &ok);
	rec->other.tcp.seq = rt_get_be32(buf, caplen, off + 4, &ok);
	rec->other.tcp.ack = rt_get_be32(buf, caplen, off + 8, &ok);
	rec->other.tcp.flags = rt_get_u8(buf, caplen, off + 13, &ok);
	rec->other.tcp.window = rt_get_be16(buf, caplen, off + 14, &ok);
	rec->payload_off = off + hlen;
	rec->payload_len = end - off - hlen;
	rec->layers |= RT_L_TCP;
}

/*
 * ICMP and ICMPv6: type (1), code (1), checksum (2), then the message; an
 * echo request or reply starts it with its identifier (2) and sequence
 * number (2).
 */
static void dissect_icmp(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off,
                         uint32_t end)
{
	bool ok = true, v6 = rec->ip_version == 6;
	if (end - off < ICMP_HLEN || !rt_wire_has(caplen, off, ICMP_HLEN))
		return;
	uint8_t type = rt_get_u8(buf, caplen, off, &ok);
	rec->other.icmp.type = type;
	rec->other.icmp.code = rt_get_u8(buf, caplen, off + 1, &ok);
	if (v6 ? type == 128 || type == 129 : type == 0 || type == 8) {
		rec->other.icmp.id = rt_get_be16(buf, caplen, off + 4, &ok);
		rec->other.icmp.seq = rt_get_be16(buf, caplen, off + 6, &ok);
	}
	rec->layers |= RT_L_ICMP;
}

void rt_dissect_ip_other(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off,
                         uint32_t end)
{
	if (rec->ip_proto == IPPROTO_TCP)
		dissect_tcp(rec, buf, caplen, off, end);
	else if (rec->ip_proto == (rec->ip_version == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP))
		dissect_icmp(rec, buf, caplen, off, end);
}

/*
 * ARP for IPv4 over Ethernet (28 bytes)
 *  | hardware type 1 (2) | protocol type 0x0800 (2) | hlen 6 (1) | plen 4 (1) | operation (2) |
 *  | sender MAC (6) | sender IP (4) | target MAC (6) | target IP (4) |
 * Other hardware or protocol types are left undecoded.
 */
void rt_dissect_arp(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off)
{
	bool ok = true;
	if (!rt_wire_has(caplen, off, ARP_ETH4_LEN) || rt_get_be16(buf, caplen, off, &ok) != 1 ||
	    rt_get_be16(buf, caplen, off + 2, &ok) != 0x0800 ||
	    rt_get_be16(buf, caplen, off + 4, &ok) != 0x0604)
		return;
	rec->other.arp.op = rt_get_be16(buf, caplen, off + 6, &ok);
	rt_get_bytes(buf, caplen, off + 8, rec->other.arp.sender_mac, 6, &ok);
	rt_get_bytes(buf, caplen, off + 14, rec->other.arp.sender_ip, 4, &ok);
	rt_get_bytes(buf, caplen, off + 18, rec->other.arp.target_mac, 6, &ok);
	rt_get_bytes(buf, caplen, off + 24, rec->other.arp.target_ip, 4, &ok);
	rec->layers |= RT_L_ARP;
}

/* 802.2 LLC after an 802.3 length: DSAP (1), SSAP (1), control. */
void rt_dissect_llc(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t off)
{
	bool ok = true;
	if (!rt_wire_has(caplen, off, 2))
		return;
	rec->other.llc.dsap = rt_get_u8(buf, caplen, off, &ok);
	rec->other.llc.ssap = rt_get_u8(buf, caplen, off + 1, &ok);
	rec->layers |= RT_L_LLC;
}

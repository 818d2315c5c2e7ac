/* IPv6 extension headers: the walk from the fixed header to the upper-layer header (UDP, TCP, ...). */
#include <stdbool.h>
#include <stdint.h>

#include "dissect/internal.h"
#include "dissect/wire.h"

#define IPV6_HOPOPTS  0
#define IPV6_ROUTING  43
#define IPV6_FRAGMENT 44
#define IPV6_DSTOPTS  60
#define IPV6_EXT_MIN  8      /* every header walked is a multiple of 8 bytes, at least 8 */
#define FRAG_PIECES   0xFFF9 /* fragment offset (13 bits) and M: a packet in pieces */

/*
 * Hop-by-hop options, routing, destination options (RFC 8200):
 *  | Next Header (1) | Hdr Ext Len (1): 8-byte units beyond the first | ... |
 * Fragment (8 bytes):
 *  | Next Header (1) | reserved (1) | Fragment Offset (13) | res (2) | M (1) |
 *  | Identification (4) |
 * A fragment at offset 0 without M (an atomic fragment, RFC 6946) holds the
 * whole packet and is walked past; any other fragment stops the walk.
 */
bool rt_ipv6_ext_walk(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t end,
                      uint32_t *off)
{
	bool ok = true;
	uint8_t next = rec->ip_proto;

	while (next == IPV6_HOPOPTS || next == IPV6_ROUTING || next == IPV6_FRAGMENT ||
	       next == IPV6_DSTOPTS) {
		uint32_t at = *off, len = IPV6_EXT_MIN;

		if (end < at || end - at < IPV6_EXT_MIN) {
			rt_rec_malformed(rec, RT_EV_IP_BAD_LENGTH);
			return false;
		}
		if (!rt_wire_has(caplen, at, IPV6_EXT_MIN)) {
			rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
			return false;
		}
		if (next != IPV6_FRAGMENT)
			len = ((uint32_t)rt_get_u8(buf, caplen, at + 1, &ok) + 1) * 8;
		if (len > end - at) {
			rt_rec_malformed(rec, RT_EV_IP_BAD_LENGTH);
			return false;
		}
		if (!rt_wire_has(caplen, at, len)) {
			rt_rec_truncated(rec, RT_EV_IP_TRUNCATED);
			return false;
		}
		bool pieces =
		    next == IPV6_FRAGMENT && (rt_get_be16(buf, caplen, at + 2, &ok) & FRAG_PIECES);
		rec->ip_proto = next = rt_get_u8(buf, caplen, at, &ok);
		if (pieces) {
			rec->events |= RT_EV_IP_FRAGMENT;
			return false;
		}
		*off = at + len;
	}
	return true;
}

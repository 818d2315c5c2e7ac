/* RoCEv2 invariant CRC: CRC-32 over the masked LRH, IP, UDP and BTH headers and the rest of the packet. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "dissect/dissect.h"
#include "dissect/opcodes.h"
#include "dissect/wire.h"

#define LRH_MASK_LEN 8	   /* the LRH RoCEv2 lacks counts as 8 bytes of ones */
#define IPV4_MIN_HLEN 20
#define IPV4_MAX_HLEN 60
#define IPV6_HLEN 40
#define UDP_HLEN 8

/*
 * Variant fields become all ones before the CRC: IPv4 TOS (byte 1), TTL
 * (8) and header checksum (10-11); IPv6 traffic class and flow label (low
 * nibble of byte 0, bytes 1-3) and hop limit (7); the UDP checksum; BTH
 * byte 4 (FECN, BECN, reserved). Only these first bytes are copied to the
 * stack; the rest of the packet is fed to crc32() in place.
 */
int rt_icrc_compute(const uint8_t *ip, uint32_t len, uint32_t *crc)
{
	uint8_t hdr[LRH_MASK_LEN + IPV4_MAX_HLEN + UDP_HLEN + RT_BTH_LEN];
	uint8_t *iph = hdr + LRH_MASK_LEN, *udp, *bth;
	bool ok = true;
	uint8_t v = rt_get_u8(ip, len, 0, &ok);
	uint32_t hlen, n;
	uLong c;

	if (!ok)
		return -EINVAL;
	if (v >> 4 == 4) {
		hlen = (uint32_t)(v & 0x0F) * 4;
		if (hlen < IPV4_MIN_HLEN)
			return -EINVAL;
	} else if (v >> 4 == 6) {
		hlen = IPV6_HLEN;
	} else {
		return -EINVAL;
	}
	n = hlen + UDP_HLEN + RT_BTH_LEN;
	rt_get_bytes(ip, len, 0, iph, n, &ok);
	if (!ok)
		return -EINVAL;
	memset(hdr, 0xFF, LRH_MASK_LEN);
	if (v >> 4 == 4) {
		iph[1] = 0xFF;
		iph[8] = 0xFF;
		iph[10] = 0xFF;
		iph[11] = 0xFF;
	} else {
		iph[0] |= 0x0F;
		iph[1] = 0xFF;
		iph[2] = 0xFF;
		iph[3] = 0xFF;
		iph[7] = 0xFF;
	}
	udp = iph + hlen;
	udp[6] = 0xFF;
	udp[7] = 0xFF;
	bth = udp + UDP_HLEN;
	bth[4] = 0xFF;
	c = crc32(0L, hdr, LRH_MASK_LEN + n);
	c = crc32(c, ip + n, len - n);
	*crc = (uint32_t)c;
	return 0;
}

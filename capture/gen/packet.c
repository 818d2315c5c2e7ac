/* RoCEv2 packet builder of the traffic source: BTH, RETH/AETH, CNP body, payload, pad and ICRC. */
#include "capture/gen/packet.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	put_be24(p + 1, v);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static uint8_t pad_count(const struct rt_gen_pkt *p)
{
	return (uint8_t)((4 - (p->payload_len & 3)) & 3);
}

size_t rt_gen_udp_payload_len(const struct rt_gen_pkt *p)
{
	return RT_GEN_BTH_LEN + (p->has_reth ? RT_GEN_RETH_LEN : 0) +
	       (p->has_aeth ? RT_GEN_AETH_LEN : 0) + (p->cnp_body ? RT_GEN_CNP_BODY_LEN : 0) +
	       p->payload_len + pad_count(p) + RT_GEN_ICRC_LEN;
}

/* IPv4 header as on the wire (no options), checksum field left zero. */
static void ipv4_header(const struct rt_gen_ipv4 *ip, uint16_t total_len, uint8_t h[20])
{
	h[0] = 0x45;
	h[1] = ip->tos;
	put_be16(h + 2, total_len);
	put_be16(h + 4, ip->id);
	put_be16(h + 6, ip->df ? 0x4000 : 0);
	h[8] = ip->ttl;
	h[9] = 17; /* UDP */
	h[10] = h[11] = 0;
	memcpy(h + 12, ip->src, 4);
	memcpy(h + 16, ip->dst, 4);
}

uint32_t rt_gen_icrc(const struct rt_gen_ipv4 *ip, const uint8_t *udp_payload, size_t len)
{
	/* masked LRH, IPv4 with TOS/TTL/checksum all ones, UDP with checksum all ones */
	uint8_t pre[8 + RT_GEN_IPV4_LEN + RT_GEN_UDP_LEN];
	memset(pre, 0xff, 8);
	uint16_t udp_len = (uint16_t)(RT_GEN_UDP_LEN + len);
	ipv4_header(ip, (uint16_t)(RT_GEN_IPV4_LEN + udp_len), pre + 8);
	pre[8 + 1] = 0xff;
	pre[8 + 8] = 0xff;
	pre[8 + 10] = pre[8 + 11] = 0xff;
	uint8_t *udp = pre + 8 + RT_GEN_IPV4_LEN;
	put_be16(udp, ip->sport);
	put_be16(udp + 2, ip->dport);
	put_be16(udp + 4, udp_len);
	udp[6] = udp[7] = 0xff;

	uLong crc = crc32(0L, pre, sizeof(pre));
	uint8_t bth[RT_GEN_BTH_LEN];
	memcpy(bth, udp_payload, RT_GEN_BTH_LEN);
	bth[4] = 0xff;
	crc = crc32(crc, bth, sizeof(bth));
	crc = crc32(crc, udp_payload + RT_GEN_BTH_LEN, (uInt)(len - RT_GEN_BTH_LEN - RT_GEN_ICRC_LEN));
	return (uint32_t)crc;
}

int rt_gen_build(const struct rt_gen_pkt *p, const struct rt_gen_ipv4 *ip, uint8_t *buf,
		 size_t cap)
{
	size_t len = rt_gen_udp_payload_len(p);
	if (len > cap)
		return -ENOSPC;
	uint8_t pad = pad_count(p);
	uint8_t *q = buf;
	q[0] = p->opcode;
	q[1] = (uint8_t)((p->se ? 0x80 : 0) | (pad << 4)); /* MigReq 0, TVer 0 */
	put_be16(q + 2, p->pkey);
	q[4] = (uint8_t)((p->fecn ? 0x80 : 0) | (p->becn ? 0x40 : 0));
	put_be24(q + 5, p->dest_qp & 0xffffff);
	q[8] = p->ackreq ? 0x80 : 0;
	put_be24(q + 9, p->psn & 0xffffff);
	q += RT_GEN_BTH_LEN;
	if (p->has_reth) {
		put_be64(q, p->reth_va);
		put_be32(q + 8, p->reth_rkey);
		put_be32(q + 12, p->reth_len);
		q += RT_GEN_RETH_LEN;
	}
	if (p->has_aeth) {
		q[0] = p->aeth_syndrome;
		put_be24(q + 1, p->aeth_msn & 0xffffff);
		q += RT_GEN_AETH_LEN;
	}
	if (p->cnp_body) {
		memset(q, 0, RT_GEN_CNP_BODY_LEN);
		q += RT_GEN_CNP_BODY_LEN;
	}
	if (p->payload)
		memcpy(q, p->payload, p->payload_len);
	else
		memset(q, 0, p->payload_len);
	q += p->payload_len;
	memset(q, 0, pad);
	q += pad;
	uint32_t icrc = rt_gen_icrc(ip, buf, len);
	q[0] = (uint8_t)icrc;
	q[1] = (uint8_t)(icrc >> 8);
	q[2] = (uint8_t)(icrc >> 16);
	q[3] = (uint8_t)(icrc >> 24);
	return (int)len;
}

static uint16_t ipv4_checksum(const uint8_t h[20])
{
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

int rt_gen_build_frame(const struct rt_gen_pkt *p, const struct rt_gen_ipv4 *ip,
		       const uint8_t src_mac[6], const uint8_t dst_mac[6], uint8_t *buf, size_t cap)
{
	size_t hdr = RT_GEN_ETH_LEN + RT_GEN_IPV4_LEN + RT_GEN_UDP_LEN;
	if (cap < hdr)
		return -ENOSPC;
	int n = rt_gen_build(p, ip, buf + hdr, cap - hdr);
	if (n < 0)
		return n;
	memcpy(buf, dst_mac, 6);
	memcpy(buf + 6, src_mac, 6);
	put_be16(buf + 12, 0x0800);
	uint8_t *iph = buf + RT_GEN_ETH_LEN;
	uint16_t udp_len = (uint16_t)(RT_GEN_UDP_LEN + (size_t)n);
	ipv4_header(ip, (uint16_t)(RT_GEN_IPV4_LEN + udp_len), iph);
	put_be16(iph + 10, ipv4_checksum(iph));
	uint8_t *udp = iph + RT_GEN_IPV4_LEN;
	put_be16(udp, ip->sport);
	put_be16(udp + 2, ip->dport);
	put_be16(udp + 4, udp_len);
	put_be16(udp + 6, 0);
	return (int)(hdr + (size_t)n);
}

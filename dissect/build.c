/* The frame builder beside the dissector: RoCEv2 packets, PFC and PAUSE frames from fields, with
 * their ICRC. */
#include "dissect/build.h"

#include <errno.h>
#include <string.h>

#include "dissect/opcodes.h"

#define ETH_HLEN        14
#define VLAN_TAG_LEN    4
#define IPV4_HLEN       20
#define IPV6_HLEN       40
#define UDP_HLEN        8
#define ETHERTYPE_IPV4  0x0800
#define ETHERTYPE_IPV6  0x86DD
#define ETHERTYPE_VLAN  0x8100
#define ETHERTYPE_QINQ  0x88A8
#define ETHERTYPE_MACC  0x8808
#define IPPROTO_UDP_NUM 17

static const uint8_t macc_dst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

static uint8_t pad_count(uint32_t payload_len)
{
	return (uint8_t)((4 - (payload_len & 3)) & 3);
}

size_t rt_build_transport_len(const struct rt_record *t)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(t->opcode);

	if (!info)
		return 0;
	return (size_t)RT_BTH_LEN + info->ext_len + t->payload_len + pad_count(t->payload_len) +
	       RT_ICRC_LEN;
}

/*
 * BTH and extended headers in the opcode table's layout (dissect/bth.c
 * draws them), payload and pad; the ICRC field is left to the caller.
 */
static void put_transport(const struct rt_record *t, const struct rt_opcode_info *info,
                          const uint8_t *payload, uint8_t *q)
{
	uint8_t pad = pad_count(t->payload_len);
	uint8_t *x = q + RT_BTH_LEN, *o;

	q[0] = t->opcode;
	q[1] = (uint8_t)((t->se ? 0x80 : 0) | (t->migreq ? 0x40 : 0) | pad << 4); /* TVer 0 */
	rt_put_be16(q + 2, t->pkey);
	q[4] = (uint8_t)((t->fecn ? 0x80 : 0) | (t->becn ? 0x40 : 0));
	rt_put_be24(q + 5, t->dest_qp);
	q[8] = t->ackreq ? 0x80 : 0;
	rt_put_be24(q + 9, t->psn);
	memset(x, 0, info->ext_len);
	if (info->hdrs & RT_H_RDETH)
		rt_put_be24(x + info->off_rdeth + 1, t->rdeth_eecnxt);
	if (info->hdrs & RT_H_XRCETH)
		rt_put_be24(x + info->off_xrceth + 1, t->xrc_srq);
	if (info->hdrs & RT_H_DETH) {
		o = x + info->off_deth;
		rt_put_be32(o, t->deth_qkey);
		rt_put_be24(o + 5, t->deth_src_qp);
	}
	if (info->hdrs & RT_H_FETH)
		rt_put_be32(x + info->off_feth, t->feth);
	if (info->hdrs & RT_H_RETH) {
		o = x + info->off_reth;
		rt_put_be64(o, t->reth_va);
		rt_put_be32(o + 8, t->reth_rkey);
		rt_put_be32(o + 12, t->reth_len);
	}
	if (info->hdrs & RT_H_ATOMICETH) {
		o = x + info->off_atomiceth;
		rt_put_be64(o, t->atomic_va);
		rt_put_be32(o + 8, t->atomic_rkey);
		rt_put_be64(o + 12, t->atomic_swap_add);
		rt_put_be64(o + 20, t->atomic_compare);
	}
	if (info->hdrs & RT_H_AETH) {
		o = x + info->off_aeth;
		o[0] = t->aeth_syndrome;
		rt_put_be24(o + 1, t->aeth_msn);
	}
	if (info->hdrs & RT_H_ATOMICACKETH)
		rt_put_be64(x + info->off_atomicacketh, t->atomic_ack_orig);
	if (info->hdrs & RT_H_IMMDT)
		rt_put_be32(x + info->off_immdt, t->immediate);
	if (info->hdrs & RT_H_IETH)
		rt_put_be32(x + info->off_ieth, t->ieth_rkey);
	/* a CNP's 16 reserved bytes stay zero */
	x += info->ext_len;
	if (payload)
		memcpy(x, payload, t->payload_len);
	else
		memset(x, 0, t->payload_len);
	memset(x + t->payload_len, 0, pad);
}

/* IPv4 (no options, checksum filled) or IPv6 header and the UDP header for `udp_len` bytes of UDP.
 */
static uint32_t put_ip_udp(const struct rt_build_net *n, uint32_t udp_len, uint8_t *h)
{
	uint32_t hlen = n->ip_version == 4 ? IPV4_HLEN : IPV6_HLEN;
	uint8_t tc = (uint8_t)(n->dscp << 2 | (n->ecn & 3));
	uint8_t *u = h + hlen;

	if (n->ip_version == 4) {
		uint32_t sum = 0;

		h[0] = 0x45;
		h[1] = tc;
		rt_put_be16(h + 2, (uint16_t)(IPV4_HLEN + udp_len));
		rt_put_be16(h + 4, n->ip_id);
		rt_put_be16(h + 6, n->df ? 0x4000 : 0);
		h[8] = n->ttl;
		h[9] = IPPROTO_UDP_NUM;
		h[10] = h[11] = 0;
		memcpy(h + 12, n->src_ip, 4);
		memcpy(h + 16, n->dst_ip, 4);
		for (int i = 0; i < IPV4_HLEN; i += 2)
			sum += (uint32_t)(h[i] << 8 | h[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		rt_put_be16(h + 10, (uint16_t)~sum);
	} else {
		rt_put_be32(h, 6u << 28 | (uint32_t)tc << 20 | (n->flow_label & 0xFFFFF));
		rt_put_be16(h + 4, (uint16_t)udp_len);
		h[6] = IPPROTO_UDP_NUM;
		h[7] = n->ttl;
		memcpy(h + 8, n->src_ip, 16);
		memcpy(h + 24, n->dst_ip, 16);
	}
	rt_put_be16(u, n->udp_sport);
	rt_put_be16(u + 2, n->udp_dport);
	rt_put_be16(u + 4, (uint16_t)udp_len);
	rt_put_be16(u + 6, 0);
	return hlen + UDP_HLEN;
}

int rt_build_udp_icrc(const struct rt_build_net *net, const uint8_t *udp_payload, uint32_t len,
                      uint32_t *crc)
{
	uint8_t h[IPV6_HLEN + UDP_HLEN];

	if ((net->ip_version != 4 && net->ip_version != 6) || len < RT_BTH_LEN + RT_ICRC_LEN)
		return -EINVAL;
	put_ip_udp(net, UDP_HLEN + len, h);
	return rt_icrc_compute_split(h, udp_payload, len - RT_ICRC_LEN, crc);
}

int rt_build_udp_payload(const struct rt_build_net *net, const struct rt_record *t,
                         const uint8_t *payload, uint8_t *buf, size_t cap)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(t->opcode);
	size_t len = rt_build_transport_len(t);
	uint32_t crc;

	if (!info || (net->ip_version != 4 && net->ip_version != 6))
		return -EINVAL;
	if (len > cap || len > UINT16_MAX - UDP_HLEN - IPV4_HLEN)
		return -ENOSPC;
	put_transport(t, info, payload, buf);
	if (rt_build_udp_icrc(net, buf, (uint32_t)len, &crc) < 0)
		return -EINVAL;
	rt_put_le32(buf + len - RT_ICRC_LEN, crc);
	return (int)len;
}

/* Destination and source MACs, the VLAN tags and `type`; returns the header length. */
static size_t put_ethernet(const struct rt_build_net *n, uint16_t type, uint8_t *p)
{
	size_t off = 2 * 6;

	memcpy(p, n->dst_mac, 6);
	memcpy(p + 6, n->src_mac, 6);
	for (unsigned i = 0; i < n->nvlan && i < 2; i++) {
		rt_put_be16(p + off, n->nvlan == 2 && i == 0 ? ETHERTYPE_QINQ : ETHERTYPE_VLAN);
		rt_put_be16(p + off + 2, (uint16_t)((n->pcp[i] & 7) << 13 | (n->vlan[i] & 0x0FFF)));
		off += VLAN_TAG_LEN;
	}
	rt_put_be16(p + off, type);
	return off + 2;
}

int rt_build_frame(const struct rt_build_net *net, const struct rt_record *t,
                   const uint8_t *payload, uint8_t *buf, size_t cap)
{
	const struct rt_opcode_info *info = rt_opcode_lookup(t->opcode);
	size_t len = rt_build_transport_len(t);
	size_t eth = ETH_HLEN + (net->nvlan < 2 ? net->nvlan : 2) * VLAN_TAG_LEN;
	size_t ip_udp = (net->ip_version == 4 ? IPV4_HLEN : IPV6_HLEN) + UDP_HLEN;
	uint32_t crc;

	if (!info || (net->ip_version != 4 && net->ip_version != 6))
		return -EINVAL;
	if (cap < eth + ip_udp || len > cap - eth - ip_udp || len > UINT16_MAX - ip_udp)
		return -ENOSPC;
	put_ethernet(net, net->ip_version == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6, buf);
	put_ip_udp(net, (uint32_t)(UDP_HLEN + len), buf + eth);
	put_transport(t, info, payload, buf + eth + ip_udp);
	if (rt_icrc_compute(buf + eth, (uint32_t)(ip_udp + len - RT_ICRC_LEN), &crc) < 0)
		return -EINVAL;
	rt_put_le32(buf + eth + ip_udp + len - RT_ICRC_LEN, crc);
	return (int)(eth + ip_udp + len);
}

/* A MAC control frame with opcode `op`; returns where its body starts, or NULL when cap is short.
 */
static uint8_t *put_macc(uint8_t *buf, size_t cap, const uint8_t src_mac[6], uint16_t op)
{
	if (cap < RT_MACC_FRAME_LEN)
		return NULL;
	memset(buf, 0, RT_MACC_FRAME_LEN);
	memcpy(buf, macc_dst, 6);
	memcpy(buf + 6, src_mac, 6);
	rt_put_be16(buf + 12, ETHERTYPE_MACC);
	rt_put_be16(buf + ETH_HLEN, op);
	return buf + ETH_HLEN + 2;
}

int rt_build_pfc(uint8_t *buf, size_t cap, const uint8_t src_mac[6], uint8_t enable,
                 const uint16_t quanta[8])
{
	uint8_t *b = put_macc(buf, cap, src_mac, RT_MACC_PFC);

	if (!b)
		return -ENOSPC;
	rt_put_be16(b, enable);
	for (int i = 0; i < 8; i++)
		rt_put_be16(b + 2 + 2 * i, quanta[i]);
	return RT_MACC_FRAME_LEN;
}

int rt_build_pause(uint8_t *buf, size_t cap, const uint8_t src_mac[6], uint16_t quanta)
{
	uint8_t *b = put_macc(buf, cap, src_mac, RT_MACC_PAUSE);

	if (!b)
		return -ENOSPC;
	rt_put_be16(b, quanta);
	return RT_MACC_FRAME_LEN;
}

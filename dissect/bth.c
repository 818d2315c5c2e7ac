/* BTH and extended transport headers (layout from the opcode table), payload bounds and the ICRC check. */
#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/internal.h"
#include "dissect/opcodes.h"
#include "dissect/wire.h"

#define IPV6_HLEN 40
#define UDP_HLEN  8

/*
 * BTH (12 bytes)
 *  +---------------+-+-+---+-------+-------------------------------+
 *  |    OpCode     |S|M|Pad| TVer  |             P_Key             |
 *  +-+-+-----------+-+-+---+-------+-------------------------------+
 *  |F|B|  resv6    |                 Destination QP                |
 *  +-+-+-----------+-----------------------------------------------+
 *  |A|   resv7     |                      PSN                      |
 *  +-+-------------+-----------------------------------------------+
 * then the extended headers of the opcode, payload, PadCnt pad bytes and
 * the 4-byte ICRC (stored little-endian).
 */
static void decode_bth(struct rt_record *rec, const uint8_t *p, uint32_t cap, uint32_t off)
{
	bool ok = true;
	uint8_t b1 = rt_get_u8(p, cap, off + 1, &ok);
	uint8_t b4 = rt_get_u8(p, cap, off + 4, &ok);
	uint8_t b8 = rt_get_u8(p, cap, off + 8, &ok);

	rec->opcode = rt_get_u8(p, cap, off, &ok);
	rec->se = b1 >> 7;
	rec->migreq = (b1 >> 6) & 1;
	rec->padcnt = (b1 >> 4) & 3;
	rec->tver = b1 & 0x0F;
	rec->pkey = rt_get_be16(p, cap, off + 2, &ok);
	rec->fecn = b4 >> 7;
	rec->becn = (b4 >> 6) & 1;
	rec->dest_qp = rt_get_be24(p, cap, off + 5, &ok);
	rec->ackreq = b8 >> 7;
	rec->psn = rt_get_be24(p, cap, off + 9, &ok);
	rec->layers |= RT_L_BTH;
}

/*
 * Extended headers at `base` (just after the BTH), in wire order. Each one
 * is decoded only when it lies entirely in the capture; returns false at
 * the first one cut, keeping those before it.
 *   RDETH  4: resv8, EE context (24)
 *   XRCETH 4: resv8, XRC SRQ (24)
 *   DETH   8: Q_Key (32), resv8, source QP (24)
 *   FETH   4: flush type and level (32, kept raw)
 *   RETH  16: VA (64), R_Key (32), DMA length (32)
 *   AtomicETH 28: VA (64), R_Key (32), swap/add (64), compare (64)
 *   AETH   4: syndrome (8), MSN (24)
 *   AtomicAckETH 8: original remote data (64)
 *   ImmDt  4, IETH 4 (R_Key), CNP 16 reserved bytes
 */
static bool decode_ext(struct rt_record *rec, const uint8_t *buf, uint32_t caplen, uint32_t base,
                       const struct rt_opcode_info *info)
{
	uint32_t h = info->hdrs;
	bool ok = true;
	uint32_t o = 0, cap = 0;
	const uint8_t *p = buf;

/*
 * Header `len` bytes at base + `at`: false when cut; else p, cap and o address it from its start (so the
 * compiler folds the reads' bounds checks into this one)
 */
#define EXT_AT(at, len)                                                                            \
	(rt_wire_has(caplen, base + (at), (len)) &&                                                \
	 ((p = buf + base + (at)), (cap = caplen - base - (at)), (o = 0), true))

	if (h & RT_H_RDETH) {
		if (!EXT_AT(info->off_rdeth, RT_RDETH_LEN))
			return false;
		rec->rdeth_eecnxt = rt_get_be24(p, cap, o + 1, &ok);
		rec->hdrs |= RT_H_RDETH;
	}
	if (h & RT_H_XRCETH) {
		if (!EXT_AT(info->off_xrceth, RT_XRCETH_LEN))
			return false;
		rec->xrc_srq = rt_get_be24(p, cap, o + 1, &ok);
		rec->hdrs |= RT_H_XRCETH;
	}
	if (h & RT_H_DETH) {
		if (!EXT_AT(info->off_deth, RT_DETH_LEN))
			return false;
		rec->deth_qkey = rt_get_be32(p, cap, o, &ok);
		rec->deth_src_qp = rt_get_be24(p, cap, o + 5, &ok);
		rec->hdrs |= RT_H_DETH;
	}
	if (h & RT_H_FETH) {
		if (!EXT_AT(info->off_feth, RT_FETH_LEN))
			return false;
		rec->feth = rt_get_be32(p, cap, o, &ok);
		rec->hdrs |= RT_H_FETH;
	}
	if (h & RT_H_RETH) {
		if (!EXT_AT(info->off_reth, RT_RETH_LEN))
			return false;
		rec->reth_va = rt_get_be64(p, cap, o, &ok);
		rec->reth_rkey = rt_get_be32(p, cap, o + 8, &ok);
		rec->reth_len = rt_get_be32(p, cap, o + 12, &ok);
		rec->hdrs |= RT_H_RETH;
	}
	if (h & RT_H_ATOMICETH) {
		if (!EXT_AT(info->off_atomiceth, RT_ATOMICETH_LEN))
			return false;
		rec->atomic_va = rt_get_be64(p, cap, o, &ok);
		rec->atomic_rkey = rt_get_be32(p, cap, o + 8, &ok);
		rec->atomic_swap_add = rt_get_be64(p, cap, o + 12, &ok);
		rec->atomic_compare = rt_get_be64(p, cap, o + 20, &ok);
		rec->hdrs |= RT_H_ATOMICETH;
	}
	if (h & RT_H_AETH) {
		if (!EXT_AT(info->off_aeth, RT_AETH_LEN))
			return false;
		rec->aeth_syndrome = rt_get_u8(p, cap, o, &ok);
		rec->aeth_msn = rt_get_be24(p, cap, o + 1, &ok);
		rec->hdrs |= RT_H_AETH;
	}
	if (h & RT_H_ATOMICACKETH) {
		if (!EXT_AT(info->off_atomicacketh, RT_ATOMICACKETH_LEN))
			return false;
		rec->atomic_ack_orig = rt_get_be64(p, cap, o, &ok);
		rec->hdrs |= RT_H_ATOMICACKETH;
	}
	if (h & RT_H_IMMDT) {
		if (!EXT_AT(info->off_immdt, RT_IMMDT_LEN))
			return false;
		rec->immediate = rt_get_be32(p, cap, o, &ok);
		rec->hdrs |= RT_H_IMMDT;
	}
	if (h & RT_H_IETH) {
		if (!EXT_AT(info->off_ieth, RT_IETH_LEN))
			return false;
		rec->ieth_rkey = rt_get_be32(p, cap, o, &ok);
		rec->hdrs |= RT_H_IETH;
	}
	if (h & RT_H_CNP) {
		if (!rt_wire_has(caplen, base + info->off_cnp, RT_CNP_PAD_LEN))
			return false;
		rec->hdrs |= RT_H_CNP;
	}
#undef EXT_AT
	return ok;
}

/*
 * True when the UDP header follows the IP header at `ip_off` (the BTH at
 * `bth_off`), the layout the ICRC is defined over: the IBTA spec masks the
 * variant fields of the IP header, not those of IPv6 extension headers
 * (hop-by-hop options and routing headers change on the way), so an ICRC
 * behind them is left unchecked.
 */
static bool udp_follows_ip(const uint8_t *buf, uint32_t caplen, uint32_t ip_off, uint32_t bth_off)
{
	bool ok = true;
	return rt_get_u8(buf, caplen, ip_off, &ok) >> 4 != 6 ||
	       bth_off - ip_off == IPV6_HLEN + UDP_HLEN;
}

void rt_dissect_transport(struct rt_record *rec, const uint8_t *buf, uint32_t caplen,
                          uint32_t bth_off, uint32_t end, uint32_t ip_off,
                          const struct rt_dissect_opts *opts)
{
	const struct rt_opcode_info *info;
	uint32_t hdr_off = bth_off + RT_BTH_LEN, ext_len = 0, icrc_off;
	bool ok = true;

	rec->kind = RT_KIND_ROCE;
	if (end - bth_off < RT_BTH_LEN + RT_ICRC_LEN) {
		rt_rec_malformed(rec, RT_EV_TOO_SHORT_FOR_ICRC);
		return;
	}
	if (!rt_wire_has(caplen, bth_off, RT_BTH_LEN)) {
		rt_rec_truncated(rec, RT_EV_BTH_TRUNCATED);
		return;
	}
	decode_bth(rec, buf + bth_off, caplen - bth_off,
	           0); /* from its start: the checks fold into the one above */
	if (rec->opcode == RT_OPCODE_CNP) {
		rec->kind = RT_KIND_CNP;
		if (!rec->becn)
			rec->events |= RT_EV_CNP_NOT_BECN;
	}
	if (rec->tver != 0) {
		rt_rec_malformed(rec, RT_EV_BTH_BAD_TVER);
		return;
	}
	info = rt_opcode_lookup(rec->opcode);
	if (info)
		ext_len = info->ext_len;
	else
		rec->events |= RT_EV_UNKNOWN_OPCODE;
	if (end - hdr_off < ext_len + RT_ICRC_LEN) {
		rt_rec_malformed(rec, RT_EV_TOO_SHORT_FOR_ICRC);
		return;
	}
	icrc_off = end - RT_ICRC_LEN;
	rec->payload_off = hdr_off + ext_len;
	/* the pad (PadCnt bytes) lies before the ICRC; a receiver drops a packet without room for it */
	if (icrc_off - rec->payload_off < rec->padcnt)
		rt_rec_malformed(rec, RT_EV_BTH_BAD_PAD);
	else
		rec->payload_len = icrc_off - rec->padcnt - rec->payload_off;
	if (info && !decode_ext(rec, buf, caplen, hdr_off, info)) {
		rt_rec_truncated(rec, RT_EV_EXT_TRUNCATED);
		return;
	}
	if (rec->dest_qp == 1 && (rec->hdrs & RT_H_DETH))
		rt_dissect_cm(rec, buf, caplen);
	rec->icrc_stored = rt_get_le32(buf, caplen, icrc_off, &ok);
	if (!ok) {
		rec->events |= RT_EV_ICRC_TRUNCATED; /* every header whole: not `truncated` */
		return;
	}
	/* RoCEv1 ICRC masking is not verified against real traffic: left unchecked. */
	if (!opts->verify_icrc || rec->rocev1)
		return;
	if (!udp_follows_ip(buf, caplen, ip_off, bth_off)) {
		rec->events |= RT_EV_ICRC_IPV6_EXT;
		return;
	}
	if (rt_icrc_compute(buf + ip_off, icrc_off - ip_off, &rec->icrc_computed) != 0)
		return;
	if (rec->icrc_computed == rec->icrc_stored) {
		rec->icrc = RT_ICRC_OK;
	} else {
		rec->icrc = RT_ICRC_BAD;
		rec->events |= RT_EV_ICRC_BAD;
	}
}

bool rt_dissect_is_rocev2(const uint8_t *buf, uint32_t caplen, uint32_t bth_off, uint32_t end,
                          uint32_t ip_off)
{
	const struct rt_opcode_info *info;
	uint32_t icrc_off, crc;
	bool ok = true;

	if (end - bth_off < RT_BTH_LEN + RT_ICRC_LEN ||
	    !rt_wire_has(caplen, bth_off, end - bth_off))
		return false;
	uint8_t b1 = rt_get_u8(buf, caplen, bth_off + 1, &ok);
	info = rt_opcode_lookup(rt_get_u8(buf, caplen, bth_off, &ok));
	if (!info || (b1 & 0x0F) != 0 ||
	    end - bth_off - RT_BTH_LEN < info->ext_len + ((b1 >> 4) & 3u) + RT_ICRC_LEN)
		return false;
	icrc_off = end - RT_ICRC_LEN;
	return udp_follows_ip(buf, caplen, ip_off, bth_off) &&
	       rt_icrc_compute(buf + ip_off, icrc_off - ip_off, &crc) == 0 &&
	       crc == rt_get_le32(buf, caplen, icrc_off, &ok) && ok;
}

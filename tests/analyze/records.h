/* Packet records as the dissector gives them, built for the analyzer's tests and fuzz targets; a flow looked up by addresses. */
#ifndef RT_TEST_ANALYZE_RECORDS_H
#define RT_TEST_ANALYZE_RECORDS_H

#include <stdint.h>
#include <string.h>

#include "analyze/internal.h"
#include "dissect/dissect.h"
#include "dissect/opcodes.h"

/* IPv4 address a (host order) into a 16-byte address field. */
static inline void ip4(uint8_t *dst, uint32_t a)
{
	memset(dst, 0, 16);
	dst[0] = (uint8_t)(a >> 24);
	dst[1] = (uint8_t)(a >> 16);
	dst[2] = (uint8_t)(a >> 8);
	dst[3] = (uint8_t)a;
}

/* A RoCEv2 record (ECT(0), 100 bytes) as the dissector would give it. */
static inline struct rt_record roce(uint64_t ts, uint32_t src, uint32_t dst, uint8_t opcode,
                                    uint32_t qp, uint32_t psn)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 100;
	r.kind = opcode == RT_OPCODE_CNP ? RT_KIND_CNP : RT_KIND_ROCE;
	r.layers = RT_L_ETH | RT_L_IPV4 | RT_L_UDP | RT_L_BTH;
	r.ip_version = 4;
	r.ecn = 2;
	ip4(r.src_ip, src);
	ip4(r.dst_ip, dst);
	r.opcode = opcode;
	r.dest_qp = qp;
	r.psn = psn & 0xffffff;
	return r;
}

/* An RC ACK (or NAK: the AETH syndrome says). */
static inline struct rt_record ack(uint64_t ts, uint32_t src, uint32_t dst, uint32_t qp,
                                   uint32_t psn, uint8_t syndrome)
{
	struct rt_record r = roce(ts, src, dst, RT_OPCODE_RC_ACK, qp, psn);
	r.hdrs = RT_H_AETH;
	r.aeth_syndrome = syndrome;
	return r;
}

/* The flow (src IPv4 > dst IPv4, QP qp) of an analyzer, or NULL. */
static inline struct an_flow *flow_of(struct rt_analyzer *an, uint32_t src, uint32_t dst,
                                      uint32_t qp)
{
	uint8_t a[16], b[16];
	struct rt_an_flow_key k;
	ip4(a, src);
	ip4(b, dst);
	an_key_from(&k, 4, a, b, qp);
	uint32_t fi = an_flow_get(&an->ft, &k, false);
	return fi == AN_NONE ? NULL : &an->ft.flows[fi];
}

/* The end of input, the error left aside (the caller checks the return). */
static inline int finish(struct rt_analyzer *an)
{
	char errbuf[RT_ERRBUF_SIZE];
	return rt_analyzer_finish(an, errbuf);
}

/* A PFC frame from MAC ...:fe: quanta q[c] for the priorities c in `enable`. */
static inline struct rt_record pfc_rec(uint64_t ts, uint16_t enable, const uint16_t q[8])
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 60;
	r.kind = RT_KIND_PFC;
	r.layers = RT_L_ETH | RT_L_MACC;
	r.macc_opcode = RT_MACC_PFC;
	r.src_mac[5] = 0xfe;
	r.pfc_enable = enable;
	memcpy(r.pfc_quanta, q, sizeof(r.pfc_quanta));
	return r;
}

#endif

/* Packet kinds (--kind): what a frame is to someone reading a trace: data, ack, nak, cnp, pfc, ... */
#ifndef RT_PKTKIND_H
#define RT_PKTKIND_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/dissect.h"

/*
 * Each frame is of exactly one kind (rt_pkt_kind()), checked in this order:
 *   cm      an RDMA CM message (a MAD of class 7 on QP 1)
 *   cnp     a RoCEv2 congestion notification (opcode 0x81)
 *   rnr     a packet whose AETH is an RNR NAK
 *   nak     a packet whose AETH is a NAK (PSN sequence error, invalid request, ...)
 *   read    an RDMA READ request or response
 *   atomic  compare-and-swap, fetch-and-add, their ACK, ATOMIC WRITE
 *   ack     an ACK
 *   data    any other packet with a BTH: SEND, WRITE, FLUSH, ...
 *   pfc     an 802.1Qbb priority flow control frame
 *   pause   an 802.3x PAUSE frame
 *   other   the rest: not RoCE, or RoCE whose BTH cannot be read (cut, a fragment, malformed)
 */
enum rt_pkt_kind {
	RT_PK_DATA,
	RT_PK_ACK,
	RT_PK_NAK,
	RT_PK_RNR,
	RT_PK_CNP,
	RT_PK_READ,
	RT_PK_ATOMIC,
	RT_PK_CM,
	RT_PK_PFC,
	RT_PK_PAUSE,
	RT_PK_OTHER,
	RT_PK_COUNT
};

/* The kinds a packet with a BTH can be: the kinds that belong to a flow. */
#define RT_PK_FLOW_KINDS ((1u << RT_PK_PFC) - 1)

/* The names, in enum order, comma-separated: "data, ack, ..., other". */
#define RT_PK_NAMES "data, ack, nak, rnr, cnp, read, atomic, cm, pfc, pause, other"

/* The kind of a decoded frame. */
enum rt_pkt_kind rt_pkt_kind(const struct rt_record *rec);

/* The name of a kind ("data"). */
const char *rt_pkt_kind_name(enum rt_pkt_kind kind);

/*
 * "K[,K...]" into a mask (bit n: kind n), added to *mask. Returns 0, or -1
 * with the word that is no kind (at most `badsize` bytes, cut) in `bad`.
 */
int rt_pkt_kinds_parse(const char *text, unsigned *mask, char *bad, size_t badsize);

#endif

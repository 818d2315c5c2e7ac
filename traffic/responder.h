/* The udp server's per-QP decisions: accept in order, ACK AckReq packets, NAK gaps once, rate-limited CNPs. */
#ifndef RT_GEN_RESPONDER_H
#define RT_GEN_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>

struct rt_resp_state {
	uint32_t epsn;    /* next expected PSN */
	uint32_t msn;     /* messages completed (24 bits) */
	bool nak_pending; /* a NAK for the current gap was sent; quiet until resync */
	bool cnp_sent;    /* at least one CNP was sent */
	uint64_t last_cnp_ns;
};

/* One data packet as the server saw it. */
struct rt_resp_in {
	uint32_t psn;
	bool ackreq;
	bool last; /* last or only packet of a message */
	bool ce;   /* IP ECN field was CE (11) */
	uint64_t now_ns;
};

enum rt_resp_action {
	RT_RESP_ACCEPT = 1u << 0,       /* in order: delivered, epsn advanced */
	RT_RESP_DUPLICATE = 1u << 1,    /* before epsn: dropped */
	RT_RESP_OUT_OF_ORDER = 1u << 2, /* after epsn: dropped */
	RT_RESP_ACK = 1u << 3,          /* send ACK(psn = ack_psn, msn) */
	RT_RESP_NAK = 1u << 4,          /* send NAK PSN sequence error (psn = ack_psn = epsn) */
	RT_RESP_CNP = 1u << 5,          /* send a CNP to the sender's QP */
};

struct rt_resp_out {
	unsigned actions; /* enum rt_resp_action bits */
	uint32_t ack_psn; /* PSN for the ACK or NAK */
	uint32_t msn;
};

void rt_resp_init(struct rt_resp_state *s, uint32_t start_psn);

/*
 * Decide what to do with one packet. CE-marked packets (in order or not)
 * earn a CNP unless one went out less than cnp_interval_ns ago. An in-order
 * packet is accepted and, with AckReq, ACKed; a duplicate with AckReq is
 * ACKed with the last PSN accepted; a packet past a gap is dropped and the
 * first one of the gap earns one NAK naming the expected PSN.
 */
void rt_resp_input(struct rt_resp_state *s, const struct rt_resp_in *in, uint64_t cnp_interval_ns,
                   struct rt_resp_out *out);

#endif

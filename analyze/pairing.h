/* Pairing: which flow is the other direction of a flow's QP, learned from ACKs, responses, DETH, RDMA CM, CNPs. */
#ifndef RT_ANALYZE_PAIRING_H
#define RT_ANALYZE_PAIRING_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/flows.h"

/*
 * Unpaired flows are indexed per host pair, so no packet walks the flows
 * between two hosts: counts (and index sums: the only one, when there is
 * one) of the unpaired flows with packets, of those without a peer QP and
 * of those with a CE mark; the unpaired requesters by PSN range (a flow's
 * range [psn_lo, psn_hi + 1] is filed under the one or two aligned blocks of
 * the smallest power-of-two size that covers it: a PSN finds it in one list
 * per size), each list newest requester first; and the unpaired flows by
 * their peer QP (UD's DETH source QP).
 */
struct an_hostpair {
	uint8_t src[16], dst[16];
	uint8_t ipver;
	uint32_t open, open_nopeer,
	    open_ce; /* unpaired flows with packets; without a peer QP; with a CE mark */
	uint64_t sum_open, sum_nopeer, sum_ce; /* their flow indexes summed */
};

/* Pairing's state of one flow, by flow index. */
struct an_pairflow {
	uint32_t hosts; /* its host pair, AN_NONE until first needed */
	uint16_t tries; /* attempts to pair it from its responses */
	uint8_t in;     /* where it is counted and filed (pairing.c) */
	uint8_t level;  /* PSN index: log2 of its blocks' size */
	uint32_t blk[2];
	uint32_t next[2], prev[2]; /* PSN index lists, of nodes (flow index * 2 + which block) */
	uint32_t peer_next, peer_prev; /* peer index list, of flow indexes */
};

/* An open-addressing map from a 64-bit key to a list head. */
struct an_pmap_slot {
	uint64_t key; /* 0 = empty */
	uint32_t head;
};
struct an_pmap {
	struct an_pmap_slot *s;
	uint32_t mask, n;
};

struct an_pairing {
	struct an_flowtab *ft;
	struct an_hostpair *hp;
	uint32_t nhp, cap_hp;
	uint32_t *hp_tab; /* open addressing: host pair index or AN_NONE */
	uint32_t hp_mask;
	struct an_pairflow *pf;
	uint32_t cap_pf;
	struct an_pmap psn;  /* (host pair, level, block) -> newest requester */
	struct an_pmap peer; /* (host pair, peer QP) -> highest flow index */
	/* timestamps went backwards: the PSN lists' order is not their requests' time order */
	bool disordered;
	/* told when two flows pair (the CNPs and CE marks they kept wait for it) */
	void (*linked)(void *ctx, uint32_t a, uint32_t b);
	void *ctx;
};

int an_pair_init(struct an_pairing *p, struct an_flowtab *ft,
                 void (*linked)(void *ctx, uint32_t a, uint32_t b), void *ctx);
void an_pair_free(struct an_pairing *p);

/* Pair flows a and b (a != b), learned `how`. */
void an_pair_link(struct an_pairing *p, uint32_t a, uint32_t b, enum an_pair_how how);

/* Flow fi had its first packet. */
void an_pair_first_packet(struct an_pairing *p, uint32_t fi);
/* Unpaired flow fi had its first CE mark. */
void an_pair_first_ce(struct an_pairing *p, uint32_t fi);
/* Unpaired flow fi sent a request: its PSN range and time moved. */
void an_pair_request(struct an_pairing *p, uint32_t fi);
/*
 * A response (ACK, NAK, read response) in unpaired flow ri with PSN psn at
 * ts: pair it with the unpaired requester the other way whose PSN range
 * holds psn, the one that sent last (`how`: AN_PAIR_ACK or AN_PAIR_RESPONSE).
 */
void an_pair_response(struct an_pairing *p, uint32_t ri, uint32_t psn, uint64_t ts,
                      enum an_pair_how how);
/*
 * The data flow a CNP in flow ri throttles: its pair if known, else the
 * unpaired flow the other way whose sender QP (DETH, CM) is the CNP's
 * destination QP, else the only CE-marked unpaired flow the other way, else
 * the only unpaired one (paired now), else AN_NONE.
 */
uint32_t an_pair_cnp_target(struct an_pairing *p, uint32_t ri);
/* UD flow fi carries DETH source QP src_qp: its peer QP, and its pair when that flow exists. */
void an_pair_deth(struct an_pairing *p, uint32_t fi, uint32_t src_qp);
/*
 * An RDMA CM REQ answered by a REP names both QPs: flows ka and kb (created
 * when absent) pair, leaving pairs they had. False when a flow could not be
 * created.
 */
bool an_pair_cm(struct an_pairing *p, const struct rt_an_flow_key *ka,
                const struct rt_an_flow_key *kb);
/*
 * End of input: pair the only unpaired flow each way between two hosts
 * (UC ping-pong). Stops early, returning false, once *stop is set.
 */
bool an_pair_finish(struct an_pairing *p, const volatile sig_atomic_t *stop);

#endif

/* One flow (one direction of one QP) and its state: what every part of the analyzer reads and writes. */
#ifndef RT_ANALYZE_FLOW_H
#define RT_ANALYZE_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/types.h"
#include "common/hash.h"

#define AN_NONE     UINT32_MAX
#define AN_PSN_MASK 0xffffffu
/* A PSN step larger than this is a resynchronisation (QP reuse, garbage), not loss or resend. */
#define AN_PSN_JUMP (1u << 16)
/* an_flow.transport before the first request */
#define AN_TRANSPORT_NONE 0xffu

/* How a flow's peer QP was learned. */
enum an_pair_how {
	AN_PAIR_NONE = 0,
	AN_PAIR_ACK,      /* ACK / NAK / atomic ACK whose PSN matches the requests */
	AN_PAIR_RESPONSE, /* read response whose PSN matches a read request */
	AN_PAIR_DETH,     /* UD: the DETH source QP */
	AN_PAIR_CM,       /* RDMA CM REQ/REP on QP 1 */
	AN_PAIR_CNP,      /* the only candidate data flow of a CNP */
	AN_PAIR_SOLE,     /* the only unpaired flow each way between two hosts (at the end) */
};
const char *an_pairing_name(enum an_pair_how p);

/* What a flow's sender waits to act on (an_flow.nak_pending). */
enum an_nak_wait {
	AN_NAK_NONE = 0,
	AN_NAK_SEQ, /* a NAK with code 0 (PSN sequence error): go back */
	AN_NAK_RNR, /* an RNR NAK: retry after its timer */
};

/* RP reaction to the latest CNP under way (an_flow.rp_phase, 2 bits; analyze/rp.c). */
enum an_rp_phase {
	AN_RP_IDLE = 0,
	AN_RP_AFTER,   /* windows after the CNP: the slowest rate */
	AN_RP_RECOVER, /* the rate fell: waiting for it to come back */
	AN_RP_PROBE,   /* too few packets in the window: how long a window would hold them */
};

/* an_flow.flags */
enum an_flow_flag {
	AN_FLOW_HAS_REQ = 1u << 0,    /* a request was seen: the PSN state holds */
	AN_FLOW_IN_RETRANS = 1u << 1, /* a resend run is under way */
	AN_FLOW_TAGGED = 1u << 2,     /* the latest packet had a VLAN tag (pcp holds) */
	AN_FLOW_TL_DIRTY = 1u << 3,   /* in the current bucket's list (analyze/buckets.c) */
	AN_FLOW_SELECTED = 1u << 4,   /* the flow selector names it */
	AN_FLOW_DISORDER = 1u << 5,   /* a packet came before its previous one (time order) */
	AN_FLOW_SPORT = 1u << 6,      /* udp_sport holds the first packet's (CNPs aside) */
	AN_FLOW_SPORTS = 1u << 7, /* a later one (CNPs aside) came from another UDP source port */
	AN_FLOW_CONVERSATION = 1u << 8, /* --conversation names it: its peer is selected too */
	AN_FLOW_KIND = 1u << 9,         /* --kind given: it carried a packet of one of the kinds */
	/* several vantage points: a copy of its packets came from another point more than
	 * --vantage-window after the packet (clocks too far apart to match): followed at its home
	 * only, which never changes */
	AN_FLOW_ONE_POINT = 1u << 10,
};

/* RP reaction: the sending rate over this many packet gaps before and after a CNP */
#define AN_RP_GAPS 4
_Static_assert((AN_RP_GAPS & (AN_RP_GAPS - 1)) == 0, "a power of two: the ring index is a mask");
_Static_assert(AN_RP_GAPS <= 4, "rp_head holds the ring index in 2 bits");

#define AN_ACKRING 8

struct an_hist; /* a quantile sketch (analyze/hist.h) */

/* Transport state few flows need (RTT, NAKs, resends and their rare counters): allocated at first use. */
struct an_xport {
	/* requests with AckReq waiting for their ACK (RTT) */
	uint32_t ar_psn[AN_ACKRING];
	uint64_t ar_ts[AN_ACKRING];
	uint64_t *ar_frame; /* [AN_ACKRING] their frames, when notes ask for them (rt_an_note) */
	uint8_t ar_head, ar_count;
	uint32_t nak_psn; /* the PSN the sender owes (nak_pending) */
	uint64_t nak_ts;
	/* frame numbers (rt_an_note): the NAK that set nak_pending, the NAK that started the
	 * resend run under way (0 = none) */
	uint64_t nak_frame, run_nak_frame;
	struct an_hist *rtt, *gbn_delay, *timeout_gap; /* allocated at their first sample */
	struct an_hist *rnr_wait;                      /* RNR NAK -> the retry it asked for */
	uint32_t *nak_codes;                           /* [32] by code, at the first NAK */
	uint8_t rnr_timer; /* the latest RNR NAK's timer field (rnr_naks_received > 0) */
	uint64_t naks_received, rnr_naks_received, retransmitted, duplicates;
	uint64_t retransmitted_bytes; /* wire lengths of the resent requests */
	uint64_t gaps, gap_psns, psn_jumps, timeouts, go_back_n, rnr_retries;
	uint64_t gap_ts, resend_ts; /* the latest PSN gap, the latest resend (RP windows) */
	/* the latest gap's first PSN and its PSNs not come yet, and the gap before its time: a frame
	 * the capture put out of time order fills it (an_tr_request) */
	uint32_t gap_lo, gap_open;
	uint64_t gap_ts_before;
	uint64_t home_ts; /* several vantage points: its latest frame at its home point ... */
	uint64_t home_n;  /* ... and how many it followed there ... */
	uint64_t home_ce; /* ... of them CE-marked */
	/* several vantage points: its first and latest frame at its home point, each in the clock
	 * of the home it was at then (span_from, span_to: that point + 1; 0: not kept yet) */
	uint64_t span_first, span_last;
	uint8_t span_from, span_to;
};

struct an_np;  /* NP side of a flow (analyze/reaction.h) */
struct an_rp;  /* RP reaction of a flow (analyze/rp.h) */
struct an_src; /* the traffic source log joined to a flow (analyze/side.h) */

/*
 * One flow. What every packet touches comes first, in the first three cache
 * lines, and flows start on cache lines (the table is allocated 64-byte
 * aligned): fewer lines per packet. Rare state hangs off pointers, allocated
 * when first needed: a flow costs 256 bytes until it has more to say.
 */
struct an_flow {
	_Alignas(64) struct rt_an_flow_key key;
	uint32_t hash;
	uint32_t
	    id; /* first-seen order; AN_NONE before the first packet (CM- or side-file-created) */
	uint32_t reverse;  /* paired flow the other way, or AN_NONE */
	uint8_t transport; /* enum rt_transport of the first request, AN_TRANSPORT_NONE before */
	uint8_t nak_pending : 4; /* enum an_nak_wait */
	uint8_t pairing : 4;     /* enum an_pair_how */
	uint16_t flags;          /* enum an_flow_flag */
	uint8_t dscp, pcp;
	uint8_t rp_phase : 2; /* enum an_rp_phase */
	uint8_t rp_head : 2;  /* next slot of rp_dt/rp_len */
	/* before its first CNP, its shortest idle gap (analyze/rp.c, an_rp_own_idle): at least
	 * 1 us << (rp_idle - 1); 0: none seen */
	uint8_t rp_idle : 4;
	uint8_t
	    home; /* vantage point + 1 whose frames drive its order-sensitive figures (0: none) */
	uint16_t rp_last_len; /* the latest packet's length (at most 65535) */
	uint16_t udp_sport;   /* of its first packet, CNPs aside (AN_FLOW_SPORT) */
	struct an_xport *x;
	uint64_t packets, bytes, requests;
	uint64_t last_ts, last_req_ts;
	/* request PSN tracking */
	uint32_t psn_lo, psn_hi; /* oldest PSN kept for pairing; highest PSN the requests can use */
	uint32_t next_psn, next_psn_max; /* range the next new request may start at */
	uint32_t last_psn;               /* PSN of the latest request */
	uint16_t pmtu;    /* RoCE path MTU from full first/middle packets, 0: unknown */
	uint16_t max_len; /* its largest frame on the wire (at most 65535) */
	uint64_t ecn[4];
	/* the latest AN_RP_GAPS gaps between packets (ns, at most 2^32 - 1) and the length of the
	 * packet before each: the sending rate around a CNP */
	uint32_t rp_dt[AN_RP_GAPS];
	uint16_t rp_len[AN_RP_GAPS];
	/* less often */
	uint64_t first_ts;
	uint64_t responses, cnp_received, cnp_sent;
	uint32_t peer_qp;
	uint32_t ep_mark; /* last episode that counted this flow (number + 1) */
	struct an_np *np;
	struct an_rp *rp;
	struct an_src *src;
};
_Static_assert(offsetof(struct an_flow, first_ts) <= 3 * 64,
               "the fields every packet touches fit in the first three cache lines of a flow");
_Static_assert(sizeof(struct an_flow) == 4 * 64, "a flow is four cache lines");

/*
 * How a frame feeds a flow's figures. Counted: the first frame of its packet
 * (packets, bytes, ECN, CNPs, NAKs...). Followed: with several vantage
 * points, only the frames at the flow's home point (an_flow.home) drive what
 * depends on their order and times (PSN gaps and resends, round trips, the
 * RP windows), so that a packet one point saw late is no resend; a copy at
 * the home point of a packet counted at another is followed, not counted.
 */
enum an_feed {
	AN_FEED_COUNT = 1u << 0,
	AN_FEED_FOLLOW = 1u << 1, /* may be followed: at the flow's home point, it is */
};

/* Whether frames at vantage point `point` (-1: none known) are the ones flow f follows. */
struct an_follow {
	bool (*fn)(void *ctx, struct an_flow *f, int point);
	void *ctx;
};

static inline bool an_follows(const struct an_follow *fw, struct an_flow *f, int point)
{
	return !fw->fn || fw->fn(fw->ctx, f, point);
}

/* The key of a flow (inline, with fixed-size copies: it is made for every packet). */
static inline void an_key_from(struct rt_an_flow_key *k, uint8_t ipver, const uint8_t *src,
                               const uint8_t *dst, uint32_t qp)
{
	if (ipver == 4) {
		memset(k, 0, sizeof(*k));
		memcpy(k->src, src, 4);
		memcpy(k->dst, dst, 4);
	} else {
		memcpy(k->src, src, 16);
		memcpy(k->dst, dst, 16);
		memset(k->pad, 0, sizeof(k->pad));
	}
	k->dest_qp = qp & AN_PSN_MASK;
	k->ipver = ipver;
}

/* The key of a record's flow (RoCE with a BTH). */
static inline void an_key_of(struct rt_an_flow_key *k, const struct rt_record *rec)
{
	an_key_from(k, rec->ip_version == 4 ? 4 : 6, rec->src_ip, rec->dst_ip, rec->dest_qp);
}

/*
 * Host pairs fall in AN_SHARDS shards: what an analysis split by host pair
 * splits by (analyze/stage.c), and duplicate detection's tables.
 */
#define AN_SHARDS 64u
/*
 * The shard of an unordered host pair: IP addresses of 4 bytes (IPv4) or 16
 * (a record's 16, IPv4 in the first 4 and zeros after, hash as its 4); 0
 * without IP.
 */
static inline unsigned an_pair_shard_of(uint8_t ip_version, const uint8_t *src_ip,
                                        const uint8_t *dst_ip)
{
	if (!ip_version)
		return 0;
	uint64_t a[2] = {0, 0}, b[2] = {0, 0};
	if (ip_version == 4) { /* read where they lie: no copy through memory first */
		memcpy(a, src_ip, 4);
		memcpy(b, dst_ip, 4);
	} else {
		memcpy(a, src_ip, 16);
		memcpy(b, dst_ip, 16);
	}
	/* symmetric in the two addresses: a sum and a product of each word */
	uint64_t s0 = a[0] + b[0], s1 = a[1] + b[1];
	uint64_t p0 = (a[0] | 1) * (b[0] | 1), p1 = (a[1] | 1) * (b[1] | 1);
	uint64_t h = rt_hash_mix(rt_hash_mix(0x6a09e667f3bcc909ull, s0 ^ (p1 << 1)), s1 ^ p0);
	return (unsigned)(h >> 58);
}
/* The shard of a record's unordered host pair. */
static inline unsigned an_pair_shard(const struct rt_record *r)
{
	return an_pair_shard_of(r->ip_version, r->src_ip, r->dst_ip);
}

#endif

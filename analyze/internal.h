/* Analyzer internals shared by the analyze/ files: flow table, per-flow state, PFC, episodes, timeline. */
#ifndef RT_ANALYZE_INTERNAL_H
#define RT_ANALYZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/flowsel.h"
#include "common/outbuf.h"

#define AN_NONE UINT32_MAX
#define AN_PSN_MASK 0xffffffu
/* A PSN step larger than this is a resynchronisation (QP reuse, garbage), not loss or resend. */
#define AN_PSN_JUMP (1u << 16)

/* Quantile sketch: exact for the first AN_HIST_EXACT values, log-linear buckets (8 per octave) after. */
#define AN_HIST_EXACT 32
#define AN_HIST_BUCKETS (16 + 37 * 8)
struct an_hist {
	uint64_t n, min, max, sum;
	unsigned __int128 sumsq; /* of the values, exact: the standard deviation without a division per value */
	uint64_t exact[AN_HIST_EXACT];
	uint32_t bucket[AN_HIST_BUCKETS];
};
void an_hist_add(struct an_hist *h, uint64_t v);
/* Add to *h, allocating it at the first value (a value is lost when out of memory). */
void an_hist_addp(struct an_hist **h, uint64_t v);
/* Nearest-rank quantile, q in [0,1]; 0 when empty. */
uint64_t an_hist_quantile(const struct an_hist *h, double q);
/* Population standard deviation of the values; 0 when empty. */
double an_hist_stddev(const struct an_hist *h);

/* One flow: source IP, destination IP, destination QP (memcmp-able, zero padded). */
struct an_key {
	uint8_t src[16], dst[16];
	uint32_t dest_qp;
	uint8_t ipver;
	uint8_t pad[3];
};

/* How a flow's peer QP was learned. */
enum an_pairing {
	AN_PAIR_NONE = 0,
	AN_PAIR_ACK,	  /* ACK / NAK / atomic ACK whose PSN matches the requests */
	AN_PAIR_RESPONSE, /* read response whose PSN matches a read request */
	AN_PAIR_DETH,	  /* UD: the DETH source QP */
	AN_PAIR_CM,	  /* RDMA CM REQ/REP on QP 1 */
	AN_PAIR_CNP,	  /* the only candidate data flow of a CNP */
	AN_PAIR_SOLE,	  /* the only unpaired flow each way between two hosts (at the end) */
};
const char *an_pairing_name(enum an_pairing p);

/* Per-bucket deltas of one flow for the timeline. */
struct an_delta {
	uint64_t packets, bytes, ce, cnp, nak, retransmitted;
};

#define AN_ACKRING 8

/*
 * NP reaction (analyze/reaction.c): the newest CE-marked data packets of a
 * flow, and what the CNPs that throttle it tell about the notification point.
 */
#define AN_NP_RING 64 /* CE marks kept (the newest): the reach back from a CNP */
#define AN_NP_GAPS 32 /* gaps between CNPs under sustained marking kept (the newest) */
#define AN_NP_SUB 16  /* lag bins per octave */
#define AN_NP_BINS (AN_NP_SUB + 28 * AN_NP_SUB) /* lags below 2^32 ns */
struct an_np_votes {
	uint64_t gap[AN_NP_GAPS];
	uint32_t ngaps; /* gaps seen; the newest AN_NP_GAPS are kept */
	uint32_t peak;	/* bin with the most votes per ns */
	uint16_t votes[AN_NP_BINS]; /* CNP - CE lags of every CE mark within reach of each CNP */
};
struct an_np {
	uint64_t ce_ts[AN_NP_RING]; /* CE mark number n (from 0) is at n % AN_NP_RING */
	uint64_t *ce_frame;	    /* their frame numbers, kept once per-frame notes are asked for */
	uint64_t ce_n;		    /* CE marks seen */
	uint64_t ce_at_cnp;	    /* ce_n at the previous CNP */
	uint64_t trig, trig_ts;	    /* 1 + number of the latest mark a CNP answered (0 = none), its time */
	uint64_t first_answer;	    /* number of the first mark a CNP answered */
	uint64_t answered_slots;    /* bit n % AN_NP_RING: CE mark n was answered */
	uint64_t last_lag;	    /* the latest CNP's reaction */
	uint64_t answered, rate_limited;
	struct an_np_votes *v;	    /* allocated at the first CNP */
};

/* RP reaction: the sending rate over this many packet gaps before and after a CNP */
#define AN_RP_GAPS 4
_Static_assert((AN_RP_GAPS & (AN_RP_GAPS - 1)) == 0, "a power of two: the ring index is a mask");

/* Rarely needed per-flow state, allocated when first used. */
struct an_flow_ext {
	/* requests with AckReq waiting for their ACK (RTT) */
	uint32_t ar_psn[AN_ACKRING];
	uint64_t ar_ts[AN_ACKRING];
	uint8_t ar_head, ar_count;
	/* quantile sketches, allocated at their first sample */
	struct an_hist *rtt, *np_reaction, *gbn_delay, *timeout_gap, *recover;
	/* frame numbers (rt_an_note): the NAK that set nak_pending, the NAK that started the
	 * resend run under way (0 = none) */
	uint64_t nak_frame, run_nak_frame;
	/* NP side: CE marks on this flow's data (CNPs aside), their history once paired */
	uint64_t ce_data, cnp_without_ce;
	uint64_t first_cnp_ts, last_cnp_ts;
	struct an_np *np;
	/*
	 * Until the flow is paired (AN_PENDING_LOG entries each, then counts only): the
	 * times of its CE-marked data, and of the CNPs it carried that named no known
	 * data flow yet. Pairing settles those CNPs on the data flow (an_cnp_settle).
	 */
	uint64_t *ce_log, *cnp_log;
	uint64_t *ce_log_frame; /* frame numbers of ce_log, kept once per-frame notes are asked for */
	uint32_t ce_log_n, cnp_log_n;
	/* RP reaction to the latest CNP (f->rp_phase says which part is under way) */
	uint64_t rp_cnp_ts;
	uint32_t rp_windows;	     /* windows after it so far */
	bool rp_dipped, rp_back;     /* the rate fell below 90% of the rate before; came back */
	double rp_before_bps, rp_min_bps;
	uint64_t rp_cnps, rp_measured, rp_few, rp_cnp_in_window, rp_recovered, rp_interrupted;
	double rp_drop_sum, rp_drop_max;
	uint32_t nak_codes[32];
	/* traffic source log join */
	bool src_seen;
	uint64_t src_packets, src_bytes, src_retrans, src_cnp_handled, src_naks;
	uint64_t src_cnp_events, src_retransmit_events, src_retransmit_count, src_timeouts;
	uint64_t src_rate_events, src_end_seen, src_cuts;
	double src_rate_first, src_rate_last, src_rate_min;
	double src_cut_sum, src_cut_max; /* rate cuts the source logged for CNPs, in percent */
	/* timeline: the source's rate now, its CNPs in this bucket */
	bool tl_rate_known;
	double tl_rate;
	uint64_t tl_src_cnp;
};

/*
 * One flow; the fields every packet touches come first, in the first three cache
 * lines, and flows start on cache lines (the table is allocated 64-byte aligned):
 * fewer lines per packet.
 */
struct an_flow {
	_Alignas(64) struct an_key key;
	uint32_t hash;
	uint32_t id;	    /* first-seen order; AN_NONE before the first packet (CM-created) */
	struct an_flow_ext *ext;
	uint32_t reverse;   /* paired flow the other way, or AN_NONE */
	uint8_t transport;  /* enum rt_transport of the first request, 0xff none */
	bool dirty, has_req, in_retrans;
	bool tagged;
	uint8_t nak_pending; /* 0, 1 NAK, 2 RNR NAK */
	uint8_t dscp, pcp;
	uint8_t rp_phase;     /* RP reaction to a CNP under way (ext->rp_*): 0 none, AN_RP_AFTER, AN_RP_RECOVER */
	uint8_t rp_head;      /* next slot of rp_dt/rp_len */
	uint16_t rp_last_len; /* the latest packet's length (at most 65535) */
	uint64_t packets, bytes, requests;
	uint64_t last_ts, last_req_ts;
	/* request PSN tracking */
	uint32_t psn_lo, psn_hi;       /* oldest PSN kept for pairing; highest PSN the requests can use */
	uint32_t next_psn, next_psn_max; /* range the next new request may start at */
	uint32_t last_psn;		 /* PSN of the latest request */
	uint32_t pmtu;
	uint64_t ecn[4];
	/* the latest AN_RP_GAPS gaps between packets (ns, at most 2^32 - 1) and the length of the
	 * packet before each: the sending rate around a CNP */
	uint32_t rp_dt[AN_RP_GAPS];
	uint16_t rp_len[AN_RP_GAPS];
	/* less often */
	uint64_t first_ts;
	struct an_delta iv; /* this timeline bucket (packets, bytes and CE counted only with a timeline) */
	uint32_t next_hosts; /* next flow with the same (src, dst) */
	uint32_t next_dirty; /* timeline dirty list */
	uint32_t peer_qp;
	uint32_t ep_mark;   /* last episode that counted this flow (number + 1) */
	uint32_t nak_psn;
	uint32_t cnp_pending; /* CNPs this flow carried, waiting for its pair to say whose they are */
	uint16_t pair_tries;
	uint8_t pairing;    /* enum an_pairing */
	bool selected;
	uint64_t nak_ts;
	uint64_t responses;
	uint64_t cnp_received, cnp_sent, naks_received, rnr_naks_received, retransmitted;
	uint64_t gaps, gap_psns, psn_jumps, timeouts, go_back_n, rnr_retries, duplicates;
};
_Static_assert(offsetof(struct an_flow, first_ts) <= 3 * 64,
	       "the fields every packet touches fit in the first three cache lines of a flow");

/* Duplicate packets (dedup.c). */
#define AN_DUP_HOPS 2		    /* capture points remembered per packet */
#define AN_DUP_SPAN_NS 100000000ull /* copies at another capture point: within 100 ms */
#define AN_DUP_MIN (1u << 12)	    /* packets remembered at first... */
#define AN_DUP_MAX (1u << 18)	    /* ... and at most */
/*
 * One packet seen lately, with the frames of it each capture point saw
 * (identical packets, CNPs for one, share an entry). 32 bytes: two share a
 * cache line, a set.
 */
struct an_dup_entry {
	uint64_t fp;			/* fingerprint; 0 = empty */
	uint64_t ts;			/* its latest frame's time */
	uint32_t frame;			/* the frame counted last, low 32 bits */
	uint16_t hop[AN_DUP_HOPS];	/* capture points that saw it (hashed) */
	uint16_t seen[AN_DUP_HOPS];	/* frames each saw, less what both saw */
	uint8_t nhops;
	uint8_t ecn;	/* the codepoint counted for the frame counted last (3 once a copy was CE-marked) */
	bool same_copy; /* that frame already had a copy at its own capture point */
};
/* A two-way set-associative table of the packets seen lately. */
struct an_dups {
	struct an_dup_entry *e; /* 2 * nsets entries, 64-byte aligned */
	uint32_t nsets;		/* power of 2; 0 = detection off */
	bool points;		/* a copy at another capture point was found: copies may come 100 ms late */
	bool same_point_seen;	/* a packet other than a CNP was copied at the same point */
	uint64_t window_ns;
	uint64_t other_interface, same_interface; /* copies found */
	uint64_t evicted; /* packets pushed out while a copy of them could still come */
	uint64_t inserts, rate_inserts, rate_ts; /* packets entered; at the last size check, and its time */
};
/* What a copy is a copy of. */
struct an_dup_hit {
	uint64_t frame; /* the first copy's frame number */
	uint8_t ecn;	/* the codepoint it was counted with */
};
/* window_ns 0 turns detection off. 0 or -1 when out of memory. */
int an_dup_init(struct an_dups *d, uint64_t window_ns);
void an_dup_free(struct an_dups *d);
/* True when `rec` (RoCE with a BTH) is a copy of a packet already counted; fills *hit. */
bool an_dup_check(struct rt_analyzer *an, const struct rt_record *rec, struct an_dup_hit *hit);

/* PFC/PAUSE state of one sending MAC. */
struct an_pfc_class {
	bool paused, storm_marked;
	uint64_t run_start, from, until; /* continuous pause start; accounted up to; ends at */
	uint64_t xoff, xon, paused_ns, storms;
	/* the latest frame for the class (rt_an_note): its number, time and pause asked for */
	uint64_t note_frame, note_ts, note_ns;
};
struct an_pfc_mac {
	uint8_t mac[6];
	struct an_pfc_class cls[RT_AN_PFC_CLASSES];
};
struct an_storm {
	uint8_t mac[6];
	uint8_t cls;
	uint64_t start, end;
};

struct an_episode {
	uint64_t start, end;
	uint64_t ce, cnp, paused_ns, pfc_xoff, flows;
	uint64_t bytes_before, bytes_during, bytes_after;
	uint64_t peak_ce_slot;
	uint32_t flow_ids[16];
};

/* One side-file event for the timeline. */
enum { AN_SER_RATE, AN_SER_CNP, AN_SER_NIC_CNP_SENT, AN_SER_NIC_CNP_HANDLED, AN_SER_NIC_PAUSE };
struct an_series {
	uint64_t ts;
	uint32_t flow; /* flow index, or AN_NONE */
	uint32_t seq;  /* file order, for equal timestamps */
	uint8_t kind;
	double v;
};
int an_series_add(struct rt_analyzer *an, uint64_t ts, uint32_t flow, uint8_t kind, double v);
void an_series_sort(struct rt_analyzer *an);

struct an_cm_req {
	uint8_t src[16], dst[16];
	uint8_t ipver;
	uint32_t comm_id, qpn;
};

struct an_counter_dev {
	char name[96];
	uint64_t samples;
	uint64_t first_ts, last_ts;
	/* first and last value of each counter */
	char **names;
	double *first, *last;
	size_t n, cap;
};

/* What the warnings need to know, tallied over every frame (warnings.c). */
#define AN_HINT_PORTS 16 /* UDP ports probed for RoCEv2 */
#define AN_HINT_CHECKS 8 /* datagrams checked per port */
struct an_port_hint {
	uint16_t port;
	uint32_t checked, valid; /* datagrams sampled; of them, RoCEv2 (rt_record.other_port_rocev2) */
	uint64_t datagrams;
};
struct an_findings {
	uint64_t prev_ts;		   /* the previous frame's time */
	uint64_t ts_back, ts_back_max;	   /* times a frame was older than the one before; the biggest step */
	uint64_t cut;			   /* frames cut by the snap length (caplen < wire length) */
	uint64_t headers_cut;		   /* ... in a header, not only in the payload or ICRC */
	uint64_t data_ip, data_not_ect;	   /* RoCE packets with an IP header but CNPs; Not-ECT among them */
	struct an_port_hint ports[AN_HINT_PORTS];
	unsigned nports;
	bool drops_known, side_drops_known; /* from the capture file; from the counters side file */
	uint64_t if_dropped, os_dropped, side_if_dropped, side_os_dropped;
	char counters_path[160], srclog_path[160];
};
/* Tally one frame for the warnings (before duplicates are set aside). */
void an_find_frame(struct rt_analyzer *an, const struct rt_record *rec);
/* ,"capture":{...},"duplicates":{...},"warnings":[...] */
void an_report_findings_json(const struct rt_analyzer *an, struct rt_outbuf *o);
/* The "Warnings:" block (nothing when there is none). */
void an_report_warnings_text(const struct rt_analyzer *an, struct rt_outbuf *o);
/* Frames the capture dropped (its pcapng statistics, else the counters file); *known false when neither says. */
uint64_t an_capture_dropped(const struct rt_analyzer *an, bool *known);

struct rt_analyzer {
	struct rt_analyzer_opts o;

	/* flows */
	struct an_flow *flows;
	uint32_t nflows, cap_flows;
	uint32_t *tab; /* open addressing: flow index or AN_NONE */
	uint32_t tab_mask;
	/* host-pair index: (src, dst) → first flow */
	uint32_t *htab_flow; /* flow index of the chain head or AN_NONE */
	uint32_t htab_mask, nhosts;
	uint32_t next_id;
	uint32_t *order; /* flow indexes by id */
	uint32_t order_cap;

	/* totals */
	struct rt_an_counts tot, ivc;
	uint64_t first_ts, last_ts, now;
	uint64_t ecn[4];
	uint64_t cnp_unattributed, nak_unattributed, malformed, truncated, other;
	uint64_t pfc_frames, pause_frames;
	/* rt_analyzer_feed_note's note for the record being fed, NULL in the other feeds */
	struct rt_an_note *note;

	/* PFC */
	struct an_pfc_mac *macs;
	uint32_t nmacs, cap_macs;
	uint32_t pfc_active;
	uint64_t pfc_next_expiry;
	struct an_storm *storms;
	uint32_t nstorms, cap_storms;

	/* episodes */
	struct an_episode *eps;
	uint32_t neps, cap_eps;
	bool ep_open;
	struct an_episode cur;
	uint64_t ep_bytes_total, ep_bytes_at_end, ep_ce_slot, ep_slot, ep_last_bytes;
	uint64_t gslot_bytes[16];
	uint64_t gslot_cur;

	/* RDMA CM */
	struct an_cm_req *cm;
	uint32_t ncm, cap_cm;
	uint64_t cm_pairs;

	/* timeline */
	uint64_t tl_bucket; /* start of the current bucket, UINT64_MAX before the first */
	uint32_t dirty_head, ndirty; /* list of flows marked in this bucket (next_dirty), its length */
	struct an_delta tl_all;
	uint64_t tl_pfc_xoff, tl_paused_ns;
	bool tl_header_done;
	/* side-file series joined into timeline rows (time order) */
	struct an_series *series;
	size_t nseries, cap_series, series_next;
	bool tl_srclog, tl_counters;
	double tl_nic[3];	 /* this bucket: CNPs sent, CNPs handled, pause frames (NIC counters) */
	uint64_t tl_src_cnp_all; /* this bucket: CNPs the traffic source handled, all flows */
	struct rt_outbuf *tl_out;
	/* --flow: the flows the timeline's rows and the report list */
	struct rt_flowsel sel;

	/* side files */
	struct an_counter_dev *cdev;
	size_t ncdev;
	uint64_t counter_lines, counter_bad;
	bool counters_loaded;
	uint64_t srclog_lines, srclog_bad, srclog_unmatched;
	bool srclog_loaded;

	/* duplicates and the findings of the warnings */
	struct an_dups dups;
	struct an_findings find;
};

/* flow table */
int an_flows_init(struct rt_analyzer *an);
void an_flows_free(struct rt_analyzer *an);
/* Flow of `key`, created when absent (AN_NONE when out of memory). */
uint32_t an_flow_get(struct rt_analyzer *an, const struct an_key *key, bool create);
uint32_t an_hosts_head(const struct rt_analyzer *an, const uint8_t *src, const uint8_t *dst, uint8_t ipver);
/* The key of a flow (inline, with fixed-size copies: it is made for every packet). */
static inline void an_key_from(struct an_key *k, uint8_t ipver, const uint8_t *src, const uint8_t *dst,
			       uint32_t qp)
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
struct an_flow_ext *an_ext(struct an_flow *f);
void an_ext_free(struct an_flow_ext *e);
void an_link(struct rt_analyzer *an, uint32_t a, uint32_t b, enum an_pairing how);
/* CNPs flow `carrier` took before it was paired with `data`: counted on `data` now. */
void an_cnp_settle(struct rt_analyzer *an, uint32_t data, uint32_t carrier);
#define AN_PENDING_LOG 256
void an_assign_id(struct rt_analyzer *an, uint32_t fi);

/* NP reaction (reaction.c) */
/* A CE-marked data packet of a paired flow (frame: its number for notes, 0 = none). */
void an_np_ce(struct an_flow_ext *e, uint64_t ts, uint64_t frame);
/* A CNP throttling the flow at `ts`: its reaction sample; returns the answered mark's frame or 0. */
uint64_t an_np_cnp(struct an_flow_ext *e, uint64_t ts);
/* Replay the CE marks `data` logged and the CNPs `carrier` logged while they were unpaired. */
void an_np_settle(struct an_flow_ext *de, struct an_flow_ext *ce);
/* End of input: CE marks after the last answered one that the limiter still held back. */
void an_np_finish(struct an_flow_ext *e);
/* The learned CNP interval; false when the CNPs show no rate limiting. */
bool an_np_interval(const struct an_flow_ext *e, uint64_t *ns);
/* CE marks (CNPs aside) no CNP answered and no limiter held back. */
uint64_t an_np_unanswered(const struct an_flow_ext *e);

/* RP reaction (reaction.c) */
enum { AN_RP_AFTER = 1, AN_RP_RECOVER };
void an_rp_tick(struct rt_analyzer *an, struct an_flow *f, uint64_t ts);
/* A CNP throttling f (with its ext) at ts: measure the sending rate before it and start the after window. */
void an_rp_cnp(struct rt_analyzer *an, struct an_flow *f, uint64_t ts);
/* End of input: a window still open is one with too few packets. */
void an_rp_finish(struct an_flow *f);
/*
 * A packet of f at ts, `len` bytes on the wire, before f->last_ts and f->packets count it:
 * the gap since the flow's previous packet, and the reaction under way.
 */
static inline void an_rp_packet(struct rt_analyzer *an, struct an_flow *f, uint64_t ts, uint32_t len)
{
	unsigned h = f->rp_head;
	uint64_t dt = f->packets && ts > f->last_ts ? ts - f->last_ts : 0;
	f->rp_dt[h] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
	f->rp_len[h] = f->rp_last_len;
	f->rp_last_len = (uint16_t)(len > UINT16_MAX ? UINT16_MAX : len);
	f->rp_head = (uint8_t)((h + 1) % AN_RP_GAPS);
	if (f->rp_phase)
		an_rp_tick(an, f, ts);
}

/* PFC */
void an_pfc_frame(struct rt_analyzer *an, const struct rt_record *rec);
void an_pfc_advance(struct rt_analyzer *an, uint64_t now);

/* episodes */
void an_ep_event(struct rt_analyzer *an, uint64_t ts, struct an_flow *f, int what);
void an_ep_packet(struct rt_analyzer *an, uint64_t ts, uint32_t bytes);
void an_ep_finish(struct rt_analyzer *an);
enum { AN_EV_CE = 1, AN_EV_CNP, AN_EV_XOFF, AN_EV_PAUSE_END };
/* `ns` of pause accounted, the pause running at least until `until`. */
void an_ep_paused(struct rt_analyzer *an, uint64_t until, uint64_t ns);
/* Width of the slots the CE peak rate is counted in. */
uint64_t an_ep_slot_ns(const struct rt_analyzer *an);

/* timeline */
int an_tl_init(struct rt_analyzer *an, char *errbuf);
void an_tl_advance(struct rt_analyzer *an, uint64_t ts);
int an_tl_finish(struct rt_analyzer *an);
void an_tl_free(struct rt_analyzer *an);

/* Put a flow on the timeline's list of flows with something in the current bucket. */
static inline void an_tl_mark(struct rt_analyzer *an, struct an_flow *f)
{
	if (!an->tl_out || f->dirty)
		return;
	f->dirty = true;
	f->next_dirty = an->dirty_head;
	an->dirty_head = (uint32_t)(f - an->flows);
	an->ndirty++;
}

/* RDMA CM: a REQ or REP the dissector decoded (RT_L_CM) */
void an_cm_mad(struct rt_analyzer *an, const struct rt_record *rec);

/* side files */
void an_side_free(struct rt_analyzer *an);
void an_report_counters_json(const struct rt_analyzer *an, struct rt_outbuf *o);
void an_report_counters_text(const struct rt_analyzer *an, struct rt_outbuf *o);

#endif

/* The results view: what an analysis found, built once after its end, read by every renderer (analyze/README.md). */
#ifndef RT_ANALYZE_RESULTS_H
#define RT_ANALYZE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/flowsel.h" /* the form the view names flows in: rt_flowsel_format() */

/*
 * Two ways to read an analysis, and nothing else: a renderer (render/)
 * includes this header only.
 *
 *  - While it runs: sinks (struct rt_an_sink) take buckets of time and may
 *    ask for a flow's key; live displays take a snapshot (rt_analyzer_live).
 *  - At the end: struct rt_results, built once by rt_analyzer_results()
 *    after rt_analyzer_finish() and the side files, and handed to every
 *    sink's report(). Every figure a report prints is in it, computed;
 *    renderers format, sort and choose, they compute no figure.
 *
 * Units: times and durations in ns (times since the epoch); a double that
 * cannot be known is NaN, an integer that cannot be known has a flag or a
 * NULL pointer next to it (the JSON report writes null).
 */

struct rt_analyzer;

/* Which classes a PAUSE/PFC counter array holds: priorities 0..7, then 802.3x PAUSE. */
#define RT_AN_PFC_CLASSES 9
#define RT_AN_PAUSE_CLASS 8

/* "No such flow or frame" (a peer QP not learned, a note's flow). */
#define RT_AN_NONE UINT32_MAX

/* A class's name as the reports write it: "0".."7", or "pause" for 802.3x PAUSE; buf holds 2 bytes. */
static inline const char *rt_res_class_name(unsigned c, char *buf)
{
	if (c == RT_AN_PAUSE_CLASS)
		return "pause";
	buf[0] = (char)('0' + c);
	buf[1] = 0;
	return buf;
}

/* Running totals (since the start, or of one interval). */
struct rt_an_counts {
	uint64_t packets, bytes, roce_packets;
	uint64_t
	    roce_bytes; /* wire lengths of the RoCE packets (copies of counted packets aside) */
	uint64_t ce, cnp, nak, rnr_nak, retransmitted, icrc_bad;
	uint64_t pfc_xoff[RT_AN_PFC_CLASSES], pfc_xon[RT_AN_PFC_CLASSES];
	/* paused time per class summed over sending MACs, accounted up to the latest frame or tick
	 * (rt_analyzer_finish() adds the pauses still running at the end) */
	uint64_t pfc_paused_ns[RT_AN_PFC_CLASSES];
};

/* One flow: source IP, destination IP, destination QP (IPv4 in the first 4 bytes; zero padded). */
struct rt_an_flow_key {
	uint8_t src[16], dst[16];
	uint32_t dest_qp;
	uint8_t ipver; /* 4 or 6 */
	uint8_t pad[3];
};

/* A vantage point (capture point) as the report names it (rt_analyzer_vantage_points()). */
struct rt_an_vantage {
	const char *name;
	unsigned nfiles;
	const char *const *files; /* its capture files, in the order read */
	uint64_t frames;          /* its frames read */
};

/* One warning about the capture itself: drops, duplicates, hints (analyze/README.md lists the codes). */
#define RT_AN_WARNING_VALUES 6
#define RT_AN_WARNINGS_MAX   16
struct rt_an_warning {
	const char *code;  /* stable identifier, e.g. "capture_drops" */
	char message[512]; /* one line for people */
	unsigned nvalues;  /* the numbers the message names */
	struct {
		const char *name;
		uint64_t value;
	} values[RT_AN_WARNING_VALUES];
};

/* ---- while the analysis runs: buckets, live figures ---- */

/* One flow's figures so far, for live displays (rt_analyzer_top_flows). */
struct rt_an_flow_figures {
	struct rt_an_flow_key key;
	uint32_t id;             /* as in the report */
	uint64_t packets, bytes; /* frames and their wire lengths */
	uint64_t ce;             /* CE-marked packets */
	uint64_t cnp_received;   /* CNPs throttling the flow's sender */
	uint64_t naks_received;  /* NAKs to the flow's sender (RNR NAKs aside) */
	uint64_t retransmitted;  /* resent requests */
};

/* What a live display shows of a capture under way (rt_analyzer_live). */
struct rt_an_live {
	uint64_t flows;        /* flows seen so far */
	struct rt_an_counts t; /* totals so far */
};

/*
 * The running figures: flows and totals, the pauses still running counted
 * up to `idle_ns` of capture time after the latest record (a live source
 * that is idle: a paused link sends nothing; 0: up to the latest record).
 * Changes nothing; cheap (no walk over the flows).
 */
void rt_analyzer_live(const struct rt_analyzer *an, uint64_t idle_ns, struct rt_an_live *out);
/*
 * The busiest flows so far: up to `k` with the most bytes (ties: the older
 * flow first), busiest first, into out[k]; returns how many. O(flows log k):
 * for live displays a few times a second, not per frame.
 */
unsigned rt_analyzer_top_flows(const struct rt_analyzer *an, struct rt_an_flow_figures *out,
                               unsigned k);

/* What one bucket counted, of one flow or of everything. */
struct rt_an_delta {
	uint64_t packets,
	    bytes;    /* frames and their wire lengths (copies of counted packets aside) */
	uint64_t ce;  /* CE-marked packets */
	uint64_t cnp; /* CNPs throttling the flow's sender (all: every CNP) */
	uint64_t nak; /* NAKs to the flow's sender (RNR NAKs aside) */
	uint64_t retransmitted; /* resent requests */
};

/* One flow's part of a bucket. */
struct rt_an_flow_row {
	uint32_t id;            /* the flow's id, as in the report (rt_analyzer_flow_key) */
	bool selected;          /* the flow selector (rt_analyzer_opts.flow) names it */
	bool source_rate_known; /* source_rate_mbps is known (beside `selected`: 88-byte rows) */
	struct rt_an_delta d;
	/* round trips (request with AckReq → ACK) that ended since the flow's previous row */
	uint64_t rtt_samples, rtt_sum_ns;
	/* with a source log: the source's rate for the flow at the end of the bucket, its CNPs in it */
	double source_rate_mbps;
	uint64_t source_cnp;
};

/* One bucket of time: everything in it, and the flows that had something in it. */
struct rt_an_bucket {
	uint64_t t_ns, len_ns; /* start (a multiple of len_ns, ns since the epoch) and length */
	struct rt_an_delta all;
	/* PFC priorities 0..7 and 802.3x PAUSE (RT_AN_PAUSE_CLASS): XOFF entries, paused time in the bucket
	 * summed over sending MACs */
	uint64_t pfc_xoff[RT_AN_PFC_CLASSES], pfc_paused_ns[RT_AN_PFC_CLASSES];
	/* side files, as loaded before the first record (false: the columns below are 0) */
	bool source_log, counters;
	uint64_t source_cnp; /* CNPs the traffic source handled, every flow */
	double nic_cnp_sent, nic_cnp_handled,
	    nic_pause_frames; /* counter deltas of samples in the bucket */
	uint32_t nrows;
	const struct rt_an_flow_row *rows; /* flows with something in the bucket, by id */
};

/* The key of flow `id` (0 .. flows seen - 1), or NULL: what a bucket's row names. */
const struct rt_an_flow_key *rt_analyzer_flow_key(const struct rt_analyzer *an, uint32_t id);
/* Which side-file columns the buckets carry (rt_an_bucket.source_log, .counters). */
void rt_analyzer_bucket_columns(const struct rt_analyzer *an, bool *source_log, bool *counters);

/* ---- the results view ---- */

/* A distribution of samples (ns). samples 0: none (the figure is unknown: null). */
struct rt_res_quantiles {
	uint64_t samples;
	uint64_t min, median, max;
	uint64_t p99, mean, stddev; /* round trips only (rtt_ns); stddev: population, rounded */
};

/* The transport figures of a flow's requests (analyze/README.md, "Per-flow transport"). */
#define RT_RES_NAK_NAMES 6 /* the named codes (0..4) and "reserved" */
struct rt_res_transport {
	uint64_t naks_received, rnr_naks_received; /* to this flow's sender */
	uint64_t retransmitted, go_back_n, rnr_retries, timeouts;
	uint64_t gaps, gap_psns, psn_jumps, duplicates;
	uint64_t retransmitted_bytes; /* wire lengths of the resent requests */
	uint8_t rnr_timer;            /* the latest RNR NAK's timer field (rnr_naks_received > 0) */
	/* NAKs by code, in code order, codes without a name (5..31) summed last as "reserved" */
	unsigned nnak_codes;
	struct {
		const char *name;
		uint64_t count;
	} nak_codes[RT_RES_NAK_NAMES];
	struct rt_res_quantiles go_back_n_delay; /* NAK -> first resend */
	struct rt_res_quantiles timeout_idle; /* idle time before a resend with no NAK (and mean) */
	struct rt_res_quantiles rnr_wait;     /* RNR NAK -> the retry it asked for */
	struct rt_res_quantiles rtt;          /* request with AckReq -> its ACK */
};

/* The NP side of a flow: how the notification point answered its CE marks ("NP reaction"). */
struct rt_res_np {
	struct rt_res_quantiles reaction; /* the NP's delay per CNP (min, median, max) */
	uint64_t cnp_without_ce;          /* CNPs with no CE mark of the flow within reach */
	uint64_t answered, rate_limited;  /* CE marks a CNP answered; held back by the limiter */
	uint64_t unanswered;              /* the other CE marks */
	/* marks after the last answered one within the span a limiter could have, the limiter's
	 * interval not learned: held back or unanswered, the capture cannot tell */
	uint64_t held_or_unanswered;
	uint64_t first_ce_ns, last_ce_ns; /* its first and latest CE-marked data packet (0: none) */
	bool interval_known;              /* rate limiting seen: */
	uint64_t interval_ns;             /* the learned CNP interval */
};

/* The RP reaction of a flow: its sender's rate around the CNPs ("RP reaction"). */
struct rt_res_rp {
	uint64_t cnps;     /* measured + every count of CNPs not measured below */
	uint64_t measured; /* CNPs with a rate drop */
	/* 100 x (1 - slowest after / before) over the measured ones (NaN: none): their mean,
	 * largest, median, quartiles and smallest */
	double mean_drop_pct, max_drop_pct, median_drop_pct, drop_p25_pct, drop_p75_pct,
	    min_drop_pct;
	double drop_sum_pct;          /* their sum: mean_drop_pct x measured, unrounded */
	const char *drop_null_reason; /* measured 0: why (the reason of most CNPs), else NULL */
	/* CNPs not measured, by why */
	uint64_t too_few_packets, cnp_in_window, psn_gap_in_window, resend_in_window,
	    pause_in_window, idle_before, idle_after, full_link;
	uint64_t recovered, interrupted;
	struct rt_res_quantiles recover; /* CNP -> back to the rate before */
	/* CNP -> the first packet of the first window below 90% of the rate before (the cut), over
	 * the measured CNPs */
	struct rt_res_quantiles cut_delay;
	/* the --rate-window that would measure rate_window_would_measure of the CNPs with too
	 * few packets (known: some would be) */
	bool rate_window_needed_known;
	uint64_t rate_window_needed_ns, rate_window_would_measure;
	const char *capture_side;     /* "sender", "receiver", NULL: cannot tell */
	const char *capture_side_how; /* how that was decided, in words */
};

/* The traffic source's own log joined to a flow (--source-log). */
struct rt_res_source {
	bool rates; /* a rate event names the flow: */
	double rate_mbps_first, rate_mbps_last, rate_mbps_min;
	uint64_t rate_changes, cuts;                   /* rate events; cuts for CNPs among them */
	double cut_mean_pct, cut_max_pct, cut_sum_pct; /* NaN (the sum 0) without a cut */
	uint64_t cnp_handled, retransmitted_reported, retransmit_events, timeouts_reported,
	    naks_reported;
	bool end_seen; /* its end event: */
	uint64_t packets_reported, bytes_reported;
};

/* One flow (one direction of one QP) with its figures; flows[id] in the view. */
struct rt_res_flow {
	struct rt_an_flow_key key;
	uint32_t id;           /* first-seen order */
	uint32_t peer_qp;      /* the other side's QP, RT_AN_NONE: not learned */
	const char *pairing;   /* how peer_qp was learned ("ack", "cm", ...), NULL: not learned */
	const char *transport; /* "RC", "UC", ... of its first request, NULL: no request seen */
	bool selected;         /* --flow selects it (the reports list it) */
	bool tagged;           /* its latest packet had a VLAN tag: pcp holds */
	bool in_episodes;      /* a congestion episode counted it */
	uint8_t dscp, pcp;     /* of its latest packet */
	/* its first and last frame; with several vantage points, both at its home point, in that
	 * point's clock (followed_at) */
	uint64_t first_ns, last_ns, packets, bytes;
	uint64_t requests, responses;
	uint64_t ecn[4]; /* packets by ECN codepoint (ecn[3]: CE) */
	uint64_t cnp_received, cnp_sent;
	double gbps;           /* bytes x 8 over last - first (NaN: one packet) */
	double ce_fraction;    /* CE over packets with an ECN field (NaN: none had one) */
	double ect_fraction;   /* ECT(0), ECT(1) or CE over them */
	double cnp_rate_per_s; /* (cnp_received - 1) over the first to the last CNP (NaN: < 2) */
	const struct rt_res_transport *xport; /* NULL: no round trip, NAK or resend (all 0) */
	const struct rt_res_np *np;           /* NULL: no CE mark, no CNP */
	const struct rt_res_rp *rp;           /* NULL: no CNP while paired */
	const struct rt_res_source *source;   /* NULL: no source-log event names it */
	/* for the findings: its UDP source port (CNPs aside), its frames, the CNPs it carried */
	bool udp_sport_known;       /* a packet other than a CNP was seen: */
	bool udp_sport_varied;      /* ... and a later one came from another port than udp_sport */
	uint16_t udp_sport;         /* its first packet's */
	uint16_t pmtu;              /* RoCE path MTU from full first/middle packets, 0: unknown */
	uint16_t max_frame;         /* its largest frame on the wire (at most 65535) */
	bool cnp_carried;           /* it carried CNPs: the latest one's */
	bool cnp_tagged, cnp_mixed; /* VLAN-tagged (cnp_pcp holds); CNPs of other DSCP/PCP too */
	uint8_t cnp_dscp, cnp_pcp;
	/* its longest silence that a PFC/PAUSE pause overlapped, when at least half
	 * the storm threshold (stall_ns 0: none); a silence to the end counts */
	uint64_t stall_from_ns, stall_ns;
	unsigned npaths;       /* the vantage paths its host pair's packets were seen on: */
	const unsigned *paths; /* indexes into rt_results.paths, upstream point first, */
	/* and of its host pair's packets this way, those each path lost (seen at its from point,
	 * judged, never at its to point): the host pair's, every QP's between them */
	const uint64_t *path_lost;
	/* several vantage points: the one whose frames its PSN order, round trips and RP windows
	 * come from (NULL: one point) */
	const char *followed_at;
	/* partial results merged: the packets of it another point saw beyond those its home point
	 * saw (the home's capture missed them; not in packets and bytes) */
	uint64_t packets_home_missed;
};

/* Per PFC priority (0..7) and 802.3x PAUSE, summed over sending MACs. */
struct rt_res_pfc_class {
	uint64_t xoff, xon, paused_ns, storms;
};

/*
 * A set of vantage points, by their index in rt_results.vantage (0 with one
 * point): point p is bit p % 64 of words[p / 64]; words past nwords are 0.
 */
struct rt_res_points {
	unsigned nwords;
	const uint64_t *words; /* NULL when nwords is 0 (no point) */
};
/* Whether point p is in set s. */
static inline bool rt_res_points_has(const struct rt_res_points *s, unsigned p)
{
	return p / 64 < s->nwords && ((s->words[p / 64] >> (p % 64)) & 1);
}

/* One sending MAC's frames of one class. */
struct rt_res_pfc_source {
	uint8_t mac[6];
	uint8_t cls;                 /* 0..7, RT_AN_PAUSE_CLASS */
	struct rt_res_points points; /* its PFC/PAUSE frames were seen at these vantage points */
	uint64_t xoff, xon, paused_ns;
	uint64_t first_xoff_ns; /* its first XOFF (xoff > 0) */
	uint64_t longest_start_ns,
	    longest_ns; /* its longest continuous pause (longest_ns 0: none) */
};

/*
 * A pause incident that held a storm: from the moment a MAC paused the
 * class while no other did to the moment none did; the MACs that paused it
 * in that time, by their first XOFF in it (the first RT_RES_INCIDENT_MACS,
 * and the one that paused longest).
 */
#define RT_RES_INCIDENT_MACS 16
struct rt_res_incident_mac {
	uint8_t mac[6];
	uint64_t first_ns, paused_ns, longest_ns; /* its first XOFF in it; paused; longest pause */
};
struct rt_res_incident {
	uint8_t cls;
	bool ongoing; /* still under way when the view was taken (a live view) */
	uint64_t start_ns, end_ns;
	unsigned nmacs;
	uint32_t macs_total; /* all that paused in it */
	struct rt_res_incident_mac macs[RT_RES_INCIDENT_MACS];
};

/* A MAC that sent or received RoCE frames, or sent PFC/PAUSE: where, and the IP behind it. */
struct rt_res_mac {
	uint8_t mac[6];
	struct rt_res_points points;     /* the vantage points it was seen at */
	struct rt_res_points src_points; /* ... sending a frame there */
	uint8_t ipver;                   /* 0: no RoCE frame with an IP header named it */
	bool several;   /* RoCE frames of several IPs: a router or switch, not one host */
	uint8_t ip[16]; /* the IP its RoCE frames carried (the first) */
	uint64_t frames;
};

/*
 * A finding: a conclusion drawn from the view, with what it rests on
 * (docs/FINDINGS.md lists the codes). Most severe first in the view.
 */
enum rt_severity { RT_SEV_INFO, RT_SEV_WARNING, RT_SEV_ERROR };
/* "info", "warning", "error" */
const char *rt_severity_name(enum rt_severity s);
enum rt_evidence_kind { RT_EV_U64, RT_EV_REAL, RT_EV_TEXT, RT_EV_BOOL, RT_EV_NULL };
struct rt_evidence {
	const char *name;
	enum rt_evidence_kind kind;
	uint64_t u;       /* U64, BOOL */
	double d;         /* REAL */
	const char *text; /* TEXT: in the finding's pool */
};
#define RT_FINDING_NAMES    8   /* hosts, MACs, flows a finding names at most (each list) */
#define RT_FINDING_EVIDENCE 24  /* figures a finding holds at most */
#define RT_FINDING_TEXT     600 /* its summary and its fix */
#define RT_FINDING_POOL     640 /* its evidence's text */
struct rt_finding_names {
	unsigned n;
	bool more; /* others were not named */
	char v[RT_FINDING_NAMES][RT_FLOWSEL_TEXT_MAX];
};
struct rt_finding {
	const char *code; /* stable, e.g. "pfc_storm" */
	enum rt_severity severity;
	const char *confidence; /* "high", "medium", "low" for an inference; NULL: what was seen */
	char summary[RT_FINDING_TEXT]; /* one sentence */
	char fix[RT_FINDING_TEXT];     /* what to change, and the doctor check that confirms it */
	/* subjects: as they apply (IPs, MACs, flows as --flow selectors, priorities 0..7 and
	 * RT_AN_PAUSE_CLASS) */
	struct rt_finding_names hosts, macs, flows;
	unsigned
	    flows_unselected; /* flows it concerns that --flow, --conversation, --kind left out */
	unsigned npriorities;
	uint8_t priorities[RT_AN_PFC_CLASSES];
	unsigned nevidence;
	struct rt_evidence evidence[RT_FINDING_EVIDENCE];
	size_t pool_used;
	char pool[RT_FINDING_POOL];
};
#define RT_FINDINGS_MAX 64 /* findings a view holds at most (the most severe kept) */

/* Every finding code (docs/FINDINGS.md), NULL at the end; whether `code` is one of them. */
extern const char *const rt_finding_codes[];
bool rt_finding_code_known(const char *code);

/* A finding's code and severity: what live metrics export (rt_analyzer_live_findings). */
struct rt_finding_tag {
	const char *code;
	enum rt_severity severity;
};

/*
 * The findings of the analysis as it stands, `idle_ns` of capture time
 * after its latest record (pauses still running counted up to then): a
 * view of it is built, judged and freed (O(flows) time and memory: for a
 * live display now and then, not per frame). Up to `max` into out, most
 * severe first; returns how many, or -ENOMEM.
 */
int rt_analyzer_live_findings(const struct rt_analyzer *an, uint64_t idle_ns,
                              struct rt_finding_tag *out, unsigned max);

/* A class paused continuously for --storm-threshold or longer. */
struct rt_res_storm {
	uint8_t mac[6];
	uint8_t cls;
	uint64_t start_ns, end_ns;
};

/* A congestion episode ("Episodes"). */
#define RT_RES_EPISODE_FLOWS 16
struct rt_res_episode {
	uint64_t start_ns, end_ns;
	uint64_t ce, cnp, pfc_xoff, paused_ns;
	uint64_t flow_count;                  /* flows involved, all of them */
	unsigned nflows;                      /* the ids of the first of them: */
	uint32_t flows[RT_RES_EPISODE_FLOWS]; /* at most RT_RES_EPISODE_FLOWS */
	double peak_ce_per_s;                 /* CE marks per second in the busiest slot of gap/8 */
	double gbps_before, gbps_during,
	    gbps_after; /* NaN: the gap reaches outside the capture, or no time */
};

/* A path between two vantage points, from upstream to downstream ("Vantage points"). */
struct rt_res_path {
	const char *from, *to; /* the points' names */
	/* the packets its figures rest on: those trajectory sampling kept, k in m (1 in 1: all) */
	uint32_t sample_k, sample_m;
	uint64_t matched, lost, ce_marked;
	/* packets seen at from whose passing `to` was judged (matched + lost), and those that
	 * could not be, with why (NULL: none) */
	uint64_t judged, not_judged;
	const char *not_judged_reason;
	bool offset_known;
	int64_t offset_ns;              /* to's clock less from's */
	const char *offset_null_reason; /* when not known */
	bool delay_known;
	bool delay_includes_offset; /* the offset is unknown: delays are raw time differences */
	int64_t delay_min, delay_median, delay_p99;
	const char *delay_null_reason; /* when not known */
};

/* A sum of one counter's deltas over the devices (--counters). */
struct rt_res_counter_sum {
	bool found; /* some device has the counter */
	bool known; /* found, and no device reset it: value holds */
	double value;
};

/* One device of the counters file: its counters' growth from its first sample to its last. */
struct rt_res_counter_dev {
	const char *name;
	uint64_t samples, duration_ns;
	size_t ncounters;
	const char *const *names; /* counter names */
	const double *deltas;     /* their growth, < 0: the counter went back (reset): unknown */
};

/* What shows congestion at the incast's receiver (rt_results.incast_evidence). */
enum rt_incast_evidence {
	RT_INCAST_CE = 1u << 0,        /* CE marks on its flows */
	RT_INCAST_PAUSE = 1u << 1,     /* PFC/PAUSE pauses in the capture */
	RT_INCAST_LOSS = 1u << 2,      /* PSN gaps, resends or NAKs on its flows */
	RT_INCAST_LINK_FULL = 1u << 3, /* its flows together at 95% of the link speed or more */
};
#define RT_INCAST_EVIDENCE_KINDS 4
/* The name of evidence bit k (0 .. RT_INCAST_EVIDENCE_KINDS - 1): "ce", "pause", "loss", "link_full". */
const char *rt_incast_evidence_name(unsigned k);

/* The verdict: was there congestion, where, when, who, did the NPs answer, did the senders slow. */
enum rt_verdict_state {
	RT_VERDICT_EMPTY,     /* no frame */
	RT_VERDICT_NO_ROCE,   /* frames, none RoCE */
	RT_VERDICT_CALM,      /* RoCE, no CE mark, CNP, pause or episode */
	RT_VERDICT_CONGESTED, /* some of them */
	RT_VERDICT_ECN_OFF,   /* none of them, but ECN is off: no CE mark says nothing */
};
/* The verdict's parts, in the order they are said (each a sentence, or nothing to say). */
enum rt_verdict_part {
	RT_VERDICT_HEADLINE, /* congestion or not, in figures */
	RT_VERDICT_FINDINGS, /* what is wrong: the findings, most severe first */
	RT_VERDICT_WHERE,    /* the incast's hot receiver */
	RT_VERDICT_PFC,      /* the priorities PFC paused, storms */
	RT_VERDICT_PAUSE,    /* 802.3x PAUSE */
	RT_VERDICT_WHEN,    /* the episodes: first to last, the longest, the highest marking rate */
	RT_VERDICT_WHO,     /* the most CE-marked flows */
	RT_VERDICT_VICTIMS, /* flows without a CE mark of their own sending during the episodes */
	RT_VERDICT_LOSSES,  /* resends, NAKs, timeouts */
	RT_VERDICT_NPS,     /* did the notification points answer the CE marks */
	RT_VERDICT_SENDERS, /* did the senders slow down (on the wire) */
	RT_VERDICT_SOURCE,  /* ... by their own log (--source-log) */
	RT_VERDICT_CAPTURE, /* the capture itself: its warnings */
	RT_VERDICT_PARTS
};
#define RT_VERDICT_TEXT 1024
struct rt_verdict {
	enum rt_verdict_state state;
	char part[RT_VERDICT_PARTS][RT_VERDICT_TEXT]; /* "" when the part has nothing to say */
};
/* "empty", "no_roce", "calm", "congested", "ecn_off" */
const char *rt_verdict_state_name(enum rt_verdict_state s);
/* The part's key in the JSON report ("headline", "where", ...). */
const char *rt_verdict_part_name(enum rt_verdict_part p);

/*
 * Everything one analysis found. Built by rt_analyzer_results() (once: the
 * same view every time), immutable; its pointers stay valid until the
 * analyzer is freed. Flows are flows[id], id 0 .. nflows - 1.
 */
struct rt_results {
	/* the capture */
	struct rt_an_counts
	    c;          /* frames, bytes, RoCE, CE, CNP, NAK, resends, bad ICRC, PFC per class */
	bool any_frame; /* c.packets > 0: start_ns and end_ns hold */
	uint64_t start_ns, end_ns;
	/* the settings the figures depend on */
	uint64_t link_speed_bps, episode_gap_ns, rate_window_ns, storm_ns;
	unsigned rate_window_gaps; /* RP reaction: packet gaps per rate window */
	const char *flow_selector; /* the selection as given ("--flow 'A' --kind nak"), or NULL */
	const char *input_error;   /* what stopped the reading (rt_analyzer_input_error), or NULL */

	/* totals beyond c (sums over flows where the flows count them) */
	uint64_t ecn[4]; /* RoCE packets with an IP header, by codepoint */
	uint64_t cnp_unattributed, nak_unattributed, malformed, truncated, other, cm_pairs;
	uint64_t go_back_n, timeouts, gaps, gap_psns, psn_jumps;
	/* ECN off: more than half the RoCE data packets with an IP header (CNPs aside,
	 * ecn_data_packets) are Not-ECT (ecn_not_ect): no CE mark says nothing of congestion */
	bool ecn_off;
	uint64_t ecn_not_ect, ecn_data_packets;

	/* partial results merged: packets of flows another point saw beyond their home point's,
	 * counted apart (rt_res_flow.packets_home_missed), and the flows that had such */
	uint64_t packets_home_missed;
	uint32_t flows_home_missed;

	/* the flows */
	uint32_t nflows;                 /* every flow (flow_count) */
	uint32_t nselected, npaired;     /* --flow selects; with their peer QP known */
	const struct rt_res_flow *flows; /* by id */

	/* what the capture says about itself */
	const char *drops_source; /* "pcapng", "counters_file", NULL: nothing records the drops */
	uint64_t if_dropped, os_dropped;
	bool dup_on; /* duplicate detection (--dup-window > 0): */
	uint64_t dup_other_point, dup_same_point, dup_window_ns, dup_forgotten_early;
	uint32_t max_flows; /* --max-flows, 0: no limit: */
	bool max_flows_reached;
	uint64_t packets_beyond, bytes_beyond;
	/* the snap length: RoCE frames cut after their headers (their ICRC unchecked), frames
	 * whose headers it cut */
	uint64_t icrc_unchecked, headers_cut;
	/* time going backwards within a capture point (times, the biggest step), and across
	 * points only (merged points interleave) */
	uint64_t time_backwards, time_backwards_max_ns, time_backwards_across;
	unsigned nwarnings;
	struct rt_an_warning warnings[RT_AN_WARNINGS_MAX];

	/* PFC and PAUSE */
	uint64_t pfc_frames, pause_frames;
	struct rt_res_pfc_class pfc[RT_AN_PFC_CLASSES];
	uint32_t npfc_sources;
	const struct rt_res_pfc_source *pfc_sources; /* by MAC as seen, then class */
	uint32_t nstorms;
	const struct rt_res_storm *storms;
	uint32_t nincidents; /* the pause incidents that held a storm */
	const struct rt_res_incident *incidents;
	uint64_t incidents_beyond; /* more than the view keeps */

	/* the MACs of RoCE and PFC/PAUSE frames */
	uint32_t nmacs;
	const struct rt_res_mac *macs;

	/* congestion episodes */
	uint32_t nepisodes;
	const struct rt_res_episode *episodes;

	/*
	 * incast: the hot receiver ("Incast"), named only with evidence of congestion there
	 * (incast_evidence); without, incast_null_reason says why, and fan_in whether a receiver
	 * has two senders or more (the fields below then hold the one it would have been)
	 */
	bool incast, fan_in;
	const char *incast_null_reason;
	unsigned incast_evidence; /* enum rt_incast_evidence bits */
	uint8_t incast_ipver;
	uint8_t incast_receiver[16];
	uint32_t incast_senders, incast_flows;
	uint64_t incast_bytes, incast_ce;
	double incast_gbps; /* NaN: its flows span no time */

	/* vantage points and the paths between them */
	unsigned nvantage;
	const struct rt_an_vantage *vantage;
	unsigned npaths;
	const struct rt_res_path *paths;

	/* side files */
	bool counters_loaded;
	uint64_t counter_lines, counter_bad_lines;
	size_t ncounter_devs;
	const struct rt_res_counter_dev *counter_devs;
	struct rt_res_counter_sum np_cnp_sent, rp_cnp_handled;
	/* per priority: rx_pause, tx_pause, rx_pause_duration, tx_pause_duration */
	struct rt_res_counter_sum counter_pause[8][4];
	bool source_log_loaded;
	uint64_t source_log_lines, source_log_bad_lines, source_log_unmatched;

	/* the findings, most severe first (docs/FINDINGS.md) */
	unsigned nfindings;
	const struct rt_finding *findings;

	struct rt_verdict verdict;
};

/*
 * The view of the analysis, built at the first call (after
 * rt_analyzer_finish() and the side files) and the same view at the next
 * ones; built anew when the end, a side file or a record came since. NULL
 * (errno ENOMEM) when out of memory.
 */
const struct rt_results *rt_analyzer_results(struct rt_analyzer *an);

/* ---- sinks: where the analysis goes (analyze/README.md, "Sinks") ---- */

/*
 * A sink: callbacks the analyzer calls, in this order, on the thread that
 * feeds it (bucket() of a sink that sets bucket_apart: an analysis split
 * among threads calls it on an output thread of its own, one
 * bucket after the other, while the analysis goes on: it may read the
 * flows' keys of `an`, nothing else of it; analyze/README.md, "Threads").
 * Each returns 0 or a negative errno
 * with errbuf filled; the first failure stops that sink
 * (rt_analyzer_status(), rt_analyzer_finish() return it). A NULL callback
 * is skipped.
 *
 *   bucket()  each bucket in time order once it has ended, buckets where
 *             nothing happened left out (t_ns says which ones those are);
 *   end()     after the last bucket (rt_analyzer_finish());
 *   report()  rt_analyzer_report(), once the side files are joined: the
 *             results view.
 *
 * `an` is the analyzer, for the reads above (a flow's key, the bucket
 * columns); the bucket and its rows live until the callback returns.
 */
#define RT_AN_SINKS_MAX 8 /* sinks per analyzer */
/*
 * The bucket lengths taken (--bucket, a partial's): at least 100 ns
 * (shorter is surely a mistake, rows explode), at most 1e6 s.
 */
#define RT_AN_BUCKET_MIN_NS 100ull
#define RT_AN_BUCKET_MAX_NS 1000000000000000ull
struct rt_an_sink {
	uint64_t
	    bucket_ns; /* bucket length this sink takes (0: no buckets); every sink takes the same */
	int (*bucket)(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
	              char *errbuf);
	/*
	 * bucket() costs about what making the bucket costs (it formats and
	 * writes every row): worth a thread of its own; false: the thread that
	 * makes the buckets calls it (a hand-over would cost more)
	 */
	bool bucket_apart;
	int (*end)(void *ctx, const struct rt_analyzer *an, char *errbuf);
	int (*report)(void *ctx, const struct rt_results *r, char *errbuf);
	void (*free)(
	    void *ctx); /* by rt_analyzer_free(), and by rt_analyzer_add_sink() when it fails */
	void *ctx;
};

#endif

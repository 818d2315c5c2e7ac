/* The analyzer's public data types: options, per-frame notes, counts, flow keys, buckets, sinks, warnings. */
#ifndef RT_ANALYZE_TYPES_H
#define RT_ANALYZE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "dissect/dissect.h"

struct rt_analyzer;

/* Which classes a PAUSE/PFC counter array holds: priorities 0..7, then 802.3x PAUSE. */
#define RT_AN_PFC_CLASSES 9
#define RT_AN_PAUSE_CLASS 8

struct rt_analyzer_opts {
	uint64_t link_speed_bps; /* for PFC/PAUSE quanta → time; default 100e9 */
	uint64_t storm_ns; /* a class paused continuously this long is a storm; default 100 ms */
	uint64_t episode_gap_ns; /* events closer than this belong to one episode; default 1 ms */
	uint64_t
	    rate_window_ns; /* RP reaction: longest window before/after a CNP; default 100 us */
	/*
	 * Duplicates: the same RoCE packet seen again at the same capture point
	 * within this long is a copy, counted once (default 10 us); 0 turns
	 * duplicate detection off. Copies at another capture point (interface,
	 * SLL2 interface index, router hop) are matched within 100 ms.
	 */
	uint64_t dup_window_ns;
	uint16_t
	    udp_port; /* the RoCEv2 port the records were dissected with (for messages); default 4791 */
	/*
	 * Flows kept one by one; the packets of further flows count in the
	 * totals only (the report and a warning say how many). 0 = no limit.
	 */
	uint32_t max_flows;
	/*
	 * --flow (analyze/flowsel.h): the flows the report lists and the timeline
	 * writes rows of (rt_an_flow_row.selected); NULL for every flow
	 */
	const char *flow;
	/*
	 * Vantage points (analyze/README.md, "Vantage points"): the point
	 * (0 .. RT_AN_VANTAGE_MAX - 1) the frames of capture interface
	 * `interface_id` with SLL2 interface index `sll_ifindex` (0 for other
	 * link types) were taken at, or -1 when unknown: the record's capture
	 * point (the one duplicate detection counts copies by). Called on the
	 * thread that feeds, for each new pair: it must answer there for any
	 * record fed. NULL: no vantage-point analysis.
	 */
	int (*vantage_of)(void *ctx, uint32_t interface_id, uint32_t sll_ifindex);
	void *vantage_ctx;
	/*
	 * Asked (with vantage_ctx) at the first record's point: true when no
	 * other point can ever come, so the packets of one point need not wait
	 * for a second one's (analyze/vantage.c). NULL: another may come.
	 */
	bool (*vantage_alone)(void *ctx);
	/*
	 * The points keep clocks of their own (several files): duplicate
	 * detection expects copies from other points up to 100 ms late from the
	 * first packet on (one file's points share its clock)
	 */
	bool vantage_clocks;
	/* a packet's frames at the vantage points are matched within this long of its first; default 10 ms */
	uint64_t vantage_window_ns;
};

/* Vantage points the analysis follows at most. */
#define RT_AN_VANTAGE_MAX 8

/* A vantage point as the report names it (rt_analyzer_vantage_points()). */
struct rt_an_vantage {
	const char *name;
	unsigned nfiles;
	const char *const *files; /* its capture files, in the order read */
	uint64_t frames;          /* its frames read */
};

/* Running totals for live tickers (one interval or since the start). */
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

/* "No such flow or frame" in struct rt_an_note. */
#define RT_AN_NONE UINT32_MAX

/* rt_an_note.flags */
enum rt_an_note_flag {
	RT_AN_NOTE_CE = 1u << 0,      /* IP ECN field is CE (11) */
	RT_AN_NOTE_RETRANS = 1u << 1, /* RC/XRC request at or behind the highest PSN sent */
	RT_AN_NOTE_DUPLICATE =
	    1u << 2, /* UC request at or behind the highest PSN (UC never resends) */
	RT_AN_NOTE_PSN_JUMP = 1u << 3, /* PSN moved by more than 65536: tracking restarted */
	RT_AN_NOTE_NAK = 1u << 4,      /* AETH NAK, code in nak_code */
	RT_AN_NOTE_RNR_NAK = 1u << 5,  /* AETH RNR NAK, timer in nak_code */
	RT_AN_NOTE_COPY =
	    1u << 6, /* a copy of frame copy_of_frame (the same packet seen again): not counted */
};

/*
 * What the analyzer concluded about one record, for per-frame displays.
 * Frames are numbered by the analyzer: the running count of records fed,
 * from 1 (Wireshark's frame numbers when every frame is fed in order);
 * 0 = none. A note may name an earlier frame whose own note a later frame
 * completes: the caller keeps that reverse link (cnp_for_frame names the
 * CE-marked frame a CNP answers; pause_cut_frame names the frame whose pause
 * this one ended early).
 */
struct rt_an_note {
	uint64_t frame;        /* this record's number */
	uint32_t flow_id;      /* RoCE/CNP with a BTH: flow id as in the report, else RT_AN_NONE */
	uint32_t peer_flow_id; /* response/NAK: the requester's flow; CNP: the flow it slows down */
	uint32_t psn_gap;      /* PSNs missing before this request, 0 = none */
	uint8_t flags;         /* enum rt_an_note_flag bits */
	uint8_t nak_code;      /* NAK code or RNR timer (low 5 bits of the AETH syndrome) */
	uint64_t nak_frame;    /* retransmission: the NAK or RNR NAK that started this go-back-N */
	uint64_t
	    cnp_for_frame; /* CNP: the CE-marked frame of its flow it answers (analyze/README.md) */
	uint64_t copy_of_frame; /* RT_AN_NOTE_COPY: the frame that was counted */
	/* PFC/PAUSE: bit c = this frame sets class c (RT_AN_PAUSE_CLASS for PAUSE) and pauses it
	 * paused_ns[c] (its quanta at the link speed; 0 for an XON) */
	uint16_t pause_classes;
	uint64_t paused_ns[RT_AN_PFC_CLASSES];
	/* bit c = this frame ended class c's pause of the same sender's frame pause_cut_frame[c]
	 * early: that frame paused it pause_cut_ns[c] only */
	uint16_t pause_cut;
	uint64_t pause_cut_frame[RT_AN_PFC_CLASSES];
	uint64_t pause_cut_ns[RT_AN_PFC_CLASSES];
};

/* One finding about the capture itself: drops, duplicates, hints (analyze/README.md lists the codes). */
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
/* ---- sinks: where the analysis goes (analyze/README.md, "Sinks") ---- */

/* One flow: source IP, destination IP, destination QP (IPv4 in the first 4 bytes; zero padded). */
struct rt_an_flow_key {
	uint8_t src[16], dst[16];
	uint32_t dest_qp;
	uint8_t ipver; /* 4 or 6 */
	uint8_t pad[3];
};

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
	uint32_t id;   /* the flow's id, as in the report (rt_analyzer_flow_key) */
	bool selected; /* the flow selector (rt_analyzer_opts.flow) names it */
	struct rt_an_delta d;
	/* round trips (request with AckReq → ACK) that ended since the flow's previous row */
	uint64_t rtt_samples, rtt_sum_ns;
	/* with a source log: the source's rate for the flow at the end of the bucket, its CNPs in it */
	bool source_rate_known;
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

/*
 * A sink: callbacks the analyzer calls, in this order, on the thread that
 * feeds it. Each returns 0 or a negative errno with errbuf filled; the
 * first failure stops that sink (rt_analyzer_status(), rt_analyzer_finish()
 * return it). A NULL callback is skipped.
 *
 *   bucket()  each bucket in time order once it has ended, buckets where
 *             nothing happened left out (t_ns says which ones those are);
 *   end()     after the last bucket (rt_analyzer_finish());
 *   report()  rt_analyzer_report(), once the side files are joined.
 *
 * `an` is the analyzer, for rt_analyzer_* calls that read (flows' keys,
 * totals, warnings); the bucket and its rows live until the callback returns.
 */
#define RT_AN_SINKS_MAX 8 /* sinks per analyzer */
struct rt_an_sink {
	uint64_t
	    bucket_ns; /* bucket length this sink takes (0: no buckets); every sink takes the same */
	int (*bucket)(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
	              char *errbuf);
	int (*end)(void *ctx, const struct rt_analyzer *an, char *errbuf);
	int (*report)(void *ctx, const struct rt_analyzer *an, char *errbuf);
	void (*free)(
	    void *ctx); /* by rt_analyzer_free(), and by rt_analyzer_add_sink() when it fails */
	void *ctx;
	/*
	 * Non-NULL: the sink also wants each vantage point analyzed on its own
	 * (rt_analyzer_split_vantage(an, split, ctx)); the points' sinks end
	 * before this one.
	 */
	int (*split)(void *ctx, unsigned point, struct rt_an_sink *out, char *errbuf);
};

/* The sink of vantage point `point`'s own analyzer (rt_analyzer_split_vantage()). 0 or a negative errno. */
typedef int (*rt_an_split_sink_fn)(void *ctx, unsigned point, struct rt_an_sink *out, char *errbuf);

#endif

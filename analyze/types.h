/* The analyzer's data types for feeding it: options and per-frame notes (what it gives out: analyze/results.h). */
#ifndef RT_ANALYZE_TYPES_H
#define RT_ANALYZE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/results.h"
#include "common/errbuf.h"
#include "dissect/dissect.h"

struct rt_analyzer;

struct rt_analyzer_opts {
	uint64_t link_speed_bps; /* for PFC/PAUSE quanta → time; default 100e9 */
	uint64_t storm_ns; /* a class paused continuously this long is a storm; default 10 ms */
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
	 * The flows the report lists and the timeline writes rows of
	 * (rt_an_flow_row.selected; analyze/select.h): --flow "SEL[,SEL...]"
	 * (analyze/flowsel.h), the flows one of them picks; --conversation
	 * "SEL[,SEL...]", the flows one of them picks and their peers; NULL and
	 * NULL: every flow. --kind: of those, the flows that carried a packet of
	 * these kinds (bits of enum rt_pkt_kind, dissect/pktkind.h); 0: any.
	 */
	const char *flow, *conversation;
	unsigned kinds;
	/*
	 * The flow ids (ascending) an earlier run over the same capture with the
	 * same options selected (rt_analyzer_selected_ids()): selected from their
	 * first packet on, as a timeline needs. flow, conversation and kinds then
	 * only name the selection in messages. NULL: none.
	 */
	const uint32_t *selected_ids;
	uint32_t nselected_ids;
	/*
	 * Vantage points (analyze/README.md, "Vantage points"): the records'
	 * capture points (rt_record.point, which the frame pump sets: the point
	 * duplicate detection counts copies by) are followed, the same packet
	 * matched across them. false: no vantage-point analysis.
	 */
	bool vantage;
	/*
	 * The points keep clocks of their own (several files): duplicate
	 * detection expects copies from other points up to 100 ms late from the
	 * first packet on (one file's points share its clock)
	 */
	bool vantage_clocks;
	/* a packet's frames at the vantage points are matched within this long of its first; default 10 ms */
	uint64_t vantage_window_ns;
	/*
	 * Trajectory sampling: only the packets whose fingerprint hashes below
	 * vantage_sample_k in vantage_sample_m are matched across the points
	 * (every point keeps the same ones, whatever its clock); 0 or k == m: all.
	 */
	uint32_t vantage_sample_k, vantage_sample_m;
	/*
	 * Keep what a partial needs (analyze/partial.h, rt_partial_take): every
	 * CE-marked RoCE packet with a BTH and the trajectory sample
	 * (vantage_sample_k in vantage_sample_m; none given: RT_PARTIAL_SAMPLE_K
	 * in RT_PARTIAL_SAMPLE_M). false: nothing kept, no work.
	 */
	bool partial;
};

/* Vantage points the analysis follows at most. */
#define RT_AN_VANTAGE_MAX 8

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
	uint64_t
	    cnp_delay_ns; /* ... and the time from that mark to this CNP (its NP reaction sample) */
	/* ACK: the round trip of the newest request with AckReq it acknowledges (an RTT sample),
	 * and that request's frame; 0 = no sample */
	uint64_t rtt_ns, rtt_frame;
	/* RETRANS, the first request of a resend run: how long after the NAK or RNR NAK that
	 * started it (nak_frame), or after the flow's previous request (a timeout) it came;
	 * 0 when it came in an older frame (the capture's time went backwards) */
	uint64_t resend_wait_ns;
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

#endif

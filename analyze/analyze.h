/* rocetrace analyzer: streams packet records into per-QP flows, ECN/CNP, NAK, PFC and episode state. */
#ifndef RT_ANALYZE_H
#define RT_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/errbuf.h"
#include "dissect/dissect.h"

struct rt_analyzer;

/* Which classes a PAUSE/PFC counter array holds: priorities 0..7, then 802.3x PAUSE. */
#define RT_AN_PFC_CLASSES 9
#define RT_AN_PAUSE_CLASS 8

struct rt_analyzer_opts {
	uint64_t link_speed_bps; /* for PFC/PAUSE quanta → time; default 100e9 */
	uint64_t storm_ns;	 /* a class paused continuously this long is a storm; default 100 ms */
	uint64_t episode_gap_ns; /* events closer than this belong to one episode; default 1 ms */
	uint64_t rate_window_ns; /* RP reaction: longest window before/after a CNP; default 100 us */
	uint64_t bucket_ns;	 /* timeline bucket; 0 = no timeline */
	/* timeline rows are written here (CSV or JSON Lines); NULL = no timeline */
	FILE *timeline_out;
	bool timeline_json;
	/*
	 * --flow: the flows the timeline writes rows of and the report lists
	 * (analyze/flowsel.h); NULL for every flow
	 */
	const char *flow;
	/*
	 * Duplicates: the same RoCE packet seen again at the same capture point
	 * within this long is a copy, counted once (default 10 us); 0 turns
	 * duplicate detection off. Copies at another capture point (interface,
	 * SLL2 interface index, router hop) are matched within 100 ms.
	 */
	uint64_t dup_window_ns;
	uint16_t udp_port; /* the RoCEv2 port the records were dissected with (for messages); default 4791 */
};

/* Running totals for live tickers (one interval or since the start). */
struct rt_an_counts {
	uint64_t packets, bytes, roce_packets;
	uint64_t ce, cnp, nak, rnr_nak, retransmitted, icrc_bad;
	uint64_t pfc_xoff[RT_AN_PFC_CLASSES], pfc_xon[RT_AN_PFC_CLASSES];
};

/* Defaults as documented above. */
void rt_analyzer_opts_init(struct rt_analyzer_opts *opts);

/* New analyzer, or NULL (errno set) when out of memory or the flow selector is invalid. */
struct rt_analyzer *rt_analyzer_new(const struct rt_analyzer_opts *opts, char *errbuf);
void rt_analyzer_free(struct rt_analyzer *an);

/*
 * Feed one record (rec->ts_ns set; an RDMA CM exchange on QP 1 comes
 * decoded in rec->cm). Never fails; bad records are counted.
 */
void rt_analyzer_feed(struct rt_analyzer *an, const struct rt_record *rec);

/* "No such flow or frame" in struct rt_an_note. */
#define RT_AN_NONE UINT32_MAX

/* rt_an_note.flags */
enum rt_an_note_flag {
	RT_AN_NOTE_CE = 1u << 0,	/* IP ECN field is CE (11) */
	RT_AN_NOTE_RETRANS = 1u << 1,	/* RC/XRC request at or behind the highest PSN sent */
	RT_AN_NOTE_DUPLICATE = 1u << 2, /* UC request at or behind the highest PSN (UC never resends) */
	RT_AN_NOTE_PSN_JUMP = 1u << 3,	/* PSN moved by more than 65536: tracking restarted */
	RT_AN_NOTE_NAK = 1u << 4,	/* AETH NAK, code in nak_code */
	RT_AN_NOTE_RNR_NAK = 1u << 5,	/* AETH RNR NAK, timer in nak_code */
	RT_AN_NOTE_COPY = 1u << 6,	/* a copy of frame copy_of_frame (the same packet seen again): not counted */
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
	uint64_t frame;		/* this record's number */
	uint32_t flow_id;	/* RoCE/CNP with a BTH: flow id as in the report, else RT_AN_NONE */
	uint32_t peer_flow_id;	/* response/NAK: the requester's flow; CNP: the flow it slows down */
	uint32_t psn_gap;	/* PSNs missing before this request, 0 = none */
	uint8_t flags;		/* enum rt_an_note_flag bits */
	uint8_t nak_code;	/* NAK code or RNR timer (low 5 bits of the AETH syndrome) */
	uint64_t nak_frame;	/* retransmission: the NAK or RNR NAK that started this go-back-N */
	uint64_t cnp_for_frame; /* CNP: the CE-marked frame of its flow it answers (analyze/README.md) */
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

/*
 * rt_analyzer_feed that also fills `note` about this record (all of it:
 * fields that do not apply are 0 or RT_AN_NONE). rt_analyzer_feed does none
 * of this work.
 */
void rt_analyzer_feed_note(struct rt_analyzer *an, const struct rt_record *rec,
			   struct rt_an_note *note);

/*
 * End of input: ends pauses, closes episodes, pairs the remaining flows
 * that can only be paired one way, and flushes the timeline. Returns 0 or
 * the timeline's write error (negative errno).
 */
int rt_analyzer_finish(struct rt_analyzer *an);

/* Totals since the start. */
void rt_analyzer_totals(const struct rt_analyzer *an, struct rt_an_counts *out);
/* Totals since the last reset; `reset` starts a new interval. */
void rt_analyzer_interval(struct rt_analyzer *an, struct rt_an_counts *out, bool reset);
/* Flows seen so far. */
uint64_t rt_analyzer_flow_count(const struct rt_analyzer *an);

/*
 * Side files (docs/FORMATS.md): NIC counter samples and the traffic
 * source's event log. Each returns 0 or a negative errno with errbuf
 * filled (a file that cannot be opened); bad lines are skipped and counted.
 */
int rt_analyzer_load_counters(struct rt_analyzer *an, const char *path, char *errbuf);
int rt_analyzer_load_source_log(struct rt_analyzer *an, const char *path, char *errbuf);

/*
 * Frames the capture itself lost, as the file recorded them (pcapng
 * statistics blocks: isb_ifdrop by the interface, isb_osdrop by the kernel
 * or the capture; rt_source_stats of a file source). When this is not
 * called, the capture line of a counters side file (docs/FORMATS.md) counts.
 */
void rt_analyzer_capture_drops(struct rt_analyzer *an, uint64_t if_dropped, uint64_t os_dropped);

/* One finding about the capture itself: drops, duplicates, hints (analyze/README.md lists the codes). */
#define RT_AN_WARNING_VALUES 4
#define RT_AN_WARNINGS_MAX 16
struct rt_an_warning {
	const char *code;  /* stable identifier, e.g. "capture_drops" */
	char message[400]; /* one line for people */
	unsigned nvalues;  /* the numbers the message names */
	struct {
		const char *name;
		uint64_t value;
	} values[RT_AN_WARNING_VALUES];
};
/*
 * The findings, after rt_analyzer_finish() and the side files: up to `max`
 * (RT_AN_WARNINGS_MAX holds them all) into `out`; returns how many.
 */
unsigned rt_analyzer_warnings(const struct rt_analyzer *an, struct rt_an_warning *out, unsigned max);

/* The report: one JSON document (analyze/README.md) or a human summary with the top `top` flows. */
int rt_analyzer_report_json(struct rt_analyzer *an, FILE *fp);
int rt_analyzer_report_text(struct rt_analyzer *an, FILE *fp, unsigned top);

#endif

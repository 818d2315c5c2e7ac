/* rocetrace analyzer: streams packet records into per-QP flows, ECN/CNP, NAK, PFC and episode state. */
#ifndef RT_ANALYZE_H
#define RT_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/dissect.h"

struct rt_analyzer;

/* Which classes a PAUSE/PFC counter array holds: priorities 0..7, then 802.3x PAUSE. */
#define RT_AN_PFC_CLASSES 9
#define RT_AN_PAUSE_CLASS 8

struct rt_analyzer_opts {
	uint64_t link_speed_bps; /* for PFC/PAUSE quanta → time; default 100e9 */
	uint64_t storm_ns;	 /* a class paused continuously this long is a storm; default 100 ms */
	uint64_t episode_gap_ns; /* events closer than this belong to one episode; default 1 ms */
	uint64_t rate_window_ns; /* RP reaction: sending rate window before/after a CNP; default 100 us */
	uint64_t bucket_ns;	 /* timeline bucket; 0 = no timeline */
	/* timeline rows are written here (CSV or JSON Lines); NULL = no timeline */
	FILE *timeline_out;
	bool timeline_json;
	const char *timeline_flow; /* --flow selector or NULL for every flow */
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

/* Feed one record (rec->ts_ns set). Never fails; bad records are counted. */
void rt_analyzer_feed(struct rt_analyzer *an, const struct rt_record *rec);
/*
 * Same, with the frame's bytes so RDMA CM MADs on QP 1 can be read (they
 * name both sides' QPs). `frame` may be NULL.
 */
void rt_analyzer_feed_frame(struct rt_analyzer *an, const struct rt_record *rec,
			    const uint8_t *frame, uint32_t caplen);

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

/* The report: one JSON document (DESIGN.md contract) or a human summary with the top `top` flows. */
int rt_analyzer_report_json(struct rt_analyzer *an, FILE *fp);
int rt_analyzer_report_text(struct rt_analyzer *an, FILE *fp, unsigned top);

/* Parse "100G", "25g", "10000M", "1.5T", "400000000000" into bits per second; 0 on error. */
uint64_t rt_parse_rate_bps(const char *s);
/* Parse "100us", "1ms", "250ns", "2s", "1000" (ns) into nanoseconds; 0 on error. */
uint64_t rt_parse_duration_ns(const char *s);

#endif

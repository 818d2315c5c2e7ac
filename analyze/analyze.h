/* rocetrace analyzer: streams packet records into per-QP flows, ECN/CNP, NAK, PFC and episode state, and feeds sinks. */
#ifndef RT_ANALYZE_H
#define RT_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/types.h"

/* Defaults as struct rt_analyzer_opts (analyze/types.h) documents them. */
void rt_analyzer_opts_init(struct rt_analyzer_opts *opts);

/* New analyzer, or NULL (errno set, errbuf filled) when out of memory or the flow selector is invalid. */
struct rt_analyzer *rt_analyzer_new(const struct rt_analyzer_opts *opts, char *errbuf);
/* Frees the analyzer and the sinks added to it. */
void rt_analyzer_free(struct rt_analyzer *an);

/*
 * Feed one record (rec->ts_ns set; an RDMA CM exchange on QP 1 comes
 * decoded in rec->cm). Never fails; bad records are counted. A sink's
 * failure is kept for rt_analyzer_status().
 */
void rt_analyzer_feed(struct rt_analyzer *an, const struct rt_record *rec);
/*
 * rt_analyzer_feed of a record that is frame `frame` (from 1) of a stream
 * split among analyzers by host pair (analyze/README.md, "Split and
 * merge"): flows are ordered and notes number frames by it.
 */
void rt_analyzer_feed_frame(struct rt_analyzer *an, const struct rt_record *rec, uint64_t frame);

/*
 * Time passes without a record (a live source that is idle): buckets up
 * to `now_ns` end and pauses expire. Earlier times change nothing.
 */
void rt_analyzer_tick(struct rt_analyzer *an, uint64_t now_ns);

/*
 * rt_analyzer_feed that also fills `note` about this record (all of it:
 * fields that do not apply are 0 or RT_AN_NONE). rt_analyzer_feed does none
 * of this work.
 */
void rt_analyzer_feed_note(struct rt_analyzer *an, const struct rt_record *rec,
                           struct rt_an_note *note);

/*
 * End of input: ends pauses, closes episodes, pairs the remaining flows
 * that can only be paired one way, hands the last buckets to the sinks and
 * calls their end(). Returns 0, -EINTR when rt_analyzer_interrupt() cut
 * this work short (what was done stays: the report covers it), or a sink's
 * failure (negative errno, errbuf filled).
 */
int rt_analyzer_finish(struct rt_analyzer *an, char *errbuf);

/*
 * Merge `src` into `dst` (analyze/README.md, "Split and merge"): both fed
 * records of other host pairs than the other's (frames numbered in one
 * stream: rt_analyzer_feed_frame) and finished. dst then reports what one
 * analyzer fed both would, by the rules of that section; src is left empty
 * (free it). Neither takes more records. Returns 0, -ENOTSUP (both matched
 * packets across vantage points; src has side files) or -ENOMEM (dst is
 * then part-merged: free both) with errbuf filled.
 */
int rt_analyzer_merge(struct rt_analyzer *dst, struct rt_analyzer *src, char *errbuf);

/*
 * Ask rt_analyzer_finish() to end its work early (async-signal-safe: for a
 * SIGINT handler). Feeding is not affected.
 */
void rt_analyzer_interrupt(struct rt_analyzer *an);

/* Totals since the start. */
void rt_analyzer_totals(const struct rt_analyzer *an, struct rt_an_counts *out);
/*
 * Totals as they stand `idle_ns` of capture time after the latest record,
 * when no record came since (a live source that is idle: a paused link
 * sends nothing): as rt_analyzer_totals(), but the pauses still running
 * are counted up to min(latest record + idle_ns, their end by quanta).
 * Changes nothing: a record from before that time may still come, and
 * counts where it belongs (rt_analyzer_tick() would move it).
 */
void rt_analyzer_totals_idle(const struct rt_analyzer *an, uint64_t idle_ns,
                             struct rt_an_counts *out);
/* Totals since the last reset; `reset` starts a new interval. */
void rt_analyzer_interval(struct rt_analyzer *an, struct rt_an_counts *out, bool reset);
/*
 * After rt_analyzer_finish(): the ids of the selected flows (ascending) into a
 * new array *ids (free() it), their count into *n. 0 or -ENOMEM.
 */
int rt_analyzer_selected_ids(const struct rt_analyzer *an, uint32_t **ids, uint32_t *n);
/* Flows seen so far. */
uint64_t rt_analyzer_flow_count(const struct rt_analyzer *an);

/*
 * Side files (docs/FORMATS.md): NIC counter samples and the traffic
 * source's event log. Each returns 0 or a negative errno with errbuf
 * filled (a file that cannot be opened); bad lines are skipped and counted.
 * With a sink that takes buckets, load them before the first record: their
 * events join the buckets; else after rt_analyzer_finish(): they join the
 * flows of the report.
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
/* What stopped the reading (a file that is no capture, a cut file): the verdict of a capture with no
 * frame names it instead of calling the capture empty. NULL or "" says nothing stopped it. */
void rt_analyzer_input_error(struct rt_analyzer *an, const char *message);

/*
 * The capture points the records were taken at, as the report names them:
 * point i is the one records with rt_record.point i were seen at (at most
 * RT_AN_VANTAGE_MAX; copied). Call it before rt_analyzer_report(); the
 * report lists them and the paths between them. Returns 0 or -ENOMEM with
 * errbuf filled.
 */
int rt_analyzer_vantage_points(struct rt_analyzer *an, const struct rt_an_vantage *vp, unsigned n,
                               char *errbuf);
/*
 * No record will come from another capture point than the first one's (the
 * source can have one only: rt_pump_point.alone), so none waits for a second
 * (analyze/vantage.c). Before the first record.
 */
void rt_analyzer_one_point(struct rt_analyzer *an);

/*
 * The warnings, after rt_analyzer_finish() and the side files: up to `max`
 * (RT_AN_WARNINGS_MAX holds them all) into `out`; returns how many.
 */
unsigned rt_analyzer_warnings(const struct rt_analyzer *an, struct rt_an_warning *out,
                              unsigned max);

/* ---- sinks: where the analysis goes (analyze/README.md, "Sinks"; analyze/results.h) ---- */

/*
 * Add a sink (before the first record); the analyzer owns it from now on.
 * Returns 0, or -EINVAL (another sink takes buckets of another length,
 * RT_AN_SINKS_MAX reached) with errbuf filled.
 */
int rt_analyzer_add_sink(struct rt_analyzer *an, const struct rt_an_sink *sink, char *errbuf);

/*
 * Each sink's report(), handed the results view (rt_analyzer_results());
 * returns 0 or the first failure (negative errno, errbuf filled; -ENOMEM
 * when the view cannot be built).
 */
int rt_analyzer_report(struct rt_analyzer *an, char *errbuf);

/* The first sink failure so far (negative errno, errbuf filled when not NULL), or 0. */
int rt_analyzer_status(const struct rt_analyzer *an, char *errbuf);

#endif

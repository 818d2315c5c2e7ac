/* Side files: NIC counter samples (deltas per device) and the traffic source's event log, joined to the flows. */
#ifndef RT_ANALYZE_SIDE_H
#define RT_ANALYZE_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/buckets.h"
#include "analyze/flows.h"

/* One device's counters: the first and the last value of each. */
struct an_counter_dev {
	char name[96];
	uint64_t samples;
	uint64_t first_ts, last_ts;
	char **names;
	uint64_t *first, *last; /* exact, as read */
	size_t hint;            /* where the next sample's counter is looked up first */
	size_t n, cap;
};

/* The traffic source's log, joined to one flow (an_flow.src). */
struct an_src {
	uint64_t packets, bytes, retrans, cnp_handled, naks; /* its end event */
	uint64_t cnp_events, retransmit_events, retransmit_count, timeouts;
	uint64_t rate_events, cuts;
	uint64_t
	    events; /* lines joined to the flow (with buckets, also for a flow the capture never holds) */
	bool end_seen;
	double rate_first, rate_last, rate_min;
	double cut_sum, cut_max; /* rate cuts the source logged for CNPs, in percent */
};

struct an_side {
	struct an_flowtab *ft;
	struct an_buckets *bk; /* with buckets on when a file loads, its events join the buckets */
	struct an_counter_dev *cdev;
	size_t ncdev;
	uint64_t counter_lines, counter_bad;
	bool counters_loaded;
	uint64_t srclog_lines, srclog_bad, srclog_unmatched;
	bool srclog_loaded;
	bool
	    before_capture; /* files loaded before the first frame: the source log makes its flows */
	char counters_path[160], srclog_path[160];
	/* the capture line of the counters file: frames the capture dropped */
	bool drops_known;
	uint64_t if_dropped, os_dropped;
};

void an_side_init(struct an_side *s, struct an_flowtab *ft, struct an_buckets *bk);
void an_side_free(struct an_side *s);
/* Read a file (docs/FORMATS.md); 0 or a negative errno with errbuf filled. Bad lines are counted. */
int an_side_load_counters(struct an_side *s, const char *path, char *errbuf);
int an_side_load_source_log(struct an_side *s, const char *path, char *errbuf);
/* The counter's growth over a device's samples; -1 after a reset (no meaningful delta). */
double an_side_delta(const struct an_counter_dev *d, size_t i);
/*
 * Sum over devices of the delta of counter `name`; *found tells whether any
 * device has it. -1 when one of them was reset (the sum is unknown).
 */
double an_side_sum_delta(const struct an_side *s, const char *name, bool *found);
/*
 * Source-log events that name no flow of the capture: those that name no
 * flow at all, and (a log loaded before the capture) those of flows the
 * capture never held. *matched: whether an event joined a flow of
 * the capture.
 */
uint64_t an_side_srclog_unmatched(const struct an_side *s, bool *matched);

#endif

/* The sinks rocetrace brings: the JSON report, the text summary, the timeline (analyze/README.md, Sinks). */
#ifndef RT_ANALYZE_SINKS_H
#define RT_ANALYZE_SINKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/types.h"

/*
 * Each fills *out with a sink for rt_analyzer_add_sink(), writing to fp
 * (which stays the caller's: flushed, never closed). Returns 0 or -ENOMEM
 * with errbuf filled.
 */

/* The JSON report (every key in analyze/README.md), at rt_analyzer_report(). */
int rt_an_report_json_sink(FILE *fp, struct rt_an_sink *out, char *errbuf);
/* The human summary with the top `top` flows, at rt_analyzer_report(). */
int rt_an_report_text_sink(FILE *fp, unsigned top, struct rt_an_sink *out, char *errbuf);

struct rt_an_timeline_opts {
	uint64_t bucket_ns; /* bucket length (required) */
	bool json;	    /* JSON Lines instead of CSV with a header */
	bool no_idle;	    /* write no zero rows for idle stretches (analyze/README.md, Timeline) */
};
/* Timeline rows (analyze/README.md, Timeline), written as buckets end. */
int rt_an_timeline_sink(FILE *fp, const struct rt_an_timeline_opts *opts, struct rt_an_sink *out, char *errbuf);

#endif

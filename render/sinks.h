/* The renderers rocetrace brings, as sinks: the JSON report, the text summary, the timeline, the HTML report (analyze/README.md, Sinks). */
#ifndef RT_RENDER_SINKS_H
#define RT_RENDER_SINKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/results.h"
#include "common/errbuf.h"

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
	bool json;          /* JSON Lines instead of CSV with a header */
	bool no_idle; /* write no zero rows for idle stretches (analyze/README.md, Timeline) */
	/*
	 * Non-NULL: rows per capture point (--by-vantage), with a `vantage`
	 * column: point `point`'s name as known now into name (0), or a
	 * negative errno when it cannot be told (the last one told stays). The
	 * sink then writes no rows of its own: each point's analyzer (a fan-out,
	 * analyze/fanout.h) gets a sink of rt_an_timeline_point_sink() that
	 * writes its rows to this one's output, which this one ends.
	 */
	int (*vantage_name)(void *ctx, unsigned point, char *name, size_t size);
	void *vantage_ctx;
};
/* Timeline rows (analyze/README.md, Timeline), written as buckets end. */
int rt_an_timeline_sink(FILE *fp, const struct rt_an_timeline_opts *opts, struct rt_an_sink *out,
                        char *errbuf);
/*
 * The sink of capture point `point`'s own analyzer for a timeline by point:
 * `ctx` is the ctx of the sink rt_an_timeline_sink() made with vantage_name
 * (an rt_an_fanout_sink_fn); it ends before that one.
 */
int rt_an_timeline_point_sink(void *ctx, unsigned point, struct rt_an_sink *out, char *errbuf);

/* The HTML report (docs/REPORT.md): one self-contained page with charts, written at rt_analyzer_report(). */
struct rt_an_html;
/*
 * The page's flow table lists at most this many flows, those with the most bytes; its data says how
 * many more there are (the page grows with the flows it lists, not with the capture's).
 */
#define RT_AN_HTML_MAX_FLOWS 20000
struct rt_an_html_opts {
	uint64_t bucket_ns;       /* the finest time step of the charts (required) */
	const char *title;        /* the page's title */
	const char *const *files; /* the capture files, as named on the command line */
	unsigned nfiles;
	const char *counters; /* the side files, or NULL */
	const char *source_log;
	const char
	    *bucket_note; /* how bucket_ns was chosen when --bucket did not give it, or NULL */
	unsigned threads; /* that may compress the page's data (0 or 1: the caller alone) */
};
/*
 * The strings of `opts` stay the caller's until the analyzer is freed.
 * *html (when not NULL) is the page, for rt_an_html_input_error(). Fails
 * with -ENOTSUP when rocetrace was built without the charting library.
 */
int rt_an_report_html_sink(FILE *fp, const struct rt_an_html_opts *opts, struct rt_an_sink *out,
                           struct rt_an_html **html, char *errbuf);
/* What went wrong reading the capture (the page says so) and the exit status the command ends with. */
void rt_an_html_input_error(struct rt_an_html *h, const char *message, int exit_status);

#endif

/* analyze's partial results: writing one vantage point's (--partial OUT), and merging those given as inputs (tools/analyze_partial.c). */
#ifndef RT_TOOLS_ANALYZE_PARTIAL_H
#define RT_TOOLS_ANALYZE_PARTIAL_H

#include "tools/analyze_options.h"

/*
 * When the inputs are partial results (their magic, rt_partial_is): they
 * are read, merged and reported (--json or text; timeline and report:
 * rt_analyze_partial_replay), and the exit status is returned; a mix of
 * partials and captures, the options a partial fixes where it is made and
 * those that need the captures are usage errors (2). -1: the inputs are
 * captures.
 */
int rt_analyze_partial_inputs(struct rt_analyze_args *a);
/* --partial's own checks (no --vantage, no standard input, no --json; OUT can be written): 0, or the exit status after its line. */
int rt_analyze_partial_check(const struct rt_analyze_args *a);
/*
 * The finished analyzer's partial (--partial OUT, --point NAME, the
 * host's name by default) written, one line on stderr saying what it
 * holds. Returns the exit status.
 */
int rt_analyze_partial_write(const struct rt_analyze_args *a, struct rt_analyzer *an);

struct rt_partial;
/*
 * timeline or report of partial results p[0..n-1], whose merged view (or
 * the one partial's) is r: their merged buckets (at --bucket, a multiple
 * of each partial's; else one for their span) and r through the sinks a
 * capture's go through (rt_analyzer_replay). Returns the exit status.
 */
int rt_analyze_partial_replay(struct rt_analyze_args *a, struct rt_partial *const *p, size_t n,
                              const struct rt_results *r);

/* The warnings w[0..n-1] on stderr, a line each ("rocetrace CMD: warning: ..."), long ones wrapped. */
void rt_analyze_warn_lines(const char *cmd, const struct rt_an_warning *w, unsigned n);

#endif

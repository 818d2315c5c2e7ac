/* analyze's partial results: writing one vantage point's (--partial OUT), and merging those given as inputs (tools/analyze_partial.c). */
#ifndef RT_TOOLS_ANALYZE_PARTIAL_H
#define RT_TOOLS_ANALYZE_PARTIAL_H

#include "tools/analyze_options.h"

/*
 * When the inputs are partial results (their magic, rt_partial_is): they
 * are read, merged and reported (--json or text), and the exit status is
 * returned; a mix of partials and captures, timeline or report of
 * partials, and the options a partial fixes where it is made are usage
 * errors (2). -1: the inputs are captures.
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

#endif

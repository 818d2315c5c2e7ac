/* The verdict, a function of the results view: the same sentences in analyze, analyze --json and report. */
#ifndef RT_ANALYZE_VERDICT_H
#define RT_ANALYZE_VERDICT_H

#include "analyze/results.h"

/*
 * The verdict on the view `r` (every field of it but r->verdict), into *v
 * (analyze/README.md, "Verdict"): the flows it names are those --flow
 * selects; the totals are the capture's. 0, or -ENOMEM.
 */
int rt_verdict_build(const struct rt_results *r, struct rt_verdict *v);

#endif

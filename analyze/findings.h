/* The findings: what is wrong, where and what to change, judged on the results view (docs/FINDINGS.md). */
#ifndef RT_ANALYZE_FINDINGS_H
#define RT_ANALYZE_FINDINGS_H

#include "analyze/results.h"

/*
 * The findings of the view `r` (every field but r->findings, r->verdict),
 * most severe first (then in the order docs/FINDINGS.md lists the codes),
 * up to `max` into out; returns how many. Every flow counts, whatever
 * --flow selects: a finding is about the network.
 */
int an_findings_build(const struct rt_results *r, struct rt_finding *out, unsigned max);

#endif

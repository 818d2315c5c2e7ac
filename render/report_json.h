/* The JSON report's one document (analyze --json) from the results view, for the sinks that embed it: the HTML report. */
#ifndef RT_RENDER_REPORT_JSON_H
#define RT_RENDER_REPORT_JSON_H

#include "analyze/results.h"
#include "common/json.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * Write the document `rocetrace analyze --json` prints (every key in analyze/README.md), newline
 * ended. `listed` (one flag per flow id, from an_report_flows_listed()) keeps "flows" to the flows
 * it marks; NULL lists every flow --flow selects.
 */
void an_report_json(const struct rt_results *r, struct rt_json *j, const bool *listed);

/*
 * The flows a document lists when it holds at most `max` of them: *selected is how many --flow
 * selects; when that is more than `max`, *listed (malloc'd, one flag per flow id) marks the `max`
 * of them with the most bytes (equal bytes: the first seen), else *listed is NULL (every one fits).
 * 0 or -ENOMEM.
 */
int an_report_flows_listed(const struct rt_results *r, uint64_t max, bool **listed,
                           uint64_t *selected);

/* The pieces report_json.c builds the document from (their values: render/report_json_values.h). */

/* {"not_ect":N,"ect0":N,"ect1":N,"ce":N} from counts indexed by the ECN codepoint */
void an_report_json_ecn(struct rt_json *j, const uint64_t ecn[4]);
/* "findings": the view's findings, most severe first (render/report_json_findings.c). */
void an_report_json_findings(const struct rt_results *r, struct rt_json *j);
/* One flow's object in "flows". */
void an_report_json_flow(const struct rt_results *r, struct rt_json *j,
                         const struct rt_res_flow *f);

#endif

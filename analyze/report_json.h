/* The JSON report's one document (analyze --json), for the sinks that embed it: the HTML report. */
#ifndef RT_ANALYZE_REPORT_JSON_H
#define RT_ANALYZE_REPORT_JSON_H

#include "analyze/types.h"
#include "common/json.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * Write the document `rocetrace analyze --json` prints (every key in analyze/README.md), newline
 * ended. `listed` (one flag per flow id, from an_report_flows_listed()) keeps "flows" to the flows
 * it marks; NULL lists every flow --flow selects. 0, or -ENOMEM (nothing written).
 */
int an_report_json(const struct rt_analyzer *an, struct rt_json *j, const bool *listed);

/*
 * The flows a document lists when it holds at most `max` of them: *selected is how many --flow
 * selects; when that is more than `max`, *listed (malloc'd, one flag per flow id) marks the `max`
 * of them with the most bytes (equal bytes: the first seen), else *listed is NULL (every one fits).
 * 0 or -ENOMEM.
 */
int an_report_flows_listed(const struct rt_analyzer *an, uint64_t max, bool **listed,
                           uint64_t *selected);

#endif

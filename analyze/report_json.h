/* The JSON report's one document (analyze --json), for the sinks that embed it: the HTML report. */
#ifndef RT_ANALYZE_REPORT_JSON_H
#define RT_ANALYZE_REPORT_JSON_H

#include "analyze/types.h"
#include "common/json.h"

/* Write the document `rocetrace analyze --json` prints (every key in analyze/README.md), newline ended. */
void an_report_json(const struct rt_analyzer *an, struct rt_json *j);

#endif

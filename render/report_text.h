/* The text report's pieces shared by its files: durations as it writes them, the findings and the sender reaction blocks. */
#ifndef RT_RENDER_REPORT_TEXT_H
#define RT_RENDER_REPORT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/results.h"
#include "common/outbuf.h"

/* A duration: "1.250 s", "3.500 ms", "8.7 us", "850 ns" (render/report_text_duration.c, rt_fmt_duration). */
void an_text_ns(struct rt_outbuf *o, uint64_t ns);
/* "Findings:", the block that opens the report (render/report_text_findings.c). */
void an_text_findings(const struct rt_results *r, struct rt_outbuf *o);
/* "Sender reaction to CNPs": each selected flow's RP reaction on the wire and in its source log. */
void an_text_rp(const struct rt_results *r, struct rt_outbuf *o);

#endif

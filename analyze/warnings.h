/* Warnings about the capture itself (rt_analyzer_warnings()), and the capture's own drops they and the results view name. */
#ifndef RT_ANALYZE_WARNINGS_H
#define RT_ANALYZE_WARNINGS_H

#include <stdbool.h>
#include <stdint.h>

struct rt_analyzer;
/*
 * Frames the capture dropped (its pcapng statistics, else the counters
 * file), by interface and OS/capture; returns where they come from
 * ("pcapng", "counters_file"), NULL when nothing records them.
 */
const char *an_capture_drops(const struct rt_analyzer *an, uint64_t *if_dropped,
                             uint64_t *os_dropped);

/*
 * ECN is off: more than half the RoCE data packets with an IP header (CNPs
 * aside) are Not-ECT. No switch can mark them: "no CE mark" says nothing
 * about congestion. *not_ect, *packets: those counts.
 */
bool an_ecn_off(const struct rt_analyzer *an, uint64_t *not_ect, uint64_t *packets);

#endif

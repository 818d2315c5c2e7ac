/* Incast: the receiver that two or more senders feed, named only with evidence of congestion there. */
#ifndef RT_ANALYZE_INCAST_H
#define RT_ANALYZE_INCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flows.h"

struct an_incast {
	const struct an_flow *any; /* a flow into the receiver (its dst, ipver) */
	uint32_t senders, flows;
	uint64_t bytes, ce, first, last;
	unsigned evidence; /* enum rt_incast_evidence bits (analyze/results.h) */
};

/*
 * The hot receiver among those two or more senders feed, with evidence of
 * congestion (CE marks, pauses, losses, a full link at link_bps): most CE
 * marks, then most senders, then most bytes. False when there is none; then
 * *quiet is the receiver such a one would have been without the evidence
 * (its `any` NULL when no receiver has two senders).
 */
bool an_incast_find(const struct an_flowtab *ft, bool paused, uint64_t link_bps,
                    struct an_incast *best, struct an_incast *quiet);

#endif

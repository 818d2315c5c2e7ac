/* Incast: the receiver that two or more senders feed with the most CE-marked data. */
#ifndef RT_ANALYZE_INCAST_H
#define RT_ANALYZE_INCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flows.h"

struct an_incast {
	const struct an_flow *any; /* a flow into the receiver (its dst, ipver) */
	uint32_t senders, flows;
	uint64_t bytes, ce, first, last;
};

/* The hot receiver: most CE marks, then most senders, then most bytes; false unless 2+ senders feed it. */
bool an_incast_find(const struct an_flowtab *ft, struct an_incast *best);

#endif

/* Incast: the receiver that two or more senders feed, named only with evidence of congestion there. */
#ifndef RT_ANALYZE_INCAST_H
#define RT_ANALYZE_INCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flows.h"

/* What shows congestion at a receiver (an_incast.evidence). */
enum an_incast_evidence {
	AN_INCAST_CE = 1u << 0,        /* CE marks on its flows */
	AN_INCAST_PAUSE = 1u << 1,     /* PFC/PAUSE pauses in the capture */
	AN_INCAST_LOSS = 1u << 2,      /* PSN gaps, resends or NAKs on its flows */
	AN_INCAST_LINK_FULL = 1u << 3, /* its flows together at 95% of the link speed or more */
};
#define AN_INCAST_EVIDENCE_KINDS 4

struct an_incast {
	const struct an_flow *any; /* a flow into the receiver (its dst, ipver) */
	uint32_t senders, flows;
	uint64_t bytes, ce, first, last;
	unsigned evidence; /* enum an_incast_evidence bits */
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
/* The name of evidence bit k (0 .. AN_INCAST_EVIDENCE_KINDS - 1): "ce", "pause", "loss", "link_full". */
const char *an_incast_evidence_name(unsigned k);

#endif

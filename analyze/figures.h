/* Figures the results view derives from the counts: rates, shares of ECN codepoints. */
#ifndef RT_ANALYZE_FIGURES_H
#define RT_ANALYZE_FIGURES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/types.h"

/* Gb/s (bits per ns) of `bytes` over the span first..last; NaN (unknown) when it is empty. */
static inline double an_rate_gbps(uint64_t bytes, uint64_t first, uint64_t last)
{
	return last > first ? (double)bytes * 8.0 / (double)(last - first) : NAN;
}

/* Gb/s over ns nanoseconds; NaN (unknown) over none. */
static inline double an_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : NAN;
}

/* Some PFC class or 802.3x PAUSE was paused at some time. */
static inline bool an_paused_any(const uint64_t paused_ns[RT_AN_PFC_CLASSES])
{
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		if (paused_ns[c])
			return true;
	return false;
}

/* What share of the packets with an ECN field carried ECT(0), ECT(1) or CE; NaN when none had one. */
static inline double an_ect_share(const uint64_t ecn[4])
{
	uint64_t all = ecn[0] + ecn[1] + ecn[2] + ecn[3];
	return all ? (double)(ecn[1] + ecn[2] + ecn[3]) / (double)all : NAN;
}

/* ... CE alone. */
static inline double an_ce_share(const uint64_t ecn[4])
{
	uint64_t all = ecn[0] + ecn[1] + ecn[2] + ecn[3];
	return all ? (double)ecn[3] / (double)all : NAN;
}

#endif

/* The analyzer's running totals, counted by the parts that see each event. */
#ifndef RT_ANALYZE_TOTALS_H
#define RT_ANALYZE_TOTALS_H

#include <stdint.h>

#include "analyze/types.h"

struct an_totals {
	/* frames (copies included), RoCE, CE, CNP, NAK, resends, bad ICRCs (its PFC arrays unused:
	 * analyze/pfc.h counts those) */
	struct rt_an_counts c;
	uint64_t ecn[4]; /* codepoints of RoCE packets with an IP header */
	uint64_t cnp_unattributed, nak_unattributed; /* matched no flow (yet) */
	uint64_t malformed, truncated, other;
	uint64_t copies, copy_bytes; /* frames that were copies of counted packets */
};

#endif

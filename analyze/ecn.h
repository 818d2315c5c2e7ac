/* ECN marks and CNPs: counted on their flows, the CNP on the data flow it throttles, fed to the NP/RP reactions. */
#ifndef RT_ANALYZE_ECN_H
#define RT_ANALYZE_ECN_H

#include <stdint.h>

#include "analyze/buckets.h"
#include "analyze/episodes.h"
#include "analyze/flows.h"
#include "analyze/pairing.h"
#include "analyze/pfc.h"
#include "analyze/rp.h"
#include "analyze/totals.h"

struct an_ecn {
	struct an_flowtab *ft;
	struct an_pairing *pair;
	struct an_totals *tot;
	struct an_buckets *bk;
	struct an_episodes *ep;
	const struct an_pfc *pfc; /* a pause running keeps an episode open */
	struct an_rp_ctx *rpx;    /* the RP reaction's windows and links */
	struct an_follow fw;      /* which vantage point's frames a flow follows */
};

/* A CE-marked packet of flow fi, frame number `frame` (counted in its ECN codepoints here). */
void an_ecn_ce(struct an_ecn *e, uint32_t fi, const struct rt_record *rec, uint64_t frame,
               struct rt_an_note *note);
/*
 * A CNP in flow ri at vantage point `point` (-1: none): counted (feed
 * AN_FEED_COUNT) on the data flow it throttles, or kept until a pairing names
 * it; it starts the RP windows where the data flow is followed at that point
 * (AN_FEED_FOLLOW).
 */
void an_ecn_cnp(struct an_ecn *e, uint32_t ri, const struct rt_record *rec, struct rt_an_note *note,
                int point, unsigned feed);
/*
 * Flow `data` and flow `carrier` (the other way) just paired (the pairing's
 * linked callback; ctx: struct an_ecn): the CNPs the carrier kept count on
 * the data flow now, and the NP reaction replays what both logged.
 */
void an_ecn_settle(void *ctx, uint32_t data, uint32_t carrier);

#endif

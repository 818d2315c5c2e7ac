/* Per-flow transport: request PSNs (gaps, resends, go-back-N, timeouts), responses (ACK/NAK/RNR), RTT, UD. */
#ifndef RT_ANALYZE_TRANSPORT_H
#define RT_ANALYZE_TRANSPORT_H

#include <stdint.h>

#include "analyze/buckets.h"
#include "analyze/flows.h"
#include "analyze/pairing.h"
#include "analyze/totals.h"

/* What the transport handlers share: the flows, their pairing, the totals, the buckets. */
struct an_transport {
	struct an_flowtab *ft;
	struct an_pairing *pair;
	struct an_totals *tot;
	struct an_buckets *bk;
	struct an_follow fw; /* which vantage point's frames a flow follows */
};

/*
 * An RC/UC/XRC request of flow f (index fi) with opcode flags opf, transport tr,
 * frame number `frame` (note: may be NULL), at vantage point `point` (-1: none),
 * fed as `feed` (enum an_feed: counted, followed where it is the flow's home).
 */
void an_tr_request(struct an_transport *t, uint32_t fi, const struct rt_record *rec, uint8_t tr,
                   uint16_t opf, struct rt_an_note *note, int point, unsigned feed);
/* An ACK, NAK, RNR NAK or read response in flow ri, for the requester the other way (its home). */
void an_tr_response(struct an_transport *t, uint32_t ri, const struct rt_record *rec, uint16_t opf,
                    uint64_t frame, struct rt_an_note *note, int point, unsigned feed);
/* A UD send of flow fi: its DETH source QP names the other side. */
void an_tr_ud(struct an_transport *t, uint32_t fi, const struct rt_record *rec);

#endif

/* RDMA CM on QP 1: REQs remembered until their REP names the other QP, and both flows pair. */
#ifndef RT_ANALYZE_CM_H
#define RT_ANALYZE_CM_H

#include <stdint.h>

#include "analyze/pairing.h"

struct an_cm_req {
	uint8_t src[16], dst[16];
	uint8_t ipver;
	uint32_t comm_id, qpn;
};

/* The REQs of one shard of host pairs (an_pair_shard) waiting for their REP, oldest first. */
struct an_cm_pending {
	struct an_cm_req *reqs;
	uint32_t n, cap;
};

/*
 * Pending REQs are kept per shard of host pairs, each shard's oldest
 * forgotten past CM_MAX_PENDING, so what one shard keeps depends on its
 * own REQs only: an analysis split by host pair keeps the same.
 */
struct an_cm {
	struct an_cm_pending *shard; /* AN_SHARDS of them, made at the first REQ */
	uint64_t pairs;              /* REQ/REP matched */
};

void an_cm_free(struct an_cm *cm);
/* A REQ or REP the dissector decoded (RT_L_CM): a REP pairs the flows its REQ and it name. */
void an_cm_mad(struct an_cm *cm, struct an_pairing *p, const struct rt_record *rec);

#endif

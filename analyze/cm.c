/* RDMA CM on QP 1: REQ and REP (decoded by dissect/cm.c) name both sides' QPs, so their flows pair before any data. */
#include "analyze/cm.h"

#include <stdlib.h>
#include <string.h>

#define CM_MAX_PENDING 1024 /* REQs waiting for their REP, per shard of host pairs */

void an_cm_free(struct an_cm *cm)
{
	for (unsigned i = 0; cm->shard && i < AN_SHARDS; i++)
		free(cm->shard[i].reqs);
	free(cm->shard);
	cm->shard = NULL;
}

static void remember_req(struct an_cm_pending *cm, const struct rt_record *rec, uint32_t comm_id,
                         uint32_t qpn)
{
	if (cm->n == cm->cap) {
		if (cm->cap == CM_MAX_PENDING) {
			/* forget the oldest */
			memmove(cm->reqs, cm->reqs + 1, (cm->n - 1) * sizeof(*cm->reqs));
			cm->n--;
		} else {
			uint32_t ncap = cm->cap ? cm->cap * 2 : 8;
			struct an_cm_req *n = realloc(cm->reqs, ncap * sizeof(*n));
			if (!n)
				return;
			cm->reqs = n;
			cm->cap = ncap;
		}
	}
	struct an_cm_req *r = &cm->reqs[cm->n++];
	memset(r, 0, sizeof(*r));
	r->ipver = rec->ip_version == 4 ? 4 : 6;
	memcpy(r->src, rec->src_ip, 16);
	memcpy(r->dst, rec->dst_ip, 16);
	r->comm_id = comm_id;
	r->qpn = qpn;
}

void an_cm_mad(struct an_cm *an_cm, struct an_pairing *p, const struct rt_record *rec)
{
	uint8_t ipver = rec->ip_version == 4 ? 4 : 6;
	size_t n = ipver == 4 ? 4 : 16;
	if (rec->cm.attr != RT_CM_ATTR_REQ && rec->cm.attr != RT_CM_ATTR_REP)
		return;
	if (!an_cm->shard && !(an_cm->shard = calloc(AN_SHARDS, sizeof(*an_cm->shard))))
		return;
	struct an_cm_pending *cm = &an_cm->shard[an_pair_shard(rec)];
	if (rec->cm.attr == RT_CM_ATTR_REQ) {
		remember_req(cm, rec, rec->cm.local_comm_id, rec->cm.local_qpn);
		return;
	}
	uint32_t remote_comm = rec->cm.remote_comm_id, qpn = rec->cm.local_qpn;
	for (uint32_t i = cm->n; i-- > 0;) {
		struct an_cm_req *r = &cm->reqs[i];
		if (r->ipver != ipver || r->comm_id != remote_comm ||
		    memcmp(r->src, rec->dst_ip, n) || memcmp(r->dst, rec->src_ip, n))
			continue;
		struct an_cm_req req = *r;
		memmove(r, r + 1, (cm->n - i - 1) * sizeof(*r));
		cm->n--;
		/* requester A -> responder B carries B's QP (the REP's), and the other way */
		struct rt_an_flow_key ka, kb;
		an_key_from(&ka, req.ipver, req.src, req.dst, qpn);
		an_key_from(&kb, req.ipver, req.dst, req.src, req.qpn);
		if (an_pair_cm(p, &ka, &kb))
			an_cm->pairs++;
		return;
	}
}

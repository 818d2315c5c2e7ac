/* RDMA CM on QP 1: REQ and REP (decoded by dissect/cm.c) name both sides' QPs, so their flows pair before any data. */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

#define CM_MAX_PENDING 1024

static void remember_req(struct rt_analyzer *an, const struct rt_record *rec, uint32_t comm_id,
			 uint32_t qpn)
{
	if (an->ncm == an->cap_cm) {
		if (an->cap_cm == CM_MAX_PENDING) {
			/* forget the oldest */
			memmove(an->cm, an->cm + 1, (an->ncm - 1) * sizeof(*an->cm));
			an->ncm--;
		} else {
			uint32_t ncap = an->cap_cm ? an->cap_cm * 2 : 8;
			struct an_cm_req *n = realloc(an->cm, ncap * sizeof(*n));
			if (!n)
				return;
			an->cm = n;
			an->cap_cm = ncap;
		}
	}
	struct an_cm_req *r = &an->cm[an->ncm++];
	memset(r, 0, sizeof(*r));
	r->ipver = rec->ip_version == 4 ? 4 : 6;
	memcpy(r->src, rec->src_ip, 16);
	memcpy(r->dst, rec->dst_ip, 16);
	r->comm_id = comm_id;
	r->qpn = qpn;
}

static void unlink_flow(struct rt_analyzer *an, uint32_t fi)
{
	struct an_flow *f = &an->flows[fi];
	if (f->reverse == AN_NONE)
		return;
	struct an_flow *o = &an->flows[f->reverse];
	o->reverse = AN_NONE;
	o->peer_qp = AN_NONE;
	o->pairing = AN_PAIR_NONE;
	f->reverse = AN_NONE;
}

static void pair_cm(struct rt_analyzer *an, const struct an_cm_req *req, uint32_t rep_qpn)
{
	struct an_key ka, kb;
	/* requester A → responder B carries B's QP, and the other way */
	an_key_from(&ka, req->ipver, req->src, req->dst, rep_qpn);
	an_key_from(&kb, req->ipver, req->dst, req->src, req->qpn);
	uint32_t a = an_flow_get(an, &ka, true);
	if (a == AN_NONE)
		return;
	uint32_t b = an_flow_get(an, &kb, true);
	if (b == AN_NONE || a == b)
		return;
	if (an->flows[a].reverse != b) {
		unlink_flow(an, a);
		unlink_flow(an, b);
	}
	an_link(an, a, b, AN_PAIR_CM);
	an->cm_pairs++;
}

void an_cm_mad(struct rt_analyzer *an, const struct rt_record *rec)
{
	uint8_t ipver = rec->ip_version == 4 ? 4 : 6;
	size_t n = ipver == 4 ? 4 : 16;
	if (rec->cm.attr == RT_CM_ATTR_REQ) {
		remember_req(an, rec, rec->cm.local_comm_id, rec->cm.local_qpn);
	} else if (rec->cm.attr == RT_CM_ATTR_REP) {
		uint32_t remote_comm = rec->cm.remote_comm_id, qpn = rec->cm.local_qpn;
		for (uint32_t i = an->ncm; i-- > 0;) {
			struct an_cm_req *r = &an->cm[i];
			if (r->ipver == ipver && r->comm_id == remote_comm && !memcmp(r->src, rec->dst_ip, n) &&
			    !memcmp(r->dst, rec->src_ip, n)) {
				struct an_cm_req req = *r;
				memmove(r, r + 1, (an->ncm - i - 1) * sizeof(*r));
				an->ncm--;
				pair_cm(an, &req, qpn);
				break;
			}
		}
	}
}

/* The findings' unit tests' results view: a hand-built view, its flows and parts, its findings. */
#ifndef RT_TEST_ANALYZE_FINDINGS_VIEW_H
#define RT_TEST_ANALYZE_FINDINGS_VIEW_H

/* include after <cmocka.h>: the helpers assert */
#include <stdint.h>
#include <string.h>

#include "analyze/findings.h"

#define T0   1700000000000000000ull
#define US   1000ull
#define MS   1000000ull
#define MAXF 16

/* A view and the arrays it points into. */
struct view {
	struct rt_results r;
	struct rt_res_flow flows[MAXF];
	struct rt_res_transport x[MAXF];
	struct rt_res_np np[MAXF];
	struct rt_res_rp rp[MAXF];
	struct rt_res_incident inc[2];
	struct rt_res_mac macs[4];
	struct rt_res_pfc_source src[4];
	uint64_t mac_bits[4], src_bits[4]; /* the words of the MACs' and sources' point sets */
	struct rt_res_path paths[2];
	unsigned path_ix[MAXF];
	struct rt_finding out[RT_FINDINGS_MAX];
	int n;
};

/* A point set of one word, `bits` (bit p: point p), held in *w. */
static inline struct rt_res_points point_set(uint64_t *w, uint64_t bits)
{
	*w = bits;
	return (struct rt_res_points){.nwords = 1, .words = w};
}

/* One second of RoCE, nothing else. */
static inline void init(struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->r.c.packets = v->r.c.roce_packets = 1000;
	v->r.any_frame = true;
	v->r.start_ns = T0;
	v->r.end_ns = T0 + 1000 * MS;
	v->r.storm_ns = 10 * MS;
	v->r.flows = v->flows;
	v->r.incidents = v->inc;
	v->r.macs = v->macs;
	v->r.pfc_sources = v->src;
	v->r.paths = v->paths;
}

/* A data flow 10.0.0.src > 10.0.0.dst, QP qp: 100 ECT(0) requests over the second. */
static inline struct rt_res_flow *flow(struct view *v, uint8_t src, uint8_t dst, uint32_t qp)
{
	assert_true(v->r.nflows < MAXF);
	struct rt_res_flow *f = &v->flows[v->r.nflows];
	f->id = v->r.nflows++;
	f->key.ipver = 4;
	f->key.src[0] = f->key.dst[0] = 10;
	f->key.src[3] = src;
	f->key.dst[3] = dst;
	f->key.dest_qp = qp;
	f->peer_qp = RT_AN_NONE;
	f->requests = f->packets = f->ecn[2] = 100;
	f->first_ns = T0;
	f->last_ns = T0 + 999 * MS;
	f->dscp = 26;
	f->udp_sport_known = true;
	f->udp_sport = (uint16_t)(49152 + qp);
	f->selected = true;
	return f;
}

/* Its transport, NP and RP parts. */
static inline struct rt_res_transport *xport(struct view *v, struct rt_res_flow *f)
{
	f->xport = &v->x[f->id];
	return &v->x[f->id];
}

/* Its RP reaction, seen from the senders' side: `measured` CNPs, their median drop and upper quartile. */
static inline struct rt_res_rp *rp(struct view *v, struct rt_res_flow *f, uint64_t measured,
                                   double median, double p75)
{
	struct rt_res_rp *p = &v->rp[f->id];
	*p = (struct rt_res_rp){.cnps = measured,
	                        .measured = measured,
	                        .median_drop_pct = median,
	                        .drop_p75_pct = p75,
	                        .max_drop_pct = p75,
	                        .capture_side = "sender"};
	f->rp = p;
	return p;
}

/* The findings of the view; the one of `code` (NULL: none). */
static inline const struct rt_finding *judge(struct view *v, const char *code)
{
	v->n = an_findings_build(&v->r, v->out, RT_FINDINGS_MAX);
	assert_true(v->n >= 0);
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->out[i].code, code))
			return &v->out[i];
	return NULL;
}

static inline const struct rt_evidence *evidence(const struct rt_finding *f, const char *name)
{
	for (unsigned i = 0; i < f->nevidence; i++)
		if (!strcmp(f->evidence[i].name, name))
			return &f->evidence[i];
	fail_msg("%s has no evidence %s", f->code, name);
	return NULL;
}

#endif

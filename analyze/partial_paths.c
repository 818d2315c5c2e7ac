/* Merging partials: the vantage points and the paths between them, from the points' sampled packets replayed through the matcher. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/partial_merge.h"
#include "analyze/vantage.h"
#include "common/errbuf.h"

/*
 * One pass over the points' files reads them merged by their raw clocks
 * and hands every frame to the matcher (analyze/vantage.c) at the stream's
 * time. The replay does the same with what the partials kept: each point's
 * sampled packets, between two frames without a packet standing for the
 * point's first and last frame (its capture span: when it starts to count
 * as a point, and the times the misses are judged by). When a second
 * point's first frame comes, the packets the first point saw more than
 * the window before it have left the window in one pass (its frames close
 * them as they come): a frame at the first point then, when it was
 * capturing, closes them here too.
 */

/* Where the replay is in one point: its first frame, its packets, its last frame. */
struct cursor {
	const struct rt_partial *p;
	uint64_t next; /* 0: the first frame; 1 + k: packet k; 1 + npackets: the last frame */
	bool done;
};

/* The time of the cursor's next event. */
static uint64_t cursor_ts(const struct cursor *c)
{
	if (c->next == 0)
		return c->p->r->start_ns;
	if (c->next <= c->p->npackets)
		return c->p->packets[c->next - 1].ts_ns;
	return c->p->r->end_ns;
}

/* The record the matcher reads of a packet (or of a frame without one) at point `point`. */
static void packet_record(struct rt_record *rec, unsigned point, uint64_t ts,
                          const struct rt_partial_packet *k)
{
	memset(rec, 0, sizeof(*rec));
	rec->point = (uint16_t)point;
	rec->ts_ns = ts;
	if (!k)
		return;
	rec->ip_version = k->ipver;
	rec->layers = k->ipver == 4 ? RT_L_IPV4 : RT_L_IPV6;
	rec->ecn = k->ecn;
	rec->ttl = k->ttl;
	memcpy(rec->src_ip, k->src, sizeof(rec->src_ip));
	memcpy(rec->dst_ip, k->dst, sizeof(rec->dst_ip));
}

/*
 * Point `point`'s first frame at ts: when one other point alone was seen so
 * far and it was capturing then, a frame of it at ts first (its window's
 * packets older than that leave, as its frames in one pass made them).
 */
static void first_frame(struct an_vantage *v, struct cursor *cur, unsigned point, uint64_t ts,
                        uint64_t now)
{
	struct rt_record rec;
	if (!v->matching && v->only >= 0 && (unsigned)v->only != point) {
		const struct rt_results *o = cur[v->only].p->r;
		if (o->start_ns <= ts && o->end_ns >= ts) {
			packet_record(&rec, (unsigned)v->only, ts, NULL);
			an_vp_frame(v, &rec, 0, false, now);
		}
	}
	packet_record(&rec, point, ts, NULL);
	an_vp_frame(v, &rec, 0, false, now);
}

/* Every point's events in the order of their raw times (the lower point first on a tie) through v. */
static void replay(struct an_vantage *v, struct cursor *cur, unsigned n)
{
	uint64_t now = 0;
	for (;;) {
		int best = -1;
		uint64_t bt = 0;
		for (unsigned i = 0; i < n; i++)
			if (!cur[i].done && (best < 0 || cursor_ts(&cur[i]) < bt)) {
				best = (int)i;
				bt = cursor_ts(&cur[i]);
			}
		if (best < 0)
			return;
		struct cursor *c = &cur[best];
		if (bt > now)
			now = bt;
		struct rt_record rec;
		if (c->next == 0) {
			first_frame(v, cur, (unsigned)best, bt, now);
		} else if (c->next <= c->p->npackets) {
			const struct rt_partial_packet *k = &c->p->packets[c->next - 1];
			if (k->flags & RT_PP_SAMPLED) {
				packet_record(&rec, (unsigned)best, bt, k);
				an_vp_frame(v, &rec, k->fp, false, now);
			}
		} else {
			packet_record(&rec, (unsigned)best, bt, NULL);
			an_vp_frame(v, &rec, 0, false, now);
		}
		c->done = c->next++ > c->p->npackets;
	}
}

/* The points as the merged view names them (strings in its arena). 0 or -ENOMEM. */
static int describe(struct an_pm *m, struct rt_an_vantage **out)
{
	struct rt_an_vantage *vp = an_res_alloc(m->out, m->n * sizeof(*vp));
	if (!vp)
		return -ENOMEM;
	for (unsigned i = 0; i < m->n; i++) {
		const struct rt_partial *p = m->p[i];
		const char **files =
		    an_res_alloc(m->out, (p->nfiles ? p->nfiles : 1) * sizeof(*files));
		const char *name = an_pm_str(m, p->point ? p->point : "");
		if (!files || !name)
			return -ENOMEM;
		for (unsigned k = 0; k < p->nfiles; k++)
			if (!(files[k] = an_pm_str(m, p->files[k] ? p->files[k] : "")))
				return -ENOMEM;
		vp[i] = (struct rt_an_vantage){
		    .name = name, .nfiles = p->nfiles, .files = files, .frames = p->r->c.packets};
	}
	*out = vp;
	return 0;
}

/* The paths of v (described, finished) into the view, and each merged flow's. 0 or -ENOMEM. */
static int paths_out(struct an_pm *m, const struct an_vantage *v, const struct an_vp_result *vr)
{
	struct rt_results *r = &m->out->r;
	struct rt_res_path *pp = an_res_alloc(m->out, (vr->npaths ? vr->npaths : 1) * sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	for (unsigned i = 0; i < vr->npaths; i++)
		an_res_path(&pp[i], &vr->path[i], r->vantage);
	r->paths = pp;
	r->npaths = vr->npaths;
	for (uint32_t id = 0; id < m->nflows; id++)
		if (an_res_flow_paths(m->out, &m->flows[id], v, vr) < 0)
			return -ENOMEM;
	return 0;
}

int an_pm_paths(struct an_pm *m, char *errbuf)
{
	struct rt_results *r = &m->out->r;
	struct rt_an_vantage *vp;
	if (m->n > AN_VP_POINTS)
		return rt_errmsg(errbuf, EINVAL, "%u partials: at most %u vantage points merge",
		                 m->n, AN_VP_POINTS);
	if (describe(m, &vp) < 0)
		return rt_errorf(errbuf, ENOMEM, "vantage points");
	r->vantage = vp;
	r->nvantage = m->n;
	struct cursor cur[AN_VP_POINTS];
	for (unsigned i = 0; i < m->n; i++)
		cur[i] = (struct cursor){.p = m->p[i], .done = !m->p[i]->r->any_frame};
	struct an_vantage v;
	struct an_vp_result vr;
	an_vp_init(&v, true, m->window_ns ? m->window_ns : AN_PM_VANTAGE_WINDOW_NS);
	an_vp_sample(&v, m->p[0]->sample_k, m->p[0]->sample_m);
	replay(&v, cur, m->n);
	an_vp_finish(&v);
	int rc = an_vp_describe(&v, vp, m->n);
	if (rc == 0 && v.nomem)
		rc = -ENOMEM;
	if (rc == 0 && (rc = an_vp_compute(&v, &vr)) == 0) {
		rc = paths_out(m, &v, &vr);
		an_vp_result_free(&vr);
	}
	an_vp_free(&v);
	return rc < 0 ? rt_errorf(errbuf, ENOMEM, "the paths between vantage points") : 0;
}

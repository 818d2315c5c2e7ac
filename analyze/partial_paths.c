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

/*
 * Where the replay is in one point: its first frame, its packets (all, or
 * those idx[0..npackets) names, in time order), its last frame.
 */
struct cursor {
	const struct rt_partial *p;
	const uint64_t *idx; /* NULL: every packet of p */
	uint64_t npackets;
	uint64_t next; /* 0: the first frame; 1 + k: packet k; 1 + npackets: the last frame */
	bool done;
};

/* Packet k of the cursor's. */
static const struct rt_partial_packet *cursor_packet(const struct cursor *c, uint64_t k)
{
	return &c->p->packets[c->idx ? c->idx[k] : k];
}

/* The time of the cursor's next event. */
static uint64_t cursor_ts(const struct cursor *c)
{
	if (c->next == 0)
		return c->p->r->start_ns;
	if (c->next <= c->npackets)
		return cursor_packet(c, c->next - 1)->ts_ns;
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
		} else if (c->next <= c->npackets) {
			const struct rt_partial_packet *k = cursor_packet(c, c->next - 1);
			if (k->flags & RT_PP_SAMPLED) {
				packet_record(&rec, (unsigned)best, bt, k);
				an_vp_frame(v, &rec, k->fp, false, now);
			}
		} else {
			packet_record(&rec, (unsigned)best, bt, NULL);
			an_vp_frame(v, &rec, 0, false, now);
		}
		c->done = c->next++ > c->npackets;
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

/*
 * The points cur[0..n) (described by vp) replayed through a matcher of their
 * own, finished, into *v and *vr (both to free: an_vp_free, and
 * an_vp_result_free when 0 is returned). 0 or -ENOMEM.
 */
static int match(const struct an_pm *m, struct cursor *cur, unsigned n,
                 const struct rt_an_vantage *vp, struct an_vantage *v, struct an_vp_result *vr)
{
	an_vp_init(v, true, m->window_ns ? m->window_ns : AN_PM_VANTAGE_WINDOW_NS);
	an_vp_sample(v, m->p[0]->sample_k, m->p[0]->sample_m);
	replay(v, cur, n);
	an_vp_finish(v);
	int rc = an_vp_describe(v, vp, n);
	if (rc == 0 && v->nomem)
		rc = -ENOMEM;
	return rc < 0 ? rc : an_vp_compute(v, vr);
}

/* Point i's cursor over its packets idx[0..npackets) (idx NULL: all of them). */
static struct cursor cursor_of(const struct an_pm *m, unsigned i, const uint64_t *idx,
                               uint64_t npackets)
{
	return (struct cursor){.p = m->p[i],
	                       .idx = idx,
	                       .npackets = idx ? npackets : m->p[i]->npackets,
	                       .done = !m->p[i]->r->any_frame};
}

/* ---- more points than one matcher follows: pair by pair ---- */

/*
 * Beyond AN_VP_POINTS points, the paths are those between each pair of
 * points that share a merged flow: the pair's sampled packets of the flows
 * both saw are replayed as above through a matcher of the two alone, so
 * each packet is replayed once for each other point that saw its flow.
 */
struct pairs {
	unsigned n;   /* points */
	uint64_t *fo; /* merged flow g's points: fpt[fo[g] .. fo[g + 1]), ascending */
	uint32_t *fpt;
	uint32_t *pidx;  /* pair i < j -> its number at pidx[i * n + j] (UINT32_MAX: none) */
	uint32_t npairs; /* numbered in the order of (i, j) */
	uint32_t *pi, *pj;
	uint64_t *so; /* pair q's shared flows: sf[so[q] .. so[q + 1]) */
	uint32_t *sf;
	/* pair q's packets at pi[q] (side 0) and at pj[q] (1): pk[ko[2q + s] .. ko[2q + s + 1]) */
	uint64_t *ko, *pk;
};

static void pairs_free(struct pairs *P)
{
	free(P->fo);
	free(P->fpt);
	free(P->pidx);
	free(P->pi);
	free(P->pj);
	free(P->so);
	free(P->sf);
	free(P->ko);
	free(P->pk);
}

/* Counts c[0..n) made offsets (c[n] the total; c has n + 1 entries). */
static void offsets(uint64_t *c, uint64_t n)
{
	uint64_t sum = 0;
	for (uint64_t k = 0; k <= n; k++) {
		uint64_t v = k < n ? c[k] : 0;
		c[k] = sum;
		sum += v;
	}
}

/* Each merged flow's points (P->fo, P->fpt). 0 or -ENOMEM. */
static int flow_points(const struct an_pm *m, struct pairs *P)
{
	if (!(P->fo = calloc(m->nflows + 1, sizeof(*P->fo))))
		return -ENOMEM;
	for (unsigned i = 0; i < m->n; i++)
		for (uint32_t id = 0; id < m->p[i]->r->nflows; id++)
			P->fo[m->flow_id[i][id]]++;
	offsets(P->fo, m->nflows);
	if (!(P->fpt = malloc((P->fo[m->nflows] ? P->fo[m->nflows] : 1) * sizeof(*P->fpt))))
		return -ENOMEM;
	for (unsigned i = 0; i < m->n; i++) /* (each offset moves on to the next, then back) */
		for (uint32_t id = 0; id < m->p[i]->r->nflows; id++)
			P->fpt[P->fo[m->flow_id[i][id]]++] = i;
	for (uint32_t g = m->nflows; g > 0; g--)
		P->fo[g] = P->fo[g - 1];
	P->fo[0] = 0;
	return 0;
}

/* The pair of points a < b (either order). */
static uint32_t pair_at(const struct pairs *P, uint32_t a, uint32_t b)
{
	return a < b ? P->pidx[a * P->n + b] : P->pidx[b * P->n + a];
}

/* The pairs that share a flow, numbered, and the flows each shares (P->so, P->sf). 0 or -ENOMEM. */
static int shared_flows(const struct an_pm *m, struct pairs *P)
{
	size_t nn = (size_t)m->n * m->n;
	if (!(P->pidx = malloc(nn * sizeof(*P->pidx))))
		return -ENOMEM;
	memset(P->pidx, 0xff, nn * sizeof(*P->pidx));
	for (uint32_t g = 0; g < m->nflows; g++)
		for (uint64_t a = P->fo[g]; a < P->fo[g + 1]; a++)
			for (uint64_t b = a + 1; b < P->fo[g + 1]; b++)
				P->pidx[P->fpt[a] * m->n + P->fpt[b]] = 0;
	for (size_t k = 0; k < nn; k++)
		P->npairs += P->pidx[k] == 0;
	P->pi = malloc((P->npairs ? P->npairs : 1) * sizeof(*P->pi));
	P->pj = malloc((P->npairs ? P->npairs : 1) * sizeof(*P->pj));
	P->so = calloc(P->npairs + 1, sizeof(*P->so));
	if (!P->pi || !P->pj || !P->so)
		return -ENOMEM;
	uint32_t q = 0;
	for (size_t k = 0; k < nn; k++)
		if (P->pidx[k] == 0) {
			P->pi[q] = (uint32_t)(k / m->n);
			P->pj[q] = (uint32_t)(k % m->n);
			P->pidx[k] = q++;
		}
	for (int fill = 0; fill < 2; fill++) {
		for (uint32_t g = 0; g < m->nflows; g++)
			for (uint64_t a = P->fo[g]; a < P->fo[g + 1]; a++)
				for (uint64_t b = a + 1; b < P->fo[g + 1]; b++) {
					uint32_t pq = pair_at(P, P->fpt[a], P->fpt[b]);
					if (fill)
						P->sf[P->so[pq]++] = g;
					else
						P->so[pq]++;
				}
		if (fill)
			break;
		offsets(P->so, P->npairs);
		if (!(P->sf = malloc((P->so[P->npairs] ? P->so[P->npairs] : 1) * sizeof(*P->sf))))
			return -ENOMEM;
	}
	for (uint32_t k = P->npairs; k > 0; k--) /* the offsets moved on: back */
		P->so[k] = P->so[k - 1];
	P->so[0] = 0;
	return 0;
}

/* Point i's packet k's merged flow, when it is sampled and has one; else UINT32_MAX. */
static uint32_t packet_flow(const struct an_pm *m, unsigned i, uint64_t k)
{
	const struct rt_partial_packet *pk = &m->p[i]->packets[k];
	if (!(pk->flags & RT_PP_SAMPLED) || pk->flow >= m->p[i]->r->nflows)
		return UINT32_MAX;
	return m->flow_id[i][pk->flow];
}

/* Each pair's packets: a point's sampled packets of each flow, for every other point of it. */
static int pair_packets(const struct an_pm *m, struct pairs *P)
{
	if (!(P->ko = calloc(2 * (uint64_t)P->npairs + 1, sizeof(*P->ko))))
		return -ENOMEM;
	for (int fill = 0; fill < 2; fill++) {
		for (unsigned i = 0; i < m->n; i++)
			for (uint64_t k = 0; k < m->p[i]->npackets; k++) {
				uint32_t g = packet_flow(m, i, k);
				for (uint64_t a = g == UINT32_MAX ? 0 : P->fo[g];
				     g != UINT32_MAX && a < P->fo[g + 1]; a++) {
					uint32_t j = P->fpt[a];
					if (j == i)
						continue;
					uint64_t at = 2 * (uint64_t)pair_at(P, i, j) + (i > j);
					if (fill)
						P->pk[P->ko[at]++] = k;
					else
						P->ko[at]++;
				}
			}
		if (fill)
			break;
		offsets(P->ko, 2 * (uint64_t)P->npairs);
		uint64_t total = P->ko[2 * (uint64_t)P->npairs];
		if (!(P->pk = malloc((total ? total : 1) * sizeof(*P->pk))))
			return -ENOMEM;
	}
	for (uint64_t k = 2 * (uint64_t)P->npairs; k > 0; k--)
		P->ko[k] = P->ko[k - 1];
	P->ko[0] = 0;
	return 0;
}

/* The paths found so far (grown), and each merged flow's (room for one per pair of its points). */
struct found {
	struct rt_res_path *path;
	unsigned n, cap;
	unsigned **flow_path; /* the flows' own arrays (the view's memory), as they are written */
	uint64_t **flow_lost;
};

/* Pair q's paths into f and the view's flows: its matcher over the packets of its flows. */
static int pair_paths(struct an_pm *m, const struct pairs *P, uint32_t q, struct found *f)
{
	unsigned i = P->pi[q], j = P->pj[q];
	const struct rt_an_vantage two[2] = {m->out->r.vantage[i], m->out->r.vantage[j]};
	struct cursor cur[2] = {
	    cursor_of(m, i, P->pk + P->ko[2 * q], P->ko[2 * q + 1] - P->ko[2 * q]),
	    cursor_of(m, j, P->pk + P->ko[2 * q + 1], P->ko[2 * q + 2] - P->ko[2 * q + 1])};
	struct an_vantage v;
	struct an_vp_result vr;
	int rc = match(m, cur, 2, two, &v, &vr);
	if (rc < 0) {
		an_vp_free(&v);
		return rc;
	}
	if (f->n + vr.npaths > f->cap) {
		unsigned cap = f->cap ? 2 * f->cap : 64;
		struct rt_res_path *grown = realloc(f->path, cap * sizeof(*grown));
		rc = grown ? 0 : -ENOMEM;
		f->path = grown ? grown : f->path;
		f->cap = grown ? cap : f->cap;
	}
	for (unsigned k = 0; rc == 0 && k < vr.npaths; k++)
		an_res_path(&f->path[f->n + k], &vr.path[k], two);
	for (uint64_t s = P->so[q]; rc == 0 && s < P->so[q + 1]; s++) {
		struct rt_res_flow *o = &m->flows[P->sf[s]];
		unsigned on[AN_VP_PAIRS];
		uint64_t lost[AN_VP_PAIRS];
		unsigned got =
		    an_vp_flow_paths(&v, &vr, o->key.ipver, o->key.src, o->key.dst, on, lost);
		for (unsigned k = 0; k < got; k++) {
			f->flow_path[P->sf[s]][o->npaths] = f->n + on[k];
			f->flow_lost[P->sf[s]][o->npaths++] = lost[k];
		}
	}
	if (rc == 0)
		f->n += vr.npaths;
	an_vp_result_free(&vr);
	an_vp_free(&v);
	return rc;
}

/* Room in the view for each merged flow's paths: one for each pair of its points. 0 or -ENOMEM. */
static int flow_room(struct an_pm *m, const struct pairs *P, struct found *f)
{
	f->flow_path = calloc(m->nflows ? m->nflows : 1, sizeof(*f->flow_path));
	f->flow_lost = calloc(m->nflows ? m->nflows : 1, sizeof(*f->flow_lost));
	if (!f->flow_path || !f->flow_lost)
		return -ENOMEM;
	for (uint32_t g = 0; g < m->nflows; g++) {
		uint64_t p = P->fo[g + 1] - P->fo[g], room = p * (p - 1) / 2;
		m->flows[g].npaths = 0;
		if (!room)
			continue;
		f->flow_path[g] = an_res_alloc(m->out, room * sizeof(**f->flow_path));
		f->flow_lost[g] = an_res_alloc(m->out, room * sizeof(**f->flow_lost));
		if (!f->flow_path[g] || !f->flow_lost[g])
			return -ENOMEM;
		m->flows[g].paths = f->flow_path[g];
		m->flows[g].path_lost = f->flow_lost[g];
	}
	return 0;
}

/* The paths of every pair of points that share flows into the view, and each flow's. 0 or -ENOMEM. */
static int pairwise(struct an_pm *m)
{
	struct pairs P = {.n = m->n};
	struct found f = {0};
	int rc = flow_points(m, &P);
	if (rc == 0)
		rc = shared_flows(m, &P);
	if (rc == 0)
		rc = pair_packets(m, &P);
	if (rc == 0)
		rc = flow_room(m, &P, &f);
	for (uint32_t q = 0; rc == 0 && q < P.npairs; q++)
		rc = pair_paths(m, &P, q, &f);
	struct rt_results *r = &m->out->r;
	struct rt_res_path *pp =
	    rc == 0 ? an_res_alloc(m->out, (f.n ? f.n : 1) * sizeof(*pp)) : NULL;
	if (pp) {
		memcpy(pp, f.path, f.n * sizeof(*pp));
		r->paths = pp;
		r->npaths = f.n;
	}
	for (uint32_t g = 0; pp && g < m->nflows; g++)
		if (!m->flows[g].npaths) { /* (as one pass gives a flow without paths) */
			m->flows[g].paths = NULL;
			m->flows[g].path_lost = NULL;
		}
	pairs_free(&P);
	free(f.path);
	free(f.flow_path);
	free(f.flow_lost);
	return rc < 0 ? rc : pp ? 0 : -ENOMEM;
}

int an_pm_paths(struct an_pm *m, char *errbuf)
{
	struct rt_results *r = &m->out->r;
	struct rt_an_vantage *vp;
	if (describe(m, &vp) < 0)
		return rt_errorf(errbuf, ENOMEM, "vantage points");
	r->vantage = vp;
	r->nvantage = m->n;
	if (m->n > AN_VP_POINTS) {
		int rc = pairwise(m);
		return rc < 0 ? rt_errorf(errbuf, -rc, "the paths between vantage points") : 0;
	}
	struct cursor cur[AN_VP_POINTS];
	for (unsigned i = 0; i < m->n; i++)
		cur[i] = cursor_of(m, i, NULL, 0);
	struct an_vantage v;
	struct an_vp_result vr;
	int rc = match(m, cur, m->n, vp, &v, &vr);
	if (rc == 0) {
		rc = paths_out(m, &v, &vr);
		an_vp_result_free(&vr);
	}
	an_vp_free(&v);
	return rc < 0 ? rt_errorf(errbuf, ENOMEM, "the paths between vantage points") : 0;
}

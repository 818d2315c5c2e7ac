/* Vantage points: the paths between them from the links of the classes (clock offsets, one-way delays, losses, CE marks). */
#include "analyze/vantage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int64_t an_vp_offset(int64_t fwd_dmin, int64_t rev_dmax)
{
	/* ((t2 - t1) - (t4 - t3)) / 2 with t2 - t1 = fwd_dmin and t4 - t3 = -rev_dmax, rounded to nearest */
	int64_t s = fwd_dmin + rev_dmax;
	return s >= 0 ? (s + 1) / 2 : -((-s + 1) / 2);
}

/* The matched links of one way of a pair of points. */
struct way_links {
	const struct an_vp_link **l;
	uint32_t n, cap;
};

/* What one pair of points says, both ways. */
struct pair_sum {
	uint64_t matched[2], lost[2], ce[2], not_judged[2];
	int64_t dmin[2], dmax[2]; /* of d over the classes each way ([0]: i -> j) */
	struct way_links links[2];
	bool any[2];
};

/* One value of d a link's sketches give, and the packets it stands for. */
struct atom {
	int64_t d;
	uint64_t n;
};

static int cmp_atom(const void *a, const void *b)
{
	int64_t x = ((const struct atom *)a)->d, y = ((const struct atom *)b)->d;
	return x < y ? -1 : x > y;
}

static uint64_t rank_of(uint64_t n, double q)
{
	uint64_t r = (uint64_t)(q * (double)n + 0.999999999);
	return r < 1 ? 1 : r > n ? n : r;
}

/* How many values an_hist_values() gives of h (NULL: none). */
static size_t hist_values(const struct an_hist *h)
{
	if (!h)
		return 0;
	if (h->n <= AN_HIST_EXACT)
		return h->n;
	size_t n = 0;
	for (unsigned i = 0; i < AN_HIST_BUCKETS; i++)
		n += h->bucket[i] != 0;
	return n;
}

/* A link's sketch (sign +1: d - ref >= 0, -1: negated) as values of d, appended at a. */
static struct atom *link_atoms(struct atom *a, const struct an_hist *h, int64_t ref, int sign)
{
	uint64_t val[AN_HIST_BUCKETS], cnt[AN_HIST_BUCKETS];
	unsigned k = h ? an_hist_values(h, val, cnt) : 0;
	for (unsigned i = 0; i < k; i++)
		*a++ = (struct atom){.d = ref + sign * (int64_t)val[i], .n = cnt[i]};
	return a;
}

/*
 * The values of d of the given nearest ranks (1-based, ascending) over the
 * links' packets together, each link's sketch relative to its own first d:
 * what one analyzer gives however its host pairs were split among parts.
 * 0, or -ENOMEM.
 */
static int ranks_of(const struct way_links *w, const uint64_t *rank, int64_t *out, unsigned nr)
{
	size_t na = 0;
	for (uint32_t k = 0; k < w->n; k++)
		na += hist_values(w->l[k]->pos) + hist_values(w->l[k]->neg);
	struct atom *a = malloc((na ? na : 1) * sizeof(*a)), *end = a;
	if (!a)
		return -ENOMEM;
	for (uint32_t k = 0; k < w->n; k++) {
		end = link_atoms(end, w->l[k]->pos, w->l[k]->ref, 1);
		end = link_atoms(end, w->l[k]->neg, w->l[k]->ref, -1);
	}
	qsort(a, (size_t)(end - a), sizeof(*a), cmp_atom);
	uint64_t seen = 0;
	unsigned r = 0;
	for (const struct atom *x = a; x < end && r < nr; x++) {
		seen += x->n;
		while (r < nr && seen >= rank[r])
			out[r++] = x->d;
	}
	while (r < nr) /* (a sketch that lost values to memory) */
		out[r++] = end > a ? end[-1].d : 0;
	free(a);
	return 0;
}

/* The class's median d (from its own sketches). */
static int64_t class_median(const struct an_vp_link *l)
{
	const struct way_links one = {.l = &l, .n = 1};
	uint64_t n = (l->pos ? l->pos->n : 0) + (l->neg ? l->neg->n : 0), rank = rank_of(n, 0.5);
	int64_t med = l->ref;
	return n && ranks_of(&one, &rank, &med, 1) == 0 ? med : l->ref;
}

/*
 * Which way the packets of class c go between points i and j: 0 from i to
 * j, 1 from j to i. Packets one way have d = offset + delay, the other way
 * d = offset - delay: whichever class of a host pair has the larger d is
 * the one going from i to j.
 */
static int way_two(const struct an_vp_link *l, const struct an_vp_link *r)
{
	if (l->dmin != r->dmin)
		return l->dmin > r->dmin ? 0 : 1;
	return l->dmax >= r->dmax ? 0 : 1;
}

/* The class of the other direction between the same hosts, or AN_VP_CLS_NONE. */
static uint32_t reverse_of(const struct an_vantage *v, uint32_t c)
{
	const struct an_vp_class *k = &v->cls[c];
	return an_vp_find_class(v, k->ipver, k->dst, k->src);
}

/*
 * The misses of one side of a link judged: a packet seen at one point at t
 * would have passed the other at t + d (side 0: seen at i, d from the
 * link's matched packets, dmin..dmax, the clock offset in it) or t - d
 * (side 1). Lost when the other point was capturing from before the
 * earliest of those times to after the latest; else not judged.
 */
static void judge(const struct an_vp_point *q, const struct an_vp_link *l, int side, uint64_t *lost,
                  uint64_t *not_judged)
{
	int64_t lo = side ? -l->dmax : l->dmin, hi = side ? -l->dmin : l->dmax;
	const struct an_vp_misses *m = &l->miss[side];
	for (uint32_t k = 0; k < m->n; k++) {
		int64_t t = (int64_t)m->t[k];
		bool in = (int64_t)q->first <= t + lo && (int64_t)q->last >= t + hi;
		*lost += in;
		*not_judged += !in;
	}
	if (m->over) { /* beyond the log: judged together, by their first and last times */
		bool in = (int64_t)q->first <= (int64_t)m->over_min + lo &&
		          (int64_t)q->last >= (int64_t)m->over_max + hi;
		*(in ? lost : not_judged) += m->over;
	}
}

/* A link of a class on way w between points i < j (the points' capture spans in pt); 0 or -ENOMEM. */
static int add_way(const struct an_vp_point *pt, struct pair_sum *ps, const struct an_vp_link *l,
                   int w)
{
	/* way 0 (i -> j): lost = seen at i only, judged by j's span; CE at j. Way 1: the mirror. */
	judge(&pt[w ? 0 : 1], l, w, &ps->lost[w], &ps->not_judged[w]);
	ps->ce[w] += l->ce[w];
	if (!l->matched)
		return 0;
	if (!ps->any[w] || l->dmin < ps->dmin[w])
		ps->dmin[w] = l->dmin;
	if (!ps->any[w] || l->dmax > ps->dmax[w])
		ps->dmax[w] = l->dmax;
	ps->any[w] = true;
	ps->matched[w] += l->matched;
	struct way_links *wl = &ps->links[w];
	if (wl->n == wl->cap) {
		uint32_t nc = wl->cap ? wl->cap * 2 : 16;
		const struct an_vp_link **nl = realloc(wl->l, (size_t)nc * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		wl->l = nl;
		wl->cap = nc;
	}
	wl->l[wl->n++] = l;
	return 0;
}

/* Path o: way w of the pair's sums, the offset theta when known. 0, or -ENOMEM. */
static int fill_path(struct an_vp_path *o, const struct pair_sum *ps, int w, bool theta_known,
                     int64_t theta)
{
	o->matched = ps->matched[w];
	o->lost = ps->lost[w];
	o->judged = ps->matched[w] + ps->lost[w];
	o->not_judged = ps->not_judged[w];
	o->ce_marked = ps->ce[w];
	o->offset_known = theta_known;
	o->offset_ns = w == 0 ? theta : -theta;
	if (!theta_known)
		o->offset_null_reason =
		    "packets were matched one way only: the clock offset cannot be told from the "
		    "delay, and the delays include it";
	if (!ps->matched[w]) {
		o->delay_null_reason = "no packet was seen at both";
		return 0;
	}
	o->delay_known = true;
	o->delay_includes_offset = !theta_known;
	int64_t th = theta_known ? theta : 0, d[2];
	uint64_t n = ps->matched[w];
	/* way 0: delay = d - offset; way 1: delay = offset - d, its quantile q d's quantile 1 - q */
	uint64_t rank[2] = {rank_of(n, 0.5), rank_of(n, 0.99)};
	if (w == 1) {
		uint64_t r0 = n + 1 - rank[1]; /* ascending */
		rank[1] = n + 1 - rank[0];
		rank[0] = r0;
	}
	if (ranks_of(&ps->links[w], rank, d, 2) < 0)
		return -ENOMEM;
	if (w == 0) {
		o->delay_min = ps->dmin[w] - th;
		o->delay_median = d[0] - th;
		o->delay_p99 = d[1] - th;
	} else {
		o->delay_min = th - ps->dmax[w];
		o->delay_median = th - d[1];
		o->delay_p99 = th - d[0];
	}
	return 0;
}

/*
 * The paths between points i < j (0, 1 or 2 of them) into r, and each
 * class's way between them (r->way[pair], kept). 0, or -ENOMEM.
 */
static int pair_paths(const struct an_vantage *v, unsigned i, unsigned j, struct an_vp_result *r)
{
	unsigned pair = an_vp_pair_of(i, j);
	struct pair_sum *ps = calloc(1, sizeof(*ps));
	int8_t *way = malloc(v->ncls ? v->ncls : 1);
	uint64_t *lost = calloc(v->ncls ? v->ncls : 1, sizeof(*lost));
	if (!ps || !way || !lost) {
		free(ps);
		free(way);
		free(lost);
		return -ENOMEM;
	}
	/* classes with their reverse matched too: the way is known; the offset from the smallest delays */
	bool fwd = false, rev = false;
	int64_t fmin = 0, rmax = 0;
	for (uint32_t c = 0; c < v->ncls; c++) {
		way[c] = -1;
		const struct an_vp_link *l = v->cls[c].link[pair];
		if (!l || !l->matched)
			continue;
		uint32_t rc = reverse_of(v, c);
		const struct an_vp_link *rl = rc != AN_VP_CLS_NONE ? v->cls[rc].link[pair] : NULL;
		if (!rl || !rl->matched)
			continue;
		way[c] = (int8_t)way_two(l, rl);
		if (way[c] == 0 && (!fwd || l->dmin < fmin))
			fmin = l->dmin, fwd = true;
		if (way[c] == 1 && (!rev || l->dmax > rmax))
			rmax = l->dmax, rev = true;
	}
	bool theta_known = fwd && rev;
	int64_t theta = theta_known ? an_vp_offset(fmin, rmax) : 0;
	/* the other classes: by the offset when known, else by TTL (a router lowers it), CE marks, the time order */
	for (uint32_t c = 0; c < v->ncls; c++) {
		const struct an_vp_link *l = v->cls[c].link[pair];
		if (!l || way[c] >= 0 ||
		    !l->matched) /* never seen at both: it need not pass both points */
			continue;
		int64_t med = class_median(l);
		if (theta_known)
			way[c] = med >= theta ? 0 : 1;
		else if (l->ttl_lower[0] != l->ttl_lower[1])
			way[c] = l->ttl_lower[0] > l->ttl_lower[1] ? 0 : 1;
		else if (l->ce[0] != l->ce[1])
			way[c] = l->ce[0] > l->ce[1] ? 0 : 1;
		else
			way[c] = med >= 0 ? 0 : 1;
	}
	const struct an_vp_point pt[2] = {v->pt[i], v->pt[j]};
	int rc = 0;
	for (uint32_t c = 0; c < v->ncls && !rc; c++)
		if (way[c] >= 0) {
			uint64_t before = ps->lost[way[c]];
			rc = add_way(pt, ps, v->cls[c].link[pair], way[c]);
			lost[c] = ps->lost[way[c]] - before;
		}
	unsigned n0 = r->npaths;
	for (int w = 0; w < 2 && !rc; w++) {
		if (!ps->matched[w] && !ps->lost[w] && !ps->not_judged[w])
			continue;
		struct an_vp_path *o = &r->path[r->npaths];
		*o = (struct an_vp_path){.from = w ? j : i, .to = w ? i : j};
		rc = fill_path(o, ps, w, theta_known, theta);
		r->path_of[pair][w] = (int)r->npaths++;
	}
	if (!rc &&
	    r->npaths ==
	        n0) { /* both captured, nothing in common: said as a path with nothing on it */
		struct an_vp_path *o = &r->path[r->npaths++];
		*o = (struct an_vp_path){.from = i, .to = j};
		fill_path(o, ps, 0, false, 0);
		o->offset_null_reason = "no packet was seen at both";
	}
	r->way[pair] = way;
	r->lost[pair] = lost;
	free(ps->links[0].l);
	free(ps->links[1].l);
	free(ps);
	return rc;
}

int an_vp_compute(const struct an_vantage *v, struct an_vp_result *r)
{
	memset(r, 0, sizeof(*r));
	memset(r->path_of, -1, sizeof(r->path_of));
	unsigned npt = v->nvp < AN_VP_POINTS ? v->nvp : AN_VP_POINTS;
	for (unsigned i = 0; i < npt; i++)
		for (unsigned j = i + 1; j < npt; j++)
			if (v->on && v->pt[i].seen && v->pt[j].seen && pair_paths(v, i, j, r) < 0) {
				an_vp_result_free(r);
				return -ENOMEM;
			}
	for (unsigned k = 0; k < r->npaths; k++) {
		r->path[k].sample_k = v->sample_k;
		r->path[k].sample_m = v->sample_m;
	}
	return 0;
}

void an_vp_result_free(struct an_vp_result *r)
{
	for (unsigned p = 0; p < AN_VP_PAIRS; p++) {
		free(r->way[p]);
		free(r->lost[p]);
	}
	memset(r, 0, sizeof(*r));
}

unsigned an_vp_flow_paths(const struct an_vantage *v, const struct an_vp_result *r, uint8_t ipver,
                          const uint8_t *src, const uint8_t *dst, unsigned *out, uint64_t *lost)
{
	uint32_t c = an_vp_find_class(v, ipver, src, dst);
	unsigned n = 0;
	if (c == AN_VP_CLS_NONE)
		return 0;
	for (unsigned p = 0; p < AN_VP_PAIRS; p++)
		if (r->way[p] && r->way[p][c] >= 0 && r->path_of[p][r->way[p][c]] >= 0) {
			if (lost)
				lost[n] = r->lost[p] ? r->lost[p][c] : 0;
			out[n++] = (unsigned)r->path_of[p][r->way[p][c]];
		}
	return n;
}

bool an_vp_clock_offset(const struct an_vp_result *r, unsigned i, unsigned j, int64_t *offset)
{
	for (unsigned k = 0; k < r->npaths; k++) {
		const struct an_vp_path *p = &r->path[k];
		if (p->offset_known && p->from == i && p->to == j) {
			*offset = p->offset_ns;
			return true;
		}
		if (p->offset_known && p->from == j && p->to == i) {
			*offset = -p->offset_ns;
			return true;
		}
	}
	return false;
}

/* Merging partials: each CNP counted once, at its flows' home points, and those a home missed from the point that saw the most (analyze/README.md, "Across vantage points"). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/partial_merge.h"

/*
 * The flow whose sender the CNPs v[a..b) carried by one flow throttle: its
 * reverse, by the carrier's peer QP as the merged view has it, else as a
 * point that saw them learned it (RT_AN_NONE: none did).
 */
static uint32_t throttled(const struct rt_results *r, const uint32_t *slot, uint64_t size,
                          const struct an_pm_cnp *v, uint64_t a, uint64_t b)
{
	const struct rt_res_flow *f = &r->flows[v[a].carrier];
	uint32_t peer = f->peer_qp;
	for (uint64_t k = a; peer == RT_AN_NONE && k < b; k++)
		peer = v[k].peer;
	if (peer == RT_AN_NONE)
		return RT_AN_NONE;
	struct rt_an_flow_key k = f->key;
	memcpy(k.src, f->key.dst, sizeof(k.src));
	memcpy(k.dst, f->key.src, sizeof(k.dst));
	k.dest_qp = peer;
	return an_pm_key_find(r, slot, size, &k);
}

/* Whether point i, among the sightings v[a..b), learned their carrier's peer: it credited them to the throttled flow. */
static bool paired_at(const struct an_pm_cnp *v, uint64_t a, uint64_t b, unsigned i)
{
	for (uint64_t k = a; k < b; k++)
		if (v[k].point == i && v[k].peer != RT_AN_NONE)
			return true;
	return false;
}

static int by_cnp(const void *a, const void *b)
{
	const struct an_pm_cnp *x = a, *y = b;
	if (x->carrier != y->carrier)
		return x->carrier < y->carrier ? -1 : 1;
	if (x->fp != y->fp)
		return x->fp < y->fp ? -1 : 1;
	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * The sightings v[a..b) of one CNP fingerprint on one carrier (sorted by
 * point, then time): those beyond what `home` saw of them flagged `flag`:
 * the latest of the point that saw the most (ties: the lower point).
 */
static void beyond(struct an_pm_cnp *v, uint64_t a, uint64_t b, unsigned home, uint8_t flag)
{
	uint64_t at_home = 0, most = 0, most_end = a;
	for (uint64_t x = a, y; x < b; x = y) {
		for (y = x; y < b && v[y].point == v[x].point; y++)
			;
		if (v[x].point == home)
			at_home = y - x;
		if (y - x > most) {
			most = y - x;
			most_end = y;
		}
	}
	if (most <= at_home) /* (the home saw the most) */
		return;
	for (uint64_t k = most_end - (most - at_home); k < most_end; k++)
		v[k].flags |= flag;
}

int an_pm_cnps(struct rt_partial *const *p, unsigned n, const struct rt_results *r,
               uint32_t *const *map, const unsigned *home, struct an_pm_cnp **out, uint64_t *nout)
{
	uint64_t cnps = 0, size = 0;
	for (unsigned i = 0; i < n; i++)
		for (uint64_t k = 0; k < p[i]->npackets; k++)
			cnps += (p[i]->packets[k].flags & RT_PP_CNP) != 0;
	struct an_pm_cnp *v = malloc((cnps ? cnps : 1) * sizeof(*v));
	uint32_t *slot = v ? an_pm_key_index(r, &size) : NULL;
	if (!slot) {
		free(v);
		return -ENOMEM;
	}
	uint64_t nv = 0;
	for (unsigned i = 0; i < n; i++)
		for (uint64_t k = 0; k < p[i]->npackets; k++) {
			const struct rt_partial_packet *pk = &p[i]->packets[k];
			uint32_t id = pk->flow < p[i]->r->nflows ? map[i][pk->flow] : RT_AN_NONE;
			if ((pk->flags & RT_PP_CNP) && id != RT_AN_NONE)
				v[nv++] =
				    (struct an_pm_cnp){.fp = pk->fp,
				                       .ts = pk->ts_ns,
				                       .carrier = id,
				                       .peer = p[i]->r->flows[pk->flow].peer_qp,
				                       .point = i};
		}
	qsort(v, nv, sizeof(*v), by_cnp);
	for (uint64_t a = 0, b; a < nv; a = b) {
		for (b = a; b < nv && v[b].carrier == v[a].carrier && v[b].fp == v[a].fp; b++)
			;
		uint32_t d = throttled(r, slot, size, v, a, b);
		for (uint64_t k = a; k < b; k++)
			v[k].data = d;
		beyond(v, a, b, home[v[a].carrier], AN_PM_CNP_CARRIER);
		/* a home that never paired the carrier credited the flow none of them */
		if (d != RT_AN_NONE)
			beyond(v, a, b, paired_at(v, a, b, home[d]) ? home[d] : UINT_MAX,
			       AN_PM_CNP_DATA);
	}
	free(slot);
	*out = v;
	*nout = nv;
	return 0;
}

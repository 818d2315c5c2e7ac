/* Merging partials: PFC and PAUSE (classes, sending MACs, storms, incidents) and the MAC table, each point's merged by rule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/macs.h"
#include "analyze/partial_merge.h"
#include "analyze/pfc.h"
#include "common/errbuf.h"

/*
 * One pass keeps one PFC state per sending MAC and class, whichever point
 * its frames come from: a MAC seen at one point only has that point's
 * figures. Each point's state is rebuilt from its view and the points are
 * merged as analyzer parts merge (analyze/pfc_merge.c), which says where
 * that equals one pass: MACs each seen at one point are; a MAC seen at
 * several (one link tapped twice) has its frames and XOFFs counted at each
 * point, as one pass counts each frame, while its paused time is summed,
 * an upper bound of one pass's (analyze/README.md, "Merging partials").
 */

/* The time a point's MAC stands at among the merged MACs: its first XOFF, else the MAC before it's. */
static uint64_t mac_time(const struct rt_res_pfc_source *s, uint32_t n, uint64_t before)
{
	uint64_t t = UINT64_MAX;
	for (uint32_t k = 0; k < n && !memcmp(s[k].mac, s[0].mac, 6); k++)
		if (s[k].xoff && s[k].first_xoff_ns < t)
			t = s[k].first_xoff_ns;
	return t == UINT64_MAX ? before : t;
}

/* The sending MACs of a view into t (their points: an_pm_pfc gives them). 0 or -ENOMEM. */
static int rebuild_macs(struct an_pfc *t, const struct rt_results *r)
{
	uint64_t at = r->start_ns;
	for (uint32_t i = 0; i < r->npfc_sources; i++) {
		const struct rt_res_pfc_source *s = &r->pfc_sources[i];
		if (!i || memcmp(s->mac, s[-1].mac, 6))
			at = mac_time(s, r->npfc_sources - i, at);
		struct an_pfc_mac *m = an_pfc_mac_get(t, s->mac, at);
		if (!m)
			return -ENOMEM;
		struct an_pfc_class *c = &m->cls[s->cls % RT_AN_PFC_CLASSES];
		/* (past AN_PFC_MACS MACs, the last entry collects the others) */
		if (s->xoff && (!c->xoff || s->first_xoff_ns < c->first_xoff))
			c->first_xoff = s->first_xoff_ns;
		if (s->longest_ns > c->longest_ns) {
			c->longest_start = s->longest_start_ns;
			c->longest_ns = s->longest_ns;
		}
		c->xoff += s->xoff;
		c->xon += s->xon;
		c->paused_ns += s->paused_ns;
	}
	return 0;
}

/* The storms and storm incidents of a view into t (its MACs there). 0 or -ENOMEM. */
static int rebuild_storms(struct an_pfc *t, const struct rt_results *r)
{
	t->storms = malloc((r->nstorms ? r->nstorms : 1) * sizeof(*t->storms));
	t->inc = malloc((r->nincidents ? r->nincidents : 1) * sizeof(*t->inc));
	if (!t->storms || !t->inc)
		return -ENOMEM;
	t->cap_storms = r->nstorms ? r->nstorms : 1;
	for (uint32_t i = 0; i < r->nstorms; i++) {
		const struct rt_res_storm *s = &r->storms[i];
		struct an_pfc_mac *m = an_pfc_mac_get(t, s->mac, r->start_ns);
		if (!m)
			return -ENOMEM;
		m->cls[s->cls % RT_AN_PFC_CLASSES].storms++;
		t->storms[t->nstorms++] = (struct an_storm){
		    .cls = s->cls % RT_AN_PFC_CLASSES, .start = s->start_ns, .end = s->end_ns};
		memcpy(t->storms[t->nstorms - 1].mac, s->mac, 6);
	}
	t->cap_inc = r->nincidents ? r->nincidents : 1;
	for (uint32_t i = 0; i < r->nincidents; i++) {
		const struct rt_res_incident *s = &r->incidents[i];
		struct an_incident *o = &t->inc[t->ninc++];
		*o = (struct an_incident){.cls = s->cls % RT_AN_PFC_CLASSES,
		                          .start = s->start_ns,
		                          .end = s->end_ns,
		                          .nmacs = s->nmacs < AN_INC_MACS ? s->nmacs : AN_INC_MACS,
		                          .macs_total = s->macs_total};
		for (uint32_t k = 0; k < o->nmacs; k++) {
			memcpy(o->macs[k].mac, s->macs[k].mac, 6);
			o->macs[k].first = s->macs[k].first_ns;
			o->macs[k].paused = s->macs[k].paused_ns;
			o->macs[k].longest = s->macs[k].longest_ns;
		}
	}
	t->inc_beyond = r->incidents_beyond;
	return 0;
}

/* A point's PFC state as its view gives it (finished: no pause runs). 0 or -ENOMEM. */
static int rebuild(struct an_pfc *t, const struct rt_results *r)
{
	an_pfc_init(t, r->link_speed_bps, r->storm_ns, NULL);
	t->pfc_frames = r->pfc_frames;
	t->pause_frames = r->pause_frames;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		t->xoff[c] = r->pfc[c].xoff;
		t->xon[c] = r->pfc[c].xon;
		t->paused_ns[c] = r->pfc[c].paused_ns;
	}
	int rc = rebuild_macs(t, r);
	return rc < 0 ? rc : rebuild_storms(t, r);
}

/* An empty set of the merge's points in the merged view's memory (NULL: out of memory). */
static uint64_t *point_set(struct an_pm *m)
{
	return an_res_alloc(m->out, (m->n + 63) / 64 * sizeof(uint64_t));
}

static void set_add(uint64_t *words, unsigned p)
{
	words[p / 64] |= 1ull << (p % 64);
}

/* A merged sending MAC's row in the view: its MAC, then its place. */
struct source_at {
	uint8_t mac[6];
	uint32_t row;
};

static int by_source_mac(const void *a, const void *b)
{
	const struct source_at *x = a, *y = b;
	int c = memcmp(x->mac, y->mac, 6);
	return c ? c : x->row < y->row ? -1 : x->row > y->row;
}

/* The first of at[0..n) (sorted) with `mac`, or NULL. */
static const struct source_at *first_of(const struct source_at *at, uint32_t n, const uint8_t *mac)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (memcmp(at[mid].mac, mac, 6) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !memcmp(at[lo].mac, mac, 6) ? &at[lo] : NULL;
}

/*
 * Each merged sending MAC's points: those whose own view names it as a
 * sender (every class of it shares the set, as one pass keeps it per MAC).
 * 0 or -ENOMEM.
 */
static int source_points(struct an_pm *m)
{
	struct rt_results *r = &m->out->r;
	struct rt_res_pfc_source *rows = (struct rt_res_pfc_source *)r->pfc_sources;
	uint32_t n = r->npfc_sources;
	struct source_at *at = malloc((n ? n : 1) * sizeof(*at));
	if (!at)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		at[i].row = i;
		memcpy(at[i].mac, rows[i].mac, 6);
	}
	qsort(at, n, sizeof(*at), by_source_mac);
	int rc = 0;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		bool first = !i || memcmp(at[i].mac, at[i - 1].mac, 6);
		uint64_t *words =
		    first ? point_set(m) : (uint64_t *)rows[at[i - 1].row].points.words;
		rc = words ? 0 : -ENOMEM;
		rows[at[i].row].points = (struct rt_res_points){(m->n + 63) / 64, words};
	}
	for (unsigned p = 0; p < m->n && rc == 0; p++) {
		const struct rt_results *pr = m->p[p]->r;
		for (uint32_t k = 0; k < pr->npfc_sources; k++) {
			const struct source_at *hit = first_of(at, n, pr->pfc_sources[k].mac);
			if (hit)
				set_add((uint64_t *)rows[hit->row].points.words, p);
		}
	}
	free(at);
	return rc;
}

int an_pm_pfc(struct an_pm *m, char *errbuf)
{
	struct an_pfc all, one;
	int rc = rebuild(&all, m->p[0]->r);
	for (unsigned i = 1; i < m->n && rc == 0; i++) {
		rc = rebuild(&one, m->p[i]->r);
		if (rc == 0)
			rc = an_pfc_merge(&all, &one);
		an_pfc_free(&one);
	}
	if (rc == 0)
		rc = an_res_pfc(m->out, &all);
	if (rc == 0)
		rc = source_points(m);
	if (rc == 0)
		rc = an_res_incidents(m->out, &all, 0);
	an_pfc_free(&all);
	return rc < 0 ? rt_errorf(errbuf, -rc, "PFC and PAUSE of the vantage points") : 0;
}

/* ---- the MAC table ---- */

/* A point's MAC, where it stands: its place in the point's table, then the point. */
struct mac_at {
	const struct rt_res_mac *e;
	uint32_t rank;
	unsigned point;
};

static int by_mac(const void *a, const void *b)
{
	const struct mac_at *x = a, *y = b;
	int c = memcmp(x->e->mac, y->e->mac, 6);
	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

/* The entries of one MAC (sorted, from the first place) united into o. False: out of memory. */
static bool unite(struct an_pm *m, struct rt_res_mac *o, const struct mac_at *a, uint32_t n)
{
	*o = *a[0].e;
	uint64_t *seen = point_set(m), *sent = point_set(m);
	if (!seen || !sent)
		return false;
	o->points = (struct rt_res_points){(m->n + 63) / 64, seen};
	o->src_points = (struct rt_res_points){(m->n + 63) / 64, sent};
	o->frames = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct rt_res_mac *e = a[k].e;
		o->frames += e->frames;
		set_add(seen, a[k].point);
		for (unsigned w = 0; w < e->src_points.nwords; w++)
			if (e->src_points.words[w]) {
				set_add(sent, a[k].point);
				break;
			}
		o->several |= e->several;
		if (e->ipver && !o->ipver) {
			o->ipver = e->ipver;
			memcpy(o->ip, e->ip, sizeof(o->ip));
		} else if (e->ipver &&
		           (e->ipver != o->ipver || memcmp(e->ip, o->ip, e->ipver == 4 ? 4 : 16))) {
			o->several = true;
		}
	}
	return true;
}

/* One MAC of the merged table: its points' entries a[s .. s + len) (sorted by place), where it stands. */
struct mac_run {
	size_t s, len;
	uint32_t rank;
	unsigned point;
};

static int run_by_place(const void *a, const void *b)
{
	const struct mac_run *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

int an_pm_macs(struct an_pm *m, char *errbuf)
{
	size_t total = 0;
	for (unsigned i = 0; i < m->n; i++)
		total += m->p[i]->r->nmacs;
	struct mac_at *a = malloc((total ? total : 1) * sizeof(*a));
	struct mac_run *u = malloc((total ? total : 1) * sizeof(*u));
	if (!a || !u) {
		free(a);
		free(u);
		return rt_errorf(errbuf, ENOMEM, "the MAC table");
	}
	size_t k = 0;
	for (unsigned i = 0; i < m->n; i++)
		for (uint32_t j = 0; j < m->p[i]->r->nmacs; j++)
			a[k++] = (struct mac_at){.e = &m->p[i]->r->macs[j], .rank = j, .point = i};
	qsort(a, total, sizeof(*a), by_mac);
	size_t nu = 0;
	for (size_t s = 0, e; s < total; s = e) {
		for (e = s + 1; e < total && !memcmp(a[e].e->mac, a[s].e->mac, 6); e++)
			;
		u[nu++] =
		    (struct mac_run){.s = s, .len = e - s, .rank = a[s].rank, .point = a[s].point};
	}
	qsort(u, nu, sizeof(*u), run_by_place);
	uint32_t n = nu < AN_MACS_MAX ? (uint32_t)nu : AN_MACS_MAX;
	struct rt_res_mac *o = an_res_alloc(m->out, (n ? n : 1) * sizeof(*o));
	for (uint32_t x = 0; o && x < n; x++)
		if (!unite(m, &o[x], &a[u[x].s], (uint32_t)u[x].len))
			o = NULL;
	free(u);
	free(a);
	if (!o)
		return rt_errorf(errbuf, ENOMEM, "the MAC table");
	m->out->r.macs = o;
	m->out->r.nmacs = n;
	return 0;
}

/* The partials' merge tests: scenarios of records at several points, each point analyzed alone into a partial, merged around one pass over all; the comparisons. */
#ifndef RT_TEST_ANALYZE_PARTIAL_FIXTURE_H
#define RT_TEST_ANALYZE_PARTIAL_FIXTURE_H

/* include after <cmocka.h>: the helpers assert */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/dedup.h"
#include "analyze/partial_merge.h"
#include "tests/analyze/records.h"

#define T0   1700000000000000000ull
#define OFF  300000ull /* b's clock ahead of a's */
#define MAXR 8192

/* The records of a scenario, each with its point (0: a, 1: b, 2: c). */
struct scen {
	struct rt_record r[MAXR];
	unsigned n;
};

static inline void add(struct scen *s, struct rt_record r, unsigned point)
{
	assert_true(s->n < MAXR);
	r.point = (uint16_t)point;
	r.interface_id = point;
	r.ttl = 64;
	s->r[s->n++] = r;
}

static inline int by_time(const void *a, const void *b)
{
	const struct rt_record *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

#define NPOINTS 3 /* points a scenario has at most */
static const struct rt_an_vantage points[NPOINTS] = {{.name = "a"}, {.name = "b"}, {.name = "c"}};
static uint64_t b_if_dropped; /* the drops b's capture file records */
static bool keep_cnps;        /* the partials keep every CNP (RT_PP_CNP) */

/*
 * An analyzer fed the scenario's records of point `only` (as its point 0),
 * or all of them in raw time order (only < 0): one pass. Finished, its
 * points described.
 */
static inline struct rt_analyzer *analyze(struct scen *s, int only, unsigned n, uint32_t k,
                                          uint32_t m)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = true;
	o.vantage_clocks = only < 0;
	o.vantage_sample_k = k;
	o.vantage_sample_m = m;
	o.storm_ns = 1000000;
	o.link_speed_bps = 1000000000ull;
	char eb[RT_ERRBUF_SIZE];
	struct rt_analyzer *an = rt_analyzer_new(&o, eb);
	assert_non_null(an);
	qsort(s->r, s->n, sizeof(s->r[0]), by_time);
	for (unsigned i = 0; i < s->n; i++) {
		struct rt_record r = s->r[i];
		if (only >= 0 && r.point != (unsigned)only)
			continue;
		if (only >= 0)
			r.point = 0;
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	if (only == 1 && b_if_dropped)
		rt_analyzer_capture_drops(an, b_if_dropped, 2);
	assert_int_equal(
	    rt_analyzer_vantage_points(an, only < 0 ? points : &points[only], only < 0 ? n : 1, eb),
	    0);
	return an;
}

/* The partial of point `pt` (its view taken from an) with every RoCE packet it saw, sampled. */
static inline struct rt_partial *partial_of(struct rt_analyzer *an, const struct scen *s,
                                            unsigned pt, uint32_t k, uint32_t m)
{
	struct rt_partial *p = calloc(1, sizeof(*p));
	assert_non_null(p);
	p->point = (char *)points[pt].name;
	p->sample_k = k;
	p->sample_m = m;
	p->r = rt_analyzer_results(an);
	assert_non_null(p->r);
	p->packets = calloc(s->n ? s->n : 1, sizeof(*p->packets));
	for (unsigned i = 0; i < s->n; i++) {
		const struct rt_record *r = &s->r[i];
		if (r->point != pt || (r->kind != RT_KIND_ROCE && r->kind != RT_KIND_CNP))
			continue;
		struct rt_partial_packet *q = &p->packets[p->npackets++];
		q->fp = an_dup_fingerprint(r);
		q->ts_ns = r->ts_ns;
		q->flow = RT_AN_NONE;
		q->flags = RT_PP_SAMPLED | ((r->ecn & 3) == 3 ? RT_PP_CE : 0) |
		           (keep_cnps && r->kind == RT_KIND_CNP ? RT_PP_CNP : 0);
		q->ecn = r->ecn & 3;
		q->ttl = r->ttl;
		q->ipver = r->ip_version;
		memcpy(q->src, r->src_ip, 16);
		memcpy(q->dst, r->dst_ip, 16);
	}
	return p;
}

/* A merge of the points' partials around one pass's flows (their keys: the merged flows'). */
struct fixture {
	unsigned n; /* points */
	struct rt_analyzer *one, *pt[NPOINTS];
	const struct rt_results *want;
	struct rt_partial *p[NPOINTS];
	struct an_pm m;
	uint32_t *map[NPOINTS];
};

static inline void fixture_make(struct fixture *f, struct scen *s, unsigned n, uint32_t k,
                                uint32_t m)
{
	memset(f, 0, sizeof(*f));
	f->n = n;
	f->one = analyze(s, -1, n, k, m);
	f->want = rt_analyzer_results(f->one);
	assert_non_null(f->want);
	for (unsigned i = 0; i < n; i++) {
		f->pt[i] = analyze(s, (int)i, n, k, m);
		f->p[i] = partial_of(f->pt[i], s, i, k, m);
	}
	f->m.p = f->p;
	f->m.n = n;
	f->m.out = calloc(1, sizeof(*f->m.out));
	f->m.nflows = f->want->nflows;
	f->m.flows = calloc(f->want->nflows + 1, sizeof(*f->m.flows));
	for (uint32_t id = 0; id < f->want->nflows; id++) {
		f->m.flows[id].key = f->want->flows[id].key;
		f->m.flows[id].id = id;
	}
	f->m.flow_id = f->map;
	for (unsigned i = 0; i < n; i++) { /* each point's flow: the one pass's of its key */
		const struct rt_results *r = f->p[i]->r;
		f->map[i] = calloc(r->nflows + 1, sizeof(*f->map[i]));
		for (uint32_t id = 0; id < r->nflows; id++) {
			f->map[i][id] = RT_AN_NONE;
			for (uint32_t w = 0; w < f->want->nflows; w++)
				if (!memcmp(&f->want->flows[w].key, &r->flows[id].key,
				            sizeof(r->flows[id].key)))
					f->map[i][id] = w;
			assert_int_not_equal(f->map[i][id], RT_AN_NONE);
		}
	}
	f->m.out->r.flows = f->m.flows;
	f->m.out->r.nflows = f->m.nflows;
}

/* The scenario, built by the test; the fixture of its merge. */
static struct scen sc;
static struct fixture fx;

/* The merge of the scenario's two points around one pass (sample k in m), `part` of it run. */
static inline void merged(uint32_t k, uint32_t m, int (*part)(struct an_pm *, char *))
{
	char eb[RT_ERRBUF_SIZE];
	fixture_make(&fx, &sc, 2, k, m);
	assert_int_equal(part(&fx.m, eb), 0);
}

static inline void fixture_free(struct fixture *f)
{
	for (unsigned i = 0; i < f->n; i++) {
		free(f->p[i]->packets);
		free(f->p[i]);
		free(f->map[i]);
		rt_analyzer_free(f->pt[i]);
	}
	an_results_free(f->m.out);
	free(f->m.flows);
	rt_analyzer_free(f->one);
}

/* The merged paths and each flow's are one pass's, figure by figure. */
static inline void same_paths(const struct rt_results *got, const struct rt_results *want)
{
	assert_int_equal(got->nvantage, want->nvantage);
	for (unsigned i = 0; i < want->nvantage; i++)
		assert_string_equal(got->vantage[i].name, want->vantage[i].name);
	assert_int_equal(got->npaths, want->npaths);
	for (unsigned i = 0; i < want->npaths; i++) {
		const struct rt_res_path *g = &got->paths[i], *w = &want->paths[i];
		assert_string_equal(g->from, w->from);
		assert_string_equal(g->to, w->to);
		assert_int_equal(g->sample_k, w->sample_k);
		assert_int_equal(g->sample_m, w->sample_m);
		assert_int_equal(g->matched, w->matched);
		assert_int_equal(g->lost, w->lost);
		assert_int_equal(g->ce_marked, w->ce_marked);
		assert_int_equal(g->judged, w->judged);
		assert_int_equal(g->not_judged, w->not_judged);
		assert_int_equal(g->offset_known, w->offset_known);
		assert_int_equal(g->offset_ns, w->offset_ns);
		assert_int_equal(g->delay_known, w->delay_known);
		assert_int_equal(g->delay_min, w->delay_min);
		assert_int_equal(g->delay_median, w->delay_median);
		assert_int_equal(g->delay_p99, w->delay_p99);
	}
	for (uint32_t id = 0; id < want->nflows; id++) {
		const struct rt_res_flow *g = &got->flows[id], *w = &want->flows[id];
		assert_int_equal(g->npaths, w->npaths);
		for (unsigned k = 0; k < w->npaths; k++) {
			assert_int_equal(g->paths[k], w->paths[k]);
			assert_int_equal(g->path_lost[k], w->path_lost[k]);
		}
	}
}

/* Two sets of vantage points hold the same points. */
static inline void same_points(const struct rt_res_points *got, const struct rt_res_points *want)
{
	unsigned n = got->nwords > want->nwords ? got->nwords : want->nwords;
	for (unsigned w = 0; w < n; w++)
		assert_int_equal(w < got->nwords ? got->words[w] : 0,
		                 w < want->nwords ? want->words[w] : 0);
}

/* PFC and PAUSE of the merge (got) are one pass's (want): classes, sending MACs, storms, incidents. */
static inline void same_pfc(const struct rt_results *got, const struct rt_results *want)
{
	assert_int_equal(got->pfc_frames, want->pfc_frames);
	assert_int_equal(got->pause_frames, want->pause_frames);
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		assert_int_equal(got->pfc[c].xoff, want->pfc[c].xoff);
		assert_int_equal(got->pfc[c].xon, want->pfc[c].xon);
		assert_int_equal(got->pfc[c].paused_ns, want->pfc[c].paused_ns);
		assert_int_equal(got->pfc[c].storms, want->pfc[c].storms);
	}
	assert_int_equal(got->npfc_sources, want->npfc_sources);
	for (uint32_t i = 0; i < want->npfc_sources; i++) {
		const struct rt_res_pfc_source *g = &got->pfc_sources[i],
		                               *w = &want->pfc_sources[i];
		assert_memory_equal(g->mac, w->mac, 6);
		assert_int_equal(g->cls, w->cls);
		same_points(&g->points, &w->points);
		assert_int_equal(g->xoff, w->xoff);
		assert_int_equal(g->xon, w->xon);
		assert_int_equal(g->paused_ns, w->paused_ns);
		assert_int_equal(g->first_xoff_ns, w->first_xoff_ns);
		assert_int_equal(g->longest_start_ns, w->longest_start_ns);
		assert_int_equal(g->longest_ns, w->longest_ns);
	}
	assert_int_equal(got->nstorms, want->nstorms);
	for (uint32_t i = 0; i < want->nstorms; i++) {
		assert_memory_equal(got->storms[i].mac, want->storms[i].mac, 6);
		assert_int_equal(got->storms[i].start_ns, want->storms[i].start_ns);
		assert_int_equal(got->storms[i].end_ns, want->storms[i].end_ns);
	}
	assert_int_equal(got->nincidents, want->nincidents);
	for (uint32_t i = 0; i < want->nincidents; i++) {
		assert_int_equal(got->incidents[i].start_ns, want->incidents[i].start_ns);
		assert_int_equal(got->incidents[i].end_ns, want->incidents[i].end_ns);
		assert_int_equal(got->incidents[i].macs_total, want->incidents[i].macs_total);
	}
}

/* The MAC table of the merge (got) is one pass's (want), MAC by MAC. */
static inline void same_macs(const struct rt_results *got, const struct rt_results *want)
{
	assert_int_equal(got->nmacs, want->nmacs);
	for (uint32_t i = 0; i < want->nmacs; i++) {
		const struct rt_res_mac *w = &want->macs[i], *g = NULL;
		for (uint32_t k = 0; k < got->nmacs; k++)
			if (!memcmp(got->macs[k].mac, w->mac, 6))
				g = &got->macs[k];
		assert_non_null(g);
		same_points(&g->points, &w->points);
		same_points(&g->src_points, &w->src_points);
		assert_int_equal(g->frames, w->frames);
		assert_int_equal(g->ipver, w->ipver);
		assert_memory_equal(g->ip, w->ip, 16);
		assert_int_equal(g->several, w->several);
	}
}

#endif

/* Unit tests of the partials' merge parts (paths, PFC, MACs, episodes, capture facts): two points analyzed alone, merged, against one pass over both. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/dedup.h"
#include "analyze/partial_merge.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"

#define T0   1700000000000000000ull
#define OFF  300000ull /* b's clock ahead of a's */
#define MAXR 8192

/* The records of a scenario, each with its point (0: a, 1: b). */
struct scen {
	struct rt_record r[MAXR];
	unsigned n;
};

static void add(struct scen *s, struct rt_record r, unsigned point)
{
	assert_true(s->n < MAXR);
	r.point = (uint16_t)point;
	r.interface_id = point;
	r.ttl = 64;
	s->r[s->n++] = r;
}

static int by_time(const void *a, const void *b)
{
	const struct rt_record *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

static const struct rt_an_vantage points[2] = {{.name = "a"}, {.name = "b"}};
static uint64_t b_if_dropped; /* the drops b's capture file records */
static bool keep_cnps;        /* the partials keep every CNP (RT_PP_CNP) */

/*
 * An analyzer fed the scenario's records of point `only` (as its point 0),
 * or all of them in raw time order (only < 0): one pass. Finished, its
 * points described.
 */
static struct rt_analyzer *analyze(struct scen *s, int only, uint32_t k, uint32_t m)
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
	    rt_analyzer_vantage_points(an, only < 0 ? points : &points[only], only < 0 ? 2 : 1, eb),
	    0);
	return an;
}

/* The partial of point `pt` (its view taken from an) with every RoCE packet it saw, sampled. */
static struct rt_partial *partial_of(struct rt_analyzer *an, const struct scen *s, unsigned pt,
                                     uint32_t k, uint32_t m)
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

/* A merge of the two points' partials around one pass's flows (their keys: the merged flows'). */
struct fixture {
	struct rt_analyzer *one, *pt[2];
	const struct rt_results *want;
	struct rt_partial *p[2];
	struct an_pm m;
	uint32_t *map[2];
};

static void fixture_make(struct fixture *f, struct scen *s, uint32_t k, uint32_t m)
{
	memset(f, 0, sizeof(*f));
	f->one = analyze(s, -1, k, m);
	f->want = rt_analyzer_results(f->one);
	assert_non_null(f->want);
	for (unsigned i = 0; i < 2; i++) {
		f->pt[i] = analyze(s, (int)i, k, m);
		f->p[i] = partial_of(f->pt[i], s, i, k, m);
	}
	f->m.p = f->p;
	f->m.n = 2;
	f->m.out = calloc(1, sizeof(*f->m.out));
	f->m.nflows = f->want->nflows;
	f->m.flows = calloc(f->want->nflows + 1, sizeof(*f->m.flows));
	for (uint32_t id = 0; id < f->want->nflows; id++) {
		f->m.flows[id].key = f->want->flows[id].key;
		f->m.flows[id].id = id;
	}
	f->m.flow_id = f->map;
	for (unsigned i = 0; i < 2; i++) { /* each point's flow: the one pass's of its key */
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
	f->m.vantage_window_ns = 10000000ull;
}

/* The scenario, built by the test; the fixture of its merge. */
static struct scen sc;
static struct fixture fx;

/* The merge of the scenario's two points around one pass (sample k in m), `part` of it run. */
static void merged(uint32_t k, uint32_t m, int (*part)(struct an_pm *, char *))
{
	char eb[RT_ERRBUF_SIZE];
	fixture_make(&fx, &sc, k, m);
	assert_int_equal(part(&fx.m, eb), 0);
}

static void fixture_free(struct fixture *f)
{
	for (unsigned i = 0; i < 2; i++) {
		free(f->p[i]->packets);
		free(f->p[i]);
		free(f->map[i]);
		rt_analyzer_free(f->pt[i]);
	}
	an_results_free(f->m.out);
	free(f->m.flows);
	rt_analyzer_free(f->one);
}

/*
 * Data from host 1 to host 2 through a, then b (b's clock OFF ahead; queueing
 * 0..9 us), ACKs back through b then a: a few packets lost between them, a
 * quarter CE-marked on the way, b capturing from a little after a to a
 * little before it ends. Every tenth packet a CNP back to host 1's QP.
 */
static void paths_scenario(struct scen *s, bool cnps)
{
	s->n = 0;
	uint64_t t = T0;
	for (uint32_t k = 0; k < 600; k++, t += 20000) {
		uint64_t q = (k % 10) * 1000, tb = t + 2000 + q + OFF;
		struct rt_record d =
		    roce(t, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, k);
		add(s, d, 0);
		bool b_on = k >= 20 && k < 580;
		if (b_on && k % 97 != 50) {
			d.ts_ns = tb;
			if (k % 4 == 0)
				d.ecn = 3;
			d.ttl = 63;
			add(s, d, 1);
		}
		if (k % 8 == 7) {
			struct rt_record a2 = ack(tb + 3000, 0x0a000002, 0x0a000001, 0x34, k, 0);
			if (b_on)
				add(s, a2, 1);
			a2.ts_ns = tb + 3000 + 1000 - OFF;
			add(s, a2, 0);
		}
		if (cnps && k % 10 == 0 && b_on) {
			struct rt_record c =
			    roce(tb + 4000, 0x0a000002, 0x0a000001, RT_OPCODE_CNP, 0x34, 0);
			add(s, c, 1);
			c.ts_ns = tb + 5000 - OFF;
			add(s, c, 0);
		}
	}
}

/* The merged paths and each flow's are one pass's, figure by figure. */
static void same_paths(const struct rt_results *got, const struct rt_results *want)
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

static void paths_at(uint32_t k, uint32_t m)
{
	paths_scenario(&sc, true);
	merged(k, m, an_pm_paths);
	same_paths(&fx.m.out->r, fx.want);
	/* the scenario's figures: the data's path lost some, saw CE set, judged the edges apart */
	const struct rt_res_path *ab = &fx.want->paths[0];
	assert_string_equal(ab->from, "a");
	assert_true(ab->matched > 0);
	if (m == 1) {
		assert_int_equal(ab->lost, 6); /* k % 97 == 50 within b's span */
		assert_true(ab->ce_marked > 100);
		assert_true(ab->not_judged > 0);
	}
	fixture_free(&fx);
}

static void test_paths_every_packet(void **state)
{
	(void)state;
	paths_at(1, 1);
}

static void test_paths_sampled(void **state)
{
	(void)state;
	paths_at(1, 4);
}

/* A frame other than RoCE (one the partial keeps nothing of) at `point`. */
static void other_at(struct scen *s, uint64_t ts, unsigned point)
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 60;
	r.kind = RT_KIND_OTHER;
	r.layers = RT_L_ETH;
	add(s, r, point);
}

/*
 * The points' capture spans are their frames', not their packets': a sees
 * host 1's packets for 1 ms, then other frames only, and b starts 20 ms
 * later (past the window: those packets count neither way); both see
 * packets both ways from 21 to 30 ms, b missing the last ten of a's, and
 * other frames until 35 ms at b (they were lost: b was capturing).
 */
static void test_paths_edges(void **state)
{
	(void)state;
	sc.n = 0;
	for (uint32_t k = 0; k < 50; k++)
		add(&sc,
		    roce(T0 + k * 20000, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, k),
		    0);
	for (uint64_t t = T0 + 1000000; t <= T0 + 40000000; t += 1000000)
		other_at(&sc, t, 0);
	for (uint64_t t = T0 + 20000000; t <= T0 + 35000000; t += 1000000)
		other_at(&sc, t + OFF, 1);
	for (uint32_t k = 0; k < 450; k++) {
		uint64_t t = T0 + 21000000 + k * 20000;
		struct rt_record d =
		    roce(t, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 0x12, 100 + k);
		add(&sc, d, 0);
		if (k < 440) {
			d.ts_ns = t + 2000 + OFF;
			add(&sc, d, 1);
		}
		if (k % 8 == 7) {
			struct rt_record a2 =
			    ack(t + 5000 + OFF, 0x0a000002, 0x0a000001, 0x34, k, 0);
			add(&sc, a2, 1);
			a2.ts_ns = t + 7000;
			add(&sc, a2, 0);
		}
	}
	merged(1, 1, an_pm_paths);
	same_paths(&fx.m.out->r, fx.want);
	assert_string_equal(fx.want->paths[0].from, "a");
	assert_int_equal(fx.want->paths[0].lost, 10);
	assert_int_equal(fx.want->paths[0].matched, 440);
	fixture_free(&fx);
}

/* Episodes of CE marks seen at b only: one pass's (start, end, counts, flows), peak and rates null. */
static void test_episodes(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	merged(1, 1, an_pm_episodes);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_true(want->nepisodes > 0);
	assert_int_equal(got->nepisodes, want->nepisodes);
	for (uint32_t i = 0; i < want->nepisodes; i++) {
		const struct rt_res_episode *g = &got->episodes[i], *w = &want->episodes[i];
		assert_int_equal(g->start_ns, w->start_ns);
		assert_int_equal(g->end_ns, w->end_ns);
		assert_int_equal(g->ce, w->ce);
		assert_int_equal(g->cnp, w->cnp);
		assert_int_equal(g->flow_count, w->flow_count);
		assert_int_equal(g->nflows, w->nflows);
		assert_memory_equal(g->flows, w->flows, w->nflows * sizeof(w->flows[0]));
		assert_true(isnan(g->peak_ce_per_s));
		assert_true(isnan(g->gbps_before) && isnan(g->gbps_during) && isnan(g->gbps_after));
	}
	for (uint32_t id = 0; id < want->nflows; id++)
		assert_int_equal(got->flows[id].in_episodes, want->flows[id].in_episodes);
	fixture_free(&fx);
}

/* The CNPs the merged episodes count, and one pass's. */
static void episode_cnps(uint64_t *got, uint64_t *want)
{
	*got = *want = 0;
	for (uint32_t i = 0; i < fx.m.out->r.nepisodes; i++)
		*got += fx.m.out->r.episodes[i].cnp;
	for (uint32_t i = 0; i < fx.want->nepisodes; i++)
		*want += fx.want->episodes[i].cnp;
}

/*
 * A CNP seen at both points: counted at each when the partials do not keep
 * the CNPs (one pass's twice), once when they do.
 */
static void test_episodes_cnp(void **state)
{
	(void)state;
	uint64_t got, want;
	paths_scenario(&sc, true);
	merged(1, 1, an_pm_episodes);
	episode_cnps(&got, &want);
	assert_true(want > 0);
	assert_int_equal(got, 2 * want);
	fixture_free(&fx);
	keep_cnps = true;
	merged(1, 1, an_pm_episodes);
	keep_cnps = false;
	episode_cnps(&got, &want);
	assert_int_equal(got, want);
	assert_int_equal(fx.m.out->r.nepisodes, fx.want->nepisodes);
	assert_int_equal(fx.m.out->r.episodes[0].start_ns, fx.want->episodes[0].start_ns);
	fixture_free(&fx);
}

/* CE marks made before a, seen at both points: each counted once, where first seen. */
static void test_episodes_ce_twice(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	for (unsigned i = 0; i < sc.n; i++)
		if (sc.r[i].opcode == RT_OPCODE_RC_SEND_ONLY && sc.r[i].psn % 4 == 0)
			sc.r[i].ecn = 3;
	merged(1, 1, an_pm_episodes);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_true(want->nepisodes > 0);
	assert_int_equal(got->nepisodes, want->nepisodes);
	for (uint32_t i = 0; i < want->nepisodes; i++) {
		assert_int_equal(got->episodes[i].start_ns, want->episodes[i].start_ns);
		assert_true(got->episodes[i].end_ns >= want->episodes[i].end_ns);
		assert_int_equal(got->episodes[i].ce, want->episodes[i].ce);
	}
	fixture_free(&fx);
}

/* A PFC frame of MAC ..:mac (priority 3, quanta q) at `point`. */
static void pfc_at(struct scen *s, uint64_t ts, uint8_t mac, uint16_t q, unsigned point)
{
	const uint16_t quanta[8] = {0, 0, 0, q, 0, 0, 0, 0};
	struct rt_record r = pfc_rec(ts, 1u << 3, quanta);
	r.src_mac[5] = mac;
	add(s, r, point);
}

/*
 * The switch pauses host 1 (seen at a, MAC ..:0a) and host 2 (seen at b,
 * MAC ..:0b): storms of priority 3 (quanta 0xffff at 1 Gb/s, 33 ms, over
 * the 1 ms threshold) and short pauses; RoCE traffic both ways gives the
 * MAC table (hosts' MACs at both points).
 */
static void pfc_scenario(struct scen *s)
{
	paths_scenario(s, false);
	for (unsigned i = 0; i < s->n; i++) { /* the hosts' MACs, the same at both points */
		s->r[i].src_mac[5] = (uint8_t)(0x10 + s->r[i].src_ip[3]);
		s->r[i].dst_mac[5] = (uint8_t)(0x10 + s->r[i].dst_ip[3]);
	}
	pfc_at(s, T0 + 100000, 0x0a, 0xffff, 0);
	pfc_at(s, T0 + 2000000, 0x0a, 0, 0);
	pfc_at(s, T0 + 3000000 + OFF, 0x0b, 0xffff, 1);
	pfc_at(s, T0 + 3500000 + OFF, 0x0b, 0xffff, 1);
	pfc_at(s, T0 + 6000000 + OFF, 0x0b, 0, 1);
	pfc_at(s, T0 + 9000000, 0x0a, 100, 0);
	pfc_at(s, T0 + 11000000 + OFF, 0x0b, 100, 1);
}

/* PFC and PAUSE of the merge (got) are one pass's (want): classes, sending MACs, storms, incidents. */
static void same_pfc(const struct rt_results *got, const struct rt_results *want)
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
		assert_int_equal(g->points, w->points);
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

static void test_pfc_one_point_each(void **state)
{
	(void)state;
	pfc_scenario(&sc);
	merged(1, 1, an_pm_pfc);
	assert_int_equal(fx.want->npfc_sources, 2);
	assert_int_equal(fx.want->nstorms, 2);
	same_pfc(&fx.m.out->r, fx.want);
	fixture_free(&fx);
}

/* One MAC's PFC frames at both points (a link tapped twice): frames counted at each, paused time an upper bound. */
static void test_pfc_both_points(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	pfc_at(&sc, T0 + 100000, 0x0a, 0xffff, 0);
	pfc_at(&sc, T0 + 100000 + OFF, 0x0a, 0xffff, 1);
	pfc_at(&sc, T0 + 2000000, 0x0a, 0, 0);
	pfc_at(&sc, T0 + 2000000 + OFF, 0x0a, 0, 1);
	merged(1, 1, an_pm_pfc);
	const struct rt_results *got = &fx.m.out->r, *want = fx.want;
	assert_int_equal(got->pfc[3].xoff, want->pfc[3].xoff);
	assert_int_equal(got->pfc[3].xon, want->pfc[3].xon);
	assert_int_equal(got->npfc_sources, 1);
	assert_int_equal(got->pfc_sources[0].points, 3);
	assert_int_equal(got->pfc_sources[0].points, want->pfc_sources[0].points);
	assert_int_equal(got->pfc_sources[0].first_xoff_ns, want->pfc_sources[0].first_xoff_ns);
	assert_true(got->pfc[3].paused_ns >= want->pfc[3].paused_ns);
	assert_int_equal(got->pfc[3].paused_ns, 2 * (2000000 - 100000));
	fixture_free(&fx);
}

/* The MAC table of the merge (got) is one pass's (want), MAC by MAC. */
static void same_macs(const struct rt_results *got, const struct rt_results *want)
{
	assert_int_equal(got->nmacs, want->nmacs);
	for (uint32_t i = 0; i < want->nmacs; i++) {
		const struct rt_res_mac *w = &want->macs[i], *g = NULL;
		for (uint32_t k = 0; k < got->nmacs; k++)
			if (!memcmp(got->macs[k].mac, w->mac, 6))
				g = &got->macs[k];
		assert_non_null(g);
		assert_int_equal(g->points, w->points);
		assert_int_equal(g->src_points, w->src_points);
		assert_int_equal(g->frames, w->frames);
		assert_int_equal(g->ipver, w->ipver);
		assert_memory_equal(g->ip, w->ip, 16);
		assert_int_equal(g->several, w->several);
	}
}

/* The MAC table: each MAC's points, sources, frames and IP are one pass's. */
static void test_macs(void **state)
{
	(void)state;
	pfc_scenario(&sc);
	merged(1, 1, an_pm_macs);
	assert_int_equal(fx.want->nmacs, 4);
	same_macs(&fx.m.out->r, fx.want);
	fixture_free(&fx);
}

/* Capture facts: counts summed, each point's warning said as its own. */
static void test_capture(void **state)
{
	(void)state;
	paths_scenario(&sc, false);
	for (unsigned i = 0; i < sc.n; i++)
		if (sc.r[i].point == 1 && i % 50 == 0) { /* b's snap length cut some ICRCs */
			sc.r[i].events |= RT_EV_ICRC_TRUNCATED;
			sc.r[i].caplen = sc.r[i].wirelen - 4;
		}
	b_if_dropped = 7;
	merged(1, 1, an_pm_capture);
	b_if_dropped = 0;
	const struct rt_results *got = &fx.m.out->r;
	assert_string_equal(got->drops_source, "pcapng");
	assert_int_equal(got->if_dropped, 7);
	assert_int_equal(got->os_dropped, 2);
	assert_true(got->icrc_unchecked > 0);
	assert_int_equal(got->icrc_unchecked, fx.want->icrc_unchecked);
	assert_int_equal(got->headers_cut, fx.want->headers_cut);
	unsigned named = 0;
	for (unsigned i = 0; i < got->nwarnings; i++) {
		const struct rt_an_warning *w = &got->warnings[i];
		assert_true(!strncmp(w->message, "at a: ", 6) || !strncmp(w->message, "at b: ", 6));
		for (unsigned k = 0; k < w->nvalues; k++)
			named += !strcmp(w->values[k].name, "point");
	}
	assert_int_equal(named, fx.p[0]->r->nwarnings + fx.p[1]->r->nwarnings);
	fixture_free(&fx);
}

static const char *scenario_dir;

/*
 * A frame of a scenario capture at two points: all at a, the RoCE ones at b
 * too (b's clock OFF ahead): from the lower IP to the higher through a
 * then b, the other way through b then a; every 53rd lost between them,
 * every 7th ECN-capable one CE-marked between them.
 */
static void two_points(void *ctx, struct rt_record *rec)
{
	(void)ctx;
	bool roce = rec->kind == RT_KIND_ROCE || rec->kind == RT_KIND_CNP;
	bool up = memcmp(rec->src_ip, rec->dst_ip, 16) < 0;
	struct rt_record second = *rec;
	add(&sc, *rec, roce && !up ? 1 : 0);
	if (!roce || sc.n % 53 == 0)
		return;
	second.ts_ns += 2000 + (up ? OFF : 0);
	if (!up)
		sc.r[sc.n - 1].ts_ns += OFF;
	if ((second.ecn & 3) && (second.ecn & 3) != 3 && sc.n % 7 == 0)
		second.ecn = 3;
	add(&sc, second, up ? 1 : 0);
	sc.r[sc.n - 1].ttl = 63;
}

/* Every scenario capture at two points: paths, episodes, PFC and MACs against one pass. */
static void test_scenarios(void **state)
{
	(void)state;
	static const char *const names[] = {"cm",       "dcqcn",       "incast", "incast_one_host",
	                                    "nak_gbn",  "np_limited",  "pause",  "pfc",
	                                    "psn_wrap", "read_atomic", "rnr"};
	char eb[RT_ERRBUF_SIZE], path[512];
	uint64_t matched = 0, lost = 0, ce = 0, cnp = 0, episodes = 0, sources = 0;
	keep_cnps = true;
	for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		sc.n = 0;
		snprintf(path, sizeof(path), "%s/%s.pcap", scenario_dir, names[k]);
		each_pcap_record(path, two_points, NULL);
		fixture_make(&fx, &sc, 1, 4); /* paths of a sample, 1 in 4 */
		assert_int_equal(an_pm_paths(&fx.m, eb), 0);
		same_paths(&fx.m.out->r, fx.want);
		fixture_free(&fx);
		fixture_make(&fx, &sc, 1, 1);
		assert_int_equal(an_pm_paths(&fx.m, eb), 0);
		assert_int_equal(an_pm_pfc(&fx.m, eb), 0);
		assert_int_equal(an_pm_macs(&fx.m, eb), 0);
		assert_int_equal(an_pm_episodes(&fx.m, eb), 0);
		const struct rt_results *got = &fx.m.out->r, *want = fx.want;
		same_paths(got, want);
		for (unsigned i = 0; i < want->npaths; i++) {
			matched += want->paths[i].matched;
			lost += want->paths[i].lost;
			ce += want->paths[i].ce_marked;
		}
		for (uint32_t i = 0; i < want->nepisodes; i++)
			cnp += want->episodes[i].cnp;
		episodes += want->nepisodes;
		sources += want->npfc_sources;
		same_pfc(got, want);
		same_macs(got, want);
		assert_int_equal(got->nepisodes, want->nepisodes);
		for (uint32_t i = 0; i < want->nepisodes; i++) {
			assert_int_equal(got->episodes[i].start_ns, want->episodes[i].start_ns);
			assert_true(got->episodes[i].end_ns >= want->episodes[i].end_ns);
			assert_int_equal(got->episodes[i].ce, want->episodes[i].ce);
			assert_int_equal(got->episodes[i].cnp, want->episodes[i].cnp);
			assert_int_equal(got->episodes[i].pfc_xoff, want->episodes[i].pfc_xoff);
		}
		fixture_free(&fx);
	}
	keep_cnps = false;
	/* what they hold: matches, losses and CE marks between the points, episodes with CNPs, pauses */
	assert_true(matched > 1000 && lost > 10 && ce > 10);
	assert_true(episodes > 5 && cnp > 10 && sources > 0);
}

int main(int argc, char **argv)
{
	scenario_dir = scenario_dir_arg(argc, argv);
	if (!scenario_dir)
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paths_every_packet),
	    cmocka_unit_test(test_paths_sampled),
	    cmocka_unit_test(test_paths_edges),
	    cmocka_unit_test(test_episodes),
	    cmocka_unit_test(test_episodes_cnp),
	    cmocka_unit_test(test_episodes_ce_twice),
	    cmocka_unit_test(test_pfc_one_point_each),
	    cmocka_unit_test(test_pfc_both_points),
	    cmocka_unit_test(test_macs),
	    cmocka_unit_test(test_scenarios),
	    cmocka_unit_test(test_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

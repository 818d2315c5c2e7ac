/* Unit tests of a merge of many partials (64 points, beyond the one-pass matcher's 8): flows, totals, point sets, pairwise paths, any order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/partial.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"

/*
 * 64 hosts, each capturing its own traffic (point p is host 10.0.0.(p+1),
 * MAC 02:00:00:00:00:(p+1)): hosts 2k send to 2k+1 (k < 30), and 60, 61,
 * 62 to 63 (an incast). Every packet is seen at its sender, then 5 us
 * later at its receiver: CE-marked there on every 5th packet of the pairs
 * k % 3 == 0 and the incast, packet 3 lost on the pairs k % 4 == 1. A
 * switch port (MAC ..:ee) pauses priority 3, seen at points 10 and 50.
 */
#define NPT   64
#define PAIRS 30
#define NFL   (PAIRS + 3)

static char names[NPT][8];

/* The records of each point, in its time order. */
struct many {
	struct rt_record *v[NPT];
	unsigned n[NPT];
};

static void at(struct many *s, unsigned point, struct rt_record r)
{
	s->v[point] = realloc(s->v[point], (s->n[point] + 1) * sizeof(r));
	assert_non_null(s->v[point]);
	r.point = 0;
	r.ttl = 64;
	s->v[point][s->n[point]++] = r;
}

/* What the model says of flow f: its sender and receiver, packets, CE marks, losses. */
struct truth {
	unsigned snd, rcv;
	uint32_t qp;
	uint64_t packets, ce, lost;
};

static unsigned flow_truth(unsigned f, struct truth *t)
{
	bool incast = f >= PAIRS;
	t->snd = incast ? 60 + (f - PAIRS) : 2 * f;
	t->rcv = incast ? 63 : 2 * f + 1;
	t->qp = 100 + f;
	t->packets = 10 + f % 7;
	t->ce = incast || f % 3 == 0 ? (t->packets + 4) / 5 : 0;
	t->lost = !incast && f % 4 == 1;
	return f;
}

static void build(struct many *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned f = 0; f < NFL; f++) {
		struct truth t;
		flow_truth(f, &t);
		for (uint32_t i = 0; i < t.packets; i++) {
			uint64_t ts = T0 + i * 10 * US + f * 100;
			struct rt_record r = roce(ts, 0x0a000001 + t.snd, 0x0a000001 + t.rcv,
			                          RT_OPCODE_RC_SEND_ONLY, t.qp, i);
			r.src_mac[0] = r.dst_mac[0] = 2;
			r.src_mac[5] = (uint8_t)(t.snd + 1);
			r.dst_mac[5] = (uint8_t)(t.rcv + 1);
			at(s, t.snd, r);
			if (t.lost && i == 3)
				continue;
			r.ts_ns += 5 * US;
			if (t.ce && i % 5 == 0)
				r.ecn = 3;
			at(s, t.rcv, r);
		}
	}
	const uint16_t on[8] = {0, 0, 0, 0xffff, 0, 0, 0, 0}, off[8] = {0};
	for (unsigned k = 0; k < 2; k++) {
		unsigned pt = k ? 50 : 10;
		struct rt_record x = pfc_rec(T0 + 20 * US, 1u << 3, on),
		                 y = pfc_rec(T0 + 60 * US, 1u << 3, off);
		x.src_mac[5] = y.src_mac[5] = 0xee;
		at(s, pt, x);
		at(s, pt, y);
	}
}

/* Point i's records analyzed alone: its partial (every packet sampled). */
static struct rt_partial *partial(const struct many *s, unsigned i)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = true;
	o.partial = true;
	o.vantage_sample_k = o.vantage_sample_m = 1;
	struct rt_analyzer *an = new_an_opts(&o);
	for (unsigned k = 0; k < s->n[i]; k++) {
		struct rt_record r = s->v[i][k];
		rt_analyzer_feed(an, &r);
	}
	char eb[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_finish(an, eb), 0);
	const struct rt_an_vantage vp = {.name = names[i]};
	assert_int_equal(rt_analyzer_vantage_points(an, &vp, 1, eb), 0);
	static const char *const files[] = {"cap.pcapng"};
	struct rt_partial *p = NULL;
	assert_int_equal(rt_partial_take(an, names[i], files, 1, &p, eb), 0);
	rt_analyzer_free(an);
	return p;
}

/* The host (its point) of a name "hNN". */
static unsigned host_of(const char *name)
{
	assert_int_equal(name[0], 'h');
	return (unsigned)atoi(name + 1);
}

/* A set of the view's points as the hosts they name (bit h: host h). */
static uint64_t hosts_of(const struct rt_results *r, const struct rt_res_points *s)
{
	uint64_t hosts = 0;
	for (unsigned p = 0; p < r->nvantage; p++)
		if (rt_res_points_has(s, p))
			hosts |= 1ull << host_of(r->vantage[p].name);
	return hosts;
}

/* The merged flow of truth t, or NULL. */
static const struct rt_res_flow *flow_in(const struct rt_results *r, const struct truth *t)
{
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (f->key.dest_qp == t->qp && f->key.src[3] == t->snd + 1 &&
		    f->key.dst[3] == t->rcv + 1)
			return f;
	}
	return NULL;
}

static const struct rt_res_mac *mac_in(const struct rt_results *r, uint8_t last)
{
	for (uint32_t k = 0; k < r->nmacs; k++)
		if (r->macs[k].mac[5] == last)
			return &r->macs[k];
	return NULL;
}

/* The merged view against the model: flows, totals, point sets, paths (found by names). */
static void check(const struct rt_results *r, const struct many *s)
{
	assert_int_equal(r->nvantage, NPT);
	assert_int_equal(r->nflows, NFL);
	uint64_t roce = 0, ce = 0, frames = 0;
	for (unsigned i = 0; i < NPT; i++)
		frames += s->n[i];
	for (unsigned f = 0; f < NFL; f++) {
		struct truth t;
		flow_truth(f, &t);
		const struct rt_res_flow *o = flow_in(r, &t);
		assert_non_null(o);
		/* the home: the sender (its first frame the earlier); its figures, the CE marks added */
		assert_string_equal(o->followed_at, names[t.snd]);
		assert_int_equal(o->packets, t.packets);
		assert_int_equal(o->ecn[3], t.ce);
		assert_int_equal(o->ecn[2], t.packets - t.ce);
		roce += t.packets;
		ce += t.ce;
		/* its one path: sender to receiver, with what it lost */
		assert_int_equal(o->npaths, 1);
		const struct rt_res_path *p = &r->paths[o->paths[0]];
		assert_string_equal(p->from, names[t.snd]);
		assert_string_equal(p->to, names[t.rcv]);
		assert_int_equal(p->matched, t.packets - t.lost);
		assert_int_equal(p->lost, t.lost);
		assert_int_equal(p->ce_marked, t.ce);
		assert_int_equal(o->path_lost[0], t.lost);
		/* the sender's MAC seen and sending at both ends, the receiver's at both, never sending */
		const struct rt_res_mac *ms = mac_in(r, (uint8_t)(t.snd + 1)),
		                        *mr = mac_in(r, (uint8_t)(t.rcv + 1));
		assert_non_null(ms);
		assert_non_null(mr);
		uint64_t ends = 1ull << t.snd | 1ull << t.rcv;
		assert_int_equal(hosts_of(r, &ms->points), ends);
		assert_int_equal(hosts_of(r, &ms->src_points), ends);
		assert_int_equal(hosts_of(r, &mr->points) & ends, ends);
		assert_int_equal(hosts_of(r, &mr->src_points), 0);
	}
	/* the incast's receiver: seen at its three senders and itself */
	assert_int_equal(hosts_of(r, &mac_in(r, 64)->points), 0xfull << 60);
	/* paths only between the pairs that share flows: one each */
	assert_int_equal(r->npaths, NFL);
	assert_int_equal(r->c.packets, frames);
	assert_int_equal(r->c.roce_packets, roce);
	assert_int_equal(r->c.ce, ce);
	/* the switch port's pauses, at points 10 and 50 */
	assert_int_equal(r->npfc_sources, 1);
	assert_int_equal(r->pfc_sources[0].mac[5], 0xee);
	assert_int_equal(hosts_of(r, &r->pfc_sources[0].points), 1ull << 10 | 1ull << 50);
	assert_int_equal(r->pfc[3].xoff, 2);
	assert_int_equal(hosts_of(r, &mac_in(r, 0xee)->src_points), 1ull << 10 | 1ull << 50);
}

/*
 * The first 8 points merged (one replay through the one-pass matcher): the
 * paths of their flows are those the 64 points' pairs give, figure by figure.
 */
static void same_as_one_replay(struct rt_partial *const *p, const struct rt_results *all)
{
	struct rt_partial *eight = NULL;
	char eb[RT_ERRBUF_SIZE];
	assert_int_equal(rt_partials_merge(p, 8, 0, &eight, eb), 0);
	const struct rt_results *r = eight->r;
	/* one replay lists a path for every pair of points, those that share nothing empty */
	assert_int_equal(r->npaths, 8 * 7 / 2);
	for (unsigned f = 0; f < 4; f++) {
		struct truth t;
		flow_truth(f, &t);
		const struct rt_res_flow *x = flow_in(r, &t), *y = flow_in(all, &t);
		assert_int_equal(x->npaths, 1);
		const struct rt_res_path *a = &r->paths[x->paths[0]], *b = &all->paths[y->paths[0]];
		assert_string_equal(a->from, b->from);
		assert_string_equal(a->to, b->to);
		assert_int_equal(a->matched, b->matched);
		assert_int_equal(a->lost, b->lost);
		assert_int_equal(a->ce_marked, b->ce_marked);
		assert_int_equal(a->judged, b->judged);
		assert_int_equal(a->offset_known, b->offset_known);
		assert_int_equal(a->offset_ns, b->offset_ns);
		assert_int_equal(a->delay_known, b->delay_known);
		assert_int_equal(a->delay_min, b->delay_min);
		assert_int_equal(a->delay_median, b->delay_median);
		assert_int_equal(x->path_lost[0], y->path_lost[0]);
	}
	rt_partial_free(eight);
}

/* 64 partials merged, given in order and in another: the model's figures both times, the same by name. */
static void test_many(void **state)
{
	(void)state;
	static struct many s;
	build(&s);
	struct rt_partial *p[NPT], *q[NPT], *a = NULL, *b = NULL;
	for (unsigned i = 0; i < NPT; i++)
		p[i] = partial(&s, i);
	for (unsigned k = 0; k < NPT; k++)
		q[k] = p[(k * 37 + 5) % NPT];
	char eb[RT_ERRBUF_SIZE];
	assert_int_equal(rt_partials_merge(p, NPT, 0, &a, eb), 0);
	assert_int_equal(rt_partials_merge(q, NPT, 0, &b, eb), 0);
	check(a->r, &s);
	check(b->r, &s);
	same_as_one_replay(p, a->r);
	for (unsigned k = 0; k < NPT; k++) /* another order: other numbers, the same points */
		assert_string_equal(b->r->vantage[k].name, names[(k * 37 + 5) % NPT]);
	assert_int_equal(a->r->nfindings, b->r->nfindings);
	for (unsigned k = 0; k < a->r->nfindings; k++)
		assert_string_equal(a->r->findings[k].code, b->r->findings[k].code);
	assert_int_equal(a->r->nepisodes, b->r->nepisodes);
	for (unsigned i = 0; i < NPT; i++) {
		rt_partial_free(p[i]);
		free(s.v[i]);
	}
	rt_partial_free(a);
	rt_partial_free(b);
}

int main(void)
{
	for (unsigned i = 0; i < NPT; i++)
		snprintf(names[i], sizeof(names[i]), "h%02u", i);
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_many)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of partial results: the packets an analyzer keeps for a partial (one thread or several), the view taken, and the flows and totals merged across points against one pass. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/findings.h"
#include "analyze/incast.h"
#include "analyze/internal.h"
#include "analyze/partial.h"
#include "analyze/partial_merge.h"
#include "analyze/results_build.h"
#include "analyze/stage.h"
#include "analyze/verdict.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/pcap_frames.h"
#include "tests/analyze/records.h"

static const char *scenario_dir;

/* Options of an analyzer that keeps a partial's packets, sampling k in m (0: the default). */
static struct rt_analyzer_opts partial_opts(uint32_t k, uint32_t m)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = true;
	o.partial = true;
	o.vantage_sample_k = k;
	o.vantage_sample_m = m;
	return o;
}

/* The partial of a finished analyzer, named `point`; the analyzer freed. */
static struct rt_partial *take(struct rt_analyzer *an, const char *point)
{
	char errbuf[RT_ERRBUF_SIZE];
	static const char *const files[] = {"cap.pcapng"};
	struct rt_partial *p = NULL;
	assert_int_equal(rt_partial_take(an, point, files, 1, &p, errbuf), 0);
	assert_non_null(p);
	rt_analyzer_free(an);
	return p;
}

/* ---- collecting ---- */

/*
 * 200 packets of one flow, every 7th CE-marked, then a copy of packet 10
 * at the same point that is CE (a mark between two taps of one point):
 * every CE packet is kept, the sample is the one --vantage-sample keeps,
 * the copy is kept as CE; in time order with the flow's id; the view
 * outlives the analyzer.
 */
static void test_collect(void **state)
{
	(void)state;
	struct rt_analyzer_opts o = partial_opts(1, 4);
	struct rt_analyzer *an = new_an_opts(&o);
	/* a flow first, so that the one below has id 1 */
	struct rt_record first = roce(T0, 0x0a000003, 0x0a000004, RT_OPCODE_RC_SEND_ONLY, 9, 0);
	rt_analyzer_feed(an, &first);
	uint64_t ce = 0, sampled = an_vp_fp_sampled(1, 4, an_dup_fingerprint(&first));
	for (uint32_t i = 0; i < 200; i++) {
		struct rt_record r =
		    roce(T0 + (i + 1) * US, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 7, i);
		if (i % 7 == 0) {
			r.ecn = 3;
			ce++;
		}
		sampled += an_vp_fp_sampled(1, 4, an_dup_fingerprint(&r));
		rt_analyzer_feed(an, &r);
	}
	struct rt_record again =
	    roce(T0 + 11 * US + 500, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 7, 10);
	again.ecn = 3;
	rt_analyzer_feed(an, &again);
	assert_int_equal(finish(an), 0);
	uint32_t flow = flow_of(an, 0x0a000001, 0x0a000002, 7)->id;
	assert_int_equal(flow, 1);
	struct rt_partial *p = take(an, "h1");
	assert_string_equal(p->point, "h1");
	assert_int_equal(p->nfiles, 1);
	assert_string_equal(p->files[0], "cap.pcapng");
	assert_int_equal(p->sample_k, 1);
	assert_int_equal(p->sample_m, 4);
	assert_int_equal(p->r->nflows, 2);
	assert_int_equal(p->r->flows[1].ecn[3], ce + 1);
	uint64_t n_ce = 0, n_sampled = 0;
	for (uint64_t i = 0; i < p->npackets; i++) {
		const struct rt_partial_packet *k = &p->packets[i];
		assert_true(k->flags & (RT_PP_CE | RT_PP_SAMPLED));
		assert_int_equal(k->ipver, 4);
		assert_int_equal(k->ttl, 0);
		if (i)
			assert_true(p->packets[i - 1].ts_ns <= k->ts_ns);
		n_ce += (k->flags & RT_PP_CE) != 0;
		n_sampled += (k->flags & RT_PP_SAMPLED) != 0;
		assert_int_equal(!!(k->flags & RT_PP_CE), k->ecn == 3);
		if (k->flow == 1)
			assert_int_equal(k->dst[3], 2);
		else
			assert_int_equal(k->flow, 0);
	}
	/* the sample: the packets whose fingerprint hashes below 1 in 4 (about 50 of 201) */
	assert_int_equal(n_ce, ce + 1);
	assert_int_equal(n_sampled, sampled);
	assert_true(n_sampled > 25 && n_sampled < 80);
	rt_partial_free(p);
}

/* Without o.partial nothing is kept, and there is no partial to take. */
static void test_collect_off(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 0x0a000001, 0x0a000002, RT_OPCODE_RC_SEND_ONLY, 7, 0);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	assert_int_equal(finish(an), 0);
	assert_int_equal(an->pk.n, 0);
	assert_null(an->pk.v);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_partial *p = NULL;
	assert_int_equal(rt_partial_take(an, "h", NULL, 0, &p, errbuf), -EINVAL);
	assert_null(p);
	rt_analyzer_free(an);
}

/* A scenario's frames through one analyzer, or a stage of `parts` threads: its partial. */
static struct rt_partial *partial_of(const struct frames *fr, unsigned parts)
{
	struct rt_analyzer_opts o = partial_opts(1, 3);
	struct rt_analyzer *an = new_an_opts(&o);
	rt_analyzer_one_point(an);
	feed_frames(an, fr, parts, 0);
	return take(an, "h");
}

/* Every scenario: the packets kept with --threads 2 and 3 are those of one thread, flow ids and order alike. */
static void test_threads(void **state)
{
	(void)state;
	DIR *d = opendir(scenario_dir);
	assert_non_null(d);
	unsigned scenarios = 0;
	uint64_t kept = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".pcap"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", scenario_dir, e->d_name);
		struct frames fr;
		read_frames(path, &fr);
		struct rt_partial *one = partial_of(&fr, 1);
		for (unsigned parts = 2; parts <= 3; parts++) {
			struct rt_partial *more = partial_of(&fr, parts);
			assert_int_equal(more->npackets, one->npackets);
			for (uint64_t i = 0; i < one->npackets; i++) {
				const struct rt_partial_packet *a = &one->packets[i],
				                               *b = &more->packets[i];
				assert_int_equal(a->fp, b->fp);
				assert_int_equal(a->ts_ns, b->ts_ns);
				assert_int_equal(a->flow, b->flow);
				assert_int_equal(a->flags, b->flags);
				assert_int_equal(a->ecn, b->ecn);
				assert_memory_equal(a->src, b->src, 16);
				assert_memory_equal(a->dst, b->dst, 16);
			}
			assert_int_equal(more->r->nflows, one->r->nflows);
			rt_partial_free(more);
		}
		kept += one->npackets;
		rt_partial_free(one);
		free(fr.f);
		free(fr.bytes);
		scenarios++;
	}
	closedir(d);
	assert_true(scenarios >= 10);
	assert_true(kept > 100);
}

/* ---- merging: vantage-point scenarios built as records ---- */

#define PTS_MAX 3
/* The frames of a scenario at each point (each in its point's time order), and the points' names. */
struct scenario {
	struct rt_record *v[PTS_MAX];
	unsigned n[PTS_MAX], cap[PTS_MAX], npoints;
};

static void at(struct scenario *sc, unsigned point, struct rt_record r)
{
	if (sc->n[point] == sc->cap[point]) {
		sc->cap[point] = sc->cap[point] ? 2 * sc->cap[point] : 256;
		sc->v[point] = realloc(sc->v[point], sc->cap[point] * sizeof(r));
		assert_non_null(sc->v[point]);
	}
	r.point = (uint16_t)point;
	r.interface_id = point;
	r.ttl = (uint8_t)(64 - point);
	sc->v[point][sc->n[point]++] = r;
}

static int by_ts_point(const void *a, const void *b)
{
	const struct rt_record *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

static const struct rt_an_vantage names[PTS_MAX] = {{.name = "h1"}, {.name = "sw"}, {.name = "h2"}};

/* One pass: every point's frames through one analyzer, in time order (the points' clocks agree). */
static struct rt_analyzer *one_pass(const struct scenario *sc)
{
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.vantage = o.vantage_clocks = true;
	o.vantage_sample_k = 1;
	o.vantage_sample_m = 2;
	struct rt_analyzer *an = new_an_opts(&o);
	unsigned n = 0;
	for (unsigned i = 0; i < sc->npoints; i++)
		n += sc->n[i];
	struct rt_record *all = malloc(n * sizeof(*all));
	assert_non_null(all);
	n = 0;
	for (unsigned i = 0; i < sc->npoints; i++) {
		memcpy(all + n, sc->v[i], sc->n[i] * sizeof(*all));
		n += sc->n[i];
	}
	qsort(all, n, sizeof(*all), by_ts_point);
	for (unsigned i = 0; i < n; i++)
		rt_analyzer_feed(an, &all[i]);
	free(all);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_finish(an, errbuf), 0);
	assert_int_equal(rt_analyzer_vantage_points(an, names, sc->npoints, errbuf), 0);
	return an;
}

/* Point i's frames analyzed alone (one point), its partial. */
static struct rt_partial *alone(const struct scenario *sc, unsigned i, uint64_t link_bps)
{
	struct rt_analyzer_opts o = partial_opts(1, 2);
	o.link_speed_bps = link_bps;
	struct rt_analyzer *an = new_an_opts(&o);
	for (unsigned k = 0; k < sc->n[i]; k++) {
		struct rt_record r = sc->v[i][k];
		r.point = 0;
		rt_analyzer_feed(an, &r);
	}
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_finish(an, errbuf), 0);
	assert_int_equal(rt_analyzer_vantage_points(an, &names[i], 1, errbuf), 0);
	return take(an, names[i].name);
}

/* The partials of every point merged (flows and totals) into m; free with merge_free. */
static void merge_flows(struct an_pm *m, struct rt_partial *const *p, unsigned n)
{
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(an_pm_start(m, p, n, errbuf), 0);
	assert_int_equal(an_pm_flows(m, errbuf), 0);
	assert_int_equal(an_pm_totals(m, errbuf), 0);
}

static void merge_free(struct an_pm *m)
{
	an_pm_end(m);
	an_results_free(m->out);
}

static void quantiles_equal(const struct rt_res_quantiles *a, const struct rt_res_quantiles *b)
{
	assert_int_equal(a->samples, b->samples);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->median, b->median);
	assert_int_equal(a->max, b->max);
}

/* The merged flow against one pass's: what the rules make exact (analyze/README.md). */
static void flow_equal(const struct rt_res_flow *one, const struct rt_res_flow *m)
{
	assert_memory_equal(&one->key, &m->key, sizeof(one->key));
	assert_int_equal(one->id, m->id);
	assert_int_equal(one->packets, m->packets + m->packets_home_missed);
	assert_int_equal(one->bytes - m->bytes,
	                 (one->bytes / one->packets) * m->packets_home_missed);
	assert_int_equal(one->requests,
	                 m->requests + (one->requests > m->requests) * m->packets_home_missed);
	assert_int_equal(one->responses,
	                 m->responses + (one->responses > m->responses) * m->packets_home_missed);
	if (!m->packets_home_missed)
		assert_memory_equal(one->ecn, m->ecn, sizeof(one->ecn));
	assert_int_equal(one->cnp_received, m->cnp_received);
	assert_int_equal(one->cnp_sent, m->cnp_sent);
	assert_int_equal(one->first_ns, m->first_ns);
	assert_int_equal(one->last_ns, m->last_ns);
	assert_int_equal(one->peer_qp, m->peer_qp);
	assert_true(!one->pairing == !m->pairing);
	assert_true(!one->transport == !m->transport);
	if (one->transport)
		assert_string_equal(one->transport, m->transport);
	assert_string_equal(one->followed_at, m->followed_at);
	assert_true(!one->xport == !m->xport);
	if (one->xport) {
		const struct rt_res_transport *x = one->xport, *y = m->xport;
		assert_int_equal(x->naks_received, y->naks_received);
		assert_int_equal(x->retransmitted, y->retransmitted);
		assert_int_equal(x->gaps, y->gaps);
		assert_int_equal(x->gap_psns, y->gap_psns);
		assert_int_equal(x->duplicates, y->duplicates);
		quantiles_equal(&x->rtt, &y->rtt);
	}
	assert_true(!one->np == !m->np);
	if (one->np) {
		assert_int_equal(one->np->answered, m->np->answered);
		assert_int_equal(one->np->unanswered, m->np->unanswered);
		assert_int_equal(one->np->cnp_without_ce, m->np->cnp_without_ce);
		/* from the point that saw the CE marks, in its clock (one pass: from a mark's first
		 * frame, maybe upstream): the samples alike */
		assert_int_equal(one->np->reaction.samples, m->np->reaction.samples);
	}
	assert_true(!one->rp == !m->rp);
	if (one->rp) {
		assert_int_equal(one->rp->cnps, m->rp->cnps);
		assert_int_equal(one->rp->measured, m->rp->measured);
	}
}

/* The merged view's flows and totals against one pass's. */
static void view_equal(const struct rt_results *one, const struct rt_results *m)
{
	assert_int_equal(one->nflows, m->nflows);
	for (uint32_t id = 0; id < one->nflows; id++)
		flow_equal(&one->flows[id], &m->flows[id]);
	assert_int_equal(one->c.packets, m->c.packets);
	assert_int_equal(one->c.bytes, m->c.bytes);
	assert_int_equal(one->c.roce_packets, m->c.roce_packets + m->packets_home_missed);
	assert_int_equal(one->c.cnp, m->c.cnp);
	assert_int_equal(one->c.nak, m->c.nak);
	assert_int_equal(one->c.retransmitted, m->c.retransmitted);
	assert_int_equal(one->gaps, m->gaps);
	assert_int_equal(one->npaired, m->npaired);
	assert_int_equal(one->start_ns, m->start_ns);
	assert_int_equal(one->end_ns, m->end_ns);
	if (!m->packets_home_missed) {
		assert_int_equal(one->c.ce, m->c.ce);
		assert_memory_equal(one->ecn, m->ecn, sizeof(one->ecn));
	}
}

/*
 * The findings and the verdict of the merged view (flows and totals: the
 * scenarios hold no PFC and their episodes' findings read the flows)
 * against one pass's: the codes in order, the state.
 */
static void findings_equal(const struct rt_results *one, struct rt_results *m)
{
	an_incast_view(m);
	struct rt_finding *f = calloc(RT_FINDINGS_MAX, sizeof(*f));
	assert_non_null(f);
	int n = an_findings_build(m, f, RT_FINDINGS_MAX);
	assert_int_equal(n, one->nfindings);
	for (int i = 0; i < n; i++) {
		assert_string_equal(f[i].code, one->findings[i].code);
	}
	m->findings = f;
	m->nfindings = (unsigned)n;
	assert_int_equal(rt_verdict_build(m, &m->verdict), 0);
	assert_int_equal(m->verdict.state, one->verdict.state);
	m->findings = NULL;
	free(f);
}

/*
 * A sender h1 (10.0.0.1, QP 0x22) sends 100 RC SENDs to h2 (10.0.0.2, QP
 * 0x11), each seen at h1, then `delay` later at each further point (sw,
 * h2); every 10th from PSN 3 is CE-marked from point ce_from on (npoints:
 * none), every 10th from PSN 7 from point ce_late on; h2 answers each CE
 * mark with a CNP 1 us after it and acks every 10th packet with AckReq, seen
 * at h2 first; h1's capture misses PSNs missed_from .. +9 (UINT32_MAX: none).
 */
static void sender_to_receiver(struct scenario *sc, unsigned npoints, unsigned ce_from,
                               unsigned ce_late, uint32_t missed_from)
{
	memset(sc, 0, sizeof(*sc));
	sc->npoints = npoints;
	const uint64_t delay = 3 * US;
	for (uint32_t psn = 0; psn < 100; psn++) {
		uint64_t t = T0 + psn * 2 * US;
		bool ce = psn % 10 == 3, late = psn % 10 == 7;
		uint64_t ce_at = 0;
		for (unsigned i = 0; i < npoints; i++) {
			struct rt_record r = roce(t + i * delay, 0x0a000001, 0x0a000002,
			                          RT_OPCODE_RC_SEND_ONLY, 0x11, psn);
			r.udp_sport = 50000;
			r.ackreq = psn % 10 == 9;
			if ((ce && i >= ce_from) || (late && i >= ce_late)) {
				r.ecn = 3;
				ce_at = ce_at ? ce_at : r.ts_ns;
			}
			if (i == 0 && psn >= missed_from && psn < missed_from + 10)
				continue;
			at(sc, i, r);
		}
		uint64_t back = t + (npoints - 1) * delay; /* at h2 */
		for (unsigned i = npoints; i-- > 0;) {
			uint64_t when = back + (npoints - 1 - i) * delay;
			if (ce_at) {
				struct rt_record c = roce(when + 1 * US, 0x0a000002, 0x0a000001,
				                          RT_OPCODE_CNP, 0x22, 0);
				c.udp_sport = 50001;
				at(sc, i, c);
			}
			if (psn % 10 == 9) {
				struct rt_record a =
				    ack(when + 1 * US + 100, 0x0a000002, 0x0a000001, 0x22, psn, 0);
				a.udp_sport = 50002;
				at(sc, i, a);
			}
		}
	}
	for (unsigned i = 0; i < npoints; i++)
		qsort(sc->v[i], sc->n[i], sizeof(struct rt_record), by_ts_point);
}

static void scenario_free(struct scenario *sc)
{
	for (unsigned i = 0; i < PTS_MAX; i++)
		free(sc->v[i]);
}

/* The scenario's one pass against its partials merged; returns the merged CE count. */
static uint64_t check_scenario(struct scenario *sc, uint64_t *missed)
{
	struct rt_analyzer *an = one_pass(sc);
	const struct rt_results *one = rt_analyzer_results(an);
	assert_non_null(one);
	struct rt_partial *p[PTS_MAX];
	for (unsigned i = 0; i < sc->npoints; i++)
		p[i] = alone(sc, i, 0);
	struct an_pm m;
	merge_flows(&m, p, sc->npoints);
	view_equal(one, &m.out->r);
	findings_equal(one, &m.out->r);
	uint64_t ce = m.out->r.c.ce;
	*missed = m.out->r.packets_home_missed;
	merge_free(&m);
	for (unsigned i = 0; i < sc->npoints; i++)
		rt_partial_free(p[i]);
	rt_analyzer_free(an);
	return ce;
}

/* Two points, the CE marks set between them: the downstream point's marks added to the home's flow. */
static void test_two_points(void **state)
{
	(void)state;
	struct scenario sc;
	uint64_t missed;
	sender_to_receiver(&sc, 2, 0, 1, UINT32_MAX); /* PSN 3 marked upstream, 7 between */
	assert_int_equal(check_scenario(&sc, &missed), 20);
	assert_int_equal(missed, 0);
	scenario_free(&sc);
}

/* Three points, marks set at each hop. */
static void test_three_points(void **state)
{
	(void)state;
	struct scenario sc;
	uint64_t missed;
	sender_to_receiver(&sc, 3, 1, 2, UINT32_MAX);
	assert_int_equal(check_scenario(&sc, &missed), 20);
	assert_int_equal(missed, 0);
	scenario_free(&sc);
}

/* The home point's capture missed 10 packets the other saw: counted apart, not in packets. */
static void test_home_missed(void **state)
{
	(void)state;
	struct scenario sc;
	uint64_t missed;
	sender_to_receiver(&sc, 2, 2, 2, 40);
	check_scenario(&sc, &missed);
	assert_int_equal(missed, 10);
	scenario_free(&sc);
}

/* Point i's last `drop` frames of `opcode` left out (UINT_MAX: all; its other frames kept). */
static void drop_last(struct scenario *sc, unsigned i, uint8_t opcode, unsigned drop)
{
	for (unsigned k = sc->n[i]; k-- > 0 && drop;)
		if (sc->v[i][k].opcode == opcode) {
			memmove(&sc->v[i][k], &sc->v[i][k + 1],
			        (sc->n[i] - k - 1) * sizeof(sc->v[i][k]));
			sc->n[i]--;
			drop--;
		}
}

/*
 * A home point that missed CNPs (identical ones: one fingerprint) the other
 * saw: the carrier's home (h2's side, sw) and the throttled flow's (h1): the
 * merged flows and totals count each CNP once, as one pass does.
 */
static void test_home_missed_cnps(void **state)
{
	(void)state;
	/* 2: sw saw no data (it never paired the CNPs' flow: the merged view has no peer for it)
	 * and h1 missed the last CNPs: h1's pairing finds the flow they throttle */
	for (unsigned point = 0; point < 3; point++) {
		struct scenario sc;
		sender_to_receiver(&sc, 2, 0, 1, UINT32_MAX); /* 20 CE marks, 20 CNPs */
		drop_last(&sc, point % 2, RT_OPCODE_CNP, 4);
		if (point == 2)
			drop_last(&sc, 1, RT_OPCODE_RC_SEND_ONLY, UINT_MAX);
		struct rt_analyzer *an = one_pass(&sc);
		const struct rt_results *one = rt_analyzer_results(an);
		struct rt_partial *p[2] = {alone(&sc, 0, 0), alone(&sc, 1, 0)};
		struct an_pm m;
		merge_flows(&m, p, 2);
		const struct rt_results *r = &m.out->r;
		assert_int_equal(one->c.cnp, 20);
		assert_int_equal(r->c.cnp, 20);
		assert_int_equal(r->nflows, one->nflows);
		for (uint32_t id = 0; id < r->nflows; id++) {
			assert_int_equal(r->flows[id].cnp_sent, one->flows[id].cnp_sent);
			assert_int_equal(r->flows[id].cnp_received, one->flows[id].cnp_received);
		}
		merge_free(&m);
		rt_partial_free(p[0]);
		rt_partial_free(p[1]);
		rt_analyzer_free(an);
		scenario_free(&sc);
	}
}

/* Partials that cannot merge: other settings, two of one point, more than RT_PARTIAL_MERGE_MAX, one alone. */
static void test_refused(void **state)
{
	(void)state;
	struct scenario sc;
	sender_to_receiver(&sc, 2, 0, 1, UINT32_MAX);
	struct rt_partial *a = alone(&sc, 0, 0), *b = alone(&sc, 1, 25000000000ull);
	static struct rt_partial *p[RT_PARTIAL_MERGE_MAX + 1];
	p[0] = a;
	p[1] = b;
	struct an_pm m;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(an_pm_start(&m, p, 2, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "--link-speed"));
	assert_non_null(strstr(errbuf, "h1 and sw"));
	p[1] = a;
	assert_int_equal(an_pm_start(&m, p, 2, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "two partial results of one vantage point, h1"));
	for (unsigned i = 0; i <= RT_PARTIAL_MERGE_MAX; i++)
		p[i] = a;
	assert_int_equal(an_pm_start(&m, p, RT_PARTIAL_MERGE_MAX + 1, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "1025 partial results: at most 1024"));
	assert_int_equal(an_pm_start(&m, p, 1, errbuf), -EINVAL);
	rt_partial_free(a);
	rt_partial_free(b);
	scenario_free(&sc);
}

int main(int argc, char **argv)
{
	if (!(scenario_dir = scenario_dir_arg(argc, argv)))
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_collect),          cmocka_unit_test(test_collect_off),
	    cmocka_unit_test(test_threads),          cmocka_unit_test(test_two_points),
	    cmocka_unit_test(test_three_points),     cmocka_unit_test(test_home_missed),
	    cmocka_unit_test(test_home_missed_cnps), cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

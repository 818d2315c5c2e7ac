/* Unit tests of the analyzer: flow table, PSN logic with wraparound, pairing, PFC arithmetic, episodes, helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "analyze/jsonl.h"
#include "analyze/reaction.h"
#include "analyze/sinks.h"
#include "tests/analyze/records.h"
#include "dissect/opcodes.h"

#define T0 1700000000000000000ull
#define US 1000ull
#define MS 1000000ull

static struct rt_analyzer *new_an(uint64_t link_bps)
{
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	if (link_bps)
		o.link_speed_bps = link_bps;
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	return an;
}

/* A flow's rare transport counters (all 0 before it had any). */
static const struct an_xport *xp(const struct an_flow *f)
{
	static const struct an_xport none;
	return f->x ? f->x : &none;
}

static struct rt_record pfc_rec(uint64_t ts, uint16_t enable, const uint16_t q[8])
{
	struct rt_record r;
	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.caplen = r.wirelen = 60;
	r.kind = RT_KIND_PFC;
	r.layers = RT_L_ETH | RT_L_MACC;
	r.macc_opcode = RT_MACC_PFC;
	r.src_mac[5] = 0xfe;
	r.pfc_enable = enable;
	memcpy(r.pfc_quanta, q, sizeof(r.pfc_quanta));
	return r;
}

static void test_flow_table_growth(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	const uint32_t n = 300000;
	uint8_t a[16], b[16];
	struct rt_an_flow_key k;
	for (uint32_t i = 0; i < n; i++) {
		ip4(a, 0x0a000000u + (i % 1000));
		ip4(b, 0x0b000000u + (i / 1000));
		an_key_from(&k, 4, a, b, i);
		assert_int_equal(an_flow_get(&an->ft, &k, true), i);
	}
	assert_int_equal(an->ft.n, n);
	/* load factor stays at most 1/2, and every key is found again */
	assert_true(an->ft.tab_mask + 1 >= 2 * n);
	for (uint32_t i = 0; i < n; i += 7) {
		ip4(a, 0x0a000000u + (i % 1000));
		ip4(b, 0x0b000000u + (i / 1000));
		an_key_from(&k, 4, a, b, i);
		assert_int_equal(an_flow_get(&an->ft, &k, false), i);
	}
	an_key_from(&k, 4, a, b, 0xabcdef);
	assert_int_equal(an_flow_get(&an->ft, &k, false), AN_NONE);
	rt_analyzer_free(an);
}

static void test_flow_ids_first_seen(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	for (uint32_t i = 0; i < 50; i++) {
		struct rt_record r = roce(T0 + i, 1, 2, 0x04, 100 - i, i);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(rt_analyzer_flow_count(an), 50);
	for (uint32_t id = 0; id < 50; id++)
		assert_int_equal(an_flow_by_id(&an->ft, id)->key.dest_qp, 100 - id);
	rt_analyzer_free(an);
}

static void test_psn_wraparound(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	const uint32_t psns[] = {0xfffffe, 0xffffff, 0x000000, 0x000001};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 7, psns[i]);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 7);
	assert_non_null(f);
	assert_int_equal(xp(f)->gaps, 0);
	assert_int_equal(xp(f)->retransmitted, 0);
	/* 0x000002 missing: one gap of one PSN */
	struct rt_record r = roce(t += US, 1, 2, 0x04, 7, 3);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 1);
	assert_int_equal(xp(f)->gap_psns, 1);
	/* back across the wrap: resends with no NAK → one implied timeout, two packets (a timeout
	 * is far longer than the window in which the same packet again is a copy) */
	r = roce(t += 100 * US, 1, 2, 0x04, 7, 0xffffff);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 1, 2, 0x04, 7, 0);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->retransmitted, 2);
	assert_int_equal(xp(f)->timeouts, 1);
	assert_int_equal(xp(f)->go_back_n, 0);
	/* new data again, then an absurd jump: resynchronised, not a gap */
	r = roce(t += US, 1, 2, 0x04, 7, 4);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 1, 2, 0x04, 7, 0x800004);
	rt_analyzer_feed(an, &r);
	r = roce(t += US, 1, 2, 0x04, 7, 0x800005);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 7);
	assert_int_equal(xp(f)->gaps, 1);
	assert_int_equal(xp(f)->psn_jumps, 1);
	assert_int_equal(xp(f)->retransmitted, 2);
	assert_true(rt_psn_diff(0, 0xffffff) == 1);
	assert_true(rt_psn_diff(0xffffff, 0) == -1);
	rt_analyzer_free(an);
}

static void test_nak_go_back_n(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	for (uint32_t p = 10; p < 14; p++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x22, p);
		rt_analyzer_feed(an, &r);
	}
	struct rt_record n = ack(t += US, 2, 1, 0x11, 12, 0x60); /* NAK PSN sequence error at 12 */
	rt_analyzer_feed(an, &n);
	uint64_t nak_ts = t;
	for (uint32_t p = 12; p < 16; p++) {
		struct rt_record r = roce(t += 5 * US, 1, 2, 0x04, 0x22, p);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 0x22);
	assert_int_equal(f->peer_qp, 0x11);
	assert_int_equal(xp(f)->naks_received, 1);
	assert_int_equal(xp(f)->go_back_n, 1);
	assert_int_equal(xp(f)->retransmitted, 2);
	assert_int_equal(f->x->gbn_delay->min, nak_ts + 5 * US - nak_ts);
	assert_int_equal(f->x->nak_codes[0], 1);
	struct rt_an_counts c;
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.nak, 1);
	assert_int_equal(c.retransmitted, 2);
	rt_analyzer_free(an);
}

static void test_nak_twice_and_fatal(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	const uint32_t sent[] = {20, 21, 22, 23, 21, 22, 22, 23, 24};
	for (unsigned i = 0; i < sizeof(sent) / sizeof(sent[0]); i++) {
		if (i == 4) { /* NAK at 21: go back */
			struct rt_record n = ack(t += US, 2, 1, 0x11, 21, 0x60);
			rt_analyzer_feed(an, &n);
		}
		if (i == 6) { /* lost again: NAK at 22 while still resending */
			struct rt_record n = ack(t += US, 2, 1, 0x11, 22, 0x60);
			rt_analyzer_feed(an, &n);
		}
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x22, sent[i]);
		rt_analyzer_feed(an, &r);
	}
	struct an_flow *f = flow_of(an, 1, 2, 0x22);
	assert_int_equal(xp(f)->naks_received, 2);
	assert_int_equal(xp(f)->go_back_n, 2);
	assert_int_equal(xp(f)->retransmitted, 4);
	assert_int_equal(xp(f)->timeouts, 0);
	/* a remote access error NAK is fatal: a later resend is a timeout, not go-back-N */
	struct rt_record n = ack(t += US, 2, 1, 0x11, 25, 0x62);
	rt_analyzer_feed(an, &n);
	struct rt_record r = roce(t += MS, 1, 2, 0x04, 0x22, 24);
	rt_analyzer_feed(an, &r);
	f = flow_of(an, 1, 2, 0x22);
	assert_int_equal(xp(f)->naks_received, 3);
	assert_int_equal(xp(f)->go_back_n, 2);
	assert_int_equal(xp(f)->timeouts, 1);
	assert_int_equal(f->x->nak_codes[2], 1);
	rt_analyzer_free(an);
}

static void test_pairing_by_psn(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	/* two QPs from host 1 to host 2, PSN ranges far apart */
	for (uint32_t i = 0; i < 4; i++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x30, 1000 + i);
		rt_analyzer_feed(an, &r);
		r = roce(t += US, 1, 2, 0x04, 0x31, 500000 + i);
		rt_analyzer_feed(an, &r);
	}
	/* an ACK whose PSN matches neither: no pairing */
	struct rt_record a = ack(t += US, 2, 1, 0x40, 9000, 0x1f);
	rt_analyzer_feed(an, &a);
	assert_int_equal(flow_of(an, 2, 1, 0x40)->peer_qp, AN_NONE);
	/* ACK of QP 0x31's requests comes back to host 1's QP 0x41 */
	a = ack(t += US, 2, 1, 0x41, 500002, 0x1f);
	rt_analyzer_feed(an, &a);
	a = ack(t += US, 2, 1, 0x42, 1003, 0x1f);
	rt_analyzer_feed(an, &a);
	assert_int_equal(flow_of(an, 1, 2, 0x31)->peer_qp, 0x41);
	assert_int_equal(flow_of(an, 2, 1, 0x41)->peer_qp, 0x31);
	assert_int_equal(flow_of(an, 1, 2, 0x30)->peer_qp, 0x42);
	assert_int_equal(flow_of(an, 2, 1, 0x42)->peer_qp, 0x30);
	assert_int_equal(flow_of(an, 1, 2, 0x30)->pairing, AN_PAIR_ACK);
	/* a CNP to QP 0x42 throttles the 0x30 data flow; one for an unknown QP matches nothing */
	struct rt_record c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x42, 0);
	rt_analyzer_feed(an, &c);
	c = roce(t += US, 2, 1, RT_OPCODE_CNP, 0x777, 0);
	rt_analyzer_feed(an, &c);
	c = roce(t += US, 9, 8, RT_OPCODE_CNP, 0x778, 0);
	rt_analyzer_feed(an, &c);
	assert_int_equal(flow_of(an, 1, 2, 0x30)->cnp_received, 1);
	assert_int_equal(an->tot.cnp_unattributed, 2);
	rt_analyzer_free(an);
}

static void test_pairing_ud_deth(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x64, 0x50, 1);
	r.hdrs = RT_H_DETH;
	r.deth_src_qp = 0x60;
	rt_analyzer_feed(an, &r);
	assert_int_equal(flow_of(an, 1, 2, 0x50)->peer_qp, 0x60);
	r = roce(T0 + US, 2, 1, 0x64, 0x60, 7);
	r.hdrs = RT_H_DETH;
	r.deth_src_qp = 0x50;
	rt_analyzer_feed(an, &r);
	struct an_flow *f = flow_of(an, 1, 2, 0x50), *g = flow_of(an, 2, 1, 0x60);
	assert_int_equal(g->peer_qp, 0x50);
	assert_true(&an->ft.flows[f->reverse] == g);
	rt_analyzer_free(an);
}

static void test_pfc_paused_time(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(100000000000ull);
	uint16_t q[8] = {0};
	/* priority 3: XOFF 0xFFFF, XON after 100 us → 100 us */
	q[3] = 0xffff;
	struct rt_record r = pfc_rec(T0, 1 << 3, q);
	rt_analyzer_feed(an, &r);
	q[3] = 0;
	r = pfc_rec(T0 + 100 * US, 1 << 3, q);
	rt_analyzer_feed(an, &r);
	assert_int_equal(an->pfc.macs[0].cls[3].paused_ns, 100 * US);
	/* priority 2: 100 quanta (512 ns), refreshed after 200 ns → 712 ns, counted once */
	q[2] = 100;
	r = pfc_rec(T0 + MS, 1 << 2, q);
	rt_analyzer_feed(an, &r);
	r = pfc_rec(T0 + MS + 200, 1 << 2, q);
	rt_analyzer_feed(an, &r);
	/* a later unrelated frame sees the pause expired */
	q[2] = 0;
	r = pfc_rec(T0 + 2 * MS, 0, q);
	rt_analyzer_feed(an, &r);
	assert_int_equal(an->pfc.macs[0].cls[2].paused_ns, 712);
	/* priority 6 still paused at the end: counted to its expiry (0xFFFF quanta = 335539 ns) */
	q[6] = 0xffff;
	r = pfc_rec(T0 + 3 * MS, 1 << 6, q);
	rt_analyzer_feed(an, &r);
	finish(an);
	assert_int_equal(an->pfc.macs[0].cls[6].paused_ns, 335539);
	assert_int_equal(an->pfc.xoff[2], 2);
	assert_int_equal(an->pfc.xon[3], 1);
	assert_int_equal(an->pfc.nstorms, 0);
	rt_analyzer_free(an);

	/* 25 Gb/s: a quantum is 20.48 ns; a storm when paused 1 ms continuously */
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = 25000000000ull;
	o.storm_ns = MS;
	an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	memset(q, 0, sizeof(q));
	q[4] = 1000; /* 20480 ns */
	for (uint64_t t = 0; t < 2 * MS; t += 10 * US) {
		r = pfc_rec(T0 + t, 1 << 4, q);
		rt_analyzer_feed(an, &r);
	}
	finish(an);
	assert_int_equal(an->pfc.nstorms, 1);
	assert_int_equal(an->pfc.storms[0].end - an->pfc.storms[0].start, 2 * MS - 10 * US + 20480);
	assert_int_equal(an->pfc.macs[0].cls[4].paused_ns, 2 * MS - 10 * US + 20480);
	rt_analyzer_free(an);
}

static void test_episodes(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	const uint64_t at[] = {0, 500 * US, 1400 * US, 5 * MS};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record r = roce(T0 + at[i], 1, 2, 0x04, 9, i);
		r.ecn = 3;
		rt_analyzer_feed(an, &r);
		/* plain traffic in between does not extend an episode */
		r = roce(T0 + at[i] + 100 * US, 1, 2, 0x04, 9, 100 + i);
		r.ecn = 2;
		rt_analyzer_feed(an, &r);
	}
	finish(an);
	assert_int_equal(an->ep.n, 2);
	assert_int_equal(an->ep.list[0].start, T0);
	assert_int_equal(an->ep.list[0].end, T0 + 1400 * US);
	assert_int_equal(an->ep.list[0].ce, 3);
	assert_int_equal(an->ep.list[0].flows, 1);
	assert_int_equal(an->ep.list[1].start, T0 + 5 * MS);
	assert_int_equal(an->ep.list[1].end, T0 + 5 * MS);
	rt_analyzer_free(an);
}

/* The JSON report of `an` as a string (caller frees). */
static char *report_json(struct rt_analyzer *an)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	/* the sink's report() called as the analyzer would, without adding it (a report each call) */
	struct rt_an_sink sink;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_an_report_json_sink(fp, &sink, errbuf), 0);
	assert_int_equal(sink.report(sink.ctx, an, errbuf), 0);
	sink.free(sink.ctx);
	assert_int_equal(fclose(fp), 0);
	return text;
}

static unsigned count_str(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A small deterministic generator (LCG) for the model streams below. */
static uint64_t lcg_next(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

static uint64_t lcg_range(uint64_t *x, uint64_t lo, uint64_t hi)
{
	return lo + lcg_next(x) % (hi - lo + 1);
}

/* What a model NP did: its CNPs' true delays, and the CE marks its limiter held back. */
struct np_truth {
	uint64_t cnps, held_back;
	uint64_t delay[8192];
};

/*
 * Data 1 → 2 on QP 0x10, paired with QP 0x20 by an ACK; CE marks every spacing_lo..hi ns
 * until `until`; the NP answers a mark when `interval` has passed since the mark it last
 * answered, after delay ± jitter ns. CNPs and marks are fed in time order.
 */
static struct rt_analyzer *np_model(uint64_t spacing_lo, uint64_t spacing_hi, uint64_t until,
				    uint64_t interval, uint64_t delay, uint64_t jitter, struct np_truth *t)
{
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x10, 5);
	rt_analyzer_feed(an, &r);
	r = ack(T0 + US, 2, 1, 0x20, 5, 0x1f);
	rt_analyzer_feed(an, &r);
	uint64_t x = 42, last = 0, pending[64], npend = 0;
	uint32_t psn = 6;
	memset(t, 0, sizeof(*t));
	for (uint64_t ts = T0 + 10 * US; ts < T0 + until; ts += lcg_range(&x, spacing_lo, spacing_hi)) {
		/* CNPs due before this mark go first */
		for (uint64_t i = 0; i < npend;) {
			if (pending[i] <= ts) {
				struct rt_record c = roce(pending[i], 2, 1, RT_OPCODE_CNP, 0x20, 0);
				rt_analyzer_feed(an, &c);
				pending[i] = pending[--npend];
			} else {
				i++;
			}
		}
		r = roce(ts, 1, 2, 0x04, 0x10, psn++);
		r.ecn = 3;
		rt_analyzer_feed(an, &r);
		if (last && ts - last < interval) {
			t->held_back++;
			continue;
		}
		last = ts;
		uint64_t d = jitter ? lcg_range(&x, delay - jitter, delay + jitter) : delay;
		assert_true(npend < 64 && t->cnps < 8192);
		pending[npend++] = ts + d;
		t->delay[t->cnps++] = d;
	}
	/* CNPs in time order (the pending ones sorted) */
	for (uint64_t i = 1; i < npend; i++)
		for (uint64_t j = i; j > 0 && pending[j - 1] > pending[j]; j--) {
			uint64_t v = pending[j];
			pending[j] = pending[j - 1];
			pending[j - 1] = v;
		}
	for (uint64_t i = 0; i < npend; i++) {
		struct rt_record c = roce(pending[i], 2, 1, RT_OPCODE_CNP, 0x20, 0);
		rt_analyzer_feed(an, &c);
	}
	assert_int_equal(finish(an), 0);
	return an;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t true_median(struct np_truth *t)
{
	qsort(t->delay, t->cnps, sizeof(t->delay[0]), cmp_u64);
	return t->delay[(t->cnps + 1) / 2 - 1];
}

/* Every CNP of the flow sampled, each at exactly the model NP's delay. */
static void assert_np_exact(const struct an_flow *f, const struct np_truth *t, uint64_t delay)
{
	assert_int_equal(f->cnp_received, t->cnps);
	assert_int_equal(f->np->reaction->n, t->cnps);
	assert_int_equal(f->np->reaction->min, delay);
	assert_int_equal(f->np->reaction->max, delay);
}

/* An NP answering in 1 us, at most one CNP per 50 us, under marks every 0.5-1 us. */
static void test_np_rate_limited(void **state)
{
	(void)state;
	struct np_truth *t = malloc(sizeof(*t));
	assert_non_null(t);
	struct rt_analyzer *an = np_model(500, 1000, 3 * MS, 50 * US, 1 * US, 0, t);
	struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_np_exact(f, t, 1 * US);
	assert_int_equal(f->np->rate_limited, t->held_back);
	assert_int_equal(an_np_unanswered(f->np), 0);
	uint64_t iv;
	assert_true(an_np_interval(f->np, &iv));
	assert_true(iv >= 50 * US && iv <= 51 * US);
	rt_analyzer_free(an);
	free(t);
}

/* Every mark answered 2 us later, marks 0.5-1 us apart: CNPs interleave with the marks. */
static void test_np_not_rate_limited(void **state)
{
	(void)state;
	struct np_truth *t = malloc(sizeof(*t));
	assert_non_null(t);
	struct rt_analyzer *an = np_model(500, 1000, 1 * MS, 0, 2 * US, 0, t);
	struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_np_exact(f, t, 2 * US);
	assert_int_equal(f->np->rate_limited, 0);
	uint64_t iv;
	assert_false(an_np_interval(f->np, &iv)); /* no limiter seen: no interval */
	rt_analyzer_free(an);
	free(t);
}

/*
 * The NP's delay varies: 1 us ± 150 ns under a 50 us limiter, 2 us ± 200 ns with none, marks
 * 0.5-1 us apart. The median stays within the variation of the truth.
 */
static void test_np_jittery(void **state)
{
	(void)state;
	struct np_truth *t = malloc(sizeof(*t));
	assert_non_null(t);
	const uint64_t interval[2] = {50 * US, 0}, delay[2] = {1 * US, 2 * US}, jitter[2] = {150, 200};
	for (int k = 0; k < 2; k++) {
		struct rt_analyzer *an = np_model(500, 1000, 4 * MS, interval[k], delay[k], jitter[k], t);
		struct an_flow *f = flow_of(an, 1, 2, 0x10);
		uint64_t med = an_hist_quantile(f->np->reaction, 0.5), want = true_median(t);
		assert_true(f->np->reaction->n + 8 >= t->cnps && f->np->reaction->n <= t->cnps);
		assert_true(med + jitter[k] >= want && med <= want + jitter[k]);
		rt_analyzer_free(an);
	}
	free(t);
}

/* Sparse marks (every 20-400 us) under a 50 us limiter: each CNP answers the mark before it. */
static void test_np_sparse(void **state)
{
	(void)state;
	struct np_truth *t = malloc(sizeof(*t));
	assert_non_null(t);
	struct rt_analyzer *an = np_model(20 * US, 400 * US, 40 * MS, 50 * US, 1 * US, 0, t);
	struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_np_exact(f, t, 1 * US);
	assert_int_equal(f->np->rate_limited, t->held_back);
	rt_analyzer_free(an);
	free(t);
}

/*
 * CNPs before the pairing is known: two CE-marked flows 1 → 2, their CNPs come back with
 * no way to tell whose they are until ACKs pair the flows; then each flow gets its CNPs
 * and their reaction (2 us) from the marks it logged.
 */
static void test_np_cnp_before_pairing(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	for (uint64_t k = 0; k < 10; k++) {
		uint64_t ts = T0 + k * 100 * US;
		for (uint32_t q = 0; q < 2; q++) {
			struct rt_record r = roce(ts + q * US, 1, 2, 0x04, 0x10 + q, (uint32_t)k + 100 * q);
			r.ecn = 3;
			rt_analyzer_feed(an, &r);
		}
		for (uint32_t q = 0; q < 2; q++) {
			struct rt_record r = roce(ts + q * US + 2 * US, 2, 1, RT_OPCODE_CNP, 0x20 + q, 0);
			rt_analyzer_feed(an, &r);
		}
	}
	assert_int_equal(an->tot.cnp_unattributed, 20);
	for (uint32_t q = 0; q < 2; q++) {
		struct rt_record r = ack(T0 + 2 * MS + q, 2, 1, 0x20 + q, 9 + 100 * q, 0x1f);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(an->tot.cnp_unattributed, 0);
	for (uint32_t q = 0; q < 2; q++) {
		struct an_flow *f = flow_of(an, 1, 2, 0x10 + q);
		assert_int_equal(f->cnp_received, 10);
		assert_int_equal(f->np->reaction->n, 10);
		assert_int_equal(f->np->reaction->min, 2 * US);
		assert_int_equal(f->np->reaction->max, 2 * US);
	}
	rt_analyzer_free(an);
}

/* A flow sending `size`-byte packets every `gap` ns from `from` to `to` (PSNs from *psn). */
static void send_paced(struct rt_analyzer *an, uint64_t from, uint64_t to, uint64_t gap, uint32_t size,
		       uint32_t *psn)
{
	for (uint64_t ts = from; ts < to; ts += gap) {
		struct rt_record r = roce(ts, 1, 2, 0x04, 0x10, (*psn)++);
		r.wirelen = size;
		rt_analyzer_feed(an, &r);
	}
}

/* RP windows: packets 700 us apart hold no window (null, with a reason); 1 us apart, a halving is 50%. */
static void test_rp_window_rule(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint32_t psn = 1;
	struct rt_record r = ack(T0, 2, 1, 0x20, 0, 0x1f);
	send_paced(an, T0, T0 + 10 * MS, 700 * US, 1000, &psn);
	r = ack(T0 + 10 * MS, 2, 1, 0x20, psn - 1, 0x1f);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + 10 * MS + 100, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	rt_analyzer_feed(an, &r);
	send_paced(an, T0 + 10 * MS + 200 * US, T0 + 20 * MS, 1400 * US, 1000, &psn);
	assert_int_equal(finish(an), 0);
	struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_int_equal(f->rp->cnps, 1);
	assert_int_equal(f->rp->measured, 0);
	assert_int_equal(f->rp->few, 1);
	char *js = report_json(an);
	assert_non_null(strstr(js, "\"mean_drop_pct\":null,\"max_drop_pct\":null,"
				   "\"drop_null_reason\":\"too few packets around the CNP\""));
	free(js);
	rt_analyzer_free(an);

	/* dense: 1000-byte packets every 1 us, halved 3 us after the CNP, back 40 us later */
	an = new_an(0);
	psn = 1;
	send_paced(an, T0, T0 + 200 * US, 1 * US, 1000, &psn);
	r = ack(T0 + 200 * US + 100, 2, 1, 0x20, psn - 1, 0x1f);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + 200 * US + 200, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	rt_analyzer_feed(an, &r);
	send_paced(an, T0 + 200 * US, T0 + 203 * US, 1 * US, 1000, &psn);
	send_paced(an, T0 + 203 * US, T0 + 243 * US, 2 * US, 1000, &psn);
	send_paced(an, T0 + 243 * US, T0 + 400 * US, 1 * US, 1000, &psn);
	assert_int_equal(finish(an), 0);
	f = flow_of(an, 1, 2, 0x10);
	assert_int_equal(f->rp->measured, 1);
	assert_true(f->rp->drop_max > 49.0 && f->rp->drop_max < 51.0);
	assert_int_equal(f->rp->recovered, 1);
	rt_analyzer_free(an);
}

/* Standard deviation (round-trip jitter): population form, as JSON rtt_ns.stddev. */
static void test_stddev(void **state)
{
	(void)state;
	struct an_hist *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_true(an_hist_stddev(h) == 0.0);
	const uint64_t v[] = {2000, 4000, 4000, 4000, 5000, 5000, 7000, 9000};
	for (unsigned i = 0; i < 8; i++)
		an_hist_add(h, v[i]);
	assert_true(an_hist_stddev(h) > 1999.999 && an_hist_stddev(h) < 2000.001);
	free(h);
	/* large values with a small spread keep their precision */
	struct rt_analyzer *an = new_an(0);
	for (uint32_t p = 0; p < 4; p++) {
		struct rt_record r = roce(T0 + p * MS, 1, 2, 0x04, 0x10, p);
		r.ackreq = 1;
		rt_analyzer_feed(an, &r);
		r = ack(T0 + p * MS + 500 * US + (p & 1) * 2 * US, 2, 1, 0x20, p, 0x1f);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_non_null(strstr(js, "\"rtt_ns\":{\"min\":500000,\"median\":500000,\"p99\":502000,"
				   "\"mean\":501000,\"stddev\":1000,"));
	free(js);
	rt_analyzer_free(an);
}

/* Unknown values are null: no packets, one packet, no CNP rate, no RTT. */
static void test_json_nulls(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_non_null(strstr(js, "\"start\":null,\"start_ns\":null,\"end\":null,\"end_ns\":null"));
	assert_non_null(strstr(js, "\"incast\":null"));
	free(js);
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x10, 1);
	rt_analyzer_feed(an, &r);
	r = roce(T0 + US, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	rt_analyzer_feed(an, &r);
	js = report_json(an);
	assert_non_null(strstr(js, "\"gbps\":null"));
	assert_non_null(strstr(js, "\"cnp_rate_per_s\":null"));
	assert_non_null(strstr(js, "\"cnp_interval_ns\":null"));
	assert_non_null(strstr(js, "\"rtt_ns\":null"));
	assert_null(strstr(js, ":nan"));
	assert_null(strstr(js, ":-nan"));
	assert_null(strstr(js, "\"transport\":\"none\""));
	free(js);
	rt_analyzer_free(an);
}

static void test_hist(void **state)
{
	(void)state;
	struct an_hist *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_int_equal(an_hist_quantile(h, 0.5), 0);
	for (uint64_t v = 1; v <= 5; v++)
		an_hist_add(h, v * 100);
	assert_int_equal(an_hist_quantile(h, 0.5), 300);
	assert_int_equal(an_hist_quantile(h, 0.99), 500);
	memset(h, 0, sizeof(*h));
	for (uint64_t v = 1; v <= 10000; v++)
		an_hist_add(h, v * 1000);
	uint64_t med = an_hist_quantile(h, 0.5), p99 = an_hist_quantile(h, 0.99);
	assert_true(med > 5000000 * 93 / 100 && med < 5000000 * 107 / 100);
	assert_true(p99 > 9900000 * 93 / 100 && p99 < 9900000 * 107 / 100);
	assert_int_equal(h->min, 1000);
	assert_int_equal(h->max, 10000000);
	free(h);
}

static void test_jsonl(void **state)
{
	(void)state;
	struct rt_jobj *o = malloc(sizeof(*o));
	assert_non_null(o);
	assert_int_equal(rt_jsonl_parse("{\"ts\":\"12.000000005\",\"dev\":\"mlx5_0\",\"port\":1,"
					"\"counters\":{\"np_cnp_sent\":12,\"x\":-1.5e3},\"ok\":true}",
					o),
			 0);
	uint64_t ts;
	double v;
	assert_true(rt_jts(o, "ts", &ts));
	assert_int_equal(ts, 12000000005ull);
	assert_string_equal(rt_jstr(o, "dev"), "mlx5_0");
	assert_true(rt_jnum(o, "port", &v));
	assert_true(v == 1.0);
	assert_string_equal(o->nested_name, "counters");
	assert_int_equal(o->nnested, 2);
	assert_true(o->nested[1].v.num == -1500.0);
	assert_int_equal(rt_jsonl_parse("{\"a\":1,}", o), -1);
	assert_int_equal(rt_jsonl_parse("{\"a\":{\"b\":{}}}", o), -1);
	assert_int_equal(rt_jsonl_parse("[1,2]", o), -1);
	assert_int_equal(rt_jsonl_parse("{\"a\":\"x\\q\"}", o), -1);
	assert_int_equal(rt_jsonl_parse("{\"a\":1} x", o), -1);
	assert_int_equal(rt_jsonl_parse("{}", o), 0);
	free(o);
}

static void test_interval_counts(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x04, 3, 1);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	struct rt_an_counts c;
	rt_analyzer_interval(an, &c, true);
	assert_int_equal(c.packets, 1);
	assert_int_equal(c.ce, 1);
	assert_int_equal(c.bytes, 100);
	r = roce(T0 + 1, 1, 2, 0x04, 3, 2);
	rt_analyzer_feed(an, &r);
	rt_analyzer_interval(an, &c, false);
	assert_int_equal(c.packets, 1);
	assert_int_equal(c.ce, 0);
	rt_analyzer_totals(an, &c);
	assert_int_equal(c.packets, 2);
	assert_int_equal(c.roce_packets, 2);
	rt_analyzer_free(an);
}

/* Timeline rows of a bucket come in flow id order whether most flows or few are in it. */
static void test_timeline_row_order(void **state)
{
	(void)state;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	rt_analyzer_opts_init(&o);
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	/* rows with counts only: the zero rows of idle stretches have their own test */
	struct rt_an_timeline_opts tlo = {.bucket_ns = 1 * MS, .no_idle = true};
	struct rt_an_sink sink;
	assert_int_equal(rt_an_timeline_sink(fp, &tlo, &sink, errbuf), 0);
	assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	enum { N = 100 };
	/* bucket 0: flows 0..N-1 (ids in first-seen order) */
	for (uint32_t i = 0; i < N; i++) {
		struct rt_record r = roce(T0 + i, 0x0a000001, 0x0a000002, 0x04, 0x100 + i, 0);
		rt_analyzer_feed(an, &r);
	}
	/* bucket 1: a few flows, out of order (their ids are sorted) */
	const uint32_t few[] = {57, 3, 88};
	for (unsigned i = 0; i < 3; i++) {
		struct rt_record r =
			roce(T0 + MS + i, 0x0a000001, 0x0a000002, 0x04, 0x100 + few[i], 1);
		rt_analyzer_feed(an, &r);
	}
	/* bucket 2: most flows, backwards (all ids walked) */
	for (uint32_t i = N; i-- > 10;) {
		struct rt_record r =
			roce(T0 + 2 * MS + (N - i), 0x0a000001, 0x0a000002, 0x04, 0x100 + i, 2);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	rt_analyzer_free(an);
	assert_int_equal(fclose(fp), 0);
	/* the flow column of each row, per bucket */
	uint64_t bucket[3] = {T0 - T0 % MS, T0 - T0 % MS + MS, T0 - T0 % MS + 2 * MS};
	int64_t last[3] = {-1, -1, -1};
	unsigned rows[3] = {0}, all[3] = {0};
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "t_ns,", 5))
			continue;
		char *comma = strchr(line, ',');
		assert_non_null(comma);
		uint64_t t = strtoull(line, NULL, 10);
		int b = t == bucket[0] ? 0 : t == bucket[1] ? 1 : t == bucket[2] ? 2 : -1;
		assert_true(b >= 0);
		if (!strncmp(comma + 1, "all,", 4)) {
			all[b]++;
			continue;
		}
		assert_int_equal(all[b], 0); /* the "all" row comes last */
		int64_t id = strtoll(comma + 1, NULL, 10);
		assert_true(id > last[b]);
		last[b] = id;
		rows[b]++;
	}
	assert_int_equal(rows[0], N);
	assert_int_equal(rows[1], 3);
	assert_int_equal(last[1], 88);
	assert_int_equal(rows[2], N - 10);
	for (int b = 0; b < 3; b++)
		assert_int_equal(all[b], 1);
	free(text);
}

/* The timeline of `an` fed (t, qp) frames of 1 ms buckets, as text; idle stretches get zero rows unless no_idle. */
static char *timeline_of(const uint64_t (*frames)[2], unsigned n, bool no_idle)
{
	char errbuf[RT_ERRBUF_SIZE];
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	struct rt_analyzer *an = new_an(0);
	struct rt_an_timeline_opts tlo = {.bucket_ns = 1 * MS, .no_idle = no_idle};
	struct rt_an_sink sink;
	assert_int_equal(rt_an_timeline_sink(fp, &tlo, &sink, errbuf), 0);
	assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	for (unsigned i = 0; i < n; i++) {
		struct rt_record r = roce(T0 - T0 % MS + frames[i][0] * MS + i, 1, 2, 0x04, (uint32_t)frames[i][1], i);
		rt_analyzer_feed(an, &r);
	}
	assert_int_equal(finish(an), 0);
	rt_analyzer_free(an);
	assert_int_equal(fclose(fp), 0);
	return text;
}

/*
 * Idle stretches: a zero row in the bucket after a flow's last row with counts and in the bucket
 * before its next (or first) one; a stretch with nothing at all gets zero 'all' rows at its first
 * and last bucket. Rows as (bucket, flow) pairs with their packets.
 */
static void test_timeline_idle_rows(void **state)
{
	(void)state;
	/* flow 0 (QP 5) in buckets 0, 1, 4 and 9; flow 1 (QP 6) in 0 and 2 */
	static const uint64_t frames[][2] = {{0, 5}, {0, 6}, {1, 5}, {2, 6}, {4, 5}, {9, 5}};
	char *text = timeline_of(frames, 6, false);
	unsigned n = 0;
	char got[64][32];
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "t_ns,", 5))
			continue;
		uint64_t t = strtoull(line, NULL, 10);
		char *flow = strchr(line, ',') + 1, *pk = strchr(flow, ',') + 1;
		char *fl_end = pk - 1;
		*fl_end = 0;
		assert_true(n < 64);
		snprintf(got[n++], sizeof(got[0]), "%llu,%s,%llu", (unsigned long long)((t - (T0 - T0 % MS)) / MS), flow,
			 (unsigned long long)strtoull(pk, NULL, 10));
	}
	free(text);
	static const char *const rows[] = {
		"0,0,1", "0,1,1", "0,all,2",
		"1,0,1", "1,1,0", "1,all,1",
		"2,0,0", "2,1,1", "2,all,1",
		"3,0,0", "3,1,0", "3,all,0",
		"4,0,1", "4,all,1",
		"5,0,0", "5,all,0", "8,0,0", "8,all,0",
		"9,0,1", "9,all,1",
	};
	assert_int_equal(n, sizeof(rows) / sizeof(rows[0]));
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(got[i], rows[i]);
	/* --no-idle: the rows with counts alone */
	text = timeline_of(frames, 6, true);
	unsigned lines = 0, zero = 0;
	save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++)
		zero += strstr(line, ",0,0,0,0,0,0,0,0,0,") != NULL;
	free(text);
	assert_int_equal(lines, 1 + 11);
	assert_int_equal(zero, 0);
}

/* A CE-marked CNP is not data an NP reacts to: it starts no NP reaction measurement. */
static void test_ce_marked_cnp_no_np_reaction(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	/* data both ways: 1 → 2 on QP 0x10, 2 → 1 on QP 0x20, paired by an ACK */
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x10, 5);
	rt_analyzer_feed(an, &r);
	r = ack(T0 + US, 2, 1, 0x20, 5, 0x1f);
	rt_analyzer_feed(an, &r);
	/* host 2 throttles QP 0x20 with a CNP that a switch marked CE on the way */
	r = roce(T0 + 10 * US, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	r.ecn = 3;
	rt_analyzer_feed(an, &r);
	/* host 1 throttles QP 0x10: a CNP for flow 2 → 1:0x20, which had no CE-marked data */
	r = roce(T0 + 30 * US, 1, 2, RT_OPCODE_CNP, 0x10, 0);
	rt_analyzer_feed(an, &r);
	struct an_flow *g = flow_of(an, 2, 1, 0x20);
	assert_int_equal(g->ecn[3], 1);
	assert_int_equal(g->cnp_received, 1);
	assert_non_null(g->np);
	assert_null(g->np->reaction);
	assert_int_equal(g->np->cnp_without_ce, 1);
	rt_analyzer_free(an);
}

/* NAK codes 5..31 all name "reserved": one key with their sum, never the same key twice. */
static void test_nak_codes_reserved_once(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint64_t t = T0;
	for (uint32_t p = 10; p < 14; p++) {
		struct rt_record r = roce(t += US, 1, 2, 0x04, 0x22, p);
		rt_analyzer_feed(an, &r);
	}
	const uint8_t syn[] = {0x65, 0x66, 0x7f, 0x61};
	for (unsigned i = 0; i < 4; i++) {
		struct rt_record n = ack(t += US, 2, 1, 0x11, 12, syn[i]);
		rt_analyzer_feed(an, &n);
	}
	assert_int_equal(finish(an), 0);
	char *js = report_json(an);
	assert_int_equal(count_str(js, "\"reserved\""), 1);
	assert_non_null(strstr(js, "\"nak_codes\":{\"invalid_request\":1,\"reserved\":3}"));
	free(js);
	rt_analyzer_free(an);
}

/* Only JSON numbers are numbers; timestamps are digits; huge counts saturate instead of wrapping. */
static void test_jsonl_strict_numbers(void **state)
{
	(void)state;
	struct rt_jobj *o = malloc(sizeof(*o));
	assert_non_null(o);
	const char *bad[] = {"{\"a\":nan}", "{\"a\":inf}", "{\"a\":-infinity}", "{\"a\":0x10}",
			     "{\"a\":+1}", "{\"a\":.5}", "{\"a\":1.}", "{\"a\":1e}", "{\"c\":{\"x\":nan}}"};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_jsonl_parse(bad[i], o), -1);
	assert_int_equal(rt_jsonl_parse("{\"a\":-0.5e+3,\"b\":1E2,\"c\":0}", o), 0);
	double v;
	assert_true(rt_jnum(o, "a", &v) && v == -500.0);
	assert_true(rt_jnum(o, "b", &v) && v == 100.0);
	uint64_t ts;
	const char *bad_ts[] = {"{\"ts\":\"-1.5\"}", "{\"ts\":\" 5\"}", "{\"ts\":\"+5\"}",
				"{\"ts\":\"99999999999999999999.0\"}", "{\"ts\":\"18446744073.0\"}"};
	for (unsigned i = 0; i < sizeof(bad_ts) / sizeof(bad_ts[0]); i++) {
		assert_int_equal(rt_jsonl_parse(bad_ts[i], o), 0);
		assert_false(rt_jts(o, "ts", &ts));
	}
	free(o);

	/* a source log "end" line with counts past 2^64 */
	char path[] = "/tmp/rt-test-srclog-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs("{\"ts\":\"1700000000.000000100\",\"event\":\"end\",\"src\":\"0.0.0.1\",\"dst\":\"0.0.0.2\","
	      "\"dest_qp\":34,\"packets\":1e30,\"bytes\":1e999,\"retransmitted\":3}\n",
	      fp);
	assert_int_equal(fclose(fp), 0);
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x22, 1);
	rt_analyzer_feed(an, &r);
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_analyzer_load_source_log(an, path, errbuf), 0);
	unlink(path);
	struct an_flow *f = flow_of(an, 1, 2, 0x22);
	assert_non_null(f->src);
	assert_true(f->src->end_seen);
	assert_true(f->src->packets == UINT64_MAX);
	assert_true(f->src->bytes == UINT64_MAX);
	assert_int_equal(f->src->retrans, 3);
	rt_analyzer_free(an);
}

/* The analyzer parses --flow with analyze/flowsel.c (tested in test_flowsel.c) and refuses a bad one. */
static void test_flow_selector_numbers(void **state)
{
	(void)state;
	struct rt_analyzer_opts o;
	char errbuf[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.flow = "qp:010";
	struct rt_analyzer *an = rt_analyzer_new(&o, errbuf);
	assert_non_null(an);
	assert_int_equal(an->sel.kind, RT_FLOWSEL_QP);
	assert_int_equal(an->sel.qp, 10);
	rt_analyzer_free(an);
	o.flow = "qp:-1";
	assert_null(rt_analyzer_new(&o, errbuf));
	assert_non_null(strstr(errbuf, "bad flow selector 'qp:-1'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_table_growth),
		cmocka_unit_test(test_flow_ids_first_seen),
		cmocka_unit_test(test_psn_wraparound),
		cmocka_unit_test(test_nak_go_back_n),
		cmocka_unit_test(test_nak_twice_and_fatal),
		cmocka_unit_test(test_pairing_by_psn),
		cmocka_unit_test(test_pairing_ud_deth),
		cmocka_unit_test(test_pfc_paused_time),
		cmocka_unit_test(test_episodes),
		cmocka_unit_test(test_np_rate_limited),
		cmocka_unit_test(test_np_not_rate_limited),
		cmocka_unit_test(test_np_jittery),
		cmocka_unit_test(test_np_sparse),
		cmocka_unit_test(test_np_cnp_before_pairing),
		cmocka_unit_test(test_rp_window_rule),
		cmocka_unit_test(test_stddev),
		cmocka_unit_test(test_json_nulls),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_interval_counts),
		cmocka_unit_test(test_timeline_row_order),
		cmocka_unit_test(test_timeline_idle_rows),
		cmocka_unit_test(test_nak_codes_reserved_once),
		cmocka_unit_test(test_jsonl_strict_numbers),
		cmocka_unit_test(test_flow_selector_numbers),
		cmocka_unit_test(test_ce_marked_cnp_no_np_reaction),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

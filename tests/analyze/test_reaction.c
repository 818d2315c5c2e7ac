/* Unit tests of the analyzer's reaction measurements: model NPs with and without a CNP rate limiter, CNPs before pairing, RP windows, a bursty sender's idle time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"
#include "analyze/reaction.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/records.h"
#include "dissect/opcodes.h"

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
                                    uint64_t interval, uint64_t delay, uint64_t jitter,
                                    struct np_truth *t)
{
	struct rt_analyzer *an = new_an(0);
	struct rt_record r = roce(T0, 1, 2, 0x04, 0x10, 5);
	rt_analyzer_feed(an, &r);
	r = ack(T0 + US, 2, 1, 0x20, 5, 0x1f);
	rt_analyzer_feed(an, &r);
	uint64_t x = 42, last = 0, pending[64], npend = 0;
	uint32_t psn = 6;
	memset(t, 0, sizeof(*t));
	for (uint64_t ts = T0 + 10 * US; ts < T0 + until;
	     ts += lcg_range(&x, spacing_lo, spacing_hi)) {
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

/*
 * A 50 us limiter that answered 3 windows of marks 0.5-1 us apart (two CNP gaps: too few to
 * learn it), the last mark 35 us after the last answered one: every mark not answered was held
 * back. Those between answered marks are said held back; those after the last one, within the
 * shortest CNP spacing, cannot be told from unanswered: never "unanswered".
 */
static void test_np_few_cnps(void **state)
{
	(void)state;
	struct np_truth *t = malloc(sizeof(*t));
	assert_non_null(t);
	struct rt_analyzer *an = np_model(500, 1000, 145 * US, 50 * US, 1 * US, 0, t);
	struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_int_equal(t->cnps, 3);
	uint64_t iv;
	assert_false(an_np_interval(f->np, &iv));
	assert_true(f->np->unsure > 0);
	assert_int_equal(f->np->rate_limited + f->np->unsure, t->held_back);
	assert_int_equal(an_np_unanswered(f->np), 0);
	char *js = report_json(an);
	char want[64];
	snprintf(want, sizeof(want), "\"ce_held_or_unanswered\":%llu",
	         (unsigned long long)f->np->unsure);
	assert_non_null(strstr(js, want));
	free(js);
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
	const uint64_t interval[2] = {50 * US, 0}, delay[2] = {1 * US, 2 * US},
	               jitter[2] = {150, 200};
	for (int k = 0; k < 2; k++) {
		struct rt_analyzer *an =
		    np_model(500, 1000, 4 * MS, interval[k], delay[k], jitter[k], t);
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
			struct rt_record r =
			    roce(ts + q * US, 1, 2, 0x04, 0x10 + q, (uint32_t)k + 100 * q);
			r.ecn = 3;
			rt_analyzer_feed(an, &r);
		}
		for (uint32_t q = 0; q < 2; q++) {
			struct rt_record r =
			    roce(ts + q * US + 2 * US, 2, 1, RT_OPCODE_CNP, 0x20 + q, 0);
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
static void send_paced(struct rt_analyzer *an, uint64_t from, uint64_t to, uint64_t gap,
                       uint32_t size, uint32_t *psn)
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

/*
 * A bursty sender (10 packets 30 us apart, then 2 ms with nothing to send): a CNP that its idle
 * time follows within 4 gaps is set apart as "idle after", not "too few packets", and no
 * --rate-window is named for it (one spanning the idle time would read it as a cut).
 */
static void test_rp_idle_after(void **state)
{
	(void)state;
	struct rt_analyzer *an = new_an(0);
	uint32_t psn = 1;
	uint64_t t = T0;
	for (int burst = 0; burst < 4; burst++, t += 2300 * US)
		send_paced(an, t, t + 300 * US, 30 * US, 1000, &psn);
	struct rt_record r = ack(t - 10 * US, 2, 1, 0x20, psn - 1, 0x1f);
	rt_analyzer_feed(an, &r);
	send_paced(an, t, t + 240 * US, 30 * US, 1000, &psn);
	r = roce(t + 215 * US, 2, 1, RT_OPCODE_CNP, 0x20, 0);
	rt_analyzer_feed(an, &r);
	send_paced(an, t + 240 * US, t + 300 * US, 30 * US, 1000, &psn);
	send_paced(an, t + 2300 * US, t + 2600 * US, 30 * US, 1000, &psn);
	assert_int_equal(finish(an), 0);
	struct an_flow *f = flow_of(an, 1, 2, 0x10);
	assert_int_equal(f->rp->cnps, 1);
	assert_int_equal(f->rp->measured, 0);
	assert_int_equal(f->rp->idle_after, 1);
	assert_int_equal(f->rp->few, 0);
	assert_int_equal(f->rp->need_n, 0);
	char *js = report_json(an);
	assert_non_null(strstr(js, "\"drop_null_reason\":\"the sender went idle after the CNP"));
	free(js);
	rt_analyzer_free(an);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_np_rate_limited),
	    cmocka_unit_test(test_np_few_cnps),
	    cmocka_unit_test(test_np_not_rate_limited),
	    cmocka_unit_test(test_np_jittery),
	    cmocka_unit_test(test_np_sparse),
	    cmocka_unit_test(test_np_cnp_before_pairing),
	    cmocka_unit_test(test_rp_window_rule),
	    cmocka_unit_test(test_rp_idle_after),
	    cmocka_unit_test(test_ce_marked_cnp_no_np_reaction),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

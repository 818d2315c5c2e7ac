/* Unit tests of the DCQCN reaction point against hand-computed rate and alpha sequences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "traffic/dcqcn.h"

#define US 1000ull

static struct rt_dcqcn_params params(double line)
{
	struct rt_dcqcn_params p;
	rt_dcqcn_params_default(&p, line);
	return p;
}

static void test_defaults(void **state)
{
	(void)state;
	struct rt_dcqcn_params p = params(1000);
	assert_true(p.g == 1.0 / 256);
	assert_int_equal(p.alpha_period_ns, 55 * US);
	assert_int_equal(p.timer_ns, 55 * US);
	assert_int_equal(p.byte_counter, 10000000);
	assert_int_equal(p.f, 5);
	assert_true(p.rai_mbps == 40 && p.rhai_mbps == 100 && p.line_mbps == 1000);
}

/* Cut: Rt = Rc, Rc = Rc(1 - a/2), a = (1-g)a + g; alpha decays per period without CNP. */
static void test_cut_and_alpha(void **state)
{
	(void)state;
	struct rt_dcqcn_params p = params(1000);
	struct rt_dcqcn s;
	rt_dcqcn_init(&s, &p, 0);
	assert_true(s.rc == 1000 && s.rt == 1000 && s.alpha == 1.0);
	rt_dcqcn_on_cnp(&s, 0);
	assert_true(s.rt == 1000.0);
	assert_true(s.rc == 500.0);
	assert_true(s.alpha == 1.0);
	assert_int_equal(rt_dcqcn_on_time(&s, 54999), 0);
	assert_true(s.alpha == 1.0 && s.rc == 500.0);
	assert_int_equal(rt_dcqcn_next_due(&s), 55 * US);
	/* one alpha period and one timer stage (fast recovery) */
	assert_int_equal(rt_dcqcn_on_time(&s, 55 * US), 1);
	assert_true(s.alpha == 0.99609375);
	assert_true(s.rc == 750.0);
	rt_dcqcn_on_cnp(&s, 60 * US);
	assert_true(s.rt == 750.0);
	assert_true(s.rc == 376.46484375);
	assert_true(s.alpha == 0.9961090087890625);
	/* both timers restarted at the CNP */
	assert_int_equal(rt_dcqcn_next_due(&s), 115 * US);
	assert_int_equal(s.t_stage, 0);
	assert_int_equal(s.cuts, 2);
}

static void test_alpha_decay_only(void **state)
{
	(void)state;
	struct rt_dcqcn_params p = params(1000);
	p.timer_ns = 1000000000ull; /* keep the rate still */
	struct rt_dcqcn s;
	rt_dcqcn_init(&s, &p, 0);
	rt_dcqcn_on_cnp(&s, 0);
	rt_dcqcn_on_time(&s, 3 * 55 * US);
	assert_true(s.alpha == 16581375.0 / 16777216.0); /* (255/256)^3 */
	assert_true(s.rc == 500.0);
}

/* Double cut from 10 Gb/s: Rc 2500, Rt 5000, then timer stages only. */
static void double_cut(struct rt_dcqcn *s, struct rt_dcqcn_params *p)
{
	rt_dcqcn_init(s, p, 0);
	rt_dcqcn_on_cnp(s, 0);
	rt_dcqcn_on_cnp(s, 0);
	assert_true(s->rc == 2500.0 && s->rt == 5000.0);
}

static void test_fast_then_additive(void **state)
{
	(void)state;
	struct rt_dcqcn_params p = params(10000);
	p.byte_counter = 1000000000000ull;
	p.alpha_period_ns = 1000000000ull;
	struct rt_dcqcn s;
	double_cut(&s, &p);
	static const double fast[] = {3750.0, 4375.0, 4687.5, 4843.75, 4921.875};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(rt_dcqcn_on_time(&s, (uint64_t)(i + 1) * 55 * US), 1);
		assert_true(s.rc == fast[i]);
		assert_true(s.rt == 5000.0);
	}
	assert_int_equal(rt_dcqcn_on_time(&s, 6 * 55 * US), 1);
	assert_true(s.rt == 5040.0 && s.rc == 4980.9375);
	/* two periods at once are two stages */
	assert_int_equal(rt_dcqcn_on_time(&s, 8 * 55 * US), 2);
	assert_true(s.rt == 5120.0 && s.rc == 5075.234375);
}

static void test_byte_counter_and_hyper(void **state)
{
	(void)state;
	struct rt_dcqcn_params p = params(10000);
	p.byte_counter = 1000;
	p.alpha_period_ns = 1000000000ull;
	struct rt_dcqcn s;
	double_cut(&s, &p);
	assert_int_equal(rt_dcqcn_on_bytes(&s, 999), 0);
	assert_int_equal(rt_dcqcn_on_bytes(&s, 5001), 6); /* 6000 bytes: six stages */
	assert_true(s.rt == 5040.0 && s.rc == 4980.9375);
	static const double rt_add[] = {5080.0, 5120.0, 5160.0, 5200.0, 5240.0};
	static const double rc_add[] = {5030.46875, 5075.234375, 5117.6171875, 5158.80859375,
	                                5199.404296875};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(rt_dcqcn_on_time(&s, (uint64_t)(i + 1) * 55 * US), 1);
		assert_true(s.rt == rt_add[i] && s.rc == rc_add[i]);
	}
	/* both counters past F: hyper increase by (min - F) * R_HAI */
	rt_dcqcn_on_time(&s, 6 * 55 * US);
	assert_true(s.rt == 5340.0 && s.rc == 5269.7021484375);
	rt_dcqcn_on_time(&s, 7 * 55 * US);
	assert_true(s.rt == 5440.0 && s.rc == 5354.85107421875);
	assert_int_equal(rt_dcqcn_on_bytes(&s, 1000), 1);
	assert_true(s.rt == 5640.0 && s.rc == 5497.425537109375);
}

static void test_caps(void **state)
{
	(void)state;
	struct rt_dcqcn_params p = params(1000);
	struct rt_dcqcn s;
	rt_dcqcn_init(&s, &p, 0);
	for (int i = 0; i < 20; i++)
		rt_dcqcn_on_cnp(&s, 0);
	assert_true(s.rc == p.min_mbps);
	/* recovery never passes the line rate, and stops counting there */
	rt_dcqcn_on_time(&s, 1000000000ull);
	assert_true(s.rc == 1000.0 && s.rt == 1000.0);
	assert_int_equal(rt_dcqcn_on_time(&s, 2000000000ull), 0);
	assert_int_equal(rt_dcqcn_on_bytes(&s, 100000000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_cut_and_alpha),
	    cmocka_unit_test(test_alpha_decay_only),
	    cmocka_unit_test(test_fast_then_additive),
	    cmocka_unit_test(test_byte_counter_and_hyper),
	    cmocka_unit_test(test_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the clock helpers: timespec conversion, the monotonic clock never going back, real time near time(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "common/clock.h"

static void test_timespec(void **state)
{
	(void)state;
	struct timespec ts = {0, 0};
	assert_true(rt_timespec_ns(&ts) == 0);
	ts = (struct timespec){1700000000, 999999999};
	assert_true(rt_timespec_ns(&ts) == 1700000000999999999ull);
	/* the latest time 64 bits of nanoseconds hold */
	ts = (struct timespec){18446744073, 709551615};
	assert_true(rt_timespec_ns(&ts) == UINT64_MAX);
}

static void test_monotonic(void **state)
{
	(void)state;
	uint64_t prev = rt_mono_ns();
	for (int i = 0; i < 100000; i++) {
		uint64_t now = rt_mono_ns();
		assert_true(now >= prev);
		prev = now;
	}
	/* a sleep of 2 ms shows up as at least 2 ms */
	uint64_t t0 = rt_mono_ns();
	struct timespec d = {0, 2000000};
	while (nanosleep(&d, &d) != 0)
		;
	assert_true(rt_mono_ns() - t0 >= 2000000u);
	assert_true(rt_clock_ns(CLOCK_MONOTONIC) >= t0);
}

static void test_realtime(void **state)
{
	(void)state;
	time_t before = time(NULL);
	uint64_t ns = rt_real_ns();
	time_t after = time(NULL);
	assert_true(ns / 1000000000u >= (uint64_t)before);
	assert_true(ns / 1000000000u <= (uint64_t)after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_timespec),
	    cmocka_unit_test(test_monotonic),
	    cmocka_unit_test(test_realtime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the hash mixer: values worked out by hand (Python's integers), and how well the low bits spread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/hash.h"

/* ((h ^ v) * 0x9e3779b97f4a7c15 mod 2^64), then x ^ (x >> 31), computed outside C */
static void test_values(void **state)
{
	(void)state;
	assert_true(rt_hash_mix(0, 0) == 0);
	assert_true(rt_hash_mix(0, 1) == 0x9e3779b843248f67ull);
	assert_true(rt_hash_mix(0x243f6a8885a308d3ull, 0x123456789abcdef0ull) ==
	            0xc3076381ba7d43dfull);
	assert_true(rt_hash_mix(rt_hash_mix(0x2545f4914f6cdd1dull, 42), UINT64_MAX) ==
	            0x2c1b7240de00a067ull);
}

/* For a given running hash, a mix is one to one: distinct words never give one hash. */
static void test_one_to_one(void **state)
{
	(void)state;
	enum { N = 4096 };
	static uint64_t seen[N];
	for (uint64_t i = 0; i < N; i++) {
		seen[i] = rt_hash_mix(0x243f6a8885a308d3ull, (0x0a000000ull + i) << 32);
		for (uint64_t k = 0; k < i; k++)
			assert_true(seen[k] != seen[i]);
	}
}

/*
 * Keys that differ only in their high bits (IPv4 addresses in the upper
 * half of a word), chained through a second word and folded as the flow
 * table does, fill every slot of a 256-slot table and pile up in none.
 */
static void test_low_bits_spread(void **state)
{
	(void)state;
	unsigned slots[256] = {0};
	for (uint64_t i = 0; i < 4096; i++) {
		uint64_t h = rt_hash_mix(0x243f6a8885a308d3ull, (0x0a000000ull + i) << 32);
		h = rt_hash_mix(h, 4);
		slots[(h ^ (h >> 32)) & 255]++;
	}
	unsigned most = 0, empty = 0;
	for (unsigned s = 0; s < 256; s++) {
		most = slots[s] > most ? slots[s] : most;
		empty += slots[s] == 0;
	}
	assert_true(most <= 40); /* 16 on average */
	assert_true(empty == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_one_to_one),
	    cmocka_unit_test(test_low_bits_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

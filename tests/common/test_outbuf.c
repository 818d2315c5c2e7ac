/* Unit tests of common/outbuf.c: numbers, timestamps and JSON strings as the sinks print them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/outbuf.h"

static struct rt_outbuf out;

/* What `emit` writes through an outbuf, as a string the caller frees. */
static char *render(void (*emit)(struct rt_outbuf *o, const void *arg), const void *arg)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);

	assert_non_null(fp);
	rt_out_init(&out, fp);
	emit(&out, arg);
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(fclose(fp), 0);
	return text;
}

struct dbl {
	double v;
	int decimals;
};

static void emit_double(struct rt_outbuf *o, const void *arg)
{
	const struct dbl *d = arg;

	rt_out_double(o, d->v, d->decimals);
}

static void assert_double(double v, int decimals, const char *want)
{
	struct dbl d = {v, decimals};
	char *got = render(emit_double, &d);

	assert_string_equal(got, want);
	free(got);
}

static void test_double_fixed(void **state)
{
	(void)state;
	assert_double(1.5, 3, "1.5");
	assert_double(2.0, 3, "2");
	assert_double(100.0, 0, "100");
	assert_double(0.1234567, 6, "0.123457");
	assert_double(-0.0000001, 3, "0");
	assert_double(-2.25, 1, "-2.2");
	assert_double(0.0 / 0.0, 3, "0");
	assert_double(1.0 / 0.0, 3, "0");
}

/* Values too long for the point form still print a number (exponent form), never nothing. */
static void test_double_huge(void **state)
{
	(void)state;
	assert_double(1e70, 1, "1e+70");
	assert_double(-1.5e300, 3, "-1.5e+300");
	assert_double(1e58, 6, "1e+58");
	/* the longest point form that fits stays in point form */
	assert_double(1e60, 0, "999999999999999949387135297074018866963645011013410073083904");
}

static void emit_ts(struct rt_outbuf *o, const void *arg)
{
	rt_out_ts(o, *(const uint64_t *)arg);
}

static void test_ts(void **state)
{
	static const uint64_t ts[] = {0, 1700000000000000001ull, UINT64_MAX};
	static const char *const want[] = {"0.000000000", "1700000000.000000001",
					   "18446744073.709551615"};

	(void)state;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		char *got = render(emit_ts, &ts[i]);

		assert_string_equal(got, want[i]);
		free(got);
	}
}

struct hex {
	uint64_t v;
	int width;
};

static void emit_hex(struct rt_outbuf *o, const void *arg)
{
	const struct hex *h = arg;

	rt_out_hex(o, h->v, h->width);
}

static void test_hex(void **state)
{
	static const struct hex in[] = {{0, 1}, {0, 2}, {0x11, 6}, {0xABCDEF, 2}, {UINT64_MAX, 1},
					{5, 99}};
	static const char *const want[] = {"0x0", "0x00", "0x000011", "0xabcdef",
					   "0xffffffffffffffff", "0x0000000000000005"};

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *got = render(emit_hex, &in[i]);

		assert_string_equal(got, want[i]);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_double_fixed),
		cmocka_unit_test(test_double_huge),
		cmocka_unit_test(test_ts),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

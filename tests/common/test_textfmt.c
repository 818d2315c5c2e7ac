/* Unit tests of common/textfmt.c: rates in the unit that fits, QPs in hex, lines wrapped at a width. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/textfmt.h"

static void test_rates(void **state)
{
	(void)state;
	char b[RT_RATE_TEXT_MAX];
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 2.58e9), "2.58 Gb/s");
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 178.4e6), "178 Mb/s"); /* not 0.178 Gb/s */
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 12.34e6), "12.3 Mb/s");
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 1500), "1.50 kb/s");
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 150), "150 b/s");
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 0), "0 b/s");
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 999.99e6), "1.00 Gb/s"); /* not 1000 Mb/s */
	assert_string_equal(rt_fmt_rate(b, sizeof(b), 12.3e12), "12.3 Tb/s");
	assert_string_equal(rt_fmt_rate(b, sizeof(b), NAN), "-");
	/* one unit for a line: the largest rate's */
	struct rt_rate_unit u = rt_rate_unit_for(2.58e9);
	assert_string_equal(u.name, "Gb/s");
	assert_string_equal(rt_fmt_rate_in(b, sizeof(b), 0.52e9, u), "0.52");
	assert_string_equal(rt_fmt_rate_in(b, sizeof(b), 25e9, u), "25.0");
	assert_string_equal(rt_fmt_rate_in(b, sizeof(b), 400e9, u), "400");
	assert_string_equal(rt_fmt_rate_in(b, sizeof(b), INFINITY, u), "-");
}

static void test_qp(void **state)
{
	(void)state;
	char b[RT_QP_TEXT_MAX];
	assert_string_equal(rt_fmt_qp(b, 0x11), "0x000011");
	assert_string_equal(rt_fmt_qp(b, 0xffffff), "0xffffff");
	assert_string_equal(rt_fmt_qp(b, 0), "0x000000");
}

/* text wrapped at `width` (hang 4) into a string the caller frees */
static char *wrapped(const char *text, unsigned width)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	assert_non_null(fp);
	assert_int_equal(rt_text_wrap(fp, text, strlen(text), width, 4, 0), 0);
	fclose(fp);
	return out;
}

static void test_wrap(void **state)
{
	(void)state;
	char *s = wrapped("short line\n  an indented line that is longer than twenty\n", 20);
	assert_string_equal(
	    s, "short line\n  an indented line\n      that is longer\n      than twenty\n");
	free(s);
	/* never between a number and its unit ("a delay of 12" would fit); a word longer than the
	 * room stays whole */
	s = wrapped("a delay of 12 us here and a-word-much-longer-than-the-width end", 13);
	assert_string_equal(s, "a delay of\n    12 us\n    here and\n    "
	                       "a-word-much-longer-than-the-width\n    end\n");
	free(s);
	/* sizes too ("cut to 256 bytes in 16.0 MiB") */
	s = wrapped("cut to 256 bytes in 16.0 MiB", 10);
	assert_string_equal(s, "cut to\n    256 bytes\n    in\n    16.0 MiB\n");
	free(s);
	/* a shell command broken so that a shell reads it back whole */
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	const char *cmd = "fix: echo 106 > /sys/kernel/config/x";
	assert_int_equal(rt_text_fill_command(fp, cmd, strlen(cmd), 4, 24, 9), 0);
	fclose(fp);
	assert_string_equal(out, "fix: echo 106 > \\\n         /sys/kernel/config/x\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rates),
	    cmocka_unit_test(test_qp),
	    cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

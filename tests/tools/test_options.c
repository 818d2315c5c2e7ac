/* Unit tests of tools/options.c, tools/cli.c and tools/cli_messages.c: units, bounds, overflow, garbage, messages. */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/tools/stderr_capture.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

#define SEC 1000000000ull

static void test_uint(void **state)
{
	(void)state;
	uint64_t v = 7;
	assert_int_equal(rt_opt_parse_uint("4791", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 4791);
	assert_int_equal(rt_opt_parse_uint("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rt_opt_parse_uint("0x12b7", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 4791);
	assert_int_equal(rt_opt_parse_uint("0XfF", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 255);
	/* leading zeros are decimal, not octal */
	assert_int_equal(rt_opt_parse_uint("010", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(rt_opt_parse_uint("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(rt_opt_parse_uint("0xffffffffffffffff", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);

	/* bounds are inclusive */
	assert_int_equal(rt_opt_parse_uint("1", 1, 65535, &v), 0);
	assert_int_equal(rt_opt_parse_uint("65535", 1, 65535, &v), 0);
	assert_int_equal(v, 65535);
	v = 99;
	assert_int_equal(rt_opt_parse_uint("0", 1, 65535, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_uint("65536", 1, 65535, &v), -ERANGE);
	assert_int_equal(v, 99); /* untouched on error */
	/* overflow */
	assert_int_equal(rt_opt_parse_uint("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_uint("0x10000000000000000", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_uint("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	/* garbage, empty, signs, spaces, fractions, units */
	static const char *const bad[] = {"",    "x",   "-1",  "+1",    " 1",  "1 ",  "0x",   "0xg",
	                                  "1.0", "1e3", "10K", "12abc", "--1", "0b1", "1,000"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_opt_parse_uint(bad[i], 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(rt_opt_parse_uint(NULL, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(v, 99);
}

static void test_duration(void **state)
{
	(void)state;
	uint64_t v;
	/* every unit */
	assert_int_equal(rt_opt_parse_duration("250ns", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 250);
	assert_int_equal(rt_opt_parse_duration("100us", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 100000);
	assert_int_equal(rt_opt_parse_duration("5ms", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 5000000);
	assert_int_equal(rt_opt_parse_duration("2s", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2 * SEC);
	/* a bare number is seconds, in every command */
	assert_int_equal(rt_opt_parse_duration("250", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 250 * SEC);
	assert_int_equal(rt_opt_parse_duration("3", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 3 * SEC);
	/* --bucket 0.001 is --bucket 1ms */
	uint64_t w;
	assert_int_equal(rt_opt_parse_duration("0.001", 0, UINT64_MAX, &v), 0);
	assert_int_equal(rt_opt_parse_duration("1ms", 0, UINT64_MAX, &w), 0);
	assert_int_equal(v, w);
	assert_int_equal(rt_opt_parse_duration("0.25", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, SEC / 4);
	assert_int_equal(rt_opt_parse_duration(".5", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, SEC / 2);
	assert_int_equal(rt_opt_parse_duration("7.", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 7 * SEC);
	/* fractions, rounded to the nearest ns */
	assert_int_equal(rt_opt_parse_duration("1.5ms", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1500000);
	assert_int_equal(rt_opt_parse_duration("0.1s", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 100000000);
	assert_int_equal(rt_opt_parse_duration("0.0000000015s", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(rt_opt_parse_duration("1.4ns", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rt_opt_parse_duration("0.000001ms", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rt_opt_parse_duration("0us", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0);
	/* bounds */
	assert_int_equal(rt_opt_parse_duration("0us", 1, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_duration("0.4ns", 1, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_duration("9ms", 10000000, SEC, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_duration("10ms", 10000000, SEC, &v), 0);
	assert_int_equal(rt_opt_parse_duration("1s", 10000000, SEC, &v), 0);
	assert_int_equal(rt_opt_parse_duration("1.000000001s", 10000000, SEC, &v), -ERANGE);
	/* overflow: 18446744073.709551615 s is the most that fits */
	assert_int_equal(rt_opt_parse_duration("18446744073s", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 18446744073000000000ull);
	assert_int_equal(rt_opt_parse_duration("18446744074s", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_duration("18446744073.9s", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_duration("99999999999999999999ns", 0, UINT64_MAX, &v),
	                 -ERANGE);
	/* garbage */
	static const char *const bad[] = {
	    "",     "s",    "ms",     ".",     "..5", "1.2.3", "3H",    "1m",  "1 ms",
	    " 1ms", "1ms ", "-1s",    "+1s",   "1MS", "1Ms",   "1e3ns", "inf", "nan",
	    "1sec", "1us1", "0x10ns", "1mins", "1hr", "min",   "h",     "1Min"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_opt_parse_duration(bad[i], 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(rt_opt_parse_duration(NULL, 0, UINT64_MAX, &v), -EINVAL);
	/* garbage wins over overflow */
	assert_int_equal(rt_opt_parse_duration("99999999999999999999hr", 0, UINT64_MAX, &v),
	                 -EINVAL);
	/* minutes and hours */
	assert_int_equal(rt_opt_parse_duration("10min", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 600 * SEC);
	assert_int_equal(rt_opt_parse_duration("1.5min", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 90 * SEC);
	assert_int_equal(rt_opt_parse_duration("3h", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 3 * 3600 * SEC);
	assert_int_equal(rt_opt_parse_duration("0.5h", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1800 * SEC);
	assert_int_equal(rt_opt_parse_duration("5124095h", 0, UINT64_MAX, &v), 0);
	assert_int_equal(rt_opt_parse_duration("5124096h", 0, UINT64_MAX, &v), -ERANGE);
}

static void test_rate(void **state)
{
	(void)state;
	uint64_t v;
	static const struct {
		const char *s;
		uint64_t bps;
	} good[] = {
	    {"100G", 100000000000ull},
	    {"25g", 25000000000ull},
	    {"2.5Gbps", 2500000000ull},
	    {"400Mb/s", 400000000ull},
	    {"400m", 400000000ull},
	    {"10K", 10000},
	    {"10kbps", 10000},
	    {"1.5T", 1500000000000ull},
	    {"1t", 1000000000000ull},
	    {"1000000bps", 1000000},
	    {"1000000b/s", 1000000},
	    {"1000000", 1000000},
	    {"400000000000", 400000000000ull},
	    {"5gbps", 5000000000ull},
	    {"5Tb/s", 5000000000000ull},
	    {"0.001K", 1},
	    {"1Gbit", 1000000000ull},
	    {"1Gbit/s", 1000000000ull},
	    {"100bit", 100},
	    {"5GBps", 40000000000ull},
	    {"5GB/s", 40000000000ull},
	    {"1000B/s", 8000},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		assert_int_equal(rt_opt_parse_rate(good[i].s, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, good[i].bps);
	}
	/* a bare number is bits/s, in every command */
	assert_int_equal(rt_opt_parse_rate("2.5", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(rt_opt_parse_rate("400M", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 400000000ull);
	/* bounds: 1M .. 100T */
	assert_int_equal(rt_opt_parse_rate("10", 1000000, 100000000000000ull, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_rate("999.999K", 1000000, 100000000000000ull, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_rate("1M", 1000000, 100000000000000ull, &v), 0);
	assert_int_equal(rt_opt_parse_rate("100T", 1000000, 100000000000000ull, &v), 0);
	assert_int_equal(rt_opt_parse_rate("100.001T", 1000000, 100000000000000ull, &v), -ERANGE);
	/* overflow */
	assert_int_equal(rt_opt_parse_rate("18446745T", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_rate("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	/* garbage */
	static const char *const bad[] = {
	    "",    "fast", "-1G", "+1G",     "G",    "Gbps", "bps", "10X",   "1Gbits", "1Gb",
	    "1 G", "1G ",  "1GG", "1Gbps/s", "1.G.", "1e9",  "1P",  "5GBPS", "5Gbyte", "5GiB/s"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_opt_parse_rate(bad[i], 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(rt_opt_parse_rate(NULL, 0, UINT64_MAX, &v), -EINVAL);
}

static void test_size(void **state)
{
	(void)state;
	uint64_t v;
	static const struct {
		const char *s;
		uint64_t bytes;
	} good[] = {
	    {"4096", 4096},       {"512B", 512},      {"512b", 512},        {"1K", 1024},
	    {"1k", 1024},         {"4KiB", 4096},     {"4kib", 4096},       {"64K", 65536},
	    {"1.5K", 1536},       {"1M", 1048576},    {"2MiB", 2097152},    {"1G", 1073741824},
	    {"1GiB", 1073741824}, {"2T", 2ull << 40}, {"1TiB", 1ull << 40}, {"0", 0},
	    {"0.5K", 512},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 1;
		assert_int_equal(rt_opt_parse_size(good[i].s, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, good[i].bytes);
	}
	/* bounds */
	assert_int_equal(rt_opt_parse_size("0", 1, 1u << 30, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_size("1G", 1, 1u << 30, &v), 0);
	assert_int_equal(rt_opt_parse_size("1073741825", 1, 1u << 30, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_size("1.1G", 1, 1u << 30, &v), -ERANGE);
	/* overflow: 2^24 TiB is 2^64 */
	assert_int_equal(rt_opt_parse_size("16777215T", 0, UINT64_MAX, &v), 0);
	assert_int_equal(rt_opt_parse_size("16777216T", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_size("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	/* garbage: KB is ambiguous, no sign, no spaces */
	static const char *const bad[] = {"",    "K",   "KiB", "4KB", "4Kb",    "4Ki", "4kiB ",
	                                  "-1K", "+1K", "1 K", "1P",  "1bytes", "x",   "1KK"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_opt_parse_size(bad[i], 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(rt_opt_parse_size(NULL, 0, UINT64_MAX, &v), -EINVAL);
}

static void test_count(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(rt_opt_parse_count("1000", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(rt_opt_parse_count("10K", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(rt_opt_parse_count("10M", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 10000000);
	assert_int_equal(rt_opt_parse_count("2.5m", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2500000);
	assert_int_equal(rt_opt_parse_count("3g", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 3000000000ull);
	assert_int_equal(rt_opt_parse_count("4T", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 4000000000000ull);
	assert_int_equal(rt_opt_parse_count("0", 1, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rt_opt_parse_count("18446745T", 0, UINT64_MAX, &v), -ERANGE);
	static const char *const bad[] = {"", "M", "10Mi", "10MB", "10KiB", "-1", "1 K", "ten"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_opt_parse_count(bad[i], 0, UINT64_MAX, &v), -EINVAL);
}

static void test_real(void **state)
{
	(void)state;
	double d = 0;
	assert_int_equal(rt_opt_parse_real("0.00390625", 0, 1, &d), 0);
	assert_true(d == 0.00390625);
	assert_int_equal(rt_opt_parse_real(".5", 0, 1, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(rt_opt_parse_real("1", 0, 1, &d), 0);
	assert_true(d == 1.0);
	assert_int_equal(rt_opt_parse_real("0", 1e-9, 1, &d), -ERANGE);
	assert_int_equal(rt_opt_parse_real("1.01", 0, 1, &d), -ERANGE);
	static const char *const bad[] = {"",    ".",      "-0.5", "+0.5", "1e-3", "inf",
	                                  "nan", "0x1p-3", "0.5s", " 0.5", "1/256"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rt_opt_parse_real(bad[i], 0, 1, &d), -EINVAL);
	assert_int_equal(rt_opt_parse_real(NULL, 0, 1, &d), -EINVAL);
}

static void test_messages(void **state)
{
	(void)state;
	uint64_t v = 0;
	double d;
	capture_begin();
	assert_int_equal(rt_opt_duration("timeline", "--bucket", "3hr", 1, UINT64_MAX, &v),
	                 RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace timeline: --bucket: '3hr' is not a duration (use e.g. "
	                    "100us, 5ms, 2s, 10min, 1h; a bare number is seconds)\n");
	/* 'm' is neither minutes nor milliseconds: both spellings are offered */
	capture_begin();
	assert_int_equal(rt_opt_duration("capture", "--duration", "1.5m", 1, UINT64_MAX, &v),
	                 RT_EXIT_USAGE);
	assert_string_equal(capture_end(), "rocetrace capture: --duration: '1.5m' is not a "
	                                   "duration: write 1.5min for minutes or 1.5ms for "
	                                   "milliseconds\n");
	capture_begin();
	assert_int_equal(
	    rt_opt_duration("capture", "--counters", "5ms", 10000000, 366 * 86400 * SEC, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(),
	    "rocetrace capture: --counters: '5ms' is out of range (10ms to 8784h)\n");
	capture_begin();
	assert_int_equal(rt_opt_uint("gen", "--port", "70000", 1, 65535, &v), RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace gen: --port: '70000' is out of range (1 to 65535)\n");
	capture_begin();
	assert_int_equal(rt_opt_uint("dissect", "-c", "", 1, UINT64_MAX, &v), RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(),
	    "rocetrace dissect: -c: '' is not a whole number (use e.g. 42 or 0x2a)\n");
	capture_begin();
	assert_int_equal(
	    rt_opt_rate("analyze", "--link-speed", "10", 1000000, 100000000000000ull, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace analyze: --link-speed: '10' is out of range (1M to 100T): a "
	                    "bare rate is bits/s; for 10 Gb/s write 10G\n");
	/* no hint that would be refused too */
	capture_begin();
	assert_int_equal(
	    rt_opt_rate("analyze", "--link-speed", "0", 1000000, 100000000000000ull, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace analyze: --link-speed: '0' is out of range (1M to 100T): a "
	                    "bare rate is bits/s\n");
	/* the old bare Gb/s of gen and doctor: refused, with what to write */
	capture_begin();
	assert_int_equal(rt_opt_rate("gen", "--rate", "2.5", 1000000, 100000000000000ull, &v),
	                 RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(), "rocetrace gen: --rate: '2.5' is out of range (1M to 100T): a bare rate "
	                   "is bits/s; for 2.5 Gb/s write 2.5G\n");
	/* a bare duration out of range says what bare durations are */
	capture_begin();
	assert_int_equal(rt_opt_duration("gen", "--timeout", "20", 10000, 10 * SEC, &v),
	                 RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace gen: --timeout: '20' is out of range (10us to "
	                    "10s): a bare duration is seconds\n");
	/* options whose bare numbers were nanoseconds: one from 100 up is refused with both readings */
	capture_begin();
	assert_int_equal(
	    rt_opt_duration_was_ns("timeline", "--bucket", "100000", 100, 1000000 * SEC, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(), "rocetrace timeline: --bucket: '100000' has no unit: a bare duration is "
	                   "seconds, but rocetrace 0.1 read this option's as nanoseconds; write "
	                   "100us for nanoseconds, or 100000s\n");
	capture_begin();
	assert_int_equal(
	    rt_opt_duration_was_ns("timeline", "--bucket", "99999999999999999999999", 100, SEC, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(), "rocetrace timeline: --bucket: '99999999999999999999999' has no unit: a "
	                   "bare duration is seconds, but rocetrace 0.1 read this option's as "
	                   "nanoseconds; write 99999999999999999999999s\n");
	/* ... a smaller one is seconds (a 1 ns bucket was never meant), a unit is what it says */
	capture_begin();
	assert_int_equal(
	    rt_opt_duration_was_ns("timeline", "--bucket", "1", 100, 1000000 * SEC, &v), 0);
	assert_int_equal(v, SEC);
	assert_int_equal(
	    rt_opt_duration_was_ns("timeline", "--bucket", "99.5", 100, 1000000 * SEC, &v), 0);
	assert_int_equal(v, 99500000000ull);
	assert_int_equal(
	    rt_opt_duration_was_ns("timeline", "--bucket", "100000ns", 100, 1000000 * SEC, &v), 0);
	assert_int_equal(v, 100000);
	assert_string_equal(capture_end(), "");
	/* a bucket under 100 ns is refused */
	capture_begin();
	assert_int_equal(
	    rt_opt_duration_was_ns("timeline", "--bucket", "50ns", 100, 1000000 * SEC, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(capture_end(), "rocetrace timeline: --bucket: '50ns' is out of range "
	                                   "(100ns to 1000000s)\n");
	capture_begin();
	assert_int_equal(
	    rt_opt_rate("analyze", "--link-speed", "fast", 1000000, 100000000000000ull, &v),
	    RT_EXIT_USAGE);
	assert_string_equal(capture_end(), "rocetrace analyze: --link-speed: 'fast' is not a rate "
	                                   "(use e.g. 100G, 400M, 2.5Gbit/s; a bare number is "
	                                   "bits/s)\n");
	capture_begin();
	assert_int_equal(rt_opt_size("gen", "--size", "2G", 1, 1u << 30, &v), RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace gen: --size: '2G' is out of range (1 to 1GiB)\n");
	capture_begin();
	assert_int_equal(rt_opt_size("gen", "--size", "4KB", 1, 1u << 30, &v), RT_EXIT_USAGE);
	assert_string_equal(capture_end(), "rocetrace gen: --size: '4KB' is not a size (use e.g. "
	                                   "4096, 64K, 1MiB; a bare number is "
	                                   "bytes)\n");
	capture_begin();
	assert_int_equal(rt_opt_count("gen", "--dcqcn-bytes", "lots", 1, 1000, &v), RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(),
	    "rocetrace gen: --dcqcn-bytes: 'lots' is not a count (use e.g. 1000, 10K, 5M)\n");
	capture_begin();
	assert_int_equal(rt_opt_real("gen", "--dcqcn-g", "2", 0.5, 1, &d), RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace gen: --dcqcn-g: '2' is out of range (0.5 to 1)\n");
	capture_begin();
	assert_int_equal(rt_opt_real("gen", "--dcqcn-g", "x", 0.5, 1, &d), RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace gen: --dcqcn-g: 'x' is not a number (use e.g. 0.5)\n");
	/* success prints nothing */
	capture_begin();
	assert_int_equal(rt_opt_duration("analyze", "--episode-gap", "1ms", 1, UINT64_MAX, &v), 0);
	assert_int_equal(rt_opt_rate("gen", "--rate", "2G", 1000000, UINT64_MAX, &v), 0);
	assert_string_equal(capture_end(), "");
	assert_int_equal(v, 2 * SEC);

	capture_begin();
	assert_int_equal(rt_cli_usage_error("dissect", "no capture file given"), RT_EXIT_USAGE);
	assert_string_equal(
	    capture_end(),
	    "rocetrace dissect: no capture file given (see 'rocetrace dissect --help')\n");
	capture_begin();
	assert_int_equal(rt_cli_fail("gen send", "%s: %d", "oops", 3), RT_EXIT_ERROR);
	assert_string_equal(capture_end(), "rocetrace gen send: oops: 3\n");
}

/* What rt_cli_getopt_error says for the first problem getopt_long finds in args. */
static const char *getopt_message(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 256},
	    {"bucket", required_argument, NULL, 257},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	optind = 0; /* 0: glibc starts over, forgetting a group left half read */
	opterr = 0;
	int c, rc = -1;
	capture_begin();
	while ((c = getopt_long(argc, argv, ":hjo:", longopts, NULL)) != -1)
		if (c == ':' || c == '?') {
			rc = rt_cli_getopt_error("timeline", c, argv, longopts);
			break;
		}
	const char *msg = capture_end();
	assert_int_equal(rc, RT_EXIT_USAGE);
	return msg;
}

static void test_getopt_errors(void **state)
{
	(void)state;
	char *a1[] = {"timeline", "f.pcap", "--bogus=1", NULL};
	assert_string_equal(
	    getopt_message(3, a1),
	    "rocetrace timeline: unknown option '--bogus' (see 'rocetrace timeline --help')\n");
	char *a2[] = {"timeline", "f.pcap", "--bucket", NULL};
	assert_string_equal(getopt_message(3, a2), "rocetrace timeline: option '--bucket' needs a "
	                                           "value (see 'rocetrace timeline --help')\n");
	char *a3[] = {"timeline", "f.pcap", "-o", NULL};
	assert_string_equal(
	    getopt_message(3, a3),
	    "rocetrace timeline: option '-o' needs a value (see 'rocetrace timeline --help')\n");
	char *a4[] = {"timeline", "--json", "-zj", NULL};
	assert_string_equal(
	    getopt_message(3, a4),
	    "rocetrace timeline: unknown option '-z' (see 'rocetrace timeline --help')\n");
	char *a5[] = {"timeline", "--json=yes", NULL};
	assert_string_equal(getopt_message(2, a5), "rocetrace timeline: option '--json' takes no "
	                                           "value (see 'rocetrace timeline --help')\n");
	char *a6[] = {"timeline", "--help=1", NULL};
	assert_string_equal(getopt_message(2, a6), "rocetrace timeline: option '--help' takes no "
	                                           "value (see 'rocetrace timeline --help')\n");
	char *a7[] = {"timeline", "-jx", NULL};
	assert_string_equal(
	    getopt_message(2, a7),
	    "rocetrace timeline: unknown option '-x' (see 'rocetrace timeline --help')\n");
}

/* tcpdump's operands: FILE, then an expression in words; -r and -f take their places. */
static void test_operands(void **state)
{
	(void)state;
	char *a1[] = {"dissect", "f.pcap", "udp", "port", "4791", NULL};
	const char *path = NULL, *bpf = NULL;
	char *joined;
	assert_int_equal(rt_cli_operands("dissect", 5, a1, 1, true, &path, &bpf, &joined), 0);
	assert_string_equal(path, "f.pcap");
	assert_string_equal(bpf, "udp port 4791");
	assert_ptr_equal(bpf, joined);
	free(joined);
	/* -r gave the file: every word is the expression */
	path = "g.pcap";
	bpf = NULL;
	assert_int_equal(rt_cli_operands("dissect", 5, a1, 2, true, &path, &bpf, &joined), 0);
	assert_string_equal(path, "g.pcap");
	assert_string_equal(bpf, "udp port 4791");
	free(joined);
	/* an expression libpcap cannot compile is a usage error, before any file is read */
	char *bad[] = {"dissect", "f.pcap", "udp", "port", "(", NULL};
	capture_begin();
	path = bpf = NULL;
	assert_int_equal(rt_cli_operands("dissect", 5, bad, 1, true, &path, &bpf, &joined),
	                 RT_EXIT_USAGE);
	assert_string_equal(capture_end(),
	                    "rocetrace dissect: bad filter 'udp port (': can't parse "
	                    "filter expression: syntax error (see 'rocetrace "
	                    "dissect --help')\n");
	free(joined);
	/* -f alike; an expression only some link types take (Linux cooked's inbound) is kept */
	capture_begin();
	path = NULL;
	bpf = "tcp port 99999";
	assert_int_equal(rt_cli_operands("dissect", 2, a1, 1, true, &path, &bpf, &joined),
	                 RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "bad filter 'tcp port 99999': illegal port number"));
	path = NULL;
	bpf = "inbound";
	assert_int_equal(rt_cli_operands("dissect", 2, a1, 1, true, &path, &bpf, &joined), 0);
	/* no expression: -f stays */
	path = NULL;
	bpf = "vlan";
	assert_int_equal(rt_cli_operands("dissect", 2, a1, 1, true, &path, &bpf, &joined), 0);
	assert_string_equal(bpf, "vlan");
	assert_null(joined);
	/* -f and an expression; no file at all */
	capture_begin();
	path = NULL;
	assert_int_equal(rt_cli_operands("dissect", 5, a1, 1, true, &path, &bpf, &joined),
	                 RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "a filter twice: -f 'vlan' and 'udp'"));
	assert_null(joined);
	capture_begin();
	path = bpf = NULL;
	assert_int_equal(rt_cli_operands("analyze", 1, a1, 1, true, &path, &bpf, &joined),
	                 RT_EXIT_USAGE);
	assert_string_equal(capture_end(), "rocetrace analyze: no capture file given (FILE or -r "
	                                   "FILE) (see 'rocetrace analyze --help')\n");
	/* capture: no FILE operand, the words are the expression */
	path = bpf = NULL;
	assert_int_equal(rt_cli_operands("capture", 5, a1, 2, false, &path, &bpf, &joined), 0);
	assert_null(path);
	assert_string_equal(bpf, "udp port 4791");
	free(joined);
}

/* Several files: -r, --vantage and FILE operands, then the expression. */
static void test_files(void **state)
{
	(void)state;
	struct rt_cli_files fs = {0};
	const char *bpf = NULL;
	char *joined;
	/* operands that look like capture files are files, even missing ones; a keyword starts the expression */
	char *a1[] = {"analyze",     "a.pcap", "run.pcapng.2", "x/y",  "b.pcap.gz",
	              "trace.pcap1", "udp",    "port",         "4791", NULL};
	assert_int_equal(rt_cli_files_add("analyze", &fs, "first.pcap", NULL), 0);
	assert_int_equal(rt_cli_files_vantage("analyze", &fs, "tor=m1.pcap,m2.pcap"), 0);
	assert_int_equal(rt_cli_files_operands("analyze", 9, a1, 1, &fs, &bpf, &joined), 0);
	assert_int_equal(fs.n, 8);
	assert_string_equal(fs.files[0].path, "first.pcap");
	assert_null(fs.files[0].vantage);
	assert_string_equal(fs.files[1].path, "m1.pcap");
	assert_string_equal(fs.files[1].vantage, "tor");
	assert_string_equal(fs.files[2].path, "m2.pcap");
	assert_string_equal(fs.files[2].vantage, "tor");
	assert_string_equal(fs.files[3].path, "a.pcap");
	assert_string_equal(fs.files[7].path, "trace.pcap1");
	assert_string_equal(bpf, "udp port 4791");
	free(joined);
	rt_cli_files_free(&fs);
	/* no file yet: the first operand is one, whatever it looks like */
	char *a2[] = {"dissect", "capture", "vlan", NULL};
	bpf = NULL;
	assert_int_equal(rt_cli_files_operands("dissect", 3, a2, 1, &fs, &bpf, &joined), 0);
	assert_int_equal(fs.n, 1);
	assert_string_equal(fs.files[0].path, "capture");
	assert_string_equal(bpf, "vlan");
	free(joined);
	rt_cli_files_free(&fs);
	/* '-' after a file is standard input, never the start of the expression */
	char *a3[] = {"analyze", "a.pcap", "-", "udp", NULL};
	bpf = NULL;
	assert_int_equal(rt_cli_files_operands("analyze", 4, a3, 1, &fs, &bpf, &joined), 0);
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.files[1].path, "-");
	assert_string_equal(bpf, "udp");
	free(joined);
	rt_cli_files_free(&fs);
	/* usage errors */
	capture_begin();
	assert_int_equal(rt_cli_files_vantage("dissect", &fs, "=a.pcap"), RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "--vantage: '=a.pcap' is not NAME=FILE[,FILE...]"));
	capture_begin();
	assert_int_equal(rt_cli_files_vantage("dissect", &fs, "name="), RT_EXIT_USAGE);
	capture_end();
	capture_begin();
	assert_int_equal(rt_cli_files_vantage("dissect", &fs, "name=,"), RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "--vantage: 'name=,' names no file"));
	capture_begin();
	assert_int_equal(rt_cli_files_operands("timeline", 1, a2, 1, &fs, &bpf, &joined),
	                 RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "no capture file given"));
	/* the same name twice, whichever way it came */
	assert_int_equal(rt_cli_files_vantage("analyze", &fs, "tor=m1.pcap"), 0);
	capture_begin();
	assert_int_equal(rt_cli_files_add("analyze", &fs, "m1.pcap", NULL), RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "m1.pcap given twice"));
	rt_cli_files_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_operands),      cmocka_unit_test(test_uint),
	    cmocka_unit_test(test_duration),      cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_size),          cmocka_unit_test(test_count),
	    cmocka_unit_test(test_real),          cmocka_unit_test(test_messages),
	    cmocka_unit_test(test_getopt_errors), cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of gen's perftest-style tables: latency statistics and the bandwidth units. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "traffic/perf.h"

/* 1000 samples 1..1000 ns, shuffled: every statistic is known in closed form. */
static void test_lat_stats(void **state)
{
	(void)state;
	uint64_t s[1000];
	for (unsigned i = 0; i < 1000; i++)
		s[i] = (uint64_t)((i * 617u) % 1000u) + 1; /* 617 is prime to 1000: a permutation */
	struct rt_perf_lat st;
	rt_perf_lat_stats(s, 1000, 64, &st);
	assert_int_equal(st.size, 64);
	assert_int_equal(st.iterations, 1000);
	assert_int_equal(st.min, 1);
	assert_int_equal(st.max, 1000);
	assert_int_equal(st.typical, 500); /* rank ceil(0.5 * 1000) */
	assert_int_equal(st.p99, 990);     /* rank 990 */
	assert_int_equal(st.p999, 999);    /* rank 999 */
	assert_true(fabs(st.avg - 500.5) < 1e-9);
	/* population standard deviation of 1..n: sqrt((n^2 - 1) / 12) */
	assert_true(fabs(st.stdev - sqrt((1000.0 * 1000.0 - 1) / 12)) < 1e-6);
	for (unsigned i = 1; i < 1000; i++) /* sorted in place */
		assert_true(s[i - 1] <= s[i]);
}

/* Few samples: the percentiles are the largest ones, one sample is every statistic. */
static void test_lat_small(void **state)
{
	(void)state;
	uint64_t s[3] = {30, 10, 20};
	struct rt_perf_lat st;
	rt_perf_lat_stats(s, 3, 2, &st);
	assert_int_equal(st.typical, 20);
	assert_int_equal(st.p99, 30);
	assert_int_equal(st.p999, 30);
	uint64_t one[1] = {7};
	rt_perf_lat_stats(one, 1, 2, &st);
	assert_int_equal(st.min, 7);
	assert_int_equal(st.max, 7);
	assert_int_equal(st.typical, 7);
	assert_int_equal(st.p999, 7);
	assert_true(st.stdev == 0);
}

static char *print(void (*fn)(FILE *, const void *, bool), const void *arg, bool flag)
{
	static char buf[512];
	FILE *f = tmpfile();
	assert_non_null(f);
	fn(f, arg, flag);
	rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void bw_row(FILE *f, const void *r, bool gbits)
{
	rt_perf_bw_row(f, r, gbits);
}
static void bw_header(FILE *f, const void *r, bool gbits)
{
	(void)r;
	rt_perf_bw_header(f, gbits);
}
static void lat_row(FILE *f, const void *st, bool unused)
{
	(void)unused;
	rt_perf_lat_row(f, st);
}
static void lat_header(FILE *f, const void *st, bool unused)
{
	(void)st;
	(void)unused;
	rt_perf_lat_header(f);
}

/* MB/sec is 2^20 bytes a second (as perftest), Gb/sec 10^9 bits; the columns perftest prints. */
static void test_bw_units(void **state)
{
	(void)state;
	struct rt_perf_bw r = {.size = 65536,
	                       .iterations = 5000,
	                       .peak_bps = 8.0 * 1048576 * 1000, /* 1000 MB/sec */
	                       .avg_bps = 8.0 * 1048576 * 500,
	                       .msg_rate = 8000};
	char *h = print(bw_header, NULL, false);
	assert_non_null(strstr(h, "#bytes"));
	assert_non_null(strstr(h, "#iterations"));
	assert_non_null(strstr(h, "BW peak[MB/sec]"));
	assert_non_null(strstr(h, "BW average[MB/sec]"));
	assert_non_null(strstr(h, "MsgRate[Mpps]"));
	char *row = print(bw_row, &r, false);
	unsigned size;
	unsigned long long it;
	double peak, avg, mpps;
	assert_int_equal(sscanf(row, "%u %llu %lf %lf %lf", &size, &it, &peak, &avg, &mpps), 5);
	assert_int_equal(size, 65536);
	assert_int_equal(it, 5000);
	assert_true(fabs(peak - 1000) < 0.01);
	assert_true(fabs(avg - 500) < 0.01);
	assert_true(fabs(mpps - 0.008) < 1e-9);
	h = print(bw_header, NULL, true);
	assert_non_null(strstr(h, "BW peak[Gb/sec]"));
	row = print(bw_row, &r, true);
	assert_int_equal(sscanf(row, "%u %llu %lf %lf %lf", &size, &it, &peak, &avg, &mpps), 5);
	assert_true(fabs(peak - 8.0 * 1048576 * 1000 / 1e9) < 0.01);
}

/* The latency table: perftest's header, values in microseconds, no '%%' doubled. */
static void test_lat_table(void **state)
{
	(void)state;
	char *h = print(lat_header, NULL, false);
	assert_non_null(strstr(h, " #bytes #iterations    t_min[usec]    t_max[usec]  "
	                          "t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% "
	                          "percentile[usec]   99.9% percentile[usec]\n"));
	assert_null(strstr(h, "%%"));
	struct rt_perf_lat st = {.size = 2,
	                         .iterations = 1000,
	                         .min = 1500,
	                         .max = 9000,
	                         .typical = 2000,
	                         .avg = 2100,
	                         .stdev = 250,
	                         .p99 = 4000,
	                         .p999 = 8000};
	char *row = print(lat_row, &st, false);
	double v[7];
	unsigned size;
	unsigned long long it;
	assert_int_equal(sscanf(row, "%u %llu %lf %lf %lf %lf %lf %lf %lf", &size, &it, &v[0],
	                        &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]),
	                 9);
	const double want[7] = {1.5, 9, 2, 2.1, 0.25, 4, 8};
	for (int i = 0; i < 7; i++)
		assert_true(fabs(v[i] - want[i]) < 0.005);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lat_stats),
	    cmocka_unit_test(test_lat_small),
	    cmocka_unit_test(test_bw_units),
	    cmocka_unit_test(test_lat_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

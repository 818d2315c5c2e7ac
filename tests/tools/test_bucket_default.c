/* Unit tests of tools/bucket_default.c: the 1-2-5 rule, the span read from files, streams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tools/bucket_default.h"

#define US  1000ull
#define MS  1000000ull
#define SEC 1000000000ull

static void test_for_span(void **state)
{
	(void)state;
	/* at most 1000 buckets, the shortest 1, 2 or 5 times a power of ten, at least 100 ns */
	assert_int_equal(rt_bucket_for_span(0), 100);
	assert_int_equal(rt_bucket_for_span(99 * US), 100);
	assert_int_equal(rt_bucket_for_span(100 * US), 100);
	assert_int_equal(rt_bucket_for_span(100 * US + 1), 200);
	assert_int_equal(rt_bucket_for_span(6590 * US), 10 * US);
	assert_int_equal(rt_bucket_for_span(400 * MS), 500 * US);
	assert_int_equal(rt_bucket_for_span(SEC), MS);
	assert_int_equal(rt_bucket_for_span(SEC + 1), 2 * MS);
	assert_int_equal(rt_bucket_for_span(3600 * SEC), 5 * SEC);
	assert_int_equal(rt_bucket_for_span(UINT64_MAX), 20000000000000000ull);
}

/* A nanosecond pcap of frames at these times (ns), into a file of the temporary folder. */
static void write_pcap(const char *path, const uint64_t *ts, size_t n)
{
	static const uint8_t frame[60];
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint32_t hdr[6] = {0xa1b23c4d, 2 | 4u << 16, 0, 0, 65535, 1};
	fwrite(hdr, sizeof(hdr), 1, f);
	for (size_t i = 0; i < n; i++) {
		uint32_t rec[4] = {(uint32_t)(ts[i] / SEC), (uint32_t)(ts[i] % SEC), sizeof(frame),
		                   sizeof(frame)};
		fwrite(rec, sizeof(rec), 1, f);
		fwrite(frame, sizeof(frame), 1, f);
	}
	fclose(f);
}

static void test_from_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/rt-bucket-XXXXXX", a[64], b[64], fifo[64], why[256];
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pcap", dir);
	snprintf(b, sizeof(b), "%s/b.pcap", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	/* out of order within a file, and a second file that starts earlier: 4 s in all */
	const uint64_t ta[] = {1700000003 * SEC, 1700000001 * SEC, 1700000002 * SEC};
	const uint64_t tb[] = {1699999999 * SEC, 1700000000 * SEC};
	write_pcap(a, ta, 3);
	write_pcap(b, tb, 2);
	struct rt_source_file_spec specs[2] = {{.path = a}, {.path = b}};
	struct rt_cli_files files = {.files = specs, .n = 2};
	assert_int_equal(rt_bucket_default(&files, false, why, sizeof(why)), 5 * MS);
	assert_string_equal(why, "no --bucket: 5ms buckets, 801 over the capture's 4 s");
	/* report: at most 100us, the page folds them (the files read only until they span 100 ms) */
	assert_int_equal(rt_bucket_default(&files, true, why, sizeof(why)), 100 * US);
	assert_string_equal(why,
	                    "no --bucket: 100us buckets, the longest report chooses, for a "
	                    "capture over 100 ms (folded into at most 1024 points, each keeping "
	                    "its peak)");
	/* standard input and a pipe cannot be read twice */
	specs[1].path = "-";
	assert_int_equal(rt_bucket_default(&files, false, why, sizeof(why)), RT_BUCKET_STREAM_NS);
	assert_string_equal(why, "no --bucket, and standard input cannot be measured before it is "
	                         "read: 100us buckets");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	specs[1].path = fifo;
	assert_int_equal(rt_bucket_default(&files, true, why, sizeof(why)), RT_BUCKET_STREAM_NS);
	assert_non_null(strstr(why, "fifo (a stream) cannot be measured"));
	/* a file that cannot be read counts for nothing: the analysis says what is wrong */
	specs[1].path = "/nonexistent/x.pcap";
	assert_int_equal(rt_bucket_default(&files, false, why, sizeof(why)), 2 * MS);
	unlink(a);
	unlink(b);
	unlink(fifo);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_for_span),
	    cmocka_unit_test(test_from_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

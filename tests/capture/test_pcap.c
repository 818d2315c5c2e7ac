/* Unit tests of the native capture file reader on hand-built classic pcap files, gzip'd files and a pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/pcapfile.h"
#include "pcapfile_build.h"

static void test_pcap_micro_le(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	pcap_rec(&b, 1700000000, 123456, 60, 60, 0);
	pcap_rec(&b, 1700000001, 999999, 14, 1514, 1);
	pcap_rec(&b, 1700000002, 0, 0, 0, 2);
	struct want w[] = {
	    {1700000000123456000ull, 60, 60, 1, 0, 0, 0},
	    {1700000001999999000ull, 14, 1514, 1, 0, 1, 0},
	    {1700000002000000000ull, 0, 0, 1, 0, 2, 0},
	};
	expect(&b, w, 3, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	assert_int_equal(rt_pcapfile_info(f)->format, RT_PCAPFILE_PCAP);
	assert_int_equal(rt_pcapfile_info(f)->linktype, 1);
	assert_int_equal(rt_pcapfile_info(f)->snaplen, 65535);
	assert_false(rt_pcapfile_info(f)->gzip);
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_false(d.known);
	assert_int_equal(d.interfaces, 1);
	rt_pcapfile_close(f);
	free(b.p);
}

/* Big-endian nanosecond pcap with seconds at and after 2^31 (2038) and near 2^32 (2106). */
static void test_pcap_nano_be_y2038(void **state)
{
	(void)state;
	struct buf b = {.be = true};
	pcap_header(&b, 0xA1B23C4D, 0, 101);
	pcap_rec(&b, 0x80000000u, 5, 20, 20, 0);
	pcap_rec(&b, 0xFFFFFFFFu, 999999999, 40, 60, 1);
	struct want w[] = {
	    {0x80000000ull * 1000000000u + 5, 20, 20, 101, 0, 0, 0},
	    {0xFFFFFFFFull * 1000000000u + 999999999, 40, 60, 101, 0, 1, 0},
	};
	expect(&b, w, 2, false);
	free(b.p);
}

/* A fraction of a second of a whole second or more is refused (it read as the next second). */
static void test_pcap_fraction(void **state)
{
	(void)state;
	for (int nano = 0; nano < 2; nano++) {
		uint32_t second = nano ? 1000000000u : 1000000u;
		struct buf b = {0};
		pcap_header(&b, nano ? 0xA1B23C4D : 0xA1B2C3D4, 65535, 1);
		pcap_rec(&b, 7, second - 1, 20, 20, 0);
		pcap_rec(&b, 8, second, 20, 20, 1);
		struct want w[] = {{8000000000ull - (nano ? 1 : 1000), 20, 20, 1, 0, 0, 0}};
		expect(&b, w, 1, true);
		char errbuf[RT_ERRBUF_SIZE];
		struct rt_pcapfile *f;
		struct rt_frame fr[4];
		assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
		assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 1);
		assert_true(rt_pcapfile_next(f, fr, 4, errbuf) < 0);
		assert_non_null(
		    strstr(errbuf, nano ? "frame 2: a fraction of a second of 1000000000 ns"
		                        : "frame 2: a fraction of a second of 1000000 us"));
		rt_pcapfile_close(f);
		free(b.p);
	}
}

/* A frame longer than the snap length is cut to it (as libpcap does); one beyond 262144 bytes is an error. */
static void test_pcap_snaplen_and_limits(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 32, 1);
	pcap_rec(&b, 1, 0, 100, 100, 0);
	pcap_rec(&b, 2, 0, 10, 100, 1);
	u32(&b, 3); /* a record claiming 300000 captured bytes */
	u32(&b, 0);
	u32(&b, 300000);
	u32(&b, 300000);
	struct want w[] = {
	    {1000000000ull, 32, 100, 1, 0, 0, 0},
	    {2000000000ull, 10, 100, 1, 0, 1, 0},
	};
	expect(&b, w, 2, true);
	free(b.p);
}

/* A file cut inside a frame: the frames before it, then an error naming the frame. */
static void test_pcap_cut(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	pcap_rec(&b, 1, 0, 50, 50, 0);
	pcap_rec(&b, 2, 0, 50, 50, 1);
	b.len -= 7;
	struct want w[] = {{1000000000ull, 50, 50, 1, 0, 0, 0}};
	expect(&b, w, 1, true);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[4];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "cut.pcap", errbuf), 0);
	assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 1);
	assert_true(rt_pcapfile_next(f, fr, 4, errbuf) < 0);
	assert_non_null(strstr(errbuf, "cut.pcap: the file ends in the middle of frame 2"));
	rt_pcapfile_close(f);
	free(b.p);
}

static void test_not_a_capture(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct buf b = {0};
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "empty"));
	put(&b, "this is not a capture", 21);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "not a pcap or pcapng file"));
	b.len = 0;
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	b.len = 20;
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "header"));
	free(b.p);
}

/* gzip'd files read as the plain ones, in one member or two; a cut gzip file is an error. */
static void test_gzip(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	struct want w[40];
	for (unsigned i = 0; i < 40; i++) {
		pcap_rec(&b, 1700000000 + i, i, 100 + i, 200, i);
		w[i] = (struct want){
		    (1700000000ull + i) * 1000000000u + i * 1000u, 100 + i, 200, 1, 0, i, 0};
	}
	for (int two = 0; two < 2; two++) {
		struct buf z = gzip(&b, two);
		expect(&z, w, 40, false);
		char errbuf[RT_ERRBUF_SIZE];
		struct rt_pcapfile *f;
		assert_int_equal(rt_pcapfile_open_mem(&f, z.p, z.len, 0, "t.gz", errbuf), 0);
		assert_true(rt_pcapfile_info(f)->gzip);
		rt_pcapfile_close(f);
		/* bytes after the last member are ignored, as gzip -d does */
		put(&z, "\0\0\0\0", 4);
		expect(&z, w, 40, false);
		/* cut inside the compressed data: some frames, then an error */
		z.len -= 4 + 30;
		assert_int_equal(rt_pcapfile_open_mem(&f, z.p, z.len, 0, "t.gz", errbuf), 0);
		struct rt_frame fr[64];
		int rc, got = 0;
		while ((rc = rt_pcapfile_next(f, fr, 64, errbuf)) > 0)
			got += rc;
		assert_true(rc < 0);
		assert_true(got < 40);
		rt_pcapfile_close(f);
		free(z.p);
	}
	free(b.p);
}

/* A descriptor: the reader takes what each read(2) gives from a pipe. */
static void test_pipe(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	idb(&b, 1, 0, 9, 0);
	for (unsigned i = 0; i < 20; i++)
		epb(&b, 0, 1000 + i, 60, 60, i);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_true(b.len < 65536);
	assert_int_equal(write(fds[1], b.p, b.len), (ssize_t)b.len);
	close(fds[1]);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	assert_int_equal(rt_pcapfile_open_fd(&f, fds[0], true, "pipe", errbuf), 0);
	struct rt_frame fr[7];
	int rc, got = 0;
	while ((rc = rt_pcapfile_next(f, fr, 7, errbuf)) > 0) {
		for (int i = 0; i < rc; i++)
			assert_int_equal(fr[i].ts_ns, 1000 + (unsigned)(got + i));
		got += rc;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(got, 20);
	rt_pcapfile_close(f);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pcap_micro_le),
	    cmocka_unit_test(test_pcap_nano_be_y2038),
	    cmocka_unit_test(test_pcap_snaplen_and_limits),
	    cmocka_unit_test(test_pcap_fraction),
	    cmocka_unit_test(test_pcap_cut),
	    cmocka_unit_test(test_not_a_capture),
	    cmocka_unit_test(test_gzip),
	    cmocka_unit_test(test_pipe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the native capture file reader on hand-built pcapng files: interfaces, block types, sections in both byte orders, statistics, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/pcapfile.h"
#include "pcapfile_build.h"

/*
 * pcapng: two interfaces with different link types, timestamp resolutions and
 * offsets; EPB, SPB and the obsolete PB; an unknown block skipped; ISBs.
 */
static void test_pcapng_one_section(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	idb(&b, 1, 0, 9, 0);               /* Ethernet, ns */
	size_t at = begin(&b, 0x00000BAD); /* a custom block: no frame, but frame 1 to Wireshark */
	u32(&b, 12345);
	frame_bytes(&b, 9, 9);
	end(&b, at);
	idb(&b, 101, 64, -1, -3600); /* raw IP, default us, offset -1 h */
	epb(&b, 0, 1700000000123456789ull, 60, 64, 0);
	epb(&b, 1, 1700000000123456ull, 64, 1500, 1);
	at = begin(&b, 3); /* SPB: interface 0, cut to what the block holds */
	u32(&b, 30);
	frame_bytes(&b, 2, 30);
	end(&b, at);
	at = begin(&b, 2); /* PB on interface 1 */
	u16(&b, 1);
	u16(&b, 0xFFFF);
	u32(&b, 0);
	u32(&b, 3600000005u); /* 1 h and 5 us: 5 us after the offset */
	u32(&b, 8);
	u32(&b, 8);
	frame_bytes(&b, 3, 8);
	end(&b, at);
	isb(&b, 0, 7, 11);
	isb(&b, 1, 2, UINT64_MAX);
	struct want w[] = {
	    {1700000000123456789ull, 60, 64, 1, 0, 0, 2},
	    {1700000000123456000ull - 3600000000000ull, 64, 1500, 101, 1, 1, 3},
	    {0, 30, 30, 1, 0, 2, 4},
	    {5000ull, 8, 8, 101, 1, 3, 5},
	};
	expect(&b, w, 4, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[8];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	assert_int_equal(rt_pcapfile_info(f)->format, RT_PCAPFILE_PCAPNG);
	assert_int_equal(rt_pcapfile_info(f)->linktype, 1);
	while (rt_pcapfile_next(f, fr, 8, errbuf) > 0)
		;
	assert_int_equal(rt_pcapfile_snaplen(f, 1), 64);
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_true(d.known);
	assert_int_equal(d.if_dropped, 9);
	assert_int_equal(d.os_dropped, 11);
	assert_int_equal(d.interfaces, 2);
	rt_pcapfile_close(f);
	free(b.p);
}

/*
 * Two sections in different byte orders: interface ids count on across
 * sections, binary and coarse decimal resolutions, and the last ISB of each
 * interface counts, summed over sections.
 */
static void test_pcapng_two_sections(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	idb(&b, 276, 0, 0x80 | 20, 0); /* SLL2, 2^-20 s */
	epb(&b, 0, (1700000000ull << 20) | (1u << 19), 20, 20, 0);
	isb(&b, 0, 100, 100); /* replaced by the next one */
	isb(&b, 0, 1, 2);
	isb(&b, 5, 1000, 1000); /* no such interface: ignored */
	b.be = true;
	shb(&b);
	idb(&b, 1, 0, 3, 0);  /* ms */
	idb(&b, 1, 0, 12, 0); /* ps */
	epb(&b, 1, 1700000000123456789ull, 14, 14, 1);
	epb(&b, 0, 1700000000123ull, 10, 10, 2);
	isb(&b, 1, 10, 20);
	b.be = false;
	struct want w[] = {
	    {1700000000500000000ull, 20, 20, 276, 0, 0, 0},
	    {1700000000123456ull, 14, 14, 1, 2, 1, 0},
	    {1700000000123000000ull, 10, 10, 1, 1, 2, 0},
	};
	expect(&b, w, 3, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[8];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	while (rt_pcapfile_next(f, fr, 8, errbuf) > 0)
		;
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_true(d.known);
	assert_int_equal(d.if_dropped, 11);
	assert_int_equal(d.os_dropped, 22);
	assert_int_equal(d.interfaces, 3);
	rt_pcapfile_close(f);
	free(b.p);
}

static void test_pcapng_errors(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct buf b = {0};
	/* a section with no interface */
	shb(&b);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "no interface description"));
	/* a packet before any interface */
	epb(&b, 0, 1, 4, 4, 0);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "no description"));
	/* a packet naming an interface not described; a block whose lengths differ; a cut block */
	const char *what[] = {"interface 3", "differ", "bad length", "middle of a block"};
	for (int k = 0; k < 4; k++) {
		b.len = 0;
		shb(&b);
		idb(&b, 1, 0, -1, 0);
		epb(&b, 0, 1, 4, 4, 0);
		size_t at = b.len;
		epb(&b, k == 0 ? 3 : 0, 1, 4, 4, 1);
		if (k == 1)
			b.p[b.len - 4] ^= 4;
		if (k == 2)
			b.p[at + 4] = 13;
		if (k == 3)
			b.len -= 5;
		struct want w[] = {{1000, 4, 4, 1, 0, 0, 0}};
		expect(&b, w, 1, true);
		struct rt_pcapfile *f;
		struct rt_frame fr[4];
		assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
		assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 1);
		assert_true(rt_pcapfile_next(f, fr, 4, errbuf) < 0);
		assert_non_null(strstr(errbuf, what[k]));
		rt_pcapfile_close(f);
	}
	/* a resolution finer than 64 bits hold */
	b.len = 0;
	shb(&b);
	idb(&b, 1, 0, 20, 0);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "too fine"));
	free(b.p);
}

/* An ISB of interface `iface` whose isb_ifdrop and isb_osdrop are written as given, UINT64_MAX too. */
static void isb_values(struct buf *b, uint32_t iface, uint64_t ifdrop, uint64_t osdrop)
{
	size_t at = begin(b, 5);
	u32(b, iface);
	u64(b, 0);
	u16(b, 5);
	u16(b, 8);
	u64(b, ifdrop);
	u16(b, 7);
	u16(b, 8);
	u64(b, osdrop);
	u32(b, 0);
	end(b, at);
}

/*
 * Drop counts add up without wrapping (two interfaces at 2^63 gave 0), and
 * UINT64_MAX, some writers' "not counted", is no count at all.
 */
static void test_pcapng_drop_sums(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	for (int i = 0; i < 4; i++)
		idb(&b, 1, 0, 9, 0);
	epb(&b, 0, 1, 4, 4, 0);
	isb_values(&b, 0, 1ull << 63, 1);
	isb_values(&b, 1, 1ull << 63, 1);
	isb_values(&b, 2, UINT64_MAX, 3); /* the interface's count unknown, the kernel's known */
	isb_values(&b, 3, UINT64_MAX, UINT64_MAX);
	struct want w[] = {{1, 4, 4, 1, 0, 0, 0}};
	expect(&b, w, 1, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[4];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 1);
	assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 0);
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_true(d.known);
	assert_true(d.if_dropped == UINT64_MAX);
	assert_int_equal(d.os_dropped, 5);
	struct rt_pcapfile_iface_drops id;
	rt_pcapfile_iface_drops(f, 2, &id);
	assert_true(id.known);
	assert_int_equal(id.if_dropped, 0);
	assert_int_equal(id.os_dropped, 3);
	rt_pcapfile_iface_drops(f, 3, &id);
	assert_false(id.known);
	rt_pcapfile_close(f);
	free(b.p);
}

/* A frame at `ts` on an interface of if_tsresol `tsresol` and if_tsoffset `offset` s: read (as `ns`) or refused. */
static void one_time(int tsresol, int64_t offset, uint64_t ts, uint64_t ns, bool refused)
{
	struct buf b = {0};
	shb(&b);
	idb(&b, 1, 0, tsresol, offset);
	epb(&b, 0, ts, 4, 4, 0);
	struct want w[] = {{ns, 4, 4, 1, 0, 0, 0}};
	expect(&b, w, refused ? 0 : 1, refused);
	if (refused) {
		char errbuf[RT_ERRBUF_SIZE];
		struct rt_pcapfile *f;
		struct rt_frame fr[4];
		assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
		assert_true(rt_pcapfile_next(f, fr, 4, errbuf) < 0);
		assert_non_null(strstr(errbuf, "is not in nanoseconds 0 to 2^64 since 1970"));
		rt_pcapfile_close(f);
	}
	free(b.p);
}

/* Timestamps scaled to ns: the last one that fits 64 bits is read, the next one refused (it wrapped). */
static void test_pcapng_time_scaling(void **state)
{
	(void)state;
	uint64_t last_s = UINT64_MAX / 1000000000u;          /* 18446744073 s, in 2554 */
	one_time(0, 0, last_s, last_s * 1000000000u, false); /* if_tsresol 10^0: seconds */
	one_time(0, 0, last_s + 1, 0, true);
	one_time(0x80, 0, last_s, last_s * 1000000000u, false); /* 2^0: seconds too */
	one_time(0x80, 0, last_s + 1, 0, true);
	one_time(0x80 | 1, 0, 1ull << 63, (1ull << 62) * 1000000000u, true);
	one_time(6, 10, last_s * 1000000u - 10000000u, last_s * 1000000000u, false);
	one_time(6, 11, last_s * 1000000u - 10000000u, 0, true); /* the offset passes 2^64 */
	one_time(6, -10, 10000000u, 0, false);                   /* 10 s, less 10 s */
	one_time(6, -10, 9999999u, 0, true);                     /* before 1970 */
	/* an offset whose nanoseconds 64 bits do not hold */
	struct buf b = {0};
	char errbuf[RT_ERRBUF_SIZE];
	shb(&b);
	idb(&b, 1, 0, 9, INT64_MAX / 1000000000 + 1);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "if_tsoffset of 9223372037 s is out of range"));
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pcapng_one_section),  cmocka_unit_test(test_pcapng_two_sections),
	    cmocka_unit_test(test_pcapng_errors),       cmocka_unit_test(test_pcapng_drop_sums),
	    cmocka_unit_test(test_pcapng_time_scaling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Every limit of the reader in capture/read_limits.h at size-1, size and size+1: gzip'd and plain sizes around each buffer, records around a refill, the largest record and block, interface count, if_name size. */
#include <errno.h>
#include <fcntl.h>
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
#include "capture/read_limits.h"
#include "tests/capture/capgen.h"

/* read sizes: as much as asked, a prime (refills at every offset), a pipe's */
static const size_t chunks[] = {0, 4093, 65536};

/* `data` (f's bytes or a gzip'd copy) read in every chunk size and from a file: f's frames, then the end. */
static void read_all_ways(const struct cg_file *f, const struct cg_bytes *data)
{
	char why[512];
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
		if (cg_check_mem(f, data->p, data->len, chunks[c], why, sizeof(why)) < 0)
			fail_msg("%zu bytes read %zu at a time: %s", data->len, chunks[c], why);
	char path[] = "/tmp/rt-limits-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data->p, data->len), (ssize_t)data->len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	unlink(path);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *r;
	if (rt_pcapfile_open_fd(&r, fd, true, path, errbuf) < 0)
		fail_msg("%s", errbuf);
	if (cg_check(f, r, why, sizeof(why)) < 0)
		fail_msg("%zu bytes from a file: %s", data->len, why);
	rt_pcapfile_close(r);
}

/* A classic pcap of `frames` frames of `caplen` bytes (incompressible unless `pattern`), times 1 us apart. */
static void pcap_of(struct cg_file *f, unsigned frames, uint32_t caplen, bool pattern)
{
	cg_pcap(f, false, true, 1, 0);
	for (unsigned i = 0; i < frames; i++)
		cg_frame(f, 0, 1700000000000000000ull + i * 1000ull, caplen, caplen,
		         pattern ? 0x80000000u | i : i);
}

/* A pcap of exactly `size` bytes: frames of up to 1500 bytes (24 header + 16 per record). */
static void pcap_sized(struct cg_file *f, size_t size, bool pattern)
{
	cg_pcap(f, false, true, 1, 0);
	for (unsigned i = 0; f->b.len < size; i++) {
		size_t left = size - f->b.len; /* never 1 to 15: a record takes 16 and more */
		uint32_t caplen = left >= 1532 ? 1500 : (uint32_t)(left - 16);
		cg_frame(f, 0, 1700000000000000000ull + i * 1000ull, caplen, caplen,
		         pattern ? 0x80000000u | i : i);
	}
	assert_int_equal(f->b.len, size);
}

/*
 * gzip'd files of a compressed size around the gzip input buffer (and
 * twice, four times it): the first read of a file larger than that buffer
 * wrote past it (a heap overflow under every gzip'd capture over 256 KiB).
 */
static void test_gzip_compressed_sizes(void **state)
{
	(void)state;
	for (size_t times = 1; times <= 4; times *= 2) {
		size_t buf = times * RT_READ_GZIP_IN_SIZE;
		struct cg_file f;
		pcap_of(&f, (unsigned)((buf - 40000) / 1016), 1000, false);
		for (int level = 0; level <= 9; level += 9) {
			size_t base = cg_gzip_size(f.b.p, f.b.len, 1, level);
			assert_true(base + 1 < buf - 1);
			for (size_t size = buf - 1; size <= buf + 1; size++) {
				struct cg_bytes z = {0};
				cg_gzip(&z, f.b.p, f.b.len, 1, level, size - base);
				assert_int_equal(z.len, size);
				read_all_ways(&f, &z);
				cg_bytes_free(&z);
			}
		}
		cg_free(&f);
	}
}

/* Frames whole in the first `bytes` of a pcap of 116-byte records (24-byte header). */
static size_t whole_frames(size_t bytes)
{
	return bytes < 24 ? 0 : (bytes - 24) / 116;
}

/*
 * Several members, then bytes after them: what cannot start a member (no
 * gzip magic) is ignored, as gzip -d does; a member that starts and fails
 * (a corrupt one among others, one cut in its header) is an error naming
 * its offset, after the frames before it.
 */
static void test_gzip_members(void **state)
{
	(void)state;
	struct cg_file f;
	pcap_of(&f, 2000, 100, true);
	size_t cut[5];
	for (unsigned m = 0; m <= 4; m++)
		cut[m] = f.b.len * m / 4;
	struct cg_bytes z = {0};
	size_t at[4];
	for (unsigned m = 0; m < 4; m++) {
		at[m] = z.len;
		cg_gzip(&z, f.b.p + cut[m], cut[m + 1] - cut[m], 1, 6, 0);
	}
	read_all_ways(&f, &z);
	static const char *const garbage[] = {"\0\0\0\0", "not gzip", "\x1f", "\x1f\x8a"};
	static const size_t glen[] = {4, 8, 1, 2};
	for (unsigned g = 0; g < 4; g++) {
		struct cg_bytes t = {0};
		cg_put(&t, z.p, z.len);
		cg_put(&t, garbage[g], glen[g]);
		read_all_ways(&f, &t);
		cg_bytes_free(&t);
	}
	char why[512], want[128];
	/* member 2 (of 4) corrupt from its first deflate byte */
	struct cg_bytes t = {0};
	cg_put(&t, z.p, z.len);
	memset(t.p + at[1] + 10, 0xff, 16);
	size_t n = f.nframes;
	f.nframes = whole_frames(cut[1]);
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		assert_int_equal(cg_check_mem(&f, t.p, t.len, chunks[c], why, sizeof(why)), -1);
		snprintf(want, sizeof(want),
		         "after %zu frames: generated: bad gzip data in the member at byte %zu: "
		         "invalid block type",
		         f.nframes, at[1]);
		if (!strstr(why, want))
			fail_msg("%s, not %s", why, want);
	}
	/* a member cut in its header after the last one */
	t.len = 0;
	cg_put(&t, z.p, z.len);
	cg_put(&t, "\x1f\x8b\x08", 3);
	f.nframes = n;
	assert_int_equal(cg_check_mem(&f, t.p, t.len, 0, why, sizeof(why)), -1);
	snprintf(want, sizeof(want),
	         "the gzip data ends early (the file is cut) in the member at byte %zu", z.len);
	if (!strstr(why, want))
		fail_msg("%s, not %s", why, want);
	cg_bytes_free(&t);
	cg_bytes_free(&z);
	cg_free(&f);
}

/* Plain and gzip'd files of a size around the read buffer (once and twice), which inflate fills too. */
static void test_uncompressed_sizes(void **state)
{
	(void)state;
	for (size_t times = 1; times <= 2; times++) {
		size_t buf = times * RT_READ_BUF_SIZE;
		for (size_t size = buf - 1; size <= buf + 1; size++) {
			struct cg_file f;
			pcap_sized(&f, size, true);
			read_all_ways(&f, &f.b);
			struct cg_bytes z = {0};
			cg_gzip(&z, f.b.p, f.b.len, 1, 6, 0);
			read_all_ways(&f, &z);
			cg_bytes_free(&z);
			cg_free(&f);
		}
	}
}

/* Records of every size from 0 to 300 bytes over several buffers: records straddle each refill at many offsets. */
static void test_records_straddle_refills(void **state)
{
	(void)state;
	struct cg_file f;
	cg_pcapng(&f, false);
	cg_idb(&f, 1, 0, true);
	for (unsigned i = 0; f.b.len < 3 * RT_READ_BUF_SIZE; i++)
		cg_frame(&f, 0, 1000000000ull + i, i % 301, i % 301 + 4, i);
	read_all_ways(&f, &f.b);
	struct cg_bytes z = {0};
	cg_gzip(&z, f.b.p, f.b.len, 3, 1, 0);
	read_all_ways(&f, &z);
	cg_bytes_free(&z);
	cg_free(&f);
}

/* One pcapng frame of `caplen` bytes between two small ones: read (grow the buffer) or refused. */
static void one_big_frame(uint32_t caplen, bool refused)
{
	struct cg_file f;
	cg_pcapng(&f, false);
	cg_idb(&f, 1, 0, true);
	cg_frame(&f, 0, 1, 60, 60, 1);
	cg_frame(&f, 0, 2, caplen, caplen, 2);
	cg_frame(&f, 0, 3, 9000, 9000, 3);
	if (!refused) {
		read_all_ways(&f, &f.b);
		cg_free(&f);
		return;
	}
	char why[512];
	f.nframes = 1; /* the frame before it, then the error */
	assert_int_equal(cg_check_mem(&f, f.b.p, f.b.len, 0, why, sizeof(why)), -1);
	if (!strstr(why, "after 1 frames") || !strstr(why, "bad length"))
		fail_msg("%s", why);
	cg_free(&f);
}

/* Blocks around the read buffer grow it; the largest block is read, one 4 bytes longer refused. */
static void test_record_and_block_sizes(void **state)
{
	(void)state;
	uint32_t buf_frame = RT_READ_BUF_SIZE - 32; /* a block of exactly the buffer */
	for (uint32_t c = buf_frame - 4; c <= buf_frame + 4; c++)
		one_big_frame(c, false);
	one_big_frame(9000, false);
	uint32_t max_frame = RT_READ_PCAPNG_MAX_BLOCK - 32;
	one_big_frame(max_frame - 1, false);
	one_big_frame(max_frame, false);
	one_big_frame(max_frame + 1, true);
	/* several sizes in one file, gzip'd in members that cut them */
	struct cg_file f;
	cg_pcapng(&f, true);
	cg_idb(&f, 1, 0, false);
	uint32_t sizes[] = {9000, 1u << 20, max_frame, 60, 1u << 20, 9000};
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		cg_frame(&f, 0, 1000ull * i, sizes[i], sizes[i], 0x80000000u | i);
	struct cg_bytes z = {0};
	cg_gzip(&z, f.b.p, f.b.len, 4, 1, 0);
	read_all_ways(&f, &z);
	cg_bytes_free(&z);
	cg_free(&f);
}

/* Classic pcap: a frame of the largest captured length is read, one byte more refused. */
static void test_pcap_caplen(void **state)
{
	(void)state;
	for (uint32_t c = RT_READ_PCAP_MAX_CAPLEN - 1; c <= RT_READ_PCAP_MAX_CAPLEN + 1; c++) {
		struct cg_file f;
		cg_pcap(&f, false, false, 1, 0);
		cg_frame(&f, 0, 1000, 60, 60, 1);
		cg_frame(&f, 0, 2000, c, c, 2);
		char why[512];
		if (c <= RT_READ_PCAP_MAX_CAPLEN) {
			read_all_ways(&f, &f.b);
		} else {
			f.nframes = 1;
			assert_int_equal(cg_check_mem(&f, f.b.p, f.b.len, 0, why, sizeof(why)), -1);
			assert_non_null(strstr(why, "captured length 262145 is more than 262144"));
		}
		cg_free(&f);
	}
}

/* pcapng files describing up to RT_READ_PCAPNG_MAX_IFACES interfaces, and one more (refused). */
static void test_interface_count(void **state)
{
	(void)state;
	for (uint32_t n = RT_READ_PCAPNG_MAX_IFACES - 1; n <= RT_READ_PCAPNG_MAX_IFACES + 1; n++) {
		struct cg_file f;
		cg_pcapng(&f, false);
		uint32_t idb[5] = {1, 20, 1, 0, 20}; /* linktype 1, snap length 0, no options */
		cg_put(&f.b, NULL, (size_t)n * sizeof(idb));
		for (uint32_t i = 0; i < n; i++)
			memcpy(f.b.p + f.b.len - (size_t)(n - i) * sizeof(idb), idb, sizeof(idb));
		f.nifaces = 1;
		f.ifaces[0].linktype = 1;
		f.ifaces[0].unit_ns = 1000;
		size_t at = f.b.len;
		cg_frame(&f, 0, 5000, 60, 60, 7);
		uint32_t last = n - 1; /* the frame names the last interface */
		memcpy(f.b.p + at + 8, &last, 4);
		f.frames[0].iface = last;
		char why[512];
		int rc = cg_check_mem(&f, f.b.p, f.b.len, 0, why, sizeof(why));
		if (n <= RT_READ_PCAPNG_MAX_IFACES && rc < 0)
			fail_msg("%u interfaces: %s", n, why);
		if (n > RT_READ_PCAPNG_MAX_IFACES &&
		    (rc == 0 || !strstr(why, "more than 1048576 interface descriptions")))
			fail_msg("%u interfaces: read, or another error: %s", n, rc ? why : "");
		cg_free(&f);
	}
}

/* An if_name of RT_READ_IFNAME_SIZE - 2, - 1 and its size in bytes: the last is cut to size - 1. */
static void test_ifname_size(void **state)
{
	(void)state;
	char name[RT_READ_IFNAME_SIZE + 1];
	for (size_t i = 0; i < sizeof(name); i++)
		name[i] = (char)('a' + i % 26);
	for (size_t len = RT_READ_IFNAME_SIZE - 2; len <= RT_READ_IFNAME_SIZE; len++) {
		struct cg_file f;
		cg_pcapng(&f, false);
		cg_idb_named(&f, 1, true, name, len);
		cg_frame(&f, 0, 1000, 60, 60, 1);
		char errbuf[RT_ERRBUF_SIZE], why[512];
		struct rt_pcapfile *r;
		assert_int_equal(rt_pcapfile_open_mem(&r, f.b.p, f.b.len, 0, "t", errbuf), 0);
		if (cg_check(&f, r, why, sizeof(why)) < 0)
			fail_msg("%s", why);
		size_t kept = len < RT_READ_IFNAME_SIZE ? len : RT_READ_IFNAME_SIZE - 1;
		assert_int_equal(strlen(rt_pcapfile_iface_name(r, 0)), kept);
		assert_memory_equal(rt_pcapfile_iface_name(r, 0), name, kept);
		rt_pcapfile_close(r);
		cg_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gzip_compressed_sizes),
	    cmocka_unit_test(test_gzip_members),
	    cmocka_unit_test(test_uncompressed_sizes),
	    cmocka_unit_test(test_records_straddle_refills),
	    cmocka_unit_test(test_record_and_block_sizes),
	    cmocka_unit_test(test_pcap_caplen),
	    cmocka_unit_test(test_interface_count),
	    cmocka_unit_test(test_ifname_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

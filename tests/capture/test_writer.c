/* Unit tests of the pcapng and nanosecond pcap writers, read back with libpcap. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "capture/pcapfile.h"
#include "capture/writer.h"
#include "common/clock.h"

static char dir[] = "/tmp/rt-writer-test-XXXXXX";

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static uint8_t frame_bytes[3][1514];
static const uint32_t frame_len[3] = {1, 60, 1514};
static const uint64_t frame_ts[3] = {1700000000123456789ull, 1700000000999999999ull,
                                     1700000001000000001ull};

static void make_frames(struct rt_frame *f)
{
	for (int i = 0; i < 3; i++) {
		for (uint32_t k = 0; k < frame_len[i]; k++)
			frame_bytes[i][k] = (uint8_t)(k * 7 + (uint32_t)i);
		f[i] = (struct rt_frame){.data = frame_bytes[i],
		                         .caplen = frame_len[i],
		                         .wirelen = frame_len[i],
		                         .ts_ns = frame_ts[i]};
	}
}

static void fixed_stats(void *ctx, int if_id, struct rt_source_stats *st)
{
	(void)ctx;
	assert_true(if_id == 0 || if_id == 1);
	if (if_id) { /* the second interface of test_errors: none of its own */
		memset(st, 0, sizeof(*st));
		return;
	}
	st->received = 3;
	st->dropped = 2;
	st->if_dropped = 1;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	*len = (size_t)ftell(fp);
	rewind(fp);
	uint8_t *buf = malloc(*len ? *len : 1);
	assert_int_equal(fread(buf, 1, *len, fp), *len);
	fclose(fp);
	return buf;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Read `path` with libpcap at nanosecond precision and compare with the frames written. */
static void read_back(const char *path, const struct rt_frame *f, int n, uint32_t snaplen)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!p)
		fail_msg("libpcap cannot read %s: %s", path, perr);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *data;
	for (int i = 0; i < n; i++) {
		assert_int_equal(pcap_next_ex(p, &h, &data), 1);
		uint32_t caplen = f[i].caplen < snaplen ? f[i].caplen : snaplen;
		assert_int_equal(h->caplen, caplen);
		assert_int_equal(h->len, f[i].wirelen);
		assert_memory_equal(data, f[i].data, caplen);
		/* libpcap sign-extends the 32-bit seconds of classic pcap: read them unsigned */
		assert_int_equal((uint32_t)h->ts.tv_sec, f[i].ts_ns / 1000000000u);
		assert_int_equal((uint64_t)h->ts.tv_usec, f[i].ts_ns % 1000000000u);
	}
	assert_int_equal(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
}

static struct rt_writer *open_writer(const char *path, enum rt_write_format fmt,
                                     uint64_t rotate_bytes, uint32_t snaplen)
{
	struct rt_writer_config cfg = {.format = fmt,
	                               .path = path,
	                               .rotate_bytes = rotate_bytes,
	                               .application = "rocetrace test"};
	struct rt_writer *w = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_writer_open(&w, &cfg, errbuf), 0);
	assert_int_equal(rt_writer_add_interface(w, "mlx5_0:1", RT_LINK_ETHERNET, snaplen,
	                                         RT_TS_HW_WALLCLOCK, errbuf),
	                 0);
	rt_writer_set_stats_fn(w, fixed_stats, NULL);
	return w;
}

static void test_pcapng_reads_back(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	snprintf(path, sizeof(path), "%s/a.pcapng", dir);
	struct rt_writer *w = open_writer(path, RT_FORMAT_PCAPNG, 0, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rt_writer_write(w, 0, &f[i], errbuf), 0);
	/* counted once they reach the file, not while buffered */
	assert_int_equal(rt_writer_count(w), 0);
	assert_int_equal(rt_writer_flush(w, errbuf), 0);
	assert_int_equal(rt_writer_count(w), 3);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	read_back(path, f, 3, 262144);

	/* block walk: SHB, IDB (if_tsresol 9, name, description), 3 EPBs, ISB */
	size_t len;
	uint8_t *b = slurp(path, &len);
	uint32_t types[8], n = 0;
	size_t off = 0, idb = 0, isb = 0;
	while (off + 12 <= len && n < 8) {
		uint32_t total = le32(b + off + 4);
		assert_int_equal(total % 4, 0);
		assert_int_equal(le32(b + off + total - 4), total);
		if (le32(b + off) == 1)
			idb = off;
		if (le32(b + off) == 5)
			isb = off;
		types[n++] = le32(b + off);
		off += total;
	}
	assert_int_equal(off, len);
	assert_int_equal(n, 6);
	assert_int_equal(types[0], 0x0A0D0D0A);
	assert_int_equal(types[1], 1);
	assert_int_equal(types[2], 6);
	assert_int_equal(types[5], 5);
	assert_int_equal(le32(b + 8), 0x1A2B3C4D);
	/* IDB options */
	bool tsresol = false, name = false, desc = false;
	for (size_t o = idb + 16; o + 4 <= idb + le32(b + idb + 4) - 4;) {
		uint16_t code = (uint16_t)(b[o] | b[o + 1] << 8),
		         olen = (uint16_t)(b[o + 2] | b[o + 3] << 8);
		if (code == 0)
			break;
		if (code == 9)
			tsresol = olen == 1 && b[o + 4] == 9;
		if (code == 2)
			name = olen == 8 && memcmp(b + o + 4, "mlx5_0:1", 8) == 0;
		if (code == 3)
			desc = memmem(b + o + 4, olen, "hardware", 8) != NULL;
		o += 4 + ((olen + 3u) & ~3u);
	}
	assert_true(tsresol);
	assert_true(name);
	assert_true(desc);
	/* ISB: starttime <= endtime, ifrecv = received + dropped, ifdrop = if_dropped,
	 * osdrop = dropped, usrdeliv */
	uint64_t opt[9] = {0};
	for (size_t o = isb + 20; o + 4 <= isb + le32(b + isb + 4) - 4;) {
		uint16_t code = (uint16_t)(b[o] | b[o + 1] << 8),
		         olen = (uint16_t)(b[o + 2] | b[o + 3] << 8);
		if (code == 0)
			break;
		assert_int_equal(olen, 8);
		if (code < 9)
			opt[code] = code <= 3 ? (uint64_t)le32(b + o + 4) << 32 | le32(b + o + 8)
			                      : le64(b + o + 4);
		o += 12;
	}
	assert_true(opt[2] > 0 && opt[2] <= opt[3]);
	assert_int_equal(opt[4], 5);
	assert_int_equal(opt[5], 1);
	assert_int_equal(opt[7], 2);
	assert_int_equal(opt[8], 3);
	free(b);
}

static void test_classic_pcap_ns(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	snprintf(path, sizeof(path), "%s/a.pcap", dir);
	struct rt_writer *w = open_writer(path, RT_FORMAT_PCAP_NS, 0, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rt_writer_write(w, 0, &f[i], errbuf), 0);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	read_back(path, f, 3, 262144);
	size_t len;
	uint8_t *b = slurp(path, &len);
	assert_int_equal(le32(b), 0xA1B23C4D);
	assert_int_equal(len, 24 + 3 * 16 + 1 + 60 + 1514);
	free(b);
}

static void test_snaplen_cuts_frames(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	for (int fmt = 0; fmt < 2; fmt++) {
		snprintf(path, sizeof(path), "%s/snap%d", dir, fmt);
		struct rt_writer *w = open_writer(path, (enum rt_write_format)fmt, 0, 54);
		for (int i = 0; i < 3; i++)
			assert_int_equal(rt_writer_write(w, 0, &f[i], errbuf), 0);
		assert_int_equal(rt_writer_close(w, errbuf), 0);
		read_back(path, f, 3, 54);
	}
}

static void test_rotation_by_size(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	for (int fmt = 0; fmt < 2; fmt++) {
		snprintf(path, sizeof(path), "%s/rot%d", dir, fmt);
		/* 1600 bytes: the 1514-byte frame never shares a file with another */
		struct rt_writer *w = open_writer(path, (enum rt_write_format)fmt, 1600, 0);
		for (int i = 0; i < 3; i++)
			assert_int_equal(rt_writer_write(w, 0, &f[i], errbuf), 0);
		char last[300];
		snprintf(last, sizeof(last), "%s.1", path);
		assert_string_equal(rt_writer_current_path(w), last);
		assert_int_equal(rt_writer_close(w, errbuf), 0);
		read_back(path, f, 2, 262144);
		read_back(last, f + 2, 1, 262144);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_size <= 1600);
	}
}

/*
 * -G 1: two frames written at once stay in the first file, a frame written
 * after more than a second opens the next one. A machine so loaded that a
 * second passed between opening and the second write cannot tell; that
 * attempt is repeated (the sleep only ever makes the gap longer).
 */
static void test_rotation_by_time(void **state)
{
	(void)state;
	char path[256], second[300], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	snprintf(path, sizeof(path), "%s/time.pcapng", dir);
	snprintf(second, sizeof(second), "%s.1", path);
	for (int attempt = 0;; attempt++) {
		struct rt_writer_config cfg = {.path = path, .rotate_seconds = 1};
		struct rt_writer *w;
		uint64_t start = rt_mono_ns();
		assert_int_equal(rt_writer_open(&w, &cfg, errbuf), 0);
		assert_int_equal(rt_writer_add_interface(w, "veth0", RT_LINK_ETHERNET, 0,
		                                         RT_TS_SOFTWARE, errbuf),
		                 0);
		assert_int_equal(rt_writer_write(w, 0, &f[0], errbuf), 0);
		assert_int_equal(rt_writer_write(w, 0, &f[1], errbuf), 0);
		bool quick = rt_mono_ns() - start < 900000000u;
		if (quick)
			assert_string_equal(rt_writer_current_path(w), path);
		struct timespec pause = {1, 50000000};
		nanosleep(&pause, NULL);
		assert_int_equal(rt_writer_write(w, 0, &f[2], errbuf), 0);
		assert_string_equal(rt_writer_current_path(w), second);
		assert_int_equal(rt_writer_close(w, errbuf), 0);
		if (quick)
			break;
		assert_true(attempt < 5);
		unlink(second);
	}
	read_back(path, f, 2, 262144);
	read_back(second, f + 2, 1, 262144);
}

static void test_strftime_names(void **state)
{
	(void)state;
	char pattern[256], want[300], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	snprintf(pattern, sizeof(pattern), "%s/cap-%%Y.pcapng", dir);
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	snprintf(want, sizeof(want), "%s/cap-%04d.pcapng", dir, tm.tm_year + 1900);
	struct rt_writer *w = open_writer(pattern, RT_FORMAT_PCAPNG, 1600, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rt_writer_write(w, 0, &f[i], errbuf), 0);
	/* the second file of the same name gets a number */
	char second[320];
	snprintf(second, sizeof(second), "%s.1", want);
	assert_string_equal(rt_writer_current_path(w), second);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	read_back(want, f, 2, 262144);
	read_back(second, f + 2, 1, 262144);
}

static void test_errors(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_writer *w;
	struct rt_frame f[3];
	make_frames(f);
	/* rotation needs files */
	struct rt_writer_config cfg = {.path = "-", .rotate_seconds = 5};
	assert_int_equal(rt_writer_open(&w, &cfg, errbuf), -EINVAL);
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/no/such/dir.pcapng", dir);
	cfg = (struct rt_writer_config){.path = path};
	assert_int_equal(rt_writer_open(&w, &cfg, errbuf), -ENOENT);
	assert_non_null(strstr(errbuf, "no/such/dir.pcapng"));
	/* classic pcap holds one interface */
	snprintf(path, sizeof(path), "%s/one.pcap", dir);
	w = open_writer(path, RT_FORMAT_PCAP_NS, 0, 0);
	assert_int_equal(rt_writer_add_interface(w, "x", 1, 0, RT_TS_SOFTWARE, errbuf), -ENOSPC);
	assert_int_equal(rt_writer_write(w, 1, &f[0], errbuf), -EINVAL);
	assert_int_equal(rt_writer_write(w, 0, &f[0], errbuf), 0);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	/* pcapng: an interface added after frames is described before its own */
	snprintf(path, sizeof(path), "%s/late.pcapng", dir);
	w = open_writer(path, RT_FORMAT_PCAPNG, 0, 0);
	assert_int_equal(rt_writer_write(w, 0, &f[0], errbuf), 0);
	assert_int_equal(
	    rt_writer_add_interface(w, "y", RT_LINK_LINUX_SLL, 0, RT_TS_SOFTWARE, errbuf), 1);
	assert_int_equal(rt_writer_write(w, 1, &f[1], errbuf), 0);
	assert_int_equal(rt_writer_write(w, 0, &f[2], errbuf), 0);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	int fd = open(path, O_RDONLY);
	struct rt_pcapfile *pf;
	struct rt_frame got[4];
	assert_int_equal(rt_pcapfile_open_fd(&pf, fd, true, path, errbuf), 0);
	assert_int_equal(rt_pcapfile_next(pf, got, 4, errbuf), 3);
	static const int links[] = {RT_LINK_ETHERNET, RT_LINK_LINUX_SLL, RT_LINK_ETHERNET};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(got[i].linktype, links[i]);
		assert_int_equal(got[i].interface_id, i == 1);
		assert_int_equal(got[i].ts_ns, f[i].ts_ns);
	}
	assert_string_equal(rt_pcapfile_iface_name(pf, 1), "y");
	rt_pcapfile_close(pf);
	/* a full disk is reported, not lost */
	if (access("/dev/full", W_OK) == 0) {
		w = open_writer("/dev/full", RT_FORMAT_PCAPNG, 0, 0);
		assert_int_equal(rt_writer_write(w, 0, &f[2], errbuf), 0); /* buffered */
		assert_int_equal(rt_writer_flush(w, errbuf), -ENOSPC);
		assert_non_null(strstr(errbuf, "/dev/full"));
		assert_int_equal(rt_writer_write(w, 0, &f[2], errbuf), -ENOSPC);
		assert_int_equal(rt_writer_finish(w, errbuf), -ENOSPC);
		assert_int_equal(rt_writer_count(w), 0); /* none reached the file */
		assert_int_equal(rt_writer_close(w, errbuf), -ENOSPC);
	}
}

/* A symbolic link planted where the capture goes is refused, and its target left alone. */
static void test_symlink_refused(void **state)
{
	(void)state;
	char path[256], target[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_writer *w = NULL;
	struct stat st;
	snprintf(target, sizeof(target), "%s/precious", dir);
	snprintf(path, sizeof(path), "%s/link.pcapng", dir);
	FILE *fp = fopen(target, "w");
	assert_non_null(fp);
	fputs("keep me\n", fp);
	fclose(fp);
	assert_int_equal(symlink(target, path), 0);
	struct rt_writer_config cfg = {.path = path};
	assert_int_equal(rt_writer_open(&w, &cfg, errbuf), -ELOOP);
	assert_non_null(strstr(errbuf, "symbolic link"));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 8);
	/* a rotated file too */
	char first[256];
	snprintf(first, sizeof(first), "%s/rot.pcapng", dir);
	snprintf(path, sizeof(path), "%s/rot.pcapng.1", dir);
	assert_int_equal(symlink(target, path), 0);
	struct rt_frame f[3];
	make_frames(f);
	w = open_writer(first, RT_FORMAT_PCAP_NS, 100, 0);
	assert_int_equal(rt_writer_write(w, 0, &f[0], errbuf), 0);
	assert_int_equal(rt_writer_write(w, 0, &f[1], errbuf), -ELOOP);
	assert_int_equal(rt_writer_write(w, 0, &f[2], errbuf), -ELOOP);
	assert_int_equal(rt_writer_count(w), 1);
	assert_int_equal(rt_writer_close(w, errbuf), -ELOOP);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 8);
}

/* A frame larger than the 1 MiB buffer goes through it in pieces, whole. */
static void test_frame_larger_than_buffer(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	enum { BIG = 1536 * 1024 };
	uint8_t *data = malloc(BIG);
	assert_non_null(data);
	for (size_t i = 0; i < BIG; i++)
		data[i] = (uint8_t)(i * 7);
	struct rt_frame f = {.data = data, .caplen = BIG, .wirelen = BIG, .ts_ns = 5};
	snprintf(path, sizeof(path), "%s/big.pcapng", dir);
	struct rt_writer *w = open_writer(path, RT_FORMAT_PCAPNG, 0, 4u << 20);
	assert_int_equal(rt_writer_write(w, 0, &f, errbuf), 0);
	assert_int_equal(rt_writer_count(w), 1);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	size_t len;
	uint8_t *file = slurp(path, &len);
	/* SHB, IDB, then the EPB: its bytes follow a 28-byte header */
	size_t off = le32(file + 4);
	off += le32(file + off + 4);
	assert_int_equal(le32(file + off), 6);
	assert_int_equal(le32(file + off + 4), 32 + BIG);
	assert_memory_equal(file + off + 28, data, BIG);
	free(file);
	free(data);
}

/* Two interfaces in one pcapng section; libpcap reads both. */
static void test_two_interfaces(void **state)
{
	(void)state;
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f[3];
	make_frames(f);
	snprintf(path, sizeof(path), "%s/two.pcapng", dir);
	struct rt_writer *w = open_writer(path, RT_FORMAT_PCAPNG, 0, 0);
	assert_int_equal(
	    rt_writer_add_interface(w, "mlx5_1:1", RT_LINK_ETHERNET, 0, RT_TS_HW_RAW, errbuf), 1);
	rt_writer_set_stats_fn(w, NULL, NULL);
	assert_int_equal(rt_writer_write(w, 0, &f[0], errbuf), 0);
	assert_int_equal(rt_writer_write(w, 1, &f[1], errbuf), 0);
	assert_int_equal(rt_writer_write(w, 0, &f[2], errbuf), 0);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	read_back(path, f, 3, 262144);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pcapng_reads_back),
	    cmocka_unit_test(test_classic_pcap_ns),
	    cmocka_unit_test(test_snaplen_cuts_frames),
	    cmocka_unit_test(test_rotation_by_size),
	    cmocka_unit_test(test_rotation_by_time),
	    cmocka_unit_test(test_strftime_names),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_two_interfaces),
	    cmocka_unit_test(test_symlink_refused),
	    cmocka_unit_test(test_frame_larger_than_buffer),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

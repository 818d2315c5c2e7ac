/* Unit tests of reading several capture files as one stream: the merge by time, vantage points, numbering, drops, errors. */
#include <errno.h>
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
#include <zlib.h>

#include "capture/internal.h"
#include "capture/files.h"
#include "capture/writer.h"

static char dir[] = "/tmp/rt-files-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
	static char paths[64][256]; /* a test uses at most 64 at once */
	static unsigned next;
	char *p = paths[next++ % 64];
	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

/* A nanosecond pcap (Ethernet, snap length 256, or `linktype`) whose frame k has timestamp ts[k] and first byte tag + k. */
static const char *write_pcap_lt(const char *name, const uint64_t *ts, unsigned n, uint8_t tag,
                                 uint32_t linktype, bool gzip)
{
	const char *path = path_of(name);
	uint8_t buf[24 + 64 * (16 + 60)];
	size_t len = 0;
	uint32_t hdr[6] = {0xA1B23C4D, 2 | 4u << 16, 0, 0, 256, linktype};
	memcpy(buf, hdr, sizeof(hdr));
	len = sizeof(hdr);
	assert_true(n <= 64);
	for (unsigned k = 0; k < n; k++) {
		uint32_t rec[4] = {(uint32_t)(ts[k] / 1000000000u), (uint32_t)(ts[k] % 1000000000u),
		                   60, 60};
		memcpy(buf + len, rec, sizeof(rec));
		len += sizeof(rec);
		memset(buf + len, 0, 60);
		buf[len] = (uint8_t)(tag + k);
		len += 60;
	}
	if (gzip) {
		gzFile g = gzopen(path, "wb");
		assert_non_null(g);
		assert_int_equal(gzwrite(g, buf, (unsigned)len), (int)len);
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
	}
	return path;
}

static const char *write_pcap(const char *name, const uint64_t *ts, unsigned n, uint8_t tag)
{
	return write_pcap_lt(name, ts, n, tag, 1, false);
}

/* Every frame of the stream: tags, timestamps, seq, file, interface_id (up to 128). */
struct got {
	unsigned n;
	uint8_t tag[128];
	uint64_t ts[128], seq[128];
	uint32_t file[128], iface[128];
};

static int read_all(struct rt_source *s, struct got *g, char *errbuf)
{
	struct rt_frame fr[8]; /* a small batch: the merge stops and resumes often */
	int n;
	memset(g, 0, sizeof(*g));
	while ((n = rt_source_next(s, fr, 8, errbuf)) > 0) {
		for (int i = 0; i < n && g->n < 128; i++, g->n++) {
			g->tag[g->n] = fr[i].data[0];
			g->ts[g->n] = fr[i].ts_ns;
			g->seq[g->n] = fr[i].seq;
			g->file[g->n] = fr[i].file;
			g->iface[g->n] = fr[i].interface_id;
		}
	}
	return n;
}

static struct rt_source *open_specs(const struct rt_source_file_spec *specs, size_t n)
{
	struct rt_source *s = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	int rc = rt_source_open_files(&s, specs, n, NULL, errbuf);
	if (rc < 0)
		fail_msg("open: %s", errbuf);
	return s;
}

static void test_rotation_names(void **state)
{
	char stem[256];
	(void)state;
	assert_int_equal(rt_fileset_rotation("d/run.pcapng", stem, sizeof(stem)), -1);
	assert_string_equal(stem, "d/run.pcapng");
	assert_int_equal(rt_fileset_rotation("d/run.pcapng.12", stem, sizeof(stem)), 12);
	assert_string_equal(stem, "d/run.pcapng");
	assert_int_equal(rt_fileset_rotation("run.pcapng.3.gz", stem, sizeof(stem)), 3);
	assert_string_equal(stem, "run.pcapng");
	assert_int_equal(rt_fileset_rotation("trace.pcap7", stem, sizeof(stem)), 7);
	assert_string_equal(stem, "trace.pcap");
	assert_int_equal(rt_fileset_rotation("trace.pcap00", stem, sizeof(stem)), 0);
	assert_int_equal(rt_fileset_rotation("node12", stem, sizeof(stem)),
	                 -1); /* no dot, no capture extension */
	assert_int_equal(rt_fileset_rotation("d.1/x", stem, sizeof(stem)),
	                 -1); /* the folder's number is not the file's */
	assert_int_equal(rt_fileset_rotation(".7", stem, sizeof(stem)), -1);
	char name[256];
	rt_fileset_point_name("h1/run.pcapng.2.gz", name, sizeof(name));
	assert_string_equal(name, "run");
	rt_fileset_point_name("/x/node01.pcap", name, sizeof(name));
	assert_string_equal(name, "node01");
	rt_fileset_point_name("trace.pcap3", name, sizeof(name));
	assert_string_equal(name, "trace");
	rt_fileset_point_name("-", name, sizeof(name));
	assert_string_equal(name, "stdin");
	/* one capture: one file, one rotated set by its names, or one vantage point's name */
	struct rt_source_file_spec set[] = {
	    {.path = "d/run.pcap.2"}, {.path = "d/run.pcap"}, {.path = "d/run.pcap.1.gz"}};
	assert_true(rt_fileset_one_capture(set, 1));
	assert_true(rt_fileset_one_capture(set, 3));
	set[1].path = "e/run.pcap"; /* another folder's */
	assert_false(rt_fileset_one_capture(set, 3));
	struct rt_source_file_spec named[] = {{.path = "a.pcap", .vantage = "tor"},
	                                      {.path = "b.pcap", .vantage = "tor"}};
	assert_true(rt_fileset_one_capture(named, 2));
	named[1].vantage = "spine";
	assert_false(rt_fileset_one_capture(named, 2));
	struct rt_source_file_spec by_header[] = {{.path = "morning.pcap"}, {.path = "noon.pcap"}};
	assert_false(rt_fileset_one_capture(by_header, 2));
}

/* OUT, OUT.1, OUT.2 given out of order (one gzip'd): one stream in time order, one vantage point. */
static void test_rotated_set(void **state)
{
	(void)state;
	uint64_t t0[] = {100, 200, 300}, t1[] = {400, 500}, t2[] = {600, 700, 800};
	struct rt_source_file_spec specs[] = {
	    {.path = write_pcap("run.pcap.2", t2, 3, 0x30)},
	    {.path = write_pcap("run.pcap", t0, 3, 0x10)},
	    {.path = write_pcap_lt("run.pcap.1.gz", t1, 2, 0x20, 1, true)},
	};
	struct rt_source *s = open_specs(specs, 3);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(read_all(s, &g, errbuf), 0);
	static const uint8_t tags[] = {0x10, 0x11, 0x12, 0x20, 0x21, 0x30, 0x31, 0x32};
	static const uint32_t files[] = {1, 1, 1, 2, 2, 0, 0, 0};
	assert_int_equal(g.n, 8);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(g.tag[i], tags[i]);
		assert_int_equal(g.seq[i], i + 1);
		assert_int_equal(g.file[i], files[i]);
		assert_int_equal(g.iface[i], 0);
	}
	assert_int_equal(rt_source_vantage_count(s), 1);
	struct rt_vantage_point vp;
	assert_int_equal(rt_source_vantage_point(s, 0, &vp), 0);
	assert_string_equal(vp.name, "run");
	assert_false(vp.named);
	assert_int_equal(vp.frames, 8);
	assert_int_equal(vp.nfiles, 3);
	assert_int_equal(vp.files[0], 1);
	assert_int_equal(vp.files[1], 2);
	assert_int_equal(vp.files[2], 0);
	struct rt_source_file_info fi;
	assert_int_equal(rt_source_file_info(s, 2, &fi), 0);
	assert_true(fi.gzip && fi.done);
	assert_int_equal(fi.frames, 2);
	assert_int_equal(fi.first_ns, 400);
	assert_int_equal(fi.last_ns, 500);
	/* interface 0 is the one capture point, of vantage point 0; no frame came through interface 1 */
	assert_int_equal(rt_source_point_of(s, 0, 0), 0);
	assert_int_equal(rt_source_point(s, 0, &vp), 0);
	assert_int_equal(vp.vantage, 0);
	assert_int_equal(rt_source_point_of(s, 1, 0), -1);
	assert_int_equal(rt_source_file_info(s, 3, &fi), -ENOENT);
	rt_source_close(s);
}

/* Captures that overlap in time are vantage points of their own, each with its interface ids. */
static void test_overlapping_points(void **state)
{
	(void)state;
	uint64_t ta[] = {100, 300, 500, 700}, tb[] = {200, 300, 600};
	struct rt_source_file_spec specs[] = {
	    {.path = write_pcap("sender.pcap", ta, 4, 0x10)},
	    {.path = write_pcap("receiver.pcap", tb, 3, 0x20)},
	};
	struct rt_source *s = open_specs(specs, 2);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(read_all(s, &g, errbuf), 0);
	/* equal times keep the files' time order: sender (first frame at 100) before receiver */
	static const uint8_t tags[] = {0x10, 0x20, 0x11, 0x21, 0x12, 0x22, 0x13};
	static const uint32_t ifaces[] = {0, 1, 0, 1, 0, 1, 0};
	assert_int_equal(g.n, 7);
	for (unsigned i = 0; i < 7; i++) {
		assert_int_equal(g.tag[i], tags[i]);
		assert_int_equal(g.iface[i], ifaces[i]);
		assert_int_equal(g.seq[i], i + 1);
	}
	assert_int_equal(rt_source_vantage_count(s), 2);
	struct rt_vantage_point vp;
	rt_source_vantage_point(s, 1, &vp);
	assert_string_equal(vp.name, "receiver");
	assert_int_equal(vp.frames, 3);
	assert_int_equal(rt_source_point_of(s, 1, 0), 1); /* the receiver's interface is its own */
	assert_int_equal(rt_source_point(s, 1, &vp), 0);
	assert_int_equal(vp.vantage, 1);
	rt_source_close(s);
}

/* Named points hold their files whatever their times; unnamed files with one description continue one another. */
static void test_named_and_described(void **state)
{
	(void)state;
	uint64_t ta[] = {100, 300}, tb[] = {200, 400}, tc[] = {1000, 1100}, td[] = {2000},
	         te[] = {2050};
	struct rt_source_file_spec specs[] = {
	    {.path = write_pcap("a.pcap", ta, 2, 0x10), .vantage = "tor"},
	    {.path = write_pcap("b.pcap", tb, 2, 0x20), .vantage = "tor"},
	    {.path = write_pcap("trace-1.pcap", tc, 2, 0x30)},
	    {.path = write_pcap("trace-2.pcap", td, 1, 0x40)},
	    /* the same times' neighbour with another link type (raw IP): not a continuation */
	    {.path = write_pcap_lt("other.pcap", te, 1, 0x50, 101, false)},
	};
	struct rt_source *s = open_specs(specs, 5);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(g.n, 8);
	assert_int_equal(rt_source_vantage_count(s), 3);
	struct rt_vantage_point vp;
	rt_source_vantage_point(s, 0, &vp);
	assert_string_equal(vp.name, "tor");
	assert_true(vp.named);
	assert_int_equal(vp.nfiles, 2);
	assert_int_equal(vp.frames, 4);
	rt_source_vantage_point(s, 1, &vp);
	assert_string_equal(vp.name, "trace-1");
	assert_int_equal(vp.nfiles, 2);
	rt_source_vantage_point(s, 2, &vp);
	assert_string_equal(vp.name, "other");
	/* both files of "tor" keep interface 0 */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(g.iface[i], 0);
	assert_int_equal(g.iface[7], 2);
	/* and are capture point 0 for the analysis, though its frames came first */
	assert_int_equal(rt_source_point_of(s, 0, 0), 0);
	rt_source_close(s);
}

/* Two hosts' rotated sets: each file continues its own set, not the other host's. */
static void test_two_rotated_sets(void **state)
{
	(void)state;
	assert_int_equal(mkdir(path_of("h1"), 0700), 0);
	assert_int_equal(mkdir(path_of("h2"), 0700), 0);
	uint64_t a0[] = {100, 190}, a1[] = {210, 290}, b0[] = {105, 195}, b1[] = {205, 295};
	struct rt_source_file_spec specs[] = {
	    {.path = write_pcap("h2/out.pcap.1", b1, 2, 0x40)},
	    {.path = write_pcap("h1/out.pcap.1", a1, 2, 0x20)},
	    {.path = write_pcap("h1/out.pcap", a0, 2, 0x10)},
	    {.path = write_pcap("h2/out.pcap", b0, 2, 0x30)},
	};
	struct rt_source *s = open_specs(specs, 4);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(g.n, 8);
	assert_int_equal(rt_source_vantage_count(s), 2);
	struct rt_vantage_point vp;
	rt_source_vantage_point(s, 0, &vp);
	assert_string_equal(vp.name, "out");
	assert_int_equal(vp.nfiles, 2);
	assert_int_equal(vp.files[0], 2);
	assert_int_equal(vp.files[1], 1);
	rt_source_vantage_point(s, 1, &vp);
	assert_int_equal(vp.nfiles, 2);
	assert_int_equal(vp.files[0], 3);
	assert_int_equal(vp.files[1], 0);
	assert_non_null(strstr(vp.name, "h2/out.pcap")); /* "out" was taken: the path names it */
	rt_source_close(s);
}

/*
 * Timestamps going backwards stay in file order; a file cut short ends at
 * its last whole frame, the other files are read to their end, and the cut
 * is reported with its file's name at the end of the stream.
 */
static void test_backwards_and_cut(void **state)
{
	(void)state;
	uint64_t ta[] = {500, 100, 600}, tb[] = {300, 400};
	struct rt_source_file_spec specs[] = {
	    {.path = write_pcap("back.pcap", ta, 3, 0x10)},
	    {.path = write_pcap("cut.pcap", tb, 2, 0x20)},
	};
	/* cut the last frame of cut.pcap in its middle */
	assert_int_equal(truncate(specs[1].path, 24 + 76 + 40), 0);
	struct rt_source *s = open_specs(specs, 2);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	int rc = read_all(s, &g, errbuf);
	assert_true(rc < 0);
	assert_non_null(strstr(errbuf, "cut.pcap"));
	assert_non_null(strstr(errbuf, "ends in the middle of frame 2"));
	assert_non_null(strstr(errbuf, "the other files were read to their end"));
	static const uint8_t read_on[] = {0x20, 0x10, 0x11, 0x12};
	assert_int_equal(g.n, 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(g.tag[i], read_on[i]);
	rt_source_close(s);

	/* two files cut short: the first named, the other counted */
	uint64_t tc[] = {200, 700};
	struct rt_source_file_spec three[] = {
	    specs[0],
	    specs[1],
	    {.path = write_pcap("cut2.pcap", tc, 2, 0x30)},
	};
	assert_int_equal(truncate(three[2].path, 24 + 76 + 40), 0);
	s = open_specs(three, 3);
	rc = read_all(s, &g, errbuf);
	assert_true(rc < 0);
	assert_non_null(strstr(errbuf, "1 more file(s) could not be read to their end"));
	assert_int_equal(g.n, 5); /* 0x30 (200), 0x20 (300), back.pcap's three */
	rt_source_close(s);

	specs[1].path = write_pcap("ok.pcap", tb, 2, 0x20);
	s = open_specs(specs, 2);
	assert_int_equal(read_all(s, &g, errbuf), 0);
	static const uint8_t tags[] = {0x20, 0x21, 0x10, 0x11, 0x12};
	assert_int_equal(g.n, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(g.tag[i], tags[i]);
	rt_source_close(s);
}

/* Errors at the open name the file; the same file twice is refused; a file with no frames is a point with none. */
static void test_open_errors(void **state)
{
	(void)state;
	uint64_t t[] = {100};
	struct rt_source *s;
	char errbuf[RT_ERRBUF_SIZE];
	const char *ok = write_pcap("one.pcap", t, 1, 0x10);
	struct rt_source_file_spec specs[] = {{.path = ok}, {.path = path_of("missing.pcap")}};
	assert_int_equal(rt_source_open_files(&s, specs, 2, NULL, errbuf), -ENOENT);
	assert_non_null(strstr(errbuf, "missing.pcap: No such file"));
	specs[1].path = ok;
	assert_int_equal(rt_source_open_files(&s, specs, 2, NULL, errbuf), -EINVAL);
	assert_non_null(strstr(errbuf, "one.pcap: given twice"));
	const char *junk = path_of("junk.pcap");
	FILE *f = fopen(junk, "w");
	fputs("not a capture", f);
	fclose(f);
	specs[1].path = junk;
	assert_true(rt_source_open_files(&s, specs, 2, NULL, errbuf) < 0);
	assert_non_null(strstr(errbuf, "junk.pcap: not a pcap or pcapng file"));

	specs[1].path = write_pcap("empty.pcap", t, 0, 0);
	s = open_specs(specs, 2);
	struct got g;
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(g.n, 1);
	struct rt_source_file_info fi;
	rt_source_file_info(s, 1, &fi);
	assert_true(fi.done);
	assert_int_equal(fi.frames, 0);
	assert_int_equal(fi.vantage, 0); /* continues the point of one.pcap, which ended */
	rt_source_close(s);
}

/* The statistics source of the writer below: cumulative drops, as a live capture reports them. */
static uint64_t drops_now;

static void drop_stats(void *ctx, int if_id, struct rt_source_stats *st)
{
	(void)ctx;
	(void)if_id;
	memset(st, 0, sizeof(*st));
	st->dropped = drops_now;
	st->if_dropped = 1;
}

/* A pcapng capture rotated every few frames by the writer, with drops growing as it goes; the number of files. */
static unsigned write_rotated(const char *name, uint64_t t0, unsigned frames)
{
	struct rt_writer_config cfg = {
	    .path = path_of(name), .rotate_bytes = 800, .application = "test"};
	struct rt_writer *w;
	char errbuf[RT_ERRBUF_SIZE];
	uint8_t data[60] = {0};
	assert_int_equal(rt_writer_open(&w, &cfg, errbuf), 0);
	rt_writer_set_stats_fn(w, drop_stats, NULL);
	assert_int_equal(rt_writer_add_interface(w, "eth0", 1, 256, RT_TS_SOFTWARE, errbuf), 0);
	for (unsigned i = 0; i < frames; i++) {
		struct rt_frame fr = {
		    .data = data, .caplen = 60, .wirelen = 60, .ts_ns = t0 + i * 10};
		drops_now = i;
		assert_int_equal(rt_writer_write(w, 0, &fr, errbuf), 0);
	}
	drops_now = frames;
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	unsigned n = 1;
	for (struct stat st;; n++) {
		char more[64];
		snprintf(more, sizeof(more), "%s.%u", name, n);
		if (stat(path_of(more), &st) != 0)
			return n;
	}
}

/* A rotated pcapng set counts the drops of its last file; another capture's add up. */
static void test_rotated_drops(void **state)
{
	(void)state;
	unsigned nfiles = write_rotated("cap.pcapng", 1000, 20);
	assert_in_range(nfiles, 3, 20);
	struct rt_source_file_spec specs[20];
	for (unsigned i = 0; i < nfiles; i++) {
		char name[64];
		unsigned k = nfiles - 1 - i; /* the last file first */
		snprintf(name, sizeof(name), k ? "cap.pcapng.%u" : "cap.pcapng", k);
		specs[i] = (struct rt_source_file_spec){.path = path_of(name)};
	}
	struct rt_source *s = open_specs(specs, nfiles);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(g.n, 20);
	for (unsigned i = 0; i < 20; i++)
		assert_int_equal(g.ts[i], 1000 + i * 10);
	assert_int_equal(rt_source_vantage_count(s), 1);
	struct rt_source_stats rs;
	assert_int_equal(rt_source_stats(s, &rs, errbuf), 0);
	assert_true(rs.drops_known);
	assert_int_equal(rs.received, 20);
	assert_int_equal(rs.dropped, 20);
	assert_int_equal(rs.if_dropped, 1);
	rt_source_close(s);

	/* one file of the set alone, then beside another capture of the same time: its drops add up */
	struct rt_source_file_spec one = {.path = path_of("cap.pcapng.1")};
	s = open_specs(&one, 1);
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_true(g.n >= 2);
	assert_int_equal(rt_source_stats(s, &rs, errbuf), 0);
	uint64_t alone = rs.dropped;
	rt_source_close(s);
	write_rotated("other.pcapng", g.ts[0] + 5, 3);
	struct rt_source_file_spec two[] = {one, {.path = path_of("other.pcapng")}};
	s = open_specs(two, 2);
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(rt_source_vantage_count(s), 2);
	assert_int_equal(rt_source_stats(s, &rs, errbuf), 0);
	assert_int_equal(rs.dropped, alone + 3);
	assert_int_equal(rs.if_dropped, 2);
	rt_source_close(s);
}

/* A filter numbers frames in the merged stream, skipped ones counted. */
static void test_filter_numbers(void **state)
{
	(void)state;
	uint64_t ta[] = {100, 300}, tb[] = {200, 400};
	struct rt_source_file_spec specs[] = {
	    {.path = write_pcap("fa.pcap", ta, 2, 0x10)},
	    {.path = write_pcap("fb.pcap", tb, 2, 0x20)},
	};
	struct rt_source_config cfg = {.bpf = "ether[0] == 0x20 or ether[0] == 0x11"};
	struct rt_source *s;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_open_files(&s, specs, 2, &cfg, errbuf), 0);
	struct got g;
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.tag[0], 0x20);
	assert_int_equal(g.seq[0], 2);
	assert_int_equal(g.tag[1], 0x11);
	assert_int_equal(g.seq[1], 3);
	struct rt_vantage_point vp;
	rt_source_vantage_point(s, 1, &vp);
	assert_int_equal(vp.frames, 1);
	rt_source_close(s);
}

/* An SLL2 capture (`-i any`) whose frame k has interface index idx[k] (bytes 4..7, big-endian). */
static const char *write_sll2(const char *name, const uint64_t *ts, const uint8_t *idx, unsigned n,
                              uint8_t tag)
{
	const char *path = write_pcap_lt(name, ts, n, tag, 276, false);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	for (unsigned k = 0; k < n; k++) {
		assert_int_equal(fseek(f, 24 + (long)k * (16 + 60) + 16 + 7, SEEK_SET), 0);
		assert_int_equal(fputc(idx[k], f), idx[k]);
	}
	assert_int_equal(fclose(f), 0);
	return path;
}

static void assert_point(struct rt_source *s, unsigned i, const char *name, uint64_t frames)
{
	struct rt_vantage_point vp;
	assert_int_equal(rt_source_point(s, i, &vp), 0);
	assert_string_equal(vp.name, name);
	assert_int_equal(vp.frames, frames);
}

/* Capture points: the SLL2 interface indexes of one file are points of their own, named by index. */
static void test_capture_points(void **state)
{
	(void)state;
	uint64_t ts[] = {100, 200, 300, 400}, tb[] = {150, 250};
	uint8_t idx[] = {3, 3, 5, 3}, one[] = {7, 7};
	struct rt_source_file_spec any = {.path = write_sll2("any.pcap", ts, idx, 4, 0x10)};
	struct rt_source *s = open_specs(&any, 1);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_source_point_of(s, 0, 3), -1); /* none before its first frame */
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(rt_source_point_count(s), 2);
	assert_point(s, 0, "ifindex 3", 3);
	assert_point(s, 1, "ifindex 5", 1);
	assert_int_equal(rt_source_point_of(s, 0, 5), 1);
	assert_int_equal(rt_source_point_of(s, 0, 0), -1);
	assert_int_equal(rt_source_point(s, 2, &(struct rt_vantage_point){0}), -ENOENT);
	assert_int_equal(rt_source_vantage_count(s), 1); /* still one vantage point of files */
	rt_source_close(s);

	/* with another file: the points are named after their vantage point first; one index: the file's name */
	struct rt_source_file_spec two[] = {any,
	                                    {.path = write_sll2("veth.pcap", tb, one, 2, 0x20)}};
	s = open_specs(two, 2);
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(rt_source_point_count(s), 3);
	assert_point(s, 0, "any/ifindex 3", 3);
	assert_point(s, 1, "veth", 2);
	assert_point(s, 2, "any/ifindex 5", 1);
	rt_source_close(s);

	/* named points keep the order given, whichever frames come first */
	struct rt_source_file_spec named[] = {{.path = two[1].path, .vantage = "rx"},
	                                      {.path = any.path, .vantage = "tx"}};
	s = open_specs(named, 2);
	assert_int_equal(rt_source_point_count(s), 2);
	assert_point(s, 1, "tx", 0);
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(rt_source_point_count(s), 3);
	assert_point(s, 0, "rx", 2);
	assert_point(s, 1, "tx/ifindex 3", 3);
	assert_point(s, 2, "tx/ifindex 5", 1);
	rt_source_close(s);
}

/* More files than are kept open at once: each one is opened again when the stream reaches it. */
static void test_many_files(void **state)
{
	(void)state;
	struct rt_source_file_spec specs[40];
	for (unsigned i = 0; i < 40; i++) {
		char name[32];
		uint64_t t[] = {1000 + i * 10, 1005 + i * 10};
		snprintf(name, sizeof(name), i ? "many.pcap.%u" : "many.pcap", i);
		specs[39 - i] =
		    (struct rt_source_file_spec){.path = write_pcap(name, t, 2, (uint8_t)(2 * i))};
	}
	struct rt_source *s = open_specs(specs, 40);
	struct got g;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(read_all(s, &g, errbuf), 0);
	assert_int_equal(g.n, 80);
	for (unsigned i = 0; i < 80; i++) {
		assert_int_equal(g.tag[i], i);
		assert_int_equal(g.seq[i], i + 1);
	}
	assert_int_equal(rt_source_vantage_count(s), 1);
	rt_source_close(s);
}

/* A nanosecond pcap of n 60-byte frames (timestamps 1000 + k), frame k's first two bytes k (little-endian). */
static const char *write_big_pcap(const char *name, unsigned n)
{
	const char *path = path_of(name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint32_t hdr[6] = {0xA1B23C4D, 2 | 4u << 16, 0, 0, 256, 1};
	assert_int_equal(fwrite(hdr, sizeof(hdr), 1, f), 1);
	for (unsigned k = 0; k < n; k++) {
		uint32_t rec[4] = {0, 1000 + k, 60, 60};
		uint8_t frame[60] = {(uint8_t)k, (uint8_t)(k >> 8)};
		assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
		assert_int_equal(fwrite(frame, sizeof(frame), 1, f), 1);
	}
	assert_int_equal(fclose(f), 0);
	return path;
}

/*
 * One plain file held (rt_source_hold): the frames handed out after the
 * hold lie in the mapping and stay readable after the file ended and its
 * reader closed, until the source closes; several files, or a gzip'd one,
 * are not held.
 */
static void test_hold(void **state)
{
	(void)state;
	enum { N = 20000 }; /* more than the first read takes: the file is mapped */
	struct rt_source_file_spec one[] = {{.path = write_big_pcap("held.pcap", N)}};
	struct rt_source *s = open_specs(one, 1);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_frame fr[64];
	static struct rt_frame kept[N];
	unsigned n = 0;
	int got = rt_source_next(s, fr, 8, errbuf);
	assert_int_equal(got, 8);
	const uint8_t *base;
	size_t len;
	assert_int_equal(rt_source_hold(s, &base, &len), 0);
	assert_int_equal(len, 24 + N * (16 + 60));
	assert_int_equal(rt_source_hold(s, &base, &len), -ENOTSUP); /* once */
	while ((got = rt_source_next(s, fr, 64, errbuf)) > 0)
		for (int i = 0; i < got; i++)
			kept[n++] = fr[i];
	assert_int_equal(got, 0); /* the file ended: its reader closed, the mapping held */
	assert_int_equal(n, N - 8);
	for (unsigned i = 0; i < n; i++) {
		assert_true(kept[i].data >= base && kept[i].data + kept[i].caplen <= base + len);
		assert_int_equal(kept[i].data[0] | kept[i].data[1] << 8, i + 8);
	}
	rt_source_close(s);
	uint64_t ts[] = {1, 2, 3, 4};
	struct rt_source_file_spec two[] = {{.path = write_big_pcap("held0.pcap", N)},
	                                    {.path = write_pcap("held1.pcap", ts, 4, 0)}};
	s = open_specs(two, 2);
	assert_int_equal(rt_source_next(s, fr, 2, errbuf), 2);
	assert_int_equal(rt_source_hold(s, &base, &len), -ENOTSUP);
	rt_source_close(s);
	struct rt_source_file_spec gz[] = {
	    {.path = write_pcap_lt("held.pcap.gz", ts, 4, 0, 1, true)}};
	s = open_specs(gz, 1);
	assert_int_equal(rt_source_next(s, fr, 2, errbuf), 2);
	assert_int_equal(rt_source_hold(s, &base, &len), -ENOTSUP);
	rt_source_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rotation_names),     cmocka_unit_test(test_rotated_set),
	    cmocka_unit_test(test_overlapping_points), cmocka_unit_test(test_named_and_described),
	    cmocka_unit_test(test_two_rotated_sets),   cmocka_unit_test(test_backwards_and_cut),
	    cmocka_unit_test(test_open_errors),        cmocka_unit_test(test_rotated_drops),
	    cmocka_unit_test(test_filter_numbers),     cmocka_unit_test(test_many_files),
	    cmocka_unit_test(test_capture_points),     cmocka_unit_test(test_hold),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* Unit tests of the frame pump's sinks: every sink gets every frame in order, the record's room, stops and failures, the end; the capture points announced. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/pump.h"
#include "capture/sinks.h"
#include "pcapfile_build.h"

/* ---- the sinks' interface, on a fake source ---- */

/* A 60-byte PAUSE frame. */
static const uint8_t pause_frame[60] = {0x01, 0x80, 0xc2, 0,    0,    1,    2,    0,    0,
                                        0,    0,    1,    0x88, 0x08, 0x00, 0x01, 0x12, 0x34};

static int fake_total, fake_delivered;

static int fake_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	(void)src;
	(void)errbuf;
	int n = 0;
	while (n < max && n < 5 && fake_delivered < fake_total) {
		fake_delivered++;
		frames[n++] = (struct rt_frame){.data = pause_frame,
		                                .caplen = sizeof(pause_frame),
		                                .wirelen = sizeof(pause_frame),
		                                .ts_ns = 1000u * (uint64_t)fake_delivered};
	}
	return n;
}

static const struct rt_source_ops fake_ops = {.kind = "fake", .next = fake_next};

/* Every call of every test sink, in order: "<sink><what><seq>" ("aF3": sink a, frame 3; "bE": b's end). */
static char calls[4096];

static void called(const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(calls);
	va_start(ap, fmt);
	vsnprintf(calls + len, sizeof(calls) - len, fmt, ap);
	va_end(ap);
}

/* A test sink: its name, when it stops or fails, what it saw. */
struct test_sink {
	char name;
	uint64_t stop_at, fail_at, frames;
	bool got_null, fail_end;
	struct rt_record room[RT_PUMP_BATCH]; /* lent as the records' room */
	unsigned rooms;                       /* times it was asked for */
	unsigned lent, used;                  /* records the room was asked for, and used of them */
	struct rt_pump_result end;
};

static int ts_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                    char *errbuf)
{
	struct test_sink *t = ctx;
	called("%cF%llu ", t->name, (unsigned long long)frame->seq);
	t->frames++;
	t->got_null |= !rec;
	if (rec && rec->kind != RT_KIND_PAUSE)
		fail_msg("frame %llu: not decoded", (unsigned long long)frame->seq);
	if (t->rooms && (t->used >= t->lent || rec != &t->room[t->used++]))
		fail_msg("the record is not the next one of the room lent");
	if (t->fail_at == frame->seq)
		return rt_errmsg(errbuf, EIO, "sink %c failed", t->name);
	return t->stop_at == frame->seq ? 1 : 0;
}

static int ts_end(void *ctx, const struct rt_pump_result *res, char *errbuf)
{
	struct test_sink *t = ctx;
	called("%cE ", t->name);
	t->end = *res;
	return t->fail_end ? rt_errmsg(errbuf, ENOSPC, "sink %c: end failed", t->name) : 0;
}

static struct rt_record *ts_room(void *ctx, unsigned n)
{
	struct test_sink *t = ctx;
	assert_true(n >= 1 && n <= RT_PUMP_BATCH);
	called("%cR%u ", t->name, n);
	t->rooms++;
	t->lent = n;
	t->used = 0;
	return t->room;
}

static struct rt_pump_sink sink_of(struct test_sink *t, bool room, bool frames_only)
{
	return (struct rt_pump_sink){.frame = ts_frame,
	                             .end = ts_end,
	                             .record_room = room ? ts_room : NULL,
	                             .frames_only = frames_only,
	                             .ctx = t};
}

static struct rt_source fake_src;

static int run_fake(int total, const struct rt_pump_sink *sinks, unsigned n,
                    struct rt_pump_result *res, char *errbuf)
{
	fake_total = total;
	fake_delivered = 0;
	calls[0] = 0;
	memset(&fake_src, 0, sizeof(fake_src));
	fake_src.ops = &fake_ops;
	fake_src.linktype = RT_LINK_ETHERNET;
	struct rt_pump_config c = {.sinks = sinks, .nsinks = n};
	return rt_pump_run(&fake_src, &c, res, errbuf);
}

/* Every sink gets every frame, in the order added; the sink lending the room gets it last, in its room. */
static void test_every_sink_every_frame(void **state)
{
	struct test_sink a = {.name = 'a'}, r = {.name = 'r'}, b = {.name = 'b'};
	struct rt_pump_sink sinks[] = {sink_of(&a, false, false), sink_of(&r, true, false),
	                               sink_of(&b, false, true)};
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	assert_int_equal(run_fake(7, sinks, 3, &res, errbuf), 0);
	/* the room asked for each batch the source gives (5, then 2) */
	assert_string_equal(calls,
	                    "rR5 aF1 bF1 rF1 aF2 bF2 rF2 aF3 bF3 rF3 aF4 bF4 rF4 aF5 bF5 rF5 "
	                    "rR2 aF6 bF6 rF6 aF7 bF7 rF7 aE rE bE ");
	assert_int_equal(res.end, RT_PUMP_EOF);
	assert_int_equal(res.frames, 7);
	assert_int_equal(r.rooms, 2); /* one room per batch, no copy */
	assert_false(b.got_null);     /* frames_only, but the others take records */
	assert_int_equal(a.end.frames, 7);
	assert_int_equal(b.end.end, RT_PUMP_EOF);

	/* no sink takes records: none is decoded */
	struct test_sink c = {.name = 'c'};
	struct rt_pump_sink only = sink_of(&c, false, true);
	assert_int_equal(run_fake(2, &only, 1, &res, errbuf), 0);
	assert_true(c.got_null);
	assert_int_equal(c.frames, 2);
}

/* A stop or a failure comes after every sink got the frame; the first failure's message is the run's. */
static void test_stop_and_failure(void **state)
{
	struct test_sink a = {.name = 'a'}, r = {.name = 'r'}, b = {.name = 'b'};
	struct rt_pump_sink sinks[] = {sink_of(&a, false, false), sink_of(&r, true, false),
	                               sink_of(&b, false, false)};
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE] = "";
	(void)state;

	a.stop_at = 2;
	assert_int_equal(run_fake(10, sinks, 3, &res, errbuf), 0);
	assert_string_equal(calls, "rR5 aF1 bF1 rF1 aF2 bF2 rF2 aE rE bE ");
	assert_int_equal(res.end, RT_PUMP_STOPPED);
	assert_int_equal(res.frames, 2);

	a.stop_at = 0;
	b.fail_at = 3;
	r.fail_at = 3;
	assert_int_equal(run_fake(10, sinks, 3, &res, errbuf), -EIO);
	assert_string_equal(calls, "rR5 aF1 bF1 rF1 aF2 bF2 rF2 aF3 bF3 rF3 aE rE bE ");
	assert_string_equal(errbuf, "sink b failed"); /* b's frame() came before r's */
	assert_int_equal(res.end, RT_PUMP_FAILED);
	assert_false(res.read_failed);
	assert_int_equal(a.end.end, RT_PUMP_FAILED); /* the ends see how the reading ended */
}

/* An end() that fails makes the run fail with its error; every end() is called all the same. */
static void test_end_failure(void **state)
{
	struct test_sink a = {.name = 'a', .fail_end = true}, b = {.name = 'b'};
	struct rt_pump_sink sinks[] = {sink_of(&a, false, false), sink_of(&b, false, false)};
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE] = "";
	(void)state;

	assert_int_equal(run_fake(1, sinks, 2, &res, errbuf), -ENOSPC);
	assert_string_equal(calls, "aF1 bF1 aE bE ");
	assert_string_equal(errbuf, "sink a: end failed");
	assert_int_equal(res.end, RT_PUMP_FAILED);
	assert_int_equal(b.end.end, RT_PUMP_EOF);
}

/* ---- capture points: set in the records, announced ---- */

/* The files the tests write, in a folder of their own removed at the end. */
static char dir[] = "/tmp/rt-pump-sinks-XXXXXX";
static char saved[12][256];
static unsigned nsaved;

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nsaved; i++)
		unlink(saved[i]);
	return rmdir(dir);
}

static const char *save(const char *name, struct buf *b)
{
	assert_true(nsaved < 12);
	char *p = saved[nsaved++];
	snprintf(p, sizeof(saved[0]), "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->p, 1, b->len, f), b->len);
	assert_int_equal(fclose(f), 0);
	free(b->p);
	return p;
}

/* A nanosecond classic pcap (Ethernet) of n frames, t0 + k us each. */
static const char *classic(const char *name, unsigned n, uint64_t t0)
{
	struct buf b = {0};
	pcap_header(&b, 0xA1B23C4D, 256, 1);
	for (unsigned k = 0; k < n; k++) {
		uint64_t t = t0 + 1000u * k;
		pcap_rec(&b, (uint32_t)(t / 1000000000u), (uint32_t)(t % 1000000000u), 60, 60, k);
	}
	return save(name, &b);
}

/* A pcapng of two interfaces (both named "eth"): n0 frames on interface 0, then n1 on interface 1. */
static const char *two_ports(const char *name, unsigned n0, unsigned n1)
{
	struct buf b = {0};
	shb(&b);
	idb(&b, 1, 256, 9, 0);
	idb(&b, 1, 256, 9, 0);
	for (unsigned k = 0; k < n0 + n1; k++)
		epb(&b, k < n0 ? 0 : 1, 1000000u + 1000u * k, 60, 60, k);
	return save(name, &b);
}

/*
 * What the log sink saw: announcements ("P<id>:<name>/<vantage name>#<vantage>:<files> "), runs of
 * frames of one point and file ("@<point>.<file>x<frames> ", "@-" for no point), the end ("E").
 * An announcement ends a run.
 */
struct log {
	char text[8192];
	int point;          /* the run's point (-1: none), or -2: no run */
	unsigned file;      /* the run's file */
	unsigned run;       /* frames in the run */
	bool alone;         /* as the last announcement said */
	uint64_t frames[8]; /* each point's frames, as its last announcement said */
};

static void log_add(struct log *l, const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(l->text);
	va_start(ap, fmt);
	vsnprintf(l->text + len, sizeof(l->text) - len, fmt, ap);
	va_end(ap);
}

static void end_run(struct log *l)
{
	if (l->point != -2)
		log_add(l, "x%u ", l->run);
	l->point = -2;
	l->run = 0;
}

static int log_point(void *ctx, const struct rt_pump_point *pt, char *errbuf)
{
	struct log *l = ctx;
	(void)errbuf;
	end_run(l);
	log_add(l, "P%u:%s/%s#%u:%u ", pt->id, pt->name, pt->vantage_name, pt->vantage, pt->nfiles);
	for (unsigned k = 0; k < pt->nfiles; k++)
		if (!strstr(pt->paths[k], dir))
			fail_msg("point %u: file %u is %s", pt->id, pt->files[k], pt->paths[k]);
	l->alone = pt->alone;
	if (pt->id < 8)
		l->frames[pt->id] = pt->frames;
	return 0;
}

static int log_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                     char *errbuf)
{
	struct log *l = ctx;
	int p = rec->point == RT_POINT_NONE ? -1 : rec->point;
	(void)errbuf;
	if (p != l->point || frame->file != l->file) {
		end_run(l);
		if (p < 0)
			log_add(l, "@-.%u", frame->file);
		else
			log_add(l, "@%d.%u", p, frame->file);
		l->point = p;
		l->file = frame->file;
	}
	l->run++;
	return 0;
}

static int log_end(void *ctx, const struct rt_pump_result *res, char *errbuf)
{
	struct log *l = ctx;
	(void)res;
	(void)errbuf;
	end_run(l);
	log_add(l, "E");
	return 0;
}

static void read_files(const struct rt_source_file_spec *files, size_t n, struct log *l)
{
	struct rt_source *src;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pump_sink s = {.point = log_point, .frame = log_frame, .end = log_end, .ctx = l};
	struct rt_pump_config c = {.sinks = &s, .nsinks = 1};
	struct rt_pump_result res;
	memset(l, 0, sizeof(*l));
	l->point = -2;
	assert_int_equal(rt_pump_open_files(&src, files, n, NULL, errbuf), 0);
	assert_int_equal(rt_pump_run(src, &c, &res, errbuf), 0);
	rt_source_close(src);
}

/* Where the log holds `what`: its offset (the test fails when it holds none). */
static size_t at(const struct log *l, const char *what)
{
	const char *p = strstr(l->text, what);
	if (!p)
		fail_msg("no '%s' in '%s'", what, l->text);
	return (size_t)(p - l->text);
}

static void assert_ends_with(const struct log *l, const char *tail)
{
	size_t n = strlen(l->text), k = strlen(tail);
	if (n < k || strcmp(l->text + n - k, tail))
		fail_msg("'%s' does not end with '%s'", l->text, tail);
}

/* One classic pcap: one point, announced before its frames and once more at the end; alone. */
static void test_one_point(void **state)
{
	struct rt_source_file_spec f = {.path = classic("solo.pcap", 3, 1000000)};
	struct log l;
	(void)state;

	read_files(&f, 1, &l);
	assert_string_equal(l.text, "P0:solo/solo#0:1 @0.0x3 P0:solo/solo#0:1 E");
	assert_true(l.alone);
	assert_int_equal(l.frames[0], 3);
}

/*
 * A pcapng whose second interface first shows after a batch: the first
 * point is named after the file, then renamed (a point per interface) before
 * the second's first frame; with a classic pcap captured beside it, the
 * points are named after their vantage points. At the end, each once more.
 */
static void test_points_renamed(void **state)
{
	struct rt_source_file_spec two = {.path = two_ports("ports.pcapng", 70, 5)};
	struct log l;
	(void)state;

	read_files(&two, 1, &l);
	assert_int_equal(at(&l, "P0:ports/ports#0:1 @0.0x"), 0);
	assert_true(at(&l, "P0:if 0/ports#0:1 P1:if 1/ports#0:1 ") < at(&l, "@1.0x"));
	assert_ends_with(&l, "@1.0x5 P0:if 0/ports#0:1 P1:if 1/ports#0:1 E");
	assert_false(l.alone);
	assert_int_equal(l.frames[0], 70);
	assert_int_equal(l.frames[1], 5);

	struct rt_source_file_spec both[] = {two, {.path = classic("tap.pcap", 3, 1000500)}};
	read_files(both, 2, &l);
	assert_int_equal(at(&l, "P0:ports/ports#0:1 P1:tap/tap#1:1 @0.0x1 @1.1x1 @0.0x1 @1.1x1 "
	                        "@0.0x1 @1.1x1 @0.0x"),
	                 0);
	assert_true(at(&l, "P0:ports/if 0/ports#0:1 P2:ports/if 1/ports#0:1 ") < at(&l, "@2.0x"));
	assert_ends_with(&l,
	                 "@2.0x5 P0:ports/if 0/ports#0:1 P1:tap/tap#1:1 P2:ports/if 1/ports#0:1 E");
}

/*
 * A rotated set is one point: announced again with its second file before
 * that file's first frame; a file no frame came from is a point of its own,
 * announced at the end (after the others).
 */
static void test_points_files(void **state)
{
	struct rt_source_file_spec set[] = {{.path = classic("run.pcap.1", 3, 2000000)},
	                                    {.path = classic("run.pcap", 70, 1000000)},
	                                    {.path = classic("empty.pcap", 0, 0)}};
	struct log l;
	(void)state;

	read_files(set, 3, &l);
	assert_int_equal(at(&l, "P0:run/run#0:1 @0.1x"), 0);
	assert_true(at(&l, "P0:run/run#0:2 ") < at(&l, "@0.0x3"));
	assert_ends_with(&l, "@0.0x3 P0:run/run#0:2 P1:empty/empty#1:1 E");
	assert_int_equal(l.frames[0], 73);
	assert_int_equal(l.frames[1], 0);
}

/*
 * --count of named vantage points: each is announced from the open, the
 * second before the stream reaches its file (a batch later: no file yet),
 * then with its file; the totals name both with their frames.
 */
static void test_totals_named_points(void **state)
{
	struct rt_source_file_spec named[] = {
	    {.path = classic("tx.pcap", 70, 1000000), .vantage = "a"},
	    {.path = classic("rx.pcap", 3, 2000000), .vantage = "b"}};
	struct rt_source *src;
	struct rt_pump_sink s;
	struct rt_pump_result res;
	struct rt_outbuf o;
	char errbuf[RT_ERRBUF_SIZE], *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	(void)state;

	assert_non_null(fp);
	rt_out_init(&o, fp);
	assert_int_equal(rt_totals_sink(&s, &o, false, true, errbuf), 0);
	struct rt_pump_config c = {.sinks = &s, .nsinks = 1};
	assert_int_equal(rt_pump_open_files(&src, named, 2, NULL, errbuf), 0);
	assert_int_equal(rt_pump_run(src, &c, &res, errbuf), 0);
	rt_source_close(src);
	rt_pump_sink_free(&s);
	assert_int_equal(rt_out_flush(&o), 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(strstr(text, "frames: 73\n"));
	char want[600];
	snprintf(want, sizeof(want),
	         "vantage point a: 70 frames, files %s\nvantage point b: 3 frames, files %s\n",
	         named[0].path, named[1].path);
	assert_non_null(strstr(text, want));
	free(text);
}

/* The interfaces of a saved capture's frames, in order ("0 0 1 "), and how many it describes. */
static void interfaces_of(const char *path, char *ids, size_t size, unsigned *nifaces)
{
	struct rt_source *src;
	struct rt_frame fr[16];
	char errbuf[RT_ERRBUF_SIZE];
	int n;
	*ids = 0;
	*nifaces = 0;
	assert_int_equal(rt_source_open_file(&src, path, NULL, errbuf), 0);
	while ((n = rt_source_next(src, fr, 16, errbuf)) > 0)
		for (int i = 0; i < n; i++) {
			size_t len = strlen(ids);
			snprintf(ids + len, size - len, "%u ", fr[i].interface_id);
			if (fr[i].interface_id + 1 > *nifaces)
				*nifaces = fr[i].interface_id + 1;
		}
	assert_int_equal(n, 0);
	rt_source_close(src);
}

/* `in` written by the writer's sink into `out` (pcapng): with capture -r's rewrite, or all as interface 0. */
static void write_with_sink(const char *in, const char *out, bool rewrite)
{
	struct rt_source *src;
	struct rt_writer *w;
	struct rt_pump_sink s;
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_writer_config wc = {.format = RT_FORMAT_PCAPNG, .path = out};
	assert_int_equal(rt_source_open_file(&src, in, NULL, errbuf), 0);
	assert_int_equal(rt_writer_open(&w, &wc, errbuf), 0);
	struct rt_rewrite rw = {.src = src, .w = w};
	if (!rewrite)
		assert_int_equal(
		    rt_writer_add_interface(w, "all", src->linktype, 0, RT_TS_FILE, errbuf), 0);
	assert_int_equal(rt_writer_sink(&s, w, 0, rewrite ? &rw : NULL, errbuf), 0);
	struct rt_pump_config c = {.sinks = &s, .nsinks = 1};
	assert_int_equal(rt_pump_run(src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_EOF);
	if (rewrite)
		assert_int_equal(rt_rewrite_finish(&rw, errbuf), 0);
	assert_int_equal(rt_writer_close(w, errbuf), 0);
	rt_rewrite_free(&rw);
	rt_pump_sink_free(&s);
	rt_source_close(src);
}

/* The writer's sink: with capture -r's rewrite each frame keeps its file's interface, else all go to one. */
static void test_writer_sink(void **state)
{
	const char *in = two_ports("two.pcapng", 2, 3);
	char ids[64];
	unsigned nifaces;
	(void)state;

	assert_true(nsaved < 12);
	char *out = saved[nsaved++]; /* removed at the end */
	snprintf(out, sizeof(saved[0]), "%s/out.pcapng", dir);
	write_with_sink(in, out, true);
	interfaces_of(out, ids, sizeof(ids), &nifaces);
	assert_string_equal(ids, "0 0 1 1 1 ");
	assert_int_equal(nifaces, 2);
	write_with_sink(in, out, false);
	interfaces_of(out, ids, sizeof(ids), &nifaces);
	assert_string_equal(ids, "0 0 0 0 0 ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_sink_every_frame),
	    cmocka_unit_test(test_stop_and_failure),
	    cmocka_unit_test(test_end_failure),
	    cmocka_unit_test(test_one_point),
	    cmocka_unit_test(test_points_renamed),
	    cmocka_unit_test(test_points_files),
	    cmocka_unit_test(test_writer_sink),
	    cmocka_unit_test(test_totals_named_points),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

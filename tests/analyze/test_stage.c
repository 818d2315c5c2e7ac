/* Unit tests of the staged analysis (--threads): each scenario's frames split among 2, 3 and 4 threads, and 2 threads over 2 to 64 parts, report what one analyzer fed every frame reports. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/stage.h"
#include "dissect/build.h"
#include "dissect/opcodes.h"
#include "tests/analyze/analyzer.h"
#include "tests/analyze/pcap_frames.h"

static const char *scenario_dir;

/* The dcqcn scenario's frames: the capture the tests below build theirs on. */
static void read_dcqcn(struct frames *out)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/dcqcn.pcap", scenario_dir);
	read_frames(path, out);
}

/* The frames through one analyzer (decoded here), or through a stage of `threads` split into `parts` (0: its default): its JSON report and its timeline of 100 us buckets. */
static char *analyze(const struct frames *fr, unsigned threads, unsigned parts)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_analyzer *an = new_an(0);
	rt_analyzer_one_point(an);
	char *rows = NULL;
	size_t nrows = 0;
	FILE *tl = open_memstream(&rows, &nrows);
	assert_non_null(tl);
	struct rt_an_sink sink;
	struct rt_an_timeline_opts to = {.bucket_ns = 100 * US};
	assert_int_equal(rt_an_timeline_sink(tl, &to, &sink, errbuf), 0);
	assert_int_equal(rt_analyzer_add_sink(an, &sink, errbuf), 0);
	feed_frames(an, fr, threads, parts);
	char *json = report_json(an);
	rt_analyzer_free(an);
	assert_int_equal(fclose(tl), 0);
	assert_true(nrows > 0);
	char *both = malloc(strlen(json) + nrows + 2);
	assert_non_null(both);
	sprintf(both, "%s\n%s", json, rows);
	free(json);
	free(rows);
	return both;
}

/*
 * Every scenario at 2, 3 and 4 threads (each with its default parts), and
 * with 2 threads over 2 to 64 parts (one thread started: the parts it
 * waits for in the links have no thread of their own, and are fed by the
 * one that waits): the incast's senders share the link toward one receiver
 * across host pairs (the RP reaction's full-link test reads every part's
 * packets on it), the pause scenarios' windows and stalls read the pauses of
 * frames in no part's host pairs.
 */
static void test_scenarios_alike(void **state)
{
	(void)state;
	DIR *d = opendir(scenario_dir);
	assert_non_null(d);
	unsigned checked = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".pcap"))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", scenario_dir, e->d_name);
		struct frames fr;
		read_frames(path, &fr);
		char *one = analyze(&fr, 1, 0);
		static const unsigned runs[][2] = {{2, 0}, {3, 0}, {4, 0}, {2, 2}, {2, 5}, {2, 64}};
		for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			char *split = analyze(&fr, runs[r][0], runs[r][1]);
			if (strcmp(one, split))
				fail_msg("%s: %u threads, %u parts report otherwise than one "
				         "analyzer",
				         e->d_name, runs[r][0], runs[r][1]);
			free(split);
		}
		free(one);
		free(fr.f);
		free(fr.bytes);
		checked++;
	}
	closedir(d);
	assert_true(checked >= 10);
}

/* A PFC frame pausing priority 3 for `quanta` at ts, built into `bytes`, inserted at fr->f[at] (room for it). */
static void insert_pfc(struct frames *fr, unsigned at, uint64_t ts, uint16_t quanta, uint8_t *bytes)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x99};
	uint16_t q[8] = {0};
	q[3] = quanta;
	assert_int_equal(rt_build_pfc(bytes, RT_MACC_FRAME_LEN, mac, 1u << 3, q),
	                 RT_MACC_FRAME_LEN);
	memmove(&fr->f[at + 1], &fr->f[at], (fr->n - at) * sizeof(*fr->f));
	fr->f[at] = (struct rt_frame){.data = bytes,
	                              .caplen = RT_MACC_FRAME_LEN,
	                              .wirelen = RT_MACC_FRAME_LEN,
	                              .ts_ns = ts,
	                              .linktype = 1};
	fr->n++;
}

/*
 * Pauses in frames of no host pair, read by the flows of every part: a
 * pause of a few ns right after each CNP (over before the sender's next
 * packet: only the frame time a pause ran at tells the RP window), and a
 * 20 ms silence of every flow with XOFFs refreshed through it (a storm the
 * flows stalled in).
 */
static void test_pauses_handed(void **state)
{
	(void)state;
	struct frames fr;
	read_dcqcn(&fr);
	unsigned gap_at = fr.n / 2, cnps = 0, storm = 100, room = fr.n + storm + 4096;
	struct rt_frame *nf = realloc(fr.f, room * sizeof(*nf));
	assert_non_null(nf);
	fr.f = nf;
	uint8_t *pfc = calloc(storm + 4096, RT_MACC_FRAME_LEN);
	assert_non_null(pfc);
	uint64_t gap = 20 * MS, t_gap = fr.f[gap_at].ts_ns;
	for (unsigned i = gap_at; i < fr.n; i++)
		fr.f[i].ts_ns += gap;
	for (unsigned k = 0; k < storm; k++)
		insert_pfc(&fr, gap_at + k, t_gap + 1000 + k * 200 * US, 65535,
		           pfc + (size_t)k * RT_MACC_FRAME_LEN);
	struct rt_dissect_opts dopts;
	rt_dissect_opts_init(&dopts);
	for (unsigned i = 0; i < fr.n && cnps < 4096 && fr.n < room; i++) {
		struct rt_record rec;
		rt_dissect(&dopts, &fr.f[i], &rec);
		if (rec.kind == RT_KIND_CNP && i + 1 < fr.n)
			insert_pfc(&fr, i + 1, rec.ts_ns + 1, 1,
			           pfc + (size_t)(storm + cnps++) * RT_MACC_FRAME_LEN);
	}
	assert_true(cnps > 10);
	char *one = analyze(&fr, 1, 0);
	/* the one analyzer set CNP windows apart for the pauses */
	assert_true(count_str(one, "\"pause_in_window\":0,") <
	            count_str(one, "\"pause_in_window\":"));
	assert_non_null(strstr(one, "\"pfc_storm\""));
	for (unsigned threads = 2; threads <= 4; threads++) {
		char *split = analyze(&fr, threads, 0);
		if (strcmp(one, split))
			fail_msg("%u threads report otherwise than one analyzer", threads);
		free(split);
	}
	free(one);
	free(pfc);
	free(fr.f);
	free(fr.bytes);
}

/*
 * The capture cut a few packets after a CNP, a pause at its very end: the
 * RP window still open at the end reads the pause though no frame of its
 * part came after it (every part count up to 8 puts the flow in another
 * part than the pause's).
 */
static void test_pause_after_last_frame(void **state)
{
	(void)state;
	struct frames fr;
	read_dcqcn(&fr);
	struct rt_frame *all = fr.f;
	unsigned n = fr.n, cuts = 0;
	uint8_t pfc[RT_MACC_FRAME_LEN];
	struct rt_frame *cut = calloc(n + 1, sizeof(*cut));
	assert_non_null(cut);
	struct rt_dissect_opts dopts;
	rt_dissect_opts_init(&dopts);
	for (unsigned i = 0; i < n && cuts < 6; i++) {
		struct rt_record rec;
		rt_dissect(&dopts, &all[i], &rec);
		if (rec.kind != RT_KIND_CNP || i + 11 >= n)
			continue;
		cuts++;
		memcpy(cut, all, (i + 11) * sizeof(*cut));
		fr.f = cut;
		fr.n = i + 11;
		insert_pfc(&fr, fr.n, all[i + 10].ts_ns + 1, 65535, pfc);
		char *one = analyze(&fr, 1, 0);
		for (unsigned threads = 2; threads <= 8; threads++) {
			char *split = analyze(&fr, threads, 0);
			if (strcmp(one, split))
				fail_msg("cut %u frames after a CNP: %u threads report otherwise",
				         i + 11, threads);
			free(split);
		}
		free(one);
	}
	assert_int_equal(cuts, 6);
	free(cut);
	free(all);
	free(fr.bytes);
}

/*
 * Batches after batches: a scenario with pauses tiled 40 times over (more
 * batches than the ring holds: the reading thread waits for a place made
 * free, the ring's batches are used again, the links taken across batches,
 * a part's buckets closed in one batch and merged in another, more batches
 * than a part stays with its thread: parts move to even the threads' work
 * out), at 2 to 8 threads (a staging thread from 4).
 */
#define TILES 100
/* TILES copies of the dcqcn scenario one after the other in time, a pause in each one's middle, and one analyzer's report of them. */
struct tiled {
	struct frames one_fr, fr;
	uint8_t pfc[TILES][RT_MACC_FRAME_LEN];
	char *one;
};

static struct tiled *tiled_new(void)
{
	struct tiled *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	read_dcqcn(&t->one_fr);
	unsigned n = t->one_fr.n;
	uint64_t span = t->one_fr.f[n - 1].ts_ns - t->one_fr.f[0].ts_ns + MS;
	t->fr.f = calloc((size_t)n * TILES + TILES, sizeof(*t->fr.f));
	assert_non_null(t->fr.f);
	for (unsigned k = 0; k < TILES; k++) {
		for (unsigned i = 0; i < n; i++) {
			t->fr.f[t->fr.n] = t->one_fr.f[i];
			t->fr.f[t->fr.n++].ts_ns += k * span;
		}
		insert_pfc(&t->fr, t->fr.n - n / 2, t->fr.f[t->fr.n - n / 2].ts_ns, 1000,
		           t->pfc[k]);
	}
	assert_true(t->fr.n > 64 * 4096); /* twice the batches a part stays with its thread (32) */
	t->one = analyze(&t->fr, 1, 0);
	return t;
}

/* The tiles through threads lo, lo + step, ... up to hi: each reports what one analyzer does. */
static void tiled_alike(const struct tiled *t, unsigned lo, unsigned hi, unsigned step,
                        const char *how)
{
	for (unsigned threads = lo; threads <= hi; threads += step) {
		char *split = analyze(&t->fr, threads, 0);
		if (strcmp(t->one, split))
			fail_msg("%u threads%s report otherwise than one analyzer", threads, how);
		free(split);
	}
}

static void tiled_free(struct tiled *t)
{
	free(t->one);
	free(t->fr.f);
	free(t->one_fr.f);
	free(t->one_fr.bytes);
	free(t);
}

static void test_many_batches(void **state)
{
	(void)state;
	struct tiled *t = tiled_new();
	tiled_alike(t, 2, 8, 1, "");
	tiled_free(t);
}

/*
 * The frames taken in place from a file's mapping (rt_an_stage_in_place),
 * the pauses' frames not in it (copied), megabytes of it: its pages are
 * released behind the batches made global while the parts read on, and
 * the reports are one analyzer's.
 */
static void test_in_place(void **state)
{
	(void)state;
	struct tiled *t = tiled_new();
	struct frames *fr = &t->fr;
	char path[] = "/tmp/rt-stage-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "wb");
	assert_non_null(fp);
	size_t len = 0;
	for (unsigned i = 0; i < fr->n; i++) {
		if (fr->f[i].seq) { /* the capture's (the pauses' bytes stay where they are) */
			assert_int_equal(fwrite(fr->f[i].data, 1, fr->f[i].caplen, fp),
			                 fr->f[i].caplen);
			len += fr->f[i].caplen;
		}
	}
	assert_int_equal(fclose(fp), 0);
	assert_true(len > (8u << 20)); /* the stage releases 2 MiB at a time */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	uint8_t *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	unlink(path);
	for (unsigned i = 0, at = 0; i < fr->n; i++) {
		if (fr->f[i].seq) {
			fr->f[i].data = map + at;
			at += fr->f[i].caplen;
		}
	}
	fr->map = map;
	fr->map_len = len;
	tiled_alike(t, 2, 5, 3, ", frames in place,");
	munmap(map, len);
	tiled_free(t);
}

/* A sink of buckets that fails at its fail_at-th (0: never); what it was given. */
struct counting_sink {
	unsigned buckets, fail_at;
	uint64_t rows, t_last;
	bool disordered;
};

static int count_bucket(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
                        char *errbuf)
{
	struct counting_sink *c = ctx;
	(void)an;
	c->disordered |= c->buckets && b->t_ns <= c->t_last;
	c->t_last = b->t_ns;
	c->rows += b->nrows;
	if (++c->buckets == c->fail_at) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "sink %u full", c->fail_at);
		return -ENOSPC;
	}
	return 0;
}

static void add_counting_sink(struct rt_analyzer *an, struct counting_sink *c)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_an_sink s = {
	    .bucket_ns = 10 * US, .bucket = count_bucket, .bucket_apart = true, .ctx = c};
	assert_int_equal(rt_analyzer_add_sink(an, &s, errbuf), 0);
}

/*
 * A sink that fails part-way, beside one that does not: from 4 threads the
 * buckets reach them on the output thread; the failing one is given no
 * bucket after its failure, the other every bucket in order, and the
 * analysis ends with the failure, as with one analyzer.
 */
static void test_sink_fails_midway(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct frames fr;
	read_dcqcn(&fr);
	struct counting_sink one = {0};
	for (unsigned threads = 1; threads <= 8; threads++) {
		struct rt_analyzer *an = new_an(0);
		rt_analyzer_one_point(an);
		struct counting_sink bad = {.fail_at = 3}, good = {0};
		add_counting_sink(an, &bad);
		add_counting_sink(an, &good);
		struct rt_an_stage *st = NULL;
		if (threads > 1)
			assert_int_equal(rt_an_stage_start(&st, an, threads, 0, errbuf), 0);
		struct rt_dissect_opts dopts;
		rt_dissect_opts_init(&dopts);
		for (unsigned i = 0; i < fr.n; i++) {
			struct rt_record rec;
			if (st) {
				assert_int_equal(rt_an_stage_frame(st, &fr.f[i]), 0);
				continue;
			}
			rt_dissect(&dopts, &fr.f[i], &rec);
			rt_analyzer_feed_frame(an, &rec, i + 1);
		}
		int rc = st ? rt_an_stage_finish(st, errbuf) : rt_analyzer_finish(an, errbuf);
		assert_int_equal(rc, -ENOSPC);
		assert_string_equal(errbuf, "sink 3 full");
		assert_int_equal(bad.buckets, 3);
		assert_false(good.disordered);
		if (threads == 1)
			one = good;
		assert_true(good.buckets > 10);
		assert_int_equal(good.buckets, one.buckets);
		assert_int_equal(good.rows, one.rows);
		rt_analyzer_free(an);
	}
	free(fr.f);
	free(fr.bytes);
}

/* A stage freed in the middle of a capture (a failure, Ctrl-C): its threads end, nothing is left behind. */
static void test_freed_mid_run(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct frames fr;
	read_dcqcn(&fr);
	for (unsigned threads = 2; threads <= 8; threads++) {
		struct rt_analyzer *an = new_an(0);
		rt_analyzer_one_point(an);
		struct counting_sink sink = {0}; /* from 4 threads: an output thread too */
		add_counting_sink(an, &sink);
		struct rt_an_stage *st = NULL;
		assert_int_equal(rt_an_stage_start(&st, an, threads, 0, errbuf), 0);
		for (unsigned rep = 0; rep < 4; rep++) /* past a batch or more */
			for (unsigned i = 0; i < fr.n; i++)
				assert_int_equal(rt_an_stage_frame(st, &fr.f[i]), 0);
		rt_an_stage_free(st);
		rt_analyzer_free(an);
	}
	free(fr.f);
	free(fr.bytes);
}

/*
 * A bucket's rows in id order both ways: 300 host pairs each send a packet
 * (300 flows), then buckets of two flows far apart in id (0 and 299: the
 * parts' rows merged) and of two neighbours (3 and 4: each row put at its
 * rank), at 2 threads over their default parts and over 64.
 */
#define SPARSE_PAIRS 300u
static void test_sparse_buckets(void **state)
{
	(void)state;
	enum { LATE = 40 };
	static uint8_t bytes[SPARSE_PAIRS + LATE][128];
	struct frames fr = {.f = calloc(SPARSE_PAIRS + LATE, sizeof(*fr.f))};
	assert_non_null(fr.f);
	uint64_t t0 = 1700000000ull * 1000000000ull;
	for (unsigned i = 0; i < SPARSE_PAIRS + LATE; i++) {
		/* the late packets: flows 0 and 299 in even 100 us buckets, 3 and 4 in odd ones */
		unsigned late = i - SPARSE_PAIRS, bucket = late / 4;
		unsigned host = i < SPARSE_PAIRS ? i
		                : bucket % 2     ? 3 + late % 2
		                                 : (late % 2 ? SPARSE_PAIRS - 1 : 0);
		struct rt_build_net net = {.ip_version = 4,
		                           .src_ip = {10, 1, (uint8_t)(host >> 8), (uint8_t)host},
		                           .dst_ip = {10, 2, 0, 1},
		                           .udp_sport = 49152,
		                           .udp_dport = RT_ROCEV2_PORT};
		struct rt_record t = {.opcode = 0x04, /* RC SEND_ONLY */
		                      .pkey = 0xffff,
		                      .dest_qp = 0x100 + host,
		                      .psn = i < SPARSE_PAIRS ? 0 : 1 + late,
		                      .payload_len = 16};
		static const uint8_t payload[16];
		int n = rt_build_frame(&net, &t, payload, bytes[i], sizeof(bytes[i]));
		assert_true(n > 0);
		uint64_t ts = i < SPARSE_PAIRS ? t0 + i * 100ull
		                               : t0 + MS + bucket * 100 * US + late % 4 * US;
		fr.f[fr.n++] = (struct rt_frame){.data = bytes[i],
		                                 .caplen = (uint32_t)n,
		                                 .wirelen = (uint32_t)n,
		                                 .ts_ns = ts,
		                                 .seq = i + 1,
		                                 .linktype = 1};
	}
	char *one = analyze(&fr, 1, 0);
	assert_non_null(strstr(one, "\"flow_count\":300,"));
	static const unsigned runs[][2] = {{2, 0}, {2, 64}, {3, 0}};
	for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		char *split = analyze(&fr, runs[r][0], runs[r][1]);
		if (strcmp(one, split))
			fail_msg("%u threads, %u parts report otherwise than one analyzer",
			         runs[r][0], runs[r][1]);
		free(split);
	}
	free(one);
	free(fr.f);
}

int main(int argc, char **argv)
{
	if (!(scenario_dir = scenario_dir_arg(argc, argv)))
		return 2;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scenarios_alike),        cmocka_unit_test(test_pauses_handed),
	    cmocka_unit_test(test_pause_after_last_frame), cmocka_unit_test(test_many_batches),
	    cmocka_unit_test(test_freed_mid_run),          cmocka_unit_test(test_sink_fails_midway),
	    cmocka_unit_test(test_sparse_buckets),         cmocka_unit_test(test_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

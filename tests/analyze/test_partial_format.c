/* Unit tests of the partial format: every capture's view written and read back alike, cut or foreign files refused, later versions' additions skipped. */
#include <dirent.h>
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

#include "analyze/feed.h"
#include "analyze/partial.h"
#include "analyze/internal.h"
#include "analyze/partial_buckets.h"
#include "analyze/partial_codec.h"
#include "analyzer.h"
#include "capture/pump.h"

/* The source tree (the test's one argument): where the captures are. */
static const char *source_root;
/* A folder of this run's own, for the partials written. */
static char tmpdir[] = "/tmp/rt_partial_XXXXXX";

/* An analyzer fed the files as analyze feeds them (their vantage points followed), finished. */
static struct rt_analyzer *analyze_files(const struct rt_source_file_spec *files, size_t n)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_analyzer_opts o;
	rt_analyzer_opts_init(&o);
	o.link_speed_bps = 100000000000ull;
	o.vantage = true; /* as analyze follows the points of its files */
	o.vantage_clocks = !rt_fileset_one_capture(files, n);
	o.partial = true; /* its time buckets kept, as analyze --partial keeps them */
	struct rt_analyzer *an = new_an_opts(&o);
	assert_int_equal(rt_partial_bucket_sink(an, 100 * US, errbuf), 0);
	struct rt_an_feed *feed;
	assert_int_equal(rt_an_feed_new(&feed, an, 1, errbuf), 0);
	struct rt_source *src;
	if (rt_pump_open_files(&src, files, n, NULL, errbuf) < 0) {
		rt_analyzer_input_error(an, errbuf); /* what the report of such a file says */
	} else {
		struct rt_dissect_opts dopts;
		rt_dissect_opts_init(&dopts);
		struct rt_pump_sink sink;
		rt_an_feed_sink(feed, &sink);
		struct rt_pump_config pc = {.decode = &dopts, .sinks = &sink, .nsinks = 1};
		struct rt_pump_result res;
		if (rt_pump_run(src, &pc, &res, errbuf) < 0)
			rt_analyzer_input_error(an, errbuf);
		rt_source_close(src);
	}
	assert_int_equal(rt_an_feed_finish(feed, errbuf), 0);
	rt_an_feed_free(feed);
	return an;
}

/* The JSON report of a view (caller frees). */
static char *json_of(const struct rt_results *r)
{
	char *text = NULL, errbuf[RT_ERRBUF_SIZE];
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	struct rt_an_sink sink;
	assert_int_equal(rt_an_report_json_sink(fp, &sink, errbuf), 0);
	assert_int_equal(sink.report(sink.ctx, r, errbuf), 0);
	sink.free(sink.ctx);
	assert_int_equal(fclose(fp), 0);
	return text;
}

/* All of a file (caller frees). */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long n = ftell(fp);
	assert_true(n > 0);
	rewind(fp);
	uint8_t *buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* A partial around an analyzer's view (not owned: res NULL), with a few packets of its flows, and of none. */
struct hand {
	struct rt_partial p;
	char *files[2];
	struct rt_partial_packet pk[4];
};

static void hand_made(struct hand *h, struct rt_analyzer *an, const char *file)
{
	const struct rt_results *r = rt_analyzer_results(an);
	memset(h, 0, sizeof(*h));
	h->files[0] = (char *)file;
	h->files[1] = "second file, named as given";
	h->p = (struct rt_partial){.point = "h1",
	                           .nfiles = 2,
	                           .files = h->files,
	                           .sample_k = 1,
	                           .sample_m = 64,
	                           .npackets = 4,
	                           .packets = h->pk,
	                           .r = r,
	                           .buckets = an_pbk_take(an->pk.bk)};
	assert_non_null(h->p.buckets);
	for (unsigned i = 0; i < 4; i++) {
		struct rt_partial_packet *pk = &h->pk[i];
		pk->fp = 0x0123456789abcdefull * (i + 1);
		pk->ts_ns = T0 + i * US;
		pk->flow = r->nflows > i ? i : RT_AN_NONE;
		pk->flags = i % 2 ? RT_PP_CE : RT_PP_SAMPLED | RT_PP_CE;
		pk->ecn = i % 2 ? 3 : 2;
		pk->ttl = (uint8_t)(64 - i);
		pk->ipver = i == 3 ? 6 : 4;
		memset(pk->src, 0x0a + (int)i, pk->ipver == 4 ? 4 : 16);
		memset(pk->dst, 0xc0 + (int)i, pk->ipver == 4 ? 4 : 16);
	}
	h->pk[2].flow = RT_AN_NONE;
}

/* p and q hold the same partial: header fields, packets, the same JSON report byte for byte. */
static void assert_same(const struct rt_partial *p, const struct rt_partial *q, const char *what)
{
	assert_string_equal(p->point, q->point);
	assert_int_equal(p->nfiles, q->nfiles);
	for (unsigned i = 0; i < p->nfiles; i++)
		assert_string_equal(p->files[i], q->files[i]);
	assert_int_equal(p->sample_k, q->sample_k);
	assert_int_equal(p->sample_m, q->sample_m);
	assert_int_equal(p->npackets, q->npackets);
	assert_memory_equal(p->packets, q->packets, p->npackets * sizeof(*p->packets));
	const struct rt_partial_buckets *x = p->buckets, *y = q->buckets;
	assert_true(!x == !y);
	if (x) {
		assert_true(x->len_ns == y->len_ns && x->n == y->n && x->size == y->size);
		assert_true(x->source_log == y->source_log && x->counters == y->counters);
		if (x->size)
			assert_memory_equal(x->data, y->data, x->size);
	}
	char *a = json_of(p->r), *b = json_of(q->r);
	if (strcmp(a, b))
		fail_msg("%s: the JSON report of the partial read back differs", what);
	free(a);
	free(b);
}

/*
 * p written, read back: the same partial, and written again the same bytes (every field the
 * format holds came back); returns the file's bytes (caller frees).
 */
static uint8_t *round_trip(const struct rt_partial *p, const char *what, size_t *len)
{
	char path[256], again[256], errbuf[RT_ERRBUF_SIZE];
	snprintf(path, sizeof(path), "%s/h1.rtpart", tmpdir);
	snprintf(again, sizeof(again), "%s/again.rtpart", tmpdir);
	assert_int_equal(rt_partial_write(p, path, errbuf), 0);
	assert_true(rt_partial_is(path));
	struct rt_partial *q;
	if (rt_partial_read(path, &q, errbuf) < 0)
		fail_msg("%s: %s", what, errbuf);
	assert_non_null(q->res);
	assert_ptr_equal(q->r, (const void *)q->res);
	assert_same(p, q, what);
	assert_int_equal(rt_partial_write(q, again, errbuf), 0);
	rt_partial_free(q);
	size_t n;
	uint8_t *a = slurp(path, len), *b = slurp(again, &n);
	assert_int_equal(*len, n);
	if (memcmp(a, b, n))
		fail_msg("%s: the partial read back writes other bytes", what);
	free(b);
	unlink(again);
	unlink(path);
	return a;
}

/* The captures of one folder of the tree whose names end in `ext`, each analyzed alone and round-tripped. */
static unsigned round_trip_folder(const char *folder, const char *ext)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/%s", source_root, folder);
	DIR *d = opendir(dir);
	assert_non_null(d);
	unsigned n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name), el = strlen(ext);
		if (len <= el || strcmp(e->d_name + len - el, ext))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct rt_source_file_spec f = {.path = path};
		struct rt_analyzer *an = analyze_files(&f, 1);
		struct hand h;
		hand_made(&h, an, path);
		size_t bytes;
		free(round_trip(&h.p, path, &bytes));
		rt_partial_buckets_free(h.p.buckets);
		rt_analyzer_free(an);
		n++;
	}
	closedir(d);
	return n;
}

/* Every capture in the tree: the samples, the rxe captures, the scenarios, the dissector's fixtures. */
/* An item of test_count_bounded's list: one field. */
static void wide_item(struct pc *c, const struct rt_results *r, void *item, uint64_t i)
{
	(void)r;
	(void)i;
	pc_u64(c, item);
}

/*
 * A list's count is refused when what is left cannot hold that many of its
 * shortest records (a 4-byte length and the item's fields), before room for
 * the items is taken: 1e6 empty records in 4 MB would have asked for room
 * for 1e6 items where no item can be read.
 */
static void test_count_bounded(void **state)
{
	(void)state;
	uint64_t n = 1000000;
	size_t len = 8 + 4 * (size_t)n;
	uint8_t *buf = calloc(1, len);
	assert_non_null(buf);
	for (unsigned i = 0; i < 8; i++)
		buf[i] = (uint8_t)(n >> (8 * i));
	struct an_results *res = calloc(1, sizeof(*res));
	assert_non_null(res);
	struct pc c = {.reading = true, .at = buf, .end = buf + len, .res = res, .section = "test"};
	uint64_t got = 0;
	void *items = pc_list(&c, NULL, &got, 4096, UINT32_MAX, "items", wide_item, &res->r);
	assert_null(items);
	assert_int_equal(c.err, -EPROTO);
	assert_non_null(strstr(c.why, "bad count of items"));
	assert_null(res->blocks); /* nothing allocated */
	/* as many records as there are, each with its field: read */
	uint8_t ok[8 + 2 * 12] = {2};
	ok[8] = ok[20] = 8; /* each record's length: its u64 */
	ok[12] = 7;
	struct pc d = {
	    .reading = true, .at = ok, .end = ok + sizeof(ok), .res = res, .section = "t"};
	uint64_t *v = pc_list(&d, NULL, &got, sizeof(uint64_t), 2, "items", wide_item, &res->r);
	assert_int_equal(d.err, 0);
	assert_int_equal(got, 2);
	assert_int_equal(v[0], 7);
	an_results_free(res);
	free(buf);
}

static void test_every_capture(void **state)
{
	(void)state;
	assert_true(round_trip_folder("samples", ".pcap") >= 1);
	assert_true(round_trip_folder("tests/captures", ".pcap") >= 9);
	assert_true(round_trip_folder("tests/analyze/scenarios", ".pcap") >= 11);
	assert_true(round_trip_folder("tests/fixtures", ".pcap") >= 30);
	assert_true(round_trip_folder("tests/fixtures", ".pcapng") >= 1);
}

/* A classic pcap's frames (little-endian, micro- or nanoseconds) `us` microseconds later, in place. */
static void pcap_later(uint8_t *buf, size_t len, uint32_t us)
{
	uint32_t magic = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
	                 (uint32_t)buf[3] << 24;
	assert_true(magic == 0xa1b2c3d4u || magic == 0xa1b23c4du);
	uint64_t unit = magic == 0xa1b2c3d4u ? 1000000 : 1000000000, step = us * (unit / 1000000);
	for (size_t at = 24; at + 16 <= len;) {
		uint64_t sec = 0, frac = 0, caplen = 0;
		for (unsigned i = 0; i < 4; i++) {
			sec |= (uint64_t)buf[at + i] << (8 * i);
			frac |= (uint64_t)buf[at + 4 + i] << (8 * i);
			caplen |= (uint64_t)buf[at + 8 + i] << (8 * i);
		}
		frac += step;
		sec += frac / unit;
		frac %= unit;
		for (unsigned i = 0; i < 4; i++) {
			buf[at + i] = (uint8_t)(sec >> (8 * i));
			buf[at + 4 + i] = (uint8_t)(frac >> (8 * i));
		}
		at += 16 + caplen;
	}
}

/* A file of `text` in the run's folder; its path into path. */
static void side_file(char *path, size_t size, const char *name, const char *text)
{
	snprintf(path, size, "%s/%s", tmpdir, name);
	spit(path, text, strlen(text));
}

/*
 * The sample as two vantage points (paths, losses, followed_at), with side files (counter
 * devices, a flow's source-log figures): the parts of the view one file alone leaves empty.
 */
static void test_vantage_and_side_files(void **state)
{
	(void)state;
	char sample[512], tor[512], spine[512], counters[512], srclog[512], errbuf[RT_ERRBUF_SIZE];
	snprintf(sample, sizeof(sample), "%s/samples/incast.pcap", source_root);
	size_t len;
	uint8_t *bytes = slurp(sample, &len);
	snprintf(tor, sizeof(tor), "%s/tor.pcap", tmpdir);
	snprintf(spine, sizeof(spine), "%s/spine.pcap", tmpdir);
	spit(tor, bytes, len);
	pcap_later(bytes, len, 3); /* the same packets 3 us downstream */
	spit(spine, bytes, len);
	free(bytes);
	struct rt_source_file_spec f[2] = {{.path = tor, .vantage = "tor"},
	                                   {.path = spine, .vantage = "spine"}};
	struct rt_analyzer *an = analyze_files(f, 2);
	const struct rt_results *r = rt_analyzer_results(an);
	assert_true(r->nflows > 0 && r->nvantage == 2);
	side_file(counters, sizeof(counters), "counters.jsonl",
	          "{\"ts\":\"1.0\",\"dev\":\"mlx5_0\",\"port\":1,\"counters\":{\"np_cnp_sent\":5,"
	          "\"rp_cnp_handled\":3,\"rx_prio3_pause\":1}}\n"
	          "{\"ts\":\"2.0\",\"dev\":\"mlx5_0\",\"port\":1,\"counters\":{\"np_cnp_sent\":9,"
	          "\"rp_cnp_handled\":4,\"rx_prio3_pause\":7}}\n");
	char a[64], b[64], log[1024];
	const struct rt_an_flow_key *k = &r->flows[0].key;
	snprintf(a, sizeof(a), "%u.%u.%u.%u", k->src[0], k->src[1], k->src[2], k->src[3]);
	snprintf(b, sizeof(b), "%u.%u.%u.%u", k->dst[0], k->dst[1], k->dst[2], k->dst[3]);
	snprintf(
	    log, sizeof(log),
	    "{\"ts\":\"1.0\",\"event\":\"rate\",\"src\":\"%s\",\"dst\":\"%s\",\"dest_qp\":%u,"
	    "\"rate_mbps\":1000,\"reason\":\"start\"}\n"
	    "{\"ts\":\"1.5\",\"event\":\"rate\",\"src\":\"%s\",\"dst\":\"%s\",\"dest_qp\":%u,"
	    "\"rate_mbps\":500,\"reason\":\"cnp\"}\n"
	    "{\"ts\":\"2.0\",\"event\":\"end\",\"src\":\"%s\",\"dst\":\"%s\",\"dest_qp\":%u,"
	    "\"packets\":10,\"bytes\":1000,\"retransmitted\":0,\"cnp_handled\":1,\"naks\":0}\n",
	    a, b, k->dest_qp, a, b, k->dest_qp, a, b, k->dest_qp);
	side_file(srclog, sizeof(srclog), "source.jsonl", log);
	assert_int_equal(rt_analyzer_load_counters(an, counters, errbuf), 0);
	assert_int_equal(rt_analyzer_load_source_log(an, srclog, errbuf), 0);
	r = rt_analyzer_results(an);
	assert_true(r->npaths > 0 && r->ncounter_devs == 1 && r->flows[0].source);
	assert_non_null(r->flows[0].followed_at);
	struct hand h;
	hand_made(&h, an, sample);
	assert_true(h.p.buckets->n > 0);
	free(round_trip(&h.p, "two vantage points", &len));
	rt_partial_buckets_free(h.p.buckets);
	rt_analyzer_free(an);
	unlink(tor);
	unlink(spine);
	unlink(counters);
	unlink(srclog);
}

/* A small partial's bytes (caller frees) and its view's analyzer (caller frees). */
static uint8_t *small_partial(struct rt_analyzer **an, struct hand *h, size_t *len)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/tests/analyze/scenarios/rnr.pcap", source_root);
	struct rt_source_file_spec f = {.path = path};
	*an = analyze_files(&f, 1);
	hand_made(h, *an, path);
	assert_true(h->p.buckets->n > 0);
	return round_trip(&h->p, path, len);
}

/* Every prefix of a partial is refused, with "truncated" said (the end section is missing). */
static void test_truncated_everywhere(void **state)
{
	(void)state;
	struct rt_analyzer *an;
	struct hand h;
	size_t len;
	uint8_t *buf = small_partial(&an, &h, &len);
	for (size_t k = 0; k < len; k++) {
		struct rt_partial *q = (struct rt_partial *)&h;
		char errbuf[RT_ERRBUF_SIZE] = "";
		int rc = rt_partial_read_mem(buf, k, &q, errbuf);
		if (rc != -EPROTO || q || !strstr(errbuf, "truncated") ||
		    strncmp(errbuf, "partial: ", 9) || strchr(errbuf, '\n'))
			fail_msg("cut at %zu of %zu: %d, \"%s\"", k, len, rc, errbuf);
	}
	struct rt_partial *q;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_partial_read_mem(buf, len, &q, errbuf), 0);
	rt_partial_free(q);
	free(buf);
	rt_partial_buckets_free(h.p.buckets);
	rt_analyzer_free(an);
}

/* The offset of section `tag`'s head (its tag) in a partial, walking the sections from the header. */
static size_t section_at(const uint8_t *buf, size_t len, const char *tag)
{
	size_t at = 12;
	while (at + 12 <= len) {
		uint64_t n = 0;
		for (unsigned i = 0; i < 8; i++)
			n |= (uint64_t)buf[at + 4 + i] << (8 * i);
		if (!memcmp(buf + at, tag, 4))
			return at;
		at += 12 + n;
	}
	fail_msg("no section %s", tag);
	return 0;
}

static void put_le(uint8_t *at, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		at[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *at, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)at[i] << (8 * i);
	return v;
}

/* buf with `n` bytes of `ins` put in at `at` (caller frees). */
static uint8_t *spliced(const uint8_t *buf, size_t len, size_t at, const void *ins, size_t n)
{
	uint8_t *out = malloc(len + n);
	assert_non_null(out);
	memcpy(out, buf, at);
	memcpy(out + at, ins, n);
	memcpy(out + at + n, buf + at, len - at);
	return out;
}

/* buf read back from memory: the partial h holds (the file's name, as read_mem says it, aside). */
static void assert_reads_as(const uint8_t *buf, size_t len, const struct hand *h, const char *what)
{
	struct rt_partial *q;
	char errbuf[RT_ERRBUF_SIZE];
	if (rt_partial_read_mem(buf, len, &q, errbuf) < 0)
		fail_msg("%s: %s", what, errbuf);
	assert_same(&h->p, q, what);
	rt_partial_free(q);
}

/* Another major version is refused naming both; a later version's sections and fields are skipped. */
static void test_versions(void **state)
{
	(void)state;
	struct rt_analyzer *an;
	struct hand h;
	size_t len;
	uint8_t *buf = small_partial(&an, &h, &len);
	char path[512], errbuf[RT_ERRBUF_SIZE];
	struct rt_partial *q;

	/* version 2 */
	snprintf(path, sizeof(path), "%s/h1.rtpart", tmpdir);
	put_le(buf + 8, 2, 4);
	spit(path, buf, len);
	assert_int_equal(rt_partial_read(path, &q, errbuf), -EPROTO);
	char want[600];
	snprintf(want, sizeof(want), "%s: partial format version 2; this rocetrace reads version 1",
	         path);
	assert_string_equal(errbuf, want);
	put_le(buf + 8, 1, 4);
	unlink(path);

	/* an unknown section before the totals, another before the end */
	const uint8_t unknown[] = {'Z', 'Z', 'Z', 'Z', 5, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5};
	uint8_t *a = spliced(buf, len, section_at(buf, len, "TOTL"), unknown, sizeof(unknown));
	uint8_t *b = spliced(a, len + sizeof(unknown), section_at(a, len + sizeof(unknown), "END "),
	                     unknown, sizeof(unknown));
	assert_reads_as(b, len + 2 * sizeof(unknown), &h, "unknown sections");
	free(a);
	free(b);

	/* fields after the known ones: at the end of the totals, and of the first flow's record */
	const uint8_t more[7] = {9, 9, 9, 9, 9, 9, 9};
	size_t totl = section_at(buf, len, "TOTL");
	uint64_t n = get_le(buf + totl + 4, 8);
	a = spliced(buf, len, totl + 12 + n, more, sizeof(more));
	put_le(a + totl + 4, n + sizeof(more), 8);
	size_t flow = section_at(a, len + 7, "FLOW"), rec = flow + 12 + 8;
	uint64_t fl = get_le(a + flow + 4, 8), rl = get_le(a + rec, 4);
	assert_true(h.p.r->nflows > 0);
	b = spliced(a, len + 7, rec + 4 + rl, more, 3);
	put_le(b + flow + 4, fl + 3, 8);
	put_le(b + rec, rl + 3, 4);
	assert_reads_as(b, len + 10, &h, "trailing fields");
	free(a);
	free(b);
	free(buf);
	rt_partial_buckets_free(h.p.buckets);
	rt_analyzer_free(an);
}

/* buf with its first packet's byte `off` set to v, read: refused with `want` in the message. */
static void assert_packet_refused(uint8_t *buf, size_t len, size_t off, uint8_t v, const char *want)
{
	size_t pk = section_at(buf, len, "PKTS") + 12 + 12;
	uint8_t was = buf[pk + off];
	buf[pk + off] = v;
	struct rt_partial *q;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_partial_read_mem(buf, len, &q, errbuf), -EPROTO);
	assert_null(q);
	if (!strstr(errbuf, want))
		fail_msg("\"%s\" does not say \"%s\"", errbuf, want);
	buf[pk + off] = was;
}

/* Indexes and values out of range, sections out of order, a foreign file: refused, one line each. */
static void test_inconsistent(void **state)
{
	(void)state;
	struct rt_analyzer *an;
	struct hand h;
	size_t len;
	uint8_t *buf = small_partial(&an, &h, &len);
	assert_packet_refused(buf, len, 16, 0xfe, "bad packet's flow id in section packets");
	assert_packet_refused(buf, len, 21, 4, "bad packet's ECN in section packets");
	assert_packet_refused(buf, len, 23, 5, "bad packet's IP version in section packets");
	struct rt_partial *q;
	char errbuf[RT_ERRBUF_SIZE];
	/* the warnings' section where the totals' belongs */
	size_t totl = section_at(buf, len, "TOTL");
	memcpy(buf + totl, "WARN", 4);
	assert_int_equal(rt_partial_read_mem(buf, len, &q, errbuf), -EPROTO);
	assert_string_equal(errbuf, "partial: section warnings where section totals belongs");
	memcpy(buf + totl, "TOTL", 4);
	/* bytes after the end */
	uint8_t *more = spliced(buf, len, len, "x", 1);
	assert_int_equal(rt_partial_read_mem(more, len + 1, &q, errbuf), -EPROTO);
	assert_string_equal(errbuf, "partial: bytes after the end section");
	free(more);
	/* not a partial */
	assert_int_equal(rt_partial_read_mem("\xd4\xc3\xb2\xa1 a pcap", 10, &q, errbuf), -EPROTO);
	assert_string_equal(errbuf, "partial: not a rocetrace partial (no RTPART magic)");
	char path[512];
	snprintf(path, sizeof(path), "%s/tests/analyze/scenarios/pause.pcap", source_root);
	assert_false(rt_partial_is(path));
	assert_int_equal(rt_partial_read("/nonexistent/h1.rtpart", &q, errbuf), -ENOENT);
	assert_non_null(strstr(errbuf, "/nonexistent/h1.rtpart"));
	free(buf);
	rt_partial_buckets_free(h.p.buckets);
	rt_analyzer_free(an);
}

/* The fuzz target's seeds (a second argument: their folder): two small real partials. */
static void write_seeds(void **state)
{
	const char *dir = *state;
	const char *captures[] = {"tests/analyze/scenarios/pause.pcap",
	                          "tests/captures/rxe_pingpong_rc.pcap"};
	for (unsigned i = 0; i < 2; i++) {
		char path[512], out[512], errbuf[RT_ERRBUF_SIZE];
		snprintf(path, sizeof(path), "%s/%s", source_root, captures[i]);
		snprintf(out, sizeof(out), "%s/seed%u.rtpart", dir, i + 1);
		struct rt_source_file_spec f = {.path = path};
		struct rt_analyzer *an = analyze_files(&f, 1);
		struct hand h;
		hand_made(&h, an, captures[i]);
		if (rt_partial_write(&h.p, out, errbuf) < 0)
			fail_msg("%s", errbuf);
		rt_partial_buckets_free(h.p.buckets);
		rt_analyzer_free(an);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SOURCE_ROOT [SEED_DIR]\n", argv[0]);
		return 2;
	}
	source_root = argv[1];
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest seeds[] = {
	    cmocka_unit_test_prestate(write_seeds, argc > 2 ? argv[2] : NULL)};
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_capture),
	    cmocka_unit_test(test_vantage_and_side_files),
	    cmocka_unit_test(test_truncated_everywhere),
	    cmocka_unit_test(test_versions),
	    cmocka_unit_test(test_inconsistent),
	    cmocka_unit_test(test_count_bounded),
	};
	int rc = argc > 2 ? cmocka_run_group_tests(seeds, NULL, NULL)
	                  : cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(tmpdir);
	return rc;
}

/* Unit tests of a partial's time buckets: LEB128 bounds, the section's checks, and the merge of two points' buckets by the home rule. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/flowsel.h"
#include "analyze/internal.h"
#include "analyze/partial.h"
#include "analyze/partial_buckets.h"

#define US 1000ull

/* v read from n bytes: 0 and *got, or the walk's failure. */
static int varint_in(const uint8_t *bytes, size_t n, uint64_t *got)
{
	struct pc c = {.reading = true, .at = bytes, .end = bytes + n, .section = "t"};
	pc_varint(&c, got);
	return c.err ? c.err : c.at == c.end ? 0 : -EINVAL;
}

/* LEB128: each value written in its fewest bytes reads back; 11 bytes, bits past 64, extra bytes refused. */
static void test_varint_bounds(void **state)
{
	(void)state;
	const uint64_t values[] = {0,         1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX / 2,
	                           UINT64_MAX};
	const size_t sizes[] = {1, 1, 1, 2, 2, 3, 5, 9, 10};
	for (unsigned i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		struct pc w = {.reading = false};
		uint64_t v = values[i], got = 0;
		pc_varint(&w, &v);
		assert_int_equal(w.len, sizes[i]);
		assert_int_equal(varint_in(w.buf, w.len, &got), 0);
		assert_true(got == values[i]);
		free(w.buf);
	}
	uint64_t got;
	const uint8_t eleven[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	                            0xff, 0xff, 0xff, 0x81, 0x01};
	assert_int_equal(varint_in(eleven, 11, &got), -EPROTO);
	const uint8_t past64[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	assert_int_equal(varint_in(past64, 10, &got), -EPROTO);
	const uint8_t longer[2] = {0x85, 0x00}; /* 5 in two bytes */
	assert_int_equal(varint_in(longer, 2, &got), -EPROTO);
	const uint8_t cut[2] = {0x85, 0x85};
	assert_int_equal(varint_in(cut, 2, &got), -EPROTO);
}

/* An analyzer that keeps a partial's buckets of len ns, and its collecting sink. */
static struct rt_analyzer *collector(uint64_t len)
{
	struct rt_analyzer_opts o;
	char eb[RT_ERRBUF_SIZE];
	rt_analyzer_opts_init(&o);
	o.partial = true;
	struct rt_analyzer *an = rt_analyzer_new(&o, eb);
	assert_non_null(an);
	assert_int_equal(rt_partial_bucket_sink(an, len, eb), 0);
	return an;
}

/* Bucket b handed to an's collecting sink: its return. */
static int collect(struct rt_analyzer *an, const struct rt_an_bucket *b)
{
	char eb[RT_ERRBUF_SIZE];
	return an->sinks.s[0].bucket(an->sinks.s[0].ctx, an, b, eb);
}

/* The section's content of b read back against nflows flows: 0 or the failure (why: its message). */
static int section_in(const struct rt_partial_buckets *b, uint32_t nflows, char *why)
{
	struct pc w = {.reading = false, .section = "buckets"};
	struct rt_partial p = {.buckets = (struct rt_partial_buckets *)b}, q = {0};
	pc_buckets(&w, &p, nflows);
	assert_int_equal(w.err, 0);
	struct pc c = {.reading = true, .at = w.buf, .end = w.buf + w.len, .section = "buckets"};
	pc_buckets(&c, &q, nflows);
	snprintf(why, RT_ERRBUF_SIZE, "%s", c.why);
	if (!c.err) {
		assert_int_equal(q.buckets->size, b->size);
		assert_memory_equal(q.buckets->data, b->data, b->size);
	}
	rt_partial_buckets_free(q.buckets);
	free(w.buf);
	return c.err;
}

/* What the section refuses: a row naming no flow of the view, buckets out of time order, a length out of bounds, rows out of id order. */
static void test_section_checks(void **state)
{
	(void)state;
	struct rt_analyzer *an = collector(10 * US);
	struct rt_an_flow_row rows[2] = {{.id = 0, .d.packets = 1}, {.id = 3, .d.packets = 2}};
	struct rt_an_bucket b = {.t_ns = 100 * US, .len_ns = 10 * US, .nrows = 2, .rows = rows};
	b.all.packets = 3;
	assert_int_equal(collect(an, &b), 0);
	b.t_ns = 100 * US; /* the same bucket again: refused writing */
	assert_int_equal(collect(an, &b), -EINVAL);
	struct rt_partial_buckets *k = an_pbk_take(an->pk.bk);
	assert_int_equal(k->n, 1);
	char why[RT_ERRBUF_SIZE];
	assert_int_equal(section_in(k, 4, why), 0);
	assert_int_equal(section_in(k, 3, why), -EPROTO);
	assert_string_equal(why, "bad row's flow id in section buckets");
	rt_partial_buckets_free(k);
	rt_analyzer_free(an);
	/* a second bucket whose step is 0: not after the first */
	uint8_t data[] = {9, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, /* index 5, nothing, no rows */
	                  9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	struct rt_partial_buckets bad = {.len_ns = 100, .n = 2, .data = data, .size = sizeof(data)};
	assert_int_equal(section_in(&bad, 1, why), -EPROTO);
	assert_string_equal(why, "bad bucket's time in section buckets");
	data[17] = 1; /* index 6: read */
	assert_int_equal(section_in(&bad, 1, why), 0);
	data[24] = 1; /* a row where none can be */
	assert_int_equal(section_in(&bad, 1, why), -EPROTO);
	/* a length beyond 100 ns .. 1e6 s: refused (written too: the writer checks as the reader) */
	data[24] = 0;
	for (unsigned i = 0; i < 2; i++) {
		bad.len_ns = i ? RT_AN_BUCKET_MAX_NS + 1 : RT_AN_BUCKET_MIN_NS - 1;
		struct pc w = {.reading = false, .section = "buckets"};
		struct rt_partial p = {.buckets = &bad};
		pc_buckets(&w, &p, 1);
		assert_int_equal(w.err, -EPROTO);
		assert_string_equal(w.why, "bad bucket length in section buckets");
		free(w.buf);
	}
	/* rows out of id order: refused writing */
	an = collector(10 * US);
	rows[1].id = 0;
	assert_int_equal(collect(an, &b), -EINVAL);
	rt_analyzer_free(an);
}

/* ---- the merge ---- */

static const struct rt_an_flow_key K0 = {
    .src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2}, .dest_qp = 0x11, .ipver = 4};
static const struct rt_an_flow_key K1 = {
    .src = {10, 0, 0, 3}, .dst = {10, 0, 0, 2}, .dest_qp = 0x22, .ipver = 4};

/* Buckets of len ns encoded as a partial keeps them. */
static struct rt_partial_buckets *encoded(uint64_t len, const struct rt_an_bucket *b, unsigned n)
{
	struct rt_analyzer *an = collector(len);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(collect(an, &b[i]), 0);
	struct rt_partial_buckets *k = an_pbk_take(an->pk.bk);
	rt_analyzer_free(an);
	return k;
}

/* The merged buckets handed over, copied. */
struct got {
	unsigned n;
	struct rt_an_bucket b[4];
	struct rt_an_flow_row rows[4][4];
};

static int take(void *ctx, const struct rt_an_bucket *b)
{
	struct got *g = ctx;
	assert_true(g->n < 4 && b->nrows <= 4);
	g->b[g->n] = *b;
	memcpy(g->rows[g->n], b->rows, b->nrows * sizeof(*b->rows));
	g->b[g->n].rows = g->rows[g->n];
	g->n++;
	return 0;
}

/*
 * Two points: a (10 us buckets) sees flows K1 (its id 0) and K0 (id 1), b
 * (20 us buckets) sees K1. The merged view: K0 (id 0) at home a, K1 (id 1)
 * at home b. Point a saw a packet of K1 CE-marked that b saw not marked, and
 * a CNP of K1 that b counted too; then b's capture without that CNP.
 */
static void test_merge_home_rule(void **state)
{
	(void)state;
	struct rt_res_flow fa[2] = {{.key = K1, .id = 0}, {.key = K0, .id = 1}},
	                   fb[1] = {{.key = K1}};
	struct rt_res_flow fm[2] = {{.key = K0, .id = 0, .selected = true, .followed_at = "a"},
	                            {.key = K1, .id = 1, .selected = true, .followed_at = "b"}};
	struct rt_results ra = {.nflows = 2, .flows = fa}, rb = {.nflows = 1, .flows = fb};
	struct rt_results rm = {.nflows = 2, .flows = fm};
	struct rt_an_flow_row a0[2] = {{.id = 0, .d = {.packets = 2, .bytes = 200, .ce = 1}},
	                               {.id = 1, .d = {.packets = 3, .bytes = 300, .nak = 1}}};
	struct rt_an_flow_row a1[1] = {{.id = 1, .d = {.packets = 1, .bytes = 100}}};
	struct rt_an_bucket ba[2] = {
	    {.t_ns = 1000 * US, .len_ns = 10 * US, .nrows = 2, .rows = a0},
	    {.t_ns = 1010 * US, .len_ns = 10 * US, .nrows = 1, .rows = a1}};
	ba[0].all = (struct rt_an_delta){.packets = 6, .bytes = 650, .ce = 1, .cnp = 1, .nak = 1};
	ba[1].all = (struct rt_an_delta){.packets = 1, .bytes = 100};
	ba[1].pfc_xoff[3] = 2;
	struct rt_an_flow_row b0[1] = {{.id = 0, .d = {.packets = 2, .bytes = 200}}};
	struct rt_an_bucket bb[1] = {
	    {.t_ns = 1000 * US, .len_ns = 20 * US, .nrows = 1, .rows = b0}};
	bb[0].all = (struct rt_an_delta){.packets = 3, .bytes = 250, .cnp = 1};
	struct rt_partial_packet pk[2] = {
	    {.fp = 77, .ts_ns = 1004 * US, .flow = 0, .flags = RT_PP_CE},
	    {.fp = 78, .ts_ns = 1006 * US, .flow = 0, .flags = RT_PP_CNP}};
	struct rt_partial pa = {.point = "a",
	                        .r = &ra,
	                        .npackets = 2,
	                        .packets = pk,
	                        .buckets = encoded(10 * US, ba, 2)};
	struct rt_partial_packet pkb = {
	    .fp = 78, .ts_ns = 1001 * US, .flow = 0, .flags = RT_PP_CNP};
	struct rt_partial pb = {.point = "b",
	                        .r = &rb,
	                        .npackets = 1,
	                        .packets = &pkb,
	                        .buckets = encoded(20 * US, bb, 1)};
	struct rt_partial *p[2] = {&pa, &pb};
	char eb[RT_ERRBUF_SIZE];
	struct got g = {0};
	assert_int_equal(rt_partials_buckets(p, 2, &rm, 20 * US, NULL, take, &g, eb), 0);
	assert_int_equal(g.n, 1);
	const struct rt_an_bucket *m = &g.b[0];
	assert_int_equal(m->t_ns, 1000 * US);
	/* every frame at its point; the RoCE counts of the home rows, the rest outside them */
	assert_int_equal(m->all.packets, 6 + 1 + 3);
	assert_int_equal(m->all.bytes, 650 + 100 + 250);
	assert_int_equal(m->all.ce, 1);  /* a's mark, on K1 whose home (b) saw it not marked */
	assert_int_equal(m->all.cnp, 1); /* the CNP once: at its flow's home */
	assert_int_equal(m->all.nak, 1);
	assert_int_equal(m->pfc_xoff[3], 2);
	assert_int_equal(m->nrows, 2);
	assert_int_equal(m->rows[0].id, 0); /* K0 from a: both its buckets */
	assert_int_equal(m->rows[0].d.packets, 4);
	assert_int_equal(m->rows[0].d.nak, 1);
	assert_int_equal(m->rows[1].id, 1); /* K1 from b, a's mark added */
	assert_int_equal(m->rows[1].d.packets, 2);
	assert_int_equal(m->rows[1].d.ce, 1);
	assert_true(m->rows[0].selected && m->rows[1].selected);
	/* --flow picks the rows: K1's sender */
	struct rt_flowsel_set sel;
	assert_int_equal(rt_flowsel_set_parse(&sel, "10.0.0.3"), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(rt_partials_buckets(p, 2, &rm, 40 * US, &sel, take, &g, eb), 0);
	assert_int_equal(g.n, 1);
	assert_false(g.rows[0][0].selected);
	assert_true(g.rows[0][1].selected);
	/* b missed the CNP: a's copy counts, once */
	rt_partial_buckets_free(pb.buckets);
	bb[0].all.cnp = 0;
	pb.buckets = encoded(20 * US, bb, 1);
	pb.npackets = 0;
	memset(&g, 0, sizeof(g));
	assert_int_equal(rt_partials_buckets(p, 2, &rm, 20 * US, NULL, take, &g, eb), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.b[0].all.cnp, 1);
	/* lengths: a multiple of each, else refused naming theirs; the default a 1-2-5 multiple */
	uint64_t len;
	assert_int_equal(rt_partials_bucket_len(p, 2, 30 * US, 0, &len, eb), -EINVAL);
	assert_string_equal(eb,
	                    "--bucket 30.0 us is not a multiple of the partials' buckets (10.0 us "
	                    "at a, 20.0 us at b): give a multiple of each");
	assert_int_equal(rt_partials_bucket_len(p, 2, 60 * US, 0, &len, eb), 0);
	assert_int_equal(len, 60 * US);
	assert_int_equal(rt_partials_bucket_len(p, 2, 0, 15 * US, &len, eb), 0);
	assert_int_equal(len, 20 * US);
	assert_int_equal(rt_partials_bucket_len(p, 2, 0, 25 * US, &len, eb), 0);
	assert_int_equal(len, 100 * US);
	assert_int_equal(rt_partials_buckets(p, 2, &rm, 30 * US, NULL, take, &g, eb), -EINVAL);
	rt_partial_buckets_free(pb.buckets);
	pb.buckets = NULL;
	assert_int_equal(rt_partials_bucket_len(p, 2, 0, 15 * US, &len, eb), -EINVAL);
	assert_non_null(strstr(eb, "point b holds no time buckets"));
	rt_partial_buckets_free(pa.buckets);
}

/*
 * Lengths with no common multiple in 64 bits (two near 10^15 ns, coprime),
 * then a partial of an older writer (no buckets): each partial is asked for
 * its buckets before their multiple is sought, so the third is named, not
 * dereferenced.
 */
static void test_len_without_buckets(void **state)
{
	(void)state;
	struct rt_results r = {0};
	struct rt_partial_buckets b1 = {.len_ns = 999999999999989ull},
	                          b2 = {.len_ns = 999999999999947ull};
	struct rt_partial pa = {.point = "a", .r = &r, .buckets = &b1},
	                  pb = {.point = "b", .r = &r, .buckets = &b2},
	                  pc = {.point = "c", .r = &r};
	struct rt_partial *p[3] = {&pa, &pb, &pc};
	char eb[RT_ERRBUF_SIZE];
	uint64_t len = 0;
	assert_int_equal(rt_partials_bucket_len(p, 3, 0, 1000, &len, eb), -EINVAL);
	assert_non_null(strstr(eb, "point c holds no time buckets"));
	assert_int_equal(rt_partials_bucket_len(p, 3, 1000000000000000ull, 0, &len, eb), -EINVAL);
	assert_non_null(strstr(eb, "point c holds no time buckets"));
	pc.buckets = &b1; /* all three have buckets: no multiple, said */
	assert_int_equal(rt_partials_bucket_len(p, 3, 0, 1000, &len, eb), -EINVAL);
	assert_non_null(strstr(eb, "have no common multiple"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_varint_bounds),
	    cmocka_unit_test(test_section_checks),
	    cmocka_unit_test(test_merge_home_rule),
	    cmocka_unit_test(test_len_without_buckets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

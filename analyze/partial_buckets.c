/* A partial's time buckets (section BUCK, docs/PARTIAL.md): one walk that encodes a bucket or reads it back, the sink that collects them, the section. */
#include "analyze/partial_buckets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"

/* The fewest bytes of a bucket's record: its length, index, six counts, PFC mask, rows' count. */
#define BUCKET_MIN_BYTES (4 + 1 + 6 + 1 + 1)
/* The fewest bytes of a row: its id, flags and eight counts. */
#define ROW_MIN_BYTES 10
/* rt_an_flow_row flags as the format writes them */
#define ROW_SELECTED   1u
#define ROW_RATE_KNOWN 2u

/* Reading: room for n rows. False when out of memory (the walk failed). */
static bool rows_room(struct pc *c, struct an_pbk_walk *w, uint64_t n)
{
	if (n <= w->cap)
		return true;
	uint32_t cap = w->cap ? w->cap : 64;
	while (cap < n)
		cap *= 2;
	struct rt_an_flow_row *r = realloc(w->rows, (size_t)cap * sizeof(*r));
	if (!r) {
		pc_fail(c, ENOMEM, "out of memory");
		return false;
	}
	w->rows = r;
	w->cap = cap;
	return true;
}

/* One row; *prev: the previous row's id + 1 (0: the first), ids increasing. */
static void walk_row(struct pc *c, const struct an_pbk_walk *w, struct rt_an_flow_row *r,
                     uint64_t *prev)
{
	if (!c->reading && *prev && r->id < *prev) {
		pc_fail(c, EINVAL, "a bucket's rows are not in flow id order");
		return;
	}
	uint64_t step = c->reading ? 0 : r->id - (*prev ? *prev : 0);
	pc_varint(c, &step);
	if (c->reading) {
		uint64_t id = (*prev ? *prev : 0) + step;
		pc_check(c, id >= step && id < w->nflows, "row's flow id");
		r->id = (uint32_t)id;
	}
	*prev = (uint64_t)r->id + 1;
	uint8_t flags = (uint8_t)((r->selected ? ROW_SELECTED : 0) |
	                          (w->source_log && r->source_rate_known ? ROW_RATE_KNOWN : 0));
	pc_u8(c, &flags);
	pc_check(c, flags <= (w->source_log ? 3 : 1), "row's flags");
	if (c->reading) {
		r->selected = flags & ROW_SELECTED;
		r->source_rate_known = (flags & ROW_RATE_KNOWN) != 0;
	}
	uint64_t *v[] = {&r->d.packets, &r->d.bytes,         &r->d.ce,        &r->d.cnp,
	                 &r->d.nak,     &r->d.retransmitted, &r->rtt_samples, &r->rtt_sum_ns};
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		pc_varint(c, v[i]);
	if (!w->source_log)
		return;
	if (flags & ROW_RATE_KNOWN)
		pc_f64(c, &r->source_rate_mbps);
	pc_varint(c, &r->source_cnp);
}

/* The bucket's start as its index, after the previous bucket's (writing: b's; reading: into b). */
static void walk_time(struct pc *c, struct an_pbk_walk *w, struct rt_an_bucket *b)
{
	uint64_t idx = c->reading ? 0 : b->t_ns / w->len;
	if (!c->reading && (b->len_ns != w->len || (w->any && idx <= w->last))) {
		pc_fail(c, EINVAL, "buckets of another length, or out of time order");
		return;
	}
	uint64_t step = c->reading ? 0 : w->any ? idx - w->last : idx;
	pc_varint(c, &step);
	if (c->reading) {
		idx = w->any ? w->last + step : step;
		pc_check(c, (!w->any || step >= 1) && idx >= step && idx <= UINT64_MAX / w->len,
		         "bucket's time");
		b->t_ns = idx * w->len;
		b->len_ns = w->len;
	}
	w->last = idx;
	w->any = true;
}

/* One bucket's fields (its record opened by the caller). */
static void walk_bucket(struct pc *c, struct an_pbk_walk *w, struct rt_an_bucket *b)
{
	walk_time(c, w, b);
	uint64_t *all[] = {&b->all.packets, &b->all.bytes, &b->all.ce,
	                   &b->all.cnp,     &b->all.nak,   &b->all.retransmitted};
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		pc_varint(c, all[i]);
	/* the PFC classes with something in the bucket: a bit each, then theirs */
	uint64_t mask = 0;
	for (unsigned k = 0; !c->reading && k < RT_AN_PFC_CLASSES; k++)
		mask |= (uint64_t)(b->pfc_xoff[k] || b->pfc_paused_ns[k]) << k;
	pc_varint(c, &mask);
	pc_check(c, mask < 1u << RT_AN_PFC_CLASSES, "bucket's PFC classes");
	for (unsigned k = 0; k < RT_AN_PFC_CLASSES; k++)
		if (mask >> k & 1) {
			pc_varint(c, &b->pfc_xoff[k]);
			pc_varint(c, &b->pfc_paused_ns[k]);
		}
	b->source_log = w->source_log;
	b->counters = w->counters;
	if (w->source_log)
		pc_varint(c, &b->source_cnp);
	if (w->counters) {
		pc_f64(c, &b->nic_cnp_sent);
		pc_f64(c, &b->nic_cnp_handled);
		pc_f64(c, &b->nic_pause_frames);
	}
	uint64_t n = b->nrows;
	pc_varint(c, &n);
	struct rt_an_flow_row *rows = (struct rt_an_flow_row *)b->rows;
	if (c->reading) {
		pc_check(c, n <= w->nflows && n <= (uint64_t)(c->end - c->at) / ROW_MIN_BYTES,
		         "bucket's count of rows");
		if (c->err || !rows_room(c, w, n))
			return;
		rows = w->rows;
		if (n)
			memset(rows, 0, (size_t)n * sizeof(*rows));
		b->rows = rows;
		b->nrows = (uint32_t)n;
	}
	uint64_t prev = 0;
	for (uint64_t i = 0; i < n && !c->err; i++)
		walk_row(c, w, &rows[i], &prev);
}

/* ---- decoding, one bucket at a time ---- */

void an_pbk_iter_init(struct an_pbk_iter *it, const struct rt_partial_buckets *b, uint32_t nflows)
{
	memset(it, 0, sizeof(*it));
	const uint8_t *d = b->data ? b->data : (const uint8_t *)"";
	it->c = (struct pc){.reading = true, .at = d, .end = d + b->size, .section = "buckets"};
	it->w = (struct an_pbk_walk){.len = b->len_ns,
	                             .source_log = b->source_log,
	                             .counters = b->counters,
	                             .nflows = nflows};
	it->left = b->n;
}

int an_pbk_next(struct an_pbk_iter *it, struct rt_an_bucket *out)
{
	if (it->c.err)
		return it->c.err;
	if (!it->left)
		return 0;
	memset(out, 0, sizeof(*out));
	struct pc_mark m;
	pc_open(&it->c, &m);
	walk_bucket(&it->c, &it->w, out);
	pc_close(&it->c, &m);
	it->left--;
	return it->c.err ? it->c.err : 1;
}

void an_pbk_iter_free(struct an_pbk_iter *it)
{
	free(it->w.rows);
	it->w.rows = NULL;
}

/* ---- the section ---- */

void pc_buckets(struct pc *c, struct rt_partial *p, uint32_t nflows)
{
	struct rt_partial_buckets *b = c->reading ? calloc(1, sizeof(*b)) : p->buckets;
	if (!b) {
		pc_fail(c, ENOMEM, "out of memory");
		return;
	}
	if (c->reading)
		p->buckets = b;
	pc_u64(c, &b->len_ns);
	pc_check(c, b->len_ns >= RT_AN_BUCKET_MIN_NS && b->len_ns <= RT_AN_BUCKET_MAX_NS,
	         "bucket length");
	pc_bool(c, &b->source_log);
	pc_bool(c, &b->counters);
	pc_count(c, &b->n, UINT64_MAX, BUCKET_MIN_BYTES, "buckets");
	if (!c->reading) {
		if (b->size)
			pc_bytes(c, b->data, b->size);
		return;
	}
	/* each record checked as the iterator will read it, then the records kept as they are */
	struct an_pbk_iter it;
	an_pbk_iter_init(&it, b, nflows);
	it.c.at = c->at;
	it.c.end = c->end;
	struct rt_an_bucket one;
	int rc;
	while ((rc = an_pbk_next(&it, &one)) > 0)
		;
	an_pbk_iter_free(&it);
	if (rc < 0) {
		pc_fail(c, -rc, "%s", it.c.why);
		return;
	}
	b->size = (size_t)(it.c.at - c->at);
	if (!(b->data = malloc(b->size ? b->size : 1))) {
		pc_fail(c, ENOMEM, "out of memory");
		return;
	}
	memcpy(b->data, c->at, b->size);
	c->at = it.c.at;
}

void rt_partial_buckets_free(struct rt_partial_buckets *b)
{
	if (!b)
		return;
	free(b->data);
	free(b);
}

/* ---- collecting them from the analyzer ---- */

struct an_pbk {
	struct pc c; /* writing: the records so far */
	struct an_pbk_walk w;
	uint64_t n;
	bool columns_known; /* the first bucket said its side-file columns */
	const struct rt_analyzer *an;
};

static int collect(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
                   char *errbuf)
{
	struct an_pbk *k = ctx;
	(void)an;
	if (!k->columns_known) {
		k->w.source_log = b->source_log;
		k->w.counters = b->counters;
		k->columns_known = true;
	}
	struct rt_an_bucket copy = *b; /* writing, the walk only reads it */
	struct pc_mark m;
	pc_open(&k->c, &m);
	walk_bucket(&k->c, &k->w, &copy);
	pc_close(&k->c, &m);
	if (k->c.err) {
		k->c.len = m.off; /* the records before it stay whole */
		return rt_errmsg(errbuf, -k->c.err, "the partial's buckets: %s", k->c.why);
	}
	k->n++;
	return 0;
}

static void collector_free(void *ctx)
{
	struct an_pbk *k = ctx;
	free(k->c.buf);
	free(k);
}

int rt_partial_bucket_sink(struct rt_analyzer *an, uint64_t bucket_ns, char *errbuf)
{
	if (!an->pk.on || bucket_ns < RT_AN_BUCKET_MIN_NS || bucket_ns > RT_AN_BUCKET_MAX_NS)
		return rt_errmsg(errbuf, EINVAL,
		                 "a partial's buckets: the analysis keeps no partial, or a length "
		                 "beyond 100 ns to 1e6 s");
	struct an_pbk *k = calloc(1, sizeof(*k));
	if (!k)
		return rt_errorf(errbuf, ENOMEM, "the partial's buckets");
	k->c.reading = false;
	k->c.section = "buckets";
	k->w.len = bucket_ns;
	k->an = an;
	struct rt_an_sink s = {
	    .bucket_ns = bucket_ns, .bucket = collect, .free = collector_free, .ctx = k};
	int rc = rt_analyzer_add_sink(an, &s, errbuf);
	if (rc == 0)
		an->pk.bk = k;
	return rc;
}

struct rt_partial_buckets *an_pbk_take(struct an_pbk *k)
{
	struct rt_partial_buckets *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (!k->columns_known)
		rt_analyzer_bucket_columns(k->an, &k->w.source_log, &k->w.counters);
	*b = (struct rt_partial_buckets){.len_ns = k->w.len,
	                                 .source_log = k->w.source_log,
	                                 .counters = k->w.counters,
	                                 .n = k->n,
	                                 .data = k->c.buf,
	                                 .size = k->c.len};
	k->c.buf = NULL;
	k->c.len = k->c.cap = 0;
	k->n = 0;
	return b;
}

/* Timeline sink: per-bucket rows for each active flow plus an "all" row, zero rows around idle stretches, as CSV or JSON Lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/results.h"
#include "common/textfmt.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "render/sinks.h"

/*
 * Idle stretches (analyze/README.md, Timeline): a flow gets a zero row in
 * the bucket after its last row with counts and in the bucket before its
 * next one; a stretch of buckets with nothing in them gets zero 'all' rows
 * at its first and its last bucket. A bucket's 'all' row is held until the
 * next bucket comes, so the zero rows that open a flow's next stretch come
 * before it.
 */
struct timeline {
	struct rt_outbuf own; /* its output, unless it shares one */
	struct rt_outbuf *o;
	struct rt_an_timeline_opts opt;
	bool header_done, source_log, counters;
	/* by vantage point: the output the points share, this one's point and name (as last known) */
	struct vshared *vs;
	unsigned point;
	char vname[320];
	bool any;      /* a bucket came */
	uint64_t prev; /* its number (t_ns / bucket) */
	/* selected flows with counts in that bucket, and in this one (ids, ascending) */
	uint32_t *prev_ids, *ids, nprev, nids, cap_ids;
	uint32_t *zeros, nzeros, cap_zeros; /* flows that get a zero row (scratch) */
	uint64_t *last; /* by flow id: 1 + number of the bucket of its latest row, 0 none */
	uint32_t cap_last;
	/* by flow id (cap_last of them): where the end of its rows lies in `tails` (its length, then
	 * ",src,dst,dest_qp,flow_id,dest_qp_hex\n"), 0 not made yet; made at its first row */
	uint32_t *tail;
	char *tails;
	size_t ntails, cap_tails;
	/* the 'all' row held back: its bucket's counts and columns */
	bool all_held;
	struct rt_an_bucket all;
};

/* The rows of every vantage point's timeline go to one output, under one header. */
struct vshared {
	struct rt_outbuf o;
	struct rt_an_timeline_opts opt;
	bool header_done;
};

/* Row text is built straight in the output buffer with these (no stdio, two digits at a time). */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static unsigned digits_u64(uint64_t v)
{
	unsigned n = 1;
	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

static char *put_u64(char *p, uint64_t v)
{
	unsigned n = digits_u64(v);
	char *q = p + n;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		memcpy(q, digit_pairs + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(q - 2, digit_pairs + 2 * v, 2);
	else
		q[-1] = (char)('0' + v);
	return p + n;
}

static char *put_lit(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}
#define PUT(p, lit) put_lit((p), (lit), sizeof(lit) - 1)

/* num/den with up to 6 decimals, trailing zeros trimmed (the %.6f of rt_out_double, truncated) */
static char *put_ratio(char *p, uint64_t num, uint64_t den)
{
	p = put_u64(p, num / den);
	uint64_t rem = num % den, frac;
	if (den <= UINT64_MAX / 1000000u)
		frac = rem * 1000000u / den;
	else
		frac = (uint64_t)((unsigned __int128)rem * 1000000u / den);
	if (!frac)
		return p;
	char tmp[7];
	int n = 6;
	tmp[0] = '.';
	for (int i = 6; i >= 1; i--) {
		tmp[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	while (tmp[n] == '0')
		n--;
	return put_lit(p, tmp, (size_t)n + 1);
}

static char *put_ip(char *p, uint8_t ver, const uint8_t *a)
{
	if (ver == 4) {
		for (int i = 0; i < 4; i++) {
			if (i)
				*p++ = '.';
			p = put_u64(p, a[i]);
		}
		return p;
	}
	char tmp[64];
	const char *t = rt_ip_to_str(ver, a, tmp, sizeof(tmp));
	return put_lit(p, t, strlen(t));
}

/* The start of every CSV row of bucket t: "t," (at most 21 bytes) */
#define ROW_PREFIX 48
static size_t row_prefix(uint64_t t, char *buf)
{
	char *p = put_u64(buf, t);
	*p++ = ',';
	return (size_t)(p - buf);
}

/* Room a row needs in the output buffer: the longest counts part or src/dst part, with room to spare. */
#define ROW_MAX 1024

/* Where the row text goes: straight into the output buffer, flushed first when short of room. */
static char *row_room(struct rt_outbuf *o)
{
	if (o->len + ROW_MAX > RT_OUTBUF_SIZE)
		rt_out_flush(o);
	return o->buf + o->len;
}

/* What a row holds beyond the counts: the flow (NULL for 'all') and the side-file columns. */
struct row_extra {
	const struct rt_an_flow_key *key;
	uint64_t id;
	uint64_t xoff, paused;
	bool rate_known;
	double rate;
	uint64_t source_cnp;
	double nic[3];
};

/* The name of the timeline's vantage point: asked anew, the last one known when it can no longer be. */
static const char *point_name(struct timeline *tl)
{
	char name[sizeof(tl->vname)];
	if (tl->vs->opt.vantage_name(tl->vs->opt.vantage_ctx, tl->point, name, sizeof(name)) == 0)
		memcpy(tl->vname, name, sizeof(name));
	return tl->vname;
}

/* A CSV field and its comma, quoted when it holds a comma, a quote or a line end (RFC 4180). */
static char *put_csv_field(char *p, const char *s)
{
	size_t n = strlen(s);
	if (strcspn(s, ",\"\r\n") == n)
		return put_lit(put_lit(p, s, n), ",", 1);
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	return PUT(p, "\",");
}

/* A JSON Lines row (bucket t), through the common JSON writer. */
static void json_row(struct timeline *tl, uint64_t t, uint64_t len_ns, const struct rt_an_delta *d,
                     const struct row_extra *x)
{
	struct rt_json j;
	char gbps[48];
	rt_json_init(&j, tl->o);
	rt_json_obj(&j);
	RT_JSON_U64(&j, "t_ns", t);
	if (tl->vs)
		RT_JSON_STR(&j, "vantage", point_name(tl));
	RT_JSON_KEY(&j, "flow");
	if (x->key)
		rt_json_u64(&j, x->id);
	else
		rt_json_name(&j, "all");
	RT_JSON_KEY(&j, "flow_id");
	rt_json_i64(&j, x->key ? (int64_t)x->id : -1);
	RT_JSON_U64(&j, "packets", d->packets);
	RT_JSON_U64(&j, "bytes", d->bytes);
	RT_JSON_KEY(&j, "gbps"); /* as the CSV writes it: 6 decimals, truncated */
	rt_out_write(j.o, gbps, (size_t)(put_ratio(gbps, d->bytes * 8, len_ns) - gbps));
	RT_JSON_U64(&j, "ce", d->ce);
	RT_JSON_U64(&j, "cnp", d->cnp);
	RT_JSON_U64(&j, "nak", d->nak);
	RT_JSON_U64(&j, "retransmitted", d->retransmitted);
	RT_JSON_U64(&j, "pfc_xoff", x->xoff);
	RT_JSON_U64(&j, "pfc_paused_ns", x->paused);
	if (tl->source_log) {
		RT_JSON_KEY(&j, "source_rate_mbps");
		if (x->rate_known)
			rt_json_double(&j, x->rate, 3);
		else
			rt_json_null(&j);
		RT_JSON_U64(&j, "source_cnp", x->source_cnp);
	}
	if (tl->counters) {
		RT_JSON_KEY(&j, "nic_cnp_sent");
		rt_json_double(&j, x->nic[0], 0);
		RT_JSON_KEY(&j, "nic_cnp_handled");
		rt_json_double(&j, x->nic[1], 0);
		RT_JSON_KEY(&j, "nic_pause_frames");
		rt_json_double(&j, x->nic[2], 0);
	}
	if (x->key) {
		RT_JSON_KEY(&j, "src");
		rt_json_ip(&j, x->key->ipver, x->key->src);
		RT_JSON_KEY(&j, "dst");
		rt_json_ip(&j, x->key->ipver, x->key->dst);
		RT_JSON_U64(&j, "dest_qp", x->key->dest_qp);
		char qp[RT_QP_TEXT_MAX];
		RT_JSON_STR(&j, "dest_qp_hex", rt_fmt_qp(qp, x->key->dest_qp));
	}
	rt_json_obj_end(&j);
	rt_out_char(j.o, '\n');
}

/*
 * The end of a flow's rows, ",src,dst,dest_qp,flow_id,dest_qp_hex\n": made
 * at its first row and kept (about 50 bytes a flow), copied at the next
 * ones (a third of a row's formatting). Out of memory, it is made anew.
 */
static char *put_flow_tail(struct timeline *tl, char *p, const struct rt_an_flow_key *k,
                           uint64_t id)
{
	if (id < tl->cap_last && tl->tail[id]) {
		const char *t = tl->tails + tl->tail[id];
		return put_lit(p, t + 1, (unsigned char)t[0]);
	}
	char *start = p, qp[RT_QP_TEXT_MAX];
	p = put_ip(PUT(p, ","), k->ipver, k->src);
	p = put_ip(PUT(p, ","), k->ipver, k->dst);
	p = put_u64(PUT(p, ","), k->dest_qp);
	p = put_u64(PUT(p, ","), id);
	p = put_lit(PUT(p, ","), rt_fmt_qp(qp, k->dest_qp), 8);
	*p++ = '\n';
	size_t n = (size_t)(p - start);
	if (id >= tl->cap_last || n > UINT8_MAX || tl->ntails + 1 + n > UINT32_MAX)
		return p;
	if (tl->ntails + 1 + n > tl->cap_tails) {
		size_t cap = tl->cap_tails ? 2 * tl->cap_tails : 1u << 16;
		char *nt = realloc(tl->tails, cap);
		if (!nt)
			return p;
		tl->tails = nt;
		tl->cap_tails = cap;
	}
	if (!tl->ntails)
		tl->ntails = 1; /* offset 0: not made */
	tl->tail[id] = (uint32_t)tl->ntails;
	tl->tails[tl->ntails] = (char)n;
	memcpy(tl->tails + tl->ntails + 1, start, n);
	tl->ntails += 1 + n;
	return p;
}

/* A row of bucket t (prefix: its CSV start, row_prefix()). */
static void row(struct timeline *tl, uint64_t t, uint64_t len_ns, const char *prefix,
                size_t prefix_len, const struct rt_an_delta *d, const struct row_extra *x)
{
	if (tl->opt.json) {
		json_row(tl, t, len_ns, d, x);
		return;
	}
	struct rt_outbuf *o = tl->o;
	char *p = row_room(o);
	memcpy(p, prefix, ROW_PREFIX); /* a constant size: no call */
	p += prefix_len;
	if (tl->vs)
		p = put_csv_field(p, point_name(tl));
	p = x->key ? put_u64(p, x->id) : PUT(p, "all");
	const uint64_t vals[] = {d->packets, d->bytes,         d->ce,   d->cnp,
	                         d->nak,     d->retransmitted, x->xoff, x->paused};
	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		*p++ = ',';
		if (i == 2) {
			p = put_ratio(p, d->bytes * 8, len_ns);
			*p++ = ',';
		}
		p = put_u64(p, vals[i]);
	}
	if (tl->source_log || tl->counters) {
		/* rarely used columns: through the output buffer's double formatting */
		o->len = (size_t)(p - o->buf);
		if (tl->source_log) {
			rt_out_char(o, ',');
			if (x->rate_known)
				rt_out_double(o, x->rate, 3);
			rt_out_char(o, ',');
			rt_out_u64(o, x->source_cnp);
		}
		for (unsigned i = 0; tl->counters && i < 3; i++) {
			rt_out_char(o, ',');
			rt_out_double(o, x->nic[i], 0);
		}
		p = row_room(o);
	}
	p = x->key ? put_flow_tail(tl, p, x->key, x->id) : PUT(p, ",,,,-1,\n");
	o->len = (size_t)(p - o->buf);
}

static void header_line(struct rt_outbuf *o, bool vantage, bool source_log, bool counters)
{
	rt_out_str(o, vantage ? "t_ns,vantage," : "t_ns,");
	rt_out_str(o, "flow,packets,bytes,gbps,ce,cnp,nak,retransmitted,pfc_xoff,pfc_paused_ns");
	if (source_log)
		rt_out_str(o, ",source_rate_mbps,source_cnp");
	if (counters)
		rt_out_str(o, ",nic_cnp_sent,nic_cnp_handled,nic_pause_frames");
	rt_out_str(o, ",src,dst,dest_qp,flow_id,dest_qp_hex\n");
}

static void header(struct timeline *tl, bool source_log, bool counters)
{
	if (tl->header_done)
		return;
	tl->header_done = true;
	tl->source_log = source_log;
	tl->counters = counters;
	if (tl->opt.json || (tl->vs && tl->vs->header_done))
		return;
	if (tl->vs)
		tl->vs->header_done = true;
	header_line(tl->o, tl->vs != NULL, source_log, counters);
}

/* The 'all' row of bucket b. */
static void all_row(struct timeline *tl, const struct rt_an_bucket *b)
{
	char prefix[ROW_PREFIX] = {0};
	size_t plen = row_prefix(b->t_ns, prefix);
	struct row_extra x = {0};
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		x.xoff += b->pfc_xoff[c];
		x.paused += b->pfc_paused_ns[c];
	}
	x.source_cnp = b->source_cnp;
	x.nic[0] = b->nic_cnp_sent;
	x.nic[1] = b->nic_cnp_handled;
	x.nic[2] = b->nic_pause_frames;
	row(tl, b->t_ns, b->len_ns, prefix, plen, &b->all, &x);
}

/* Zero rows at bucket number n: the flows in tl->zeros (ids ascending), then 'all' when `all`. */
static void zero_rows(struct timeline *tl, const struct rt_analyzer *an, uint64_t n, bool all)
{
	uint64_t len = tl->opt.bucket_ns;
	char prefix[ROW_PREFIX] = {0};
	size_t plen = row_prefix(n * len, prefix);
	struct rt_an_delta zero = {0};
	struct row_extra x = {0};
	for (uint32_t i = 0; i < tl->nzeros; i++) {
		x.id = tl->zeros[i];
		x.key = rt_analyzer_flow_key(an, tl->zeros[i]);
		row(tl, n * len, len, prefix, plen, &zero, &x);
		tl->last[tl->zeros[i]] = n + 1;
	}
	if (all) {
		memset(&x, 0, sizeof(x));
		row(tl, n * len, len, prefix, plen, &zero, &x);
	}
}

/* Room for `n` ids in the scratch lists and for flow id `id` in the latest-row table. */
static bool room(struct timeline *tl, uint32_t n, uint32_t id)
{
	if (n > tl->cap_ids || n > tl->cap_zeros) {
		uint32_t cap = tl->cap_ids > tl->cap_zeros ? tl->cap_ids : tl->cap_zeros;
		if (!cap)
			cap = 256;
		while (cap < n)
			cap *= 2;
		uint32_t *a = realloc(tl->prev_ids, (size_t)cap * sizeof(*a));
		if (a)
			tl->prev_ids = a;
		uint32_t *b = a ? realloc(tl->ids, (size_t)cap * sizeof(*b)) : NULL;
		if (b)
			tl->ids = b;
		uint32_t *z = b ? realloc(tl->zeros, (size_t)2 * cap * sizeof(*z)) : NULL;
		if (!z)
			return false;
		tl->zeros = z;
		tl->cap_ids = cap;
		tl->cap_zeros = 2 * cap;
	}
	if (id >= tl->cap_last) {
		uint32_t cap = tl->cap_last ? tl->cap_last : 1024;
		while (cap <= id)
			cap *= 2;
		uint64_t *l = realloc(tl->last, (size_t)cap * sizeof(*l));
		if (!l)
			return false;
		memset(l + tl->cap_last, 0, (size_t)(cap - tl->cap_last) * sizeof(*l));
		tl->last = l;
		uint32_t *t = realloc(tl->tail, (size_t)cap * sizeof(*t));
		if (!t)
			return false;
		memset(t + tl->cap_last, 0, (size_t)(cap - tl->cap_last) * sizeof(*t));
		tl->tail = t;
		tl->cap_last = cap;
	}
	return true;
}

/* tl->zeros = a ∪ b (both ascending), or a \ b when `minus`. */
static void merge(struct timeline *tl, const uint32_t *a, uint32_t na, const uint32_t *b,
                  uint32_t nb, bool minus)
{
	uint32_t i = 0, j = 0;
	tl->nzeros = 0;
	while (i < na || j < nb) {
		if (j == nb || (i < na && a[i] < b[j])) {
			tl->zeros[tl->nzeros++] = a[i++];
		} else if (i == na || b[j] < a[i]) {
			if (!minus)
				tl->zeros[tl->nzeros++] = b[j];
			j++;
		} else {
			if (!minus)
				tl->zeros[tl->nzeros++] = a[i];
			i++;
			j++;
		}
	}
}

/*
 * The zero rows before bucket number n (flows tl->ids in it): the stretch
 * since the previous bucket; and those of bucket n itself (flows of the
 * previous bucket that have nothing in it), left in tl->zeros.
 */
static void idle_rows(struct timeline *tl, const struct rt_analyzer *an, uint64_t n)
{
	uint64_t k = tl->prev;
	if (n == k + 1) {
		/* the flows that start again now: a zero row at k, after k's own rows */
		tl->nzeros = 0;
		for (uint32_t i = 0; i < tl->nids; i++)
			if (tl->last[tl->ids[i]] <= k)
				tl->zeros[tl->nzeros++] = tl->ids[i];
		zero_rows(tl, an, k, false);
	} else {
		/* nothing since k: zero rows at k + 1 for the flows of k, at n - 1 for the flows of n */
		if (tl->all_held)
			all_row(tl, &tl->all);
		tl->all_held = false;
		if (n - 1 == k + 1) {
			merge(tl, tl->prev_ids, tl->nprev, tl->ids, tl->nids, false);
			zero_rows(tl, an, k + 1, true);
		} else {
			merge(tl, tl->prev_ids, tl->nprev, NULL, 0, false);
			zero_rows(tl, an, k + 1, true);
			merge(tl, tl->ids, tl->nids, NULL, 0, false);
			zero_rows(tl, an, n - 1, true);
		}
	}
	/* the flows of k with nothing now: a zero row in this bucket */
	if (n == k + 1)
		merge(tl, tl->prev_ids, tl->nprev, tl->ids, tl->nids, true);
	else
		tl->nzeros = 0;
}

static int tl_bucket(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b,
                     char *errbuf)
{
	struct timeline *tl = ctx;
	bool idle = !tl->opt.no_idle;
	uint64_t n = b->t_ns / b->len_ns;
	header(tl, b->source_log, b->counters);
	tl->nids = 0;
	tl->nzeros = 0;
	if (idle) {
		if (!room(tl, b->nrows + tl->nprev, b->nrows ? b->rows[b->nrows - 1].id : 0))
			return rt_errorf(errbuf, ENOMEM, "timeline");
		for (uint32_t i = 0; i < b->nrows; i++)
			if (b->rows[i].selected)
				tl->ids[tl->nids++] = b->rows[i].id;
		if (tl->any)
			idle_rows(tl, an, n);
		if (tl->all_held)
			all_row(tl, &tl->all);
	}
	/* this bucket's flows, and the zero rows of flows that stopped, by id */
	char prefix[ROW_PREFIX] = {0};
	size_t plen = row_prefix(b->t_ns, prefix);
	struct rt_an_delta zero = {0};
	struct row_extra x = {0};
	uint32_t z = 0;
	for (uint32_t i = 0; i <= b->nrows; i++) {
		const struct rt_an_flow_row *r = i < b->nrows ? &b->rows[i] : NULL;
		for (; z < tl->nzeros && (!r || tl->zeros[z] < r->id); z++) {
			memset(&x, 0, sizeof(x));
			x.id = tl->zeros[z];
			x.key = rt_analyzer_flow_key(an, tl->zeros[z]);
			row(tl, b->t_ns, b->len_ns, prefix, plen, &zero, &x);
			tl->last[tl->zeros[z]] = n + 1;
		}
		if (!r || !r->selected)
			continue;
		x.key = rt_analyzer_flow_key(an, r->id);
		x.id = r->id;
		x.rate_known = r->source_rate_known;
		x.rate = r->source_rate_mbps;
		x.source_cnp = r->source_cnp;
		row(tl, b->t_ns, b->len_ns, prefix, plen, &r->d, &x);
		if (idle)
			tl->last[r->id] = n + 1;
	}
	if (idle) { /* held until the next bucket says which flows start again */
		tl->all = *b;
		tl->all.rows = NULL;
		tl->all.nrows = 0;
		tl->all_held = true;
		uint32_t *t = tl->prev_ids;
		tl->prev_ids = tl->ids;
		tl->ids = t;
		tl->nprev = tl->nids;
	} else {
		all_row(tl, b);
	}
	tl->any = true;
	tl->prev = n;
	return tl->o->error ? rt_errorf(errbuf, tl->o->error, "writing the timeline") : 0;
}

static int tl_end(void *ctx, const struct rt_analyzer *an, char *errbuf)
{
	struct timeline *tl = ctx;
	bool source_log, counters;
	rt_analyzer_bucket_columns(an, &source_log, &counters);
	header(tl, source_log, counters);
	if (tl->all_held)
		all_row(tl, &tl->all);
	tl->all_held = false;
	int err = rt_out_flush(tl->o);
	return err ? rt_errorf(errbuf, err, "writing the timeline") : 0;
}

static void tl_free(void *ctx)
{
	struct timeline *tl = ctx;
	free(tl->prev_ids);
	free(tl->ids);
	free(tl->zeros);
	free(tl->last);
	free(tl->tail);
	free(tl->tails);
	free(tl);
}

/* ---- rows per vantage point ---- */

/* The sink of point `point`'s own analyzer: a timeline writing to the shared output. */
int rt_an_timeline_point_sink(void *ctx, unsigned point, struct rt_an_sink *out, char *errbuf)
{
	struct vshared *vs = ctx;
	struct timeline *tl = calloc(1, sizeof(*tl));
	if (!tl)
		return rt_errorf(errbuf, ENOMEM, "timeline");
	tl->o = &vs->o;
	tl->opt = vs->opt;
	tl->vs = vs;
	tl->point = point;
	snprintf(tl->vname, sizeof(tl->vname), "%u", point);
	*out = (struct rt_an_sink){.bucket_ns = vs->opt.bucket_ns,
	                           .bucket = tl_bucket,
	                           .bucket_apart = true,
	                           .end = tl_end,
	                           .free = tl_free,
	                           .ctx = tl};
	return 0;
}

/* The whole stream's end, after every point's: the header when no point wrote a row, then the output. */
static int vs_end(void *ctx, const struct rt_analyzer *an, char *errbuf)
{
	struct vshared *vs = ctx;
	(void)an;
	if (!vs->opt.json && !vs->header_done)
		header_line(&vs->o, true, false, false);
	vs->header_done = true;
	int err = rt_out_flush(&vs->o);
	return err ? rt_errorf(errbuf, err, "writing the timeline") : 0;
}

static void vs_free(void *ctx)
{
	free(ctx);
}

int rt_an_timeline_sink(FILE *fp, const struct rt_an_timeline_opts *opts, struct rt_an_sink *out,
                        char *errbuf)
{
	if (opts->vantage_name) {
		struct vshared *vs = calloc(1, sizeof(*vs));
		if (!vs)
			return rt_errorf(errbuf, ENOMEM, "timeline");
		rt_out_init(&vs->o, fp);
		vs->opt = *opts;
		*out = (struct rt_an_sink){.end = vs_end, .free = vs_free, .ctx = vs};
		return 0;
	}
	struct timeline *tl = calloc(1, sizeof(*tl));
	if (!tl)
		return rt_errorf(errbuf, ENOMEM, "timeline");
	tl->o = &tl->own;
	rt_out_init(tl->o, fp);
	tl->opt = *opts;
	*out = (struct rt_an_sink){.bucket_ns = opts->bucket_ns,
	                           .bucket = tl_bucket,
	                           .bucket_apart = true,
	                           .end = tl_end,
	                           .free = tl_free,
	                           .ctx = tl};
	return 0;
}

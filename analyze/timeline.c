/* Timeline sink: per-bucket rows for each active flow plus an "all" row, streamed as CSV or JSON Lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/sinks.h"
#include "common/outbuf.h"

struct timeline {
	struct rt_outbuf o;
	struct rt_an_timeline_opts opt;
	bool header_done;
};

/* Row text is built straight in the output buffer with these (no stdio, two digits at a time). */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
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

/* The start of every row of bucket t: "t," or {"t_ns":t,"flow": (at most 36 bytes) */
#define ROW_PREFIX 48
static size_t row_prefix(const struct timeline *tl, uint64_t t, char *buf)
{
	char *p = buf;
	if (tl->opt.json)
		p = PUT(p, "{\"t_ns\":");
	p = put_u64(p, t);
	p = tl->opt.json ? PUT(p, ",\"flow\":") : PUT(p, ",");
	return (size_t)(p - buf);
}

/* Room a row needs in the output buffer: the longest counts part or src/dst part, with room to spare. */
#define ROW_MAX 1024

/* Where the row text goes: straight into the output buffer, flushed first when short of room. */
static char *row_room(struct rt_outbuf *o)
{
	if (o->len + ROW_MAX > sizeof(o->buf))
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

static void row(struct timeline *tl, const struct rt_an_bucket *b, const char *prefix, size_t prefix_len,
		const struct rt_an_delta *d, const struct row_extra *x)
{
	struct rt_outbuf *o = &tl->o;
	bool json = tl->opt.json;
	char *p = row_room(o);
	memcpy(p, prefix, ROW_PREFIX); /* a constant size: no call */
	p += prefix_len;
	if (x->key)
		p = put_u64(p, x->id);
	else
		p = json ? PUT(p, "\"all\"") : PUT(p, "all");
	if (json) {
		p = put_u64(PUT(p, ",\"packets\":"), d->packets);
		p = put_u64(PUT(p, ",\"bytes\":"), d->bytes);
		p = put_ratio(PUT(p, ",\"gbps\":"), d->bytes * 8, b->len_ns);
		p = put_u64(PUT(p, ",\"ce\":"), d->ce);
		p = put_u64(PUT(p, ",\"cnp\":"), d->cnp);
		p = put_u64(PUT(p, ",\"nak\":"), d->nak);
		p = put_u64(PUT(p, ",\"retransmitted\":"), d->retransmitted);
		p = put_u64(PUT(p, ",\"pfc_xoff\":"), x->xoff);
		p = put_u64(PUT(p, ",\"pfc_paused_ns\":"), x->paused);
	} else {
		const uint64_t vals[] = {d->packets, d->bytes, d->ce, d->cnp, d->nak, d->retransmitted, x->xoff, x->paused};
		for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			*p++ = ',';
			if (i == 2) {
				p = put_ratio(p, d->bytes * 8, b->len_ns);
				*p++ = ',';
			}
			p = put_u64(p, vals[i]);
		}
	}
	if (b->source_log || b->counters) {
		/* rarely used columns: through the output buffer's double formatting */
		o->len = (size_t)(p - o->buf);
		if (b->source_log) {
			rt_out_str(o, json ? ",\"source_rate_mbps\":" : ",");
			if (x->rate_known)
				rt_out_double(o, x->rate, 3);
			else if (json)
				rt_out_str(o, "null");
			rt_out_str(o, json ? ",\"source_cnp\":" : ",");
			rt_out_u64(o, x->source_cnp);
		}
		if (b->counters) {
			static const char *const nic[] = {",\"nic_cnp_sent\":", ",\"nic_cnp_handled\":",
							  ",\"nic_pause_frames\":"};
			for (unsigned i = 0; i < 3; i++) {
				rt_out_str(o, json ? nic[i] : ",");
				rt_out_double(o, x->nic[i], 0);
			}
		}
		p = row_room(o);
	}
	const struct rt_an_flow_key *k = x->key;
	if (json) {
		if (k) {
			p = put_ip(PUT(p, ",\"src\":\""), k->ipver, k->src);
			p = put_ip(PUT(p, "\",\"dst\":\""), k->ipver, k->dst);
			p = put_u64(PUT(p, "\",\"dest_qp\":"), k->dest_qp);
		}
		p = PUT(p, "}\n");
	} else if (k) {
		p = put_ip(PUT(p, ","), k->ipver, k->src);
		p = put_ip(PUT(p, ","), k->ipver, k->dst);
		p = put_u64(PUT(p, ","), k->dest_qp);
		*p++ = '\n';
	} else {
		p = PUT(p, ",,,\n");
	}
	o->len = (size_t)(p - o->buf);
}

static void header(struct timeline *tl, bool source_log, bool counters)
{
	if (tl->header_done)
		return;
	tl->header_done = true;
	if (tl->opt.json)
		return;
	rt_out_str(&tl->o, "t_ns,flow,packets,bytes,gbps,ce,cnp,nak,retransmitted,pfc_xoff,pfc_paused_ns");
	if (source_log)
		rt_out_str(&tl->o, ",source_rate_mbps,source_cnp");
	if (counters)
		rt_out_str(&tl->o, ",nic_cnp_sent,nic_cnp_handled,nic_pause_frames");
	rt_out_str(&tl->o, ",src,dst,dest_qp\n");
}

static int tl_bucket(void *ctx, const struct rt_analyzer *an, const struct rt_an_bucket *b, char *errbuf)
{
	struct timeline *tl = ctx;
	header(tl, b->source_log, b->counters);
	char prefix[ROW_PREFIX] = {0};
	size_t plen = row_prefix(tl, b->t_ns, prefix);
	struct row_extra x = {0};
	for (uint32_t i = 0; i < b->nrows; i++) {
		const struct rt_an_flow_row *r = &b->rows[i];
		if (!r->selected)
			continue;
		x.key = rt_analyzer_flow_key(an, r->id);
		x.id = r->id;
		x.rate_known = r->source_rate_known;
		x.rate = r->source_rate_mbps;
		x.source_cnp = r->source_cnp;
		row(tl, b, prefix, plen, &r->d, &x);
	}
	memset(&x, 0, sizeof(x));
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		x.xoff += b->pfc_xoff[c];
		x.paused += b->pfc_paused_ns[c];
	}
	x.source_cnp = b->source_cnp;
	x.nic[0] = b->nic_cnp_sent;
	x.nic[1] = b->nic_cnp_handled;
	x.nic[2] = b->nic_pause_frames;
	row(tl, b, prefix, plen, &b->all, &x);
	return tl->o.error ? rt_errorf(errbuf, tl->o.error, "writing the timeline") : 0;
}

static int tl_end(void *ctx, const struct rt_analyzer *an, char *errbuf)
{
	struct timeline *tl = ctx;
	bool source_log, counters;
	rt_analyzer_bucket_columns(an, &source_log, &counters);
	header(tl, source_log, counters);
	int err = rt_out_flush(&tl->o);
	return err ? rt_errorf(errbuf, err, "writing the timeline") : 0;
}

static void tl_free(void *ctx)
{
	free(ctx);
}

int rt_an_timeline_sink(FILE *fp, const struct rt_an_timeline_opts *opts, struct rt_an_sink *out, char *errbuf)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	if (!tl)
		return rt_errorf(errbuf, ENOMEM, "timeline");
	rt_out_init(&tl->o, fp);
	tl->opt = *opts;
	*out = (struct rt_an_sink){
		.bucket_ns = opts->bucket_ns, .bucket = tl_bucket, .end = tl_end, .free = tl_free, .ctx = tl};
	return 0;
}

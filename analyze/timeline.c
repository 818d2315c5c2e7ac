/* Timeline sink: per-bucket rows for each active flow plus an "all" row, streamed as CSV or JSON Lines. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

int an_tl_init(struct rt_analyzer *an, char *errbuf)
{
	if (!an->o.timeline_out || !an->o.bucket_ns)
		return 0;
	an->tl_out = malloc(sizeof(*an->tl_out));
	if (!an->tl_out) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "timeline: out of memory");
		return -ENOMEM;
	}
	rt_out_init(an->tl_out, an->o.timeline_out);
	return 0;
}

void an_tl_free(struct rt_analyzer *an)
{
	free(an->tl_out);
	an->tl_out = NULL;
	free(an->series);
	an->series = NULL;
}

int an_series_add(struct rt_analyzer *an, uint64_t ts, uint32_t flow, uint8_t kind, double v)
{
	if (an->nseries == an->cap_series) {
		size_t ncap = an->cap_series ? an->cap_series * 2 : 256;
		struct an_series *n = realloc(an->series, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		an->series = n;
		an->cap_series = ncap;
	}
	an->series[an->nseries] =
		(struct an_series){.ts = ts, .flow = flow, .seq = (uint32_t)an->nseries, .kind = kind, .v = v};
	an->nseries++;
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	const struct an_series *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void an_series_sort(struct rt_analyzer *an)
{
	if (an->nseries > 1)
		qsort(an->series, an->nseries, sizeof(*an->series), cmp_series);
}

/* Side-file events before `end` land in the bucket being written. */
static void consume_series(struct rt_analyzer *an, uint64_t end)
{
	while (an->series_next < an->nseries && an->series[an->series_next].ts < end) {
		const struct an_series *e = &an->series[an->series_next++];
		if (e->kind >= AN_SER_NIC_CNP_SENT) {
			an->tl_nic[e->kind - AN_SER_NIC_CNP_SENT] += e->v;
			continue;
		}
		if (e->flow == AN_NONE || e->flow >= an->nflows)
			continue;
		struct an_flow *f = &an->flows[e->flow];
		struct an_flow_ext *x = an_ext(f);
		if (!x)
			continue;
		if (e->kind == AN_SER_RATE) {
			x->tl_rate = e->v;
			x->tl_rate_known = true;
		} else {
			x->tl_src_cnp++;
			an->tl_src_cnp_all++;
		}
		an_tl_mark(an, f);
	}
}

/* Row text is built in a local buffer with these (no stdio, two digits at a time) and written once. */
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
static size_t row_prefix(const struct rt_analyzer *an, uint64_t t, char *buf)
{
	char *p = buf;
	if (an->o.timeline_json)
		p = PUT(p, "{\"t_ns\":");
	p = put_u64(p, t);
	p = an->o.timeline_json ? PUT(p, ",\"flow\":") : PUT(p, ",");
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

static void row(struct rt_analyzer *an, const char *prefix, size_t prefix_len, const struct an_flow *f,
		const struct an_delta *d, uint64_t xoff, uint64_t paused)
{
	struct rt_outbuf *o = an->tl_out;
	bool json = an->o.timeline_json;
	char *p = row_room(o);
	memcpy(p, prefix, ROW_PREFIX); /* a constant size: no call */
	p += prefix_len;
	if (f)
		p = put_u64(p, f->id);
	else
		p = json ? PUT(p, "\"all\"") : PUT(p, "all");
	if (json) {
		p = put_u64(PUT(p, ",\"packets\":"), d->packets);
		p = put_u64(PUT(p, ",\"bytes\":"), d->bytes);
		p = put_ratio(PUT(p, ",\"gbps\":"), d->bytes * 8, an->o.bucket_ns);
		p = put_u64(PUT(p, ",\"ce\":"), d->ce);
		p = put_u64(PUT(p, ",\"cnp\":"), d->cnp);
		p = put_u64(PUT(p, ",\"nak\":"), d->nak);
		p = put_u64(PUT(p, ",\"retransmitted\":"), d->retransmitted);
		p = put_u64(PUT(p, ",\"pfc_xoff\":"), xoff);
		p = put_u64(PUT(p, ",\"pfc_paused_ns\":"), paused);
	} else {
		const uint64_t vals[] = {d->packets, d->bytes, d->ce, d->cnp, d->nak, d->retransmitted, xoff, paused};
		for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			*p++ = ',';
			if (i == 2) {
				p = put_ratio(p, d->bytes * 8, an->o.bucket_ns);
				*p++ = ',';
			}
			p = put_u64(p, vals[i]);
		}
	}
	if (an->tl_srclog || an->tl_counters) {
		/* rarely used columns: through the output buffer's double formatting */
		o->len = (size_t)(p - o->buf);
		if (an->tl_srclog) {
			const struct an_flow_ext *x = f ? f->ext : NULL;
			rt_out_str(o, json ? ",\"source_rate_mbps\":" : ",");
			if (x && x->tl_rate_known)
				rt_out_double(o, x->tl_rate, 3);
			else if (json)
				rt_out_str(o, "null");
			rt_out_str(o, json ? ",\"source_cnp\":" : ",");
			rt_out_u64(o, f ? (x ? x->tl_src_cnp : 0) : an->tl_src_cnp_all);
		}
		if (an->tl_counters) {
			static const char *const nic[] = {",\"nic_cnp_sent\":", ",\"nic_cnp_handled\":",
							  ",\"nic_pause_frames\":"};
			for (unsigned i = 0; i < 3; i++) {
				rt_out_str(o, json ? nic[i] : ",");
				rt_out_double(o, f ? 0.0 : an->tl_nic[i], 0);
			}
		}
		p = row_room(o);
	}
	if (json) {
		if (f) {
			p = put_ip(PUT(p, ",\"src\":\""), f->key.ipver, f->key.src);
			p = put_ip(PUT(p, "\",\"dst\":\""), f->key.ipver, f->key.dst);
			p = put_u64(PUT(p, "\",\"dest_qp\":"), f->key.dest_qp);
		}
		p = PUT(p, "}\n");
	} else {
		if (f) {
			p = put_ip(PUT(p, ","), f->key.ipver, f->key.src);
			p = put_ip(PUT(p, ","), f->key.ipver, f->key.dst);
			p = put_u64(PUT(p, ","), f->key.dest_qp);
			*p++ = '\n';
		} else {
			p = PUT(p, ",,,\n");
		}
	}
	o->len = (size_t)(p - o->buf);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void header(struct rt_analyzer *an)
{
	if (an->tl_header_done)
		return;
	an->tl_header_done = true;
	if (an->o.timeline_json)
		return;
	rt_out_str(an->tl_out, "t_ns,flow,packets,bytes,gbps,ce,cnp,nak,retransmitted,pfc_xoff,pfc_paused_ns");
	if (an->tl_srclog)
		rt_out_str(an->tl_out, ",source_rate_mbps,source_cnp");
	if (an->tl_counters)
		rt_out_str(an->tl_out, ",nic_cnp_sent,nic_cnp_handled,nic_pause_frames");
	rt_out_str(an->tl_out, ",src,dst,dest_qp\n");
}

static void flow_row(struct rt_analyzer *an, const char *prefix, size_t prefix_len, struct an_flow *f)
{
	if (f->selected)
		row(an, prefix, prefix_len, f, &f->iv, 0, 0);
	memset(&f->iv, 0, sizeof(f->iv));
	if (f->ext)
		f->ext->tl_src_cnp = 0;
	f->dirty = false;
}

static void emit(struct rt_analyzer *an, uint64_t t)
{
	header(an);
	consume_series(an, t + an->o.bucket_ns);
	bool any = an->tl_all.packets || an->tl_paused_ns || an->tl_pfc_xoff || an->dirty_head != AN_NONE ||
		   an->tl_nic[0] || an->tl_nic[1] || an->tl_nic[2];
	if (!any)
		return;
	char prefix[ROW_PREFIX] = {0};
	size_t plen = row_prefix(an, t, prefix);
	/* dirty flows in id order: a walk over all ids when most flows are dirty, else their ids sorted */
	uint32_t n = an->ndirty, done = 0;
	uint32_t *ids = NULL;
	if (n && (uint64_t)n * 8 < an->next_id)
		ids = malloc(n * sizeof(*ids));
	if (ids) {
		uint32_t k = 0;
		for (uint32_t fi = an->dirty_head; fi != AN_NONE; fi = an->flows[fi].next_dirty)
			if (an->flows[fi].id != AN_NONE)
				ids[k++] = an->flows[fi].id;
		qsort(ids, k, sizeof(*ids), cmp_u32);
		for (uint32_t i = 0; i < k; i++)
			flow_row(an, prefix, plen, &an->flows[an->order[ids[i]]]);
		done = k;
		free(ids);
	} else if (n) {
		for (uint32_t id = 0; id < an->next_id; id++) {
			struct an_flow *f = &an->flows[an->order[id]];
			if (f->dirty) {
				flow_row(an, prefix, plen, f);
				done++;
			}
		}
	}
	/* what is left: flows without an id (never written), or all of them when out of memory */
	for (uint32_t fi = done == n ? AN_NONE : an->dirty_head; fi != AN_NONE;) {
		struct an_flow *f = &an->flows[fi];
		uint32_t next = f->next_dirty;
		if (f->dirty) {
			memset(&f->iv, 0, sizeof(f->iv));
			if (f->ext)
				f->ext->tl_src_cnp = 0;
			f->dirty = false;
		}
		f->next_dirty = AN_NONE;
		fi = next;
	}
	an->dirty_head = AN_NONE;
	an->ndirty = 0;
	row(an, prefix, plen, NULL, &an->tl_all, an->tl_pfc_xoff, an->tl_paused_ns);
	memset(&an->tl_all, 0, sizeof(an->tl_all));
	an->tl_pfc_xoff = 0;
	an->tl_paused_ns = 0;
	an->tl_src_cnp_all = 0;
	memset(an->tl_nic, 0, sizeof(an->tl_nic));
}

void an_tl_advance(struct rt_analyzer *an, uint64_t ts)
{
	uint64_t w = an->o.bucket_ns;
	/* most frames fall in the current bucket: no division for them */
	if (ts >= an->tl_bucket && ts - an->tl_bucket < w && an->tl_bucket != UINT64_MAX)
		return;
	uint64_t b = ts - ts % w;
	if (an->tl_bucket == UINT64_MAX) {
		an->tl_bucket = b;
		return;
	}
	while (b > an->tl_bucket) {
		uint64_t end = an->tl_bucket + w;
		if (an->pfc_active)
			an_pfc_advance(an, end);
		emit(an, an->tl_bucket);
		uint64_t next = an->pfc_active ? end : b;
		/* do not skip over buckets that side-file events fall in */
		if (an->series_next < an->nseries && an->series[an->series_next].ts < next) {
			uint64_t st = an->series[an->series_next].ts;
			next = st - st % w;
			if (next < end)
				next = end;
		}
		an->tl_bucket = next;
	}
}

int an_tl_finish(struct rt_analyzer *an)
{
	if (!an->tl_out)
		return 0;
	if (an->tl_bucket != UINT64_MAX) {
		for (;;) {
			uint64_t end = an->tl_bucket + an->o.bucket_ns;
			if (an->pfc_active)
				an_pfc_advance(an, end);
			emit(an, an->tl_bucket);
			if (!an->pfc_active)
				break;
			an->tl_bucket = end;
		}
	} else {
		header(an);
	}
	int err = rt_out_flush(an->tl_out);
	return err ? -err : 0;
}

/* Timeline sink: per-bucket rows for each active flow plus an "all" row, streamed as CSV or JSON Lines. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

enum { SEL_ALL, SEL_ID, SEL_IP, SEL_HOSTS, SEL_HOSTS_QP, SEL_QP };

static bool parse_ip(const char *s, size_t n, uint8_t out[16], uint8_t *ver)
{
	char tmp[64];
	if (n && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	memset(out, 0, 16);
	if (inet_pton(AF_INET, tmp, out) == 1) {
		*ver = 4;
		return true;
	}
	if (inet_pton(AF_INET6, tmp, out) == 1) {
		*ver = 6;
		return true;
	}
	return false;
}

static bool parse_u32(const char *s, uint32_t *out, uint32_t max)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || *end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* SEL: ID | IP | SRC>DST | SRC>DST:QP | qp:QP (IPv6 in brackets when a QP follows). */
static int parse_selector(struct rt_analyzer *an, const char *sel)
{
	if (!sel || !*sel || !strcmp(sel, "all")) {
		an->sel_kind = SEL_ALL;
		return 0;
	}
	if (!strncmp(sel, "qp:", 3))
		return parse_u32(sel + 3, &an->sel_qp, AN_PSN_MASK) ? (an->sel_kind = SEL_QP, 0) : -1;
	if (parse_u32(sel, &an->sel_id, UINT32_MAX - 1)) {
		an->sel_kind = SEL_ID;
		return 0;
	}
	const char *gt = strchr(sel, '>');
	if (!gt) {
		if (!parse_ip(sel, strlen(sel), an->sel_a, &an->sel_ver_a))
			return -1;
		an->sel_kind = SEL_IP;
		return 0;
	}
	if (!parse_ip(sel, (size_t)(gt - sel), an->sel_a, &an->sel_ver_a))
		return -1;
	const char *d = gt + 1;
	const char *qp = NULL;
	size_t dn = strlen(d);
	if (d[0] == '[') {
		const char *rb = strchr(d, ']');
		if (!rb)
			return -1;
		dn = (size_t)(rb - d) + 1;
		if (rb[1] == ':')
			qp = rb + 2;
		else if (rb[1])
			return -1;
	} else {
		const char *c = strchr(d, ':');
		if (c && !strchr(c + 1, ':')) {
			dn = (size_t)(c - d);
			qp = c + 1;
		}
	}
	if (!parse_ip(d, dn, an->sel_b, &an->sel_ver_b) || an->sel_ver_a != an->sel_ver_b)
		return -1;
	an->sel_kind = SEL_HOSTS;
	if (qp) {
		if (!parse_u32(qp, &an->sel_qp, AN_PSN_MASK))
			return -1;
		an->sel_kind = SEL_HOSTS_QP;
	}
	return 0;
}

bool an_tl_selects(const struct rt_analyzer *an, const struct an_flow *f)
{
	const struct an_key *k = &f->key;
	size_t n = k->ipver == 4 ? 4 : 16;
	switch (an->sel_kind) {
	case SEL_ID:
		return f->id == an->sel_id;
	case SEL_QP:
		return k->dest_qp == an->sel_qp;
	case SEL_IP:
		return k->ipver == an->sel_ver_a &&
		       (!memcmp(k->src, an->sel_a, n) || !memcmp(k->dst, an->sel_a, n));
	case SEL_HOSTS:
	case SEL_HOSTS_QP:
		return k->ipver == an->sel_ver_a && !memcmp(k->src, an->sel_a, n) &&
		       !memcmp(k->dst, an->sel_b, n) &&
		       (an->sel_kind == SEL_HOSTS || k->dest_qp == an->sel_qp);
	default:
		return true;
	}
}

int an_tl_init(struct rt_analyzer *an, char *errbuf)
{
	if (parse_selector(an, an->o.timeline_flow) < 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE,
			 "bad flow selector '%s' (want ID, IP, SRC>DST, SRC>DST:QP or qp:QP)",
			 an->o.timeline_flow);
		return -EINVAL;
	}
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

/* num/den with up to 6 decimals, trailing zeros trimmed (the %.6f of rt_out_double, truncated, without stdio) */
static void out_ratio(struct rt_outbuf *o, uint64_t num, uint64_t den)
{
	rt_out_u64(o, num / den);
	uint64_t frac = (uint64_t)((unsigned __int128)(num % den) * 1000000u / den);
	if (!frac)
		return;
	char tmp[7];
	int n = 6;
	tmp[0] = '.';
	for (int i = 6; i >= 1; i--) {
		tmp[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	while (tmp[n] == '0')
		n--;
	rt_out_write(o, tmp, (size_t)n + 1);
}

static void row(struct rt_analyzer *an, uint64_t t, const struct an_flow *f, const struct an_delta *d,
		uint64_t xoff, uint64_t paused)
{
	struct rt_outbuf *o = an->tl_out;
	if (an->o.timeline_json) {
		rt_out_str(o, "{\"t_ns\":");
		rt_out_u64(o, t);
		rt_out_str(o, ",\"flow\":");
		if (f)
			rt_out_u64(o, f->id);
		else
			rt_out_str(o, "\"all\"");
	} else {
		rt_out_u64(o, t);
		rt_out_char(o, ',');
		if (f)
			rt_out_u64(o, f->id);
		else
			rt_out_str(o, "all");
	}
	const char *names[] = {"packets", "bytes", "gbps", "ce", "cnp", "nak", "retransmitted",
			       "pfc_xoff", "pfc_paused_ns"};
	uint64_t vals[] = {d->packets, d->bytes, 0, d->ce, d->cnp, d->nak, d->retransmitted, xoff, paused};
	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		if (an->o.timeline_json) {
			rt_out_str(o, ",\"");
			rt_out_str(o, names[i]);
			rt_out_str(o, "\":");
		} else {
			rt_out_char(o, ',');
		}
		if (i == 2)
			out_ratio(o, d->bytes * 8, an->o.bucket_ns);
		else
			rt_out_u64(o, vals[i]);
	}
	if (an->tl_srclog) {
		const struct an_flow_ext *x = f ? f->ext : NULL;
		if (an->o.timeline_json)
			rt_out_str(o, ",\"source_rate_mbps\":");
		else
			rt_out_char(o, ',');
		if (x && x->tl_rate_known)
			rt_out_double(o, x->tl_rate, 3);
		else if (an->o.timeline_json)
			rt_out_str(o, "null");
		rt_out_str(o, an->o.timeline_json ? ",\"source_cnp\":" : ",");
		rt_out_u64(o, f ? (x ? x->tl_src_cnp : 0) : an->tl_src_cnp_all);
	}
	if (an->tl_counters) {
		static const char *const nic[] = {"nic_cnp_sent", "nic_cnp_handled", "nic_pause_frames"};
		for (unsigned i = 0; i < 3; i++) {
			if (an->o.timeline_json) {
				rt_out_str(o, ",\"");
				rt_out_str(o, nic[i]);
				rt_out_str(o, "\":");
			} else {
				rt_out_char(o, ',');
			}
			rt_out_double(o, f ? 0.0 : an->tl_nic[i], 0);
		}
	}
	if (an->o.timeline_json) {
		if (f) {
			rt_out_str(o, ",\"src\":\"");
			rt_out_ip(o, f->key.ipver, f->key.src);
			rt_out_str(o, "\",\"dst\":\"");
			rt_out_ip(o, f->key.ipver, f->key.dst);
			rt_out_str(o, "\",\"dest_qp\":");
			rt_out_u64(o, f->key.dest_qp);
		}
		rt_out_str(o, "}\n");
	} else {
		if (f) {
			rt_out_char(o, ',');
			rt_out_ip(o, f->key.ipver, f->key.src);
			rt_out_char(o, ',');
			rt_out_ip(o, f->key.ipver, f->key.dst);
			rt_out_char(o, ',');
			rt_out_u64(o, f->key.dest_qp);
		} else {
			rt_out_str(o, ",,,");
		}
		rt_out_char(o, '\n');
	}
}

static int cmp_id(const void *a, const void *b, void *ctx)
{
	const struct an_flow *flows = ctx;
	uint32_t x = flows[*(const uint32_t *)a].id, y = flows[*(const uint32_t *)b].id;
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

static void emit(struct rt_analyzer *an, uint64_t t)
{
	header(an);
	consume_series(an, t + an->o.bucket_ns);
	bool any = an->tl_all.packets || an->tl_paused_ns || an->tl_pfc_xoff || an->dirty_head != AN_NONE ||
		   an->tl_nic[0] || an->tl_nic[1] || an->tl_nic[2];
	if (!any)
		return;
	/* dirty flows in id order */
	uint32_t n = 0;
	for (uint32_t fi = an->dirty_head; fi != AN_NONE; fi = an->flows[fi].next_dirty)
		n++;
	uint32_t *idx = n ? malloc(n * sizeof(*idx)) : NULL;
	uint32_t k = 0;
	for (uint32_t fi = an->dirty_head; fi != AN_NONE; fi = an->flows[fi].next_dirty)
		if (idx)
			idx[k++] = fi;
	if (idx)
		qsort_r(idx, k, sizeof(*idx), cmp_id, an->flows);
	for (uint32_t i = 0; i < k; i++) {
		struct an_flow *f = &an->flows[idx[i]];
		if (f->selected && f->id != AN_NONE)
			row(an, t, f, &f->iv, 0, 0);
	}
	for (uint32_t fi = an->dirty_head; fi != AN_NONE;) {
		struct an_flow *f = &an->flows[fi];
		uint32_t next = f->next_dirty;
		memset(&f->iv, 0, sizeof(f->iv));
		if (f->ext)
			f->ext->tl_src_cnp = 0;
		f->dirty = false;
		f->next_dirty = AN_NONE;
		fi = next;
	}
	free(idx);
	an->dirty_head = AN_NONE;
	row(an, t, NULL, &an->tl_all, an->tl_pfc_xoff, an->tl_paused_ns);
	memset(&an->tl_all, 0, sizeof(an->tl_all));
	an->tl_pfc_xoff = 0;
	an->tl_paused_ns = 0;
	an->tl_src_cnp_all = 0;
	memset(an->tl_nic, 0, sizeof(an->tl_nic));
}

void an_tl_advance(struct rt_analyzer *an, uint64_t ts)
{
	uint64_t w = an->o.bucket_ns, b = ts - ts % w;
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

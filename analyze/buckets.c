/* Buckets of time for the sinks: each bucket's counts as the change of running totals, its flows in id order. */
#include "analyze/buckets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/hist.h"

void an_bk_init(struct an_buckets *bk, const struct an_flowtab *ft, const struct an_totals *tot,
                const struct an_pfc *pfc)
{
	memset(bk, 0, sizeof(*bk));
	bk->cur = UINT64_MAX;
	bk->ft = ft;
	bk->tot = tot;
	bk->pfc = pfc;
}

void an_bk_free(struct an_buckets *bk)
{
	free(bk->dirty);
	free(bk->at);
	free(bk->rows);
	free(bk->ids);
	free(bk->idbits);
	free(bk->series);
	bk->dirty = bk->ids = NULL;
	bk->idbits = NULL;
	bk->at = NULL;
	bk->rows = NULL;
	bk->series = NULL;
}

void an_bk_start(struct an_buckets *bk, uint64_t len,
                 int (*deliver)(void *ctx, const struct rt_an_bucket *b), void *ctx)
{
	bk->len = len;
	bk->deliver = deliver;
	bk->ctx = ctx;
}

void an_bk_mark_slow(struct an_buckets *bk, struct an_flow *f, uint32_t fi)
{
	if (bk->ndirty == bk->cap_dirty) {
		uint32_t ncap = bk->cap_dirty ? bk->cap_dirty * 2 : 1024;
		uint32_t *nd = realloc(bk->dirty, (size_t)ncap * sizeof(*nd));
		if (!nd)
			return; /* its counts show in its next row */
		bk->dirty = nd;
		bk->cap_dirty = ncap;
	}
	bk->dirty[bk->ndirty++] = fi;
	f->flags |= AN_FLOW_TL_DIRTY;
}

/* Room for the flows' snapshots, the rows and the id scratch; false when out of memory. */
static bool room(struct an_buckets *bk)
{
	uint32_t n = bk->ft->n;
	if (n > bk->cap_at) {
		uint32_t ncap = bk->cap_at ? bk->cap_at : 1024;
		while (ncap < n)
			ncap *= 2;
		struct an_bk_flow *na = realloc(bk->at, (size_t)ncap * sizeof(*na));
		if (!na)
			return false;
		memset(na + bk->cap_at, 0, (size_t)(ncap - bk->cap_at) * sizeof(*na));
		bk->at = na;
		bk->cap_at = ncap;
	}
	if (bk->ndirty > bk->cap_rows) {
		uint32_t ncap = bk->cap_rows ? bk->cap_rows : 256;
		while (ncap < bk->ndirty)
			ncap *= 2;
		if (!bk->row_room) { /* (else the rows are written where row_room says) */
			struct rt_an_flow_row *nr = realloc(bk->rows, (size_t)ncap * sizeof(*nr));
			if (!nr)
				return false;
			bk->rows = nr;
		}
		uint32_t *ni = realloc(bk->ids, (size_t)ncap * sizeof(*ni));
		if (!ni)
			return false;
		bk->ids = ni;
		bk->cap_rows = ncap;
	}
	uint32_t words = (bk->ft->next_id + 63) / 64;
	if (words > bk->cap_bits) {
		uint32_t ncap = bk->cap_bits ? bk->cap_bits : 64;
		while (ncap < words)
			ncap *= 2;
		uint64_t *nb = realloc(bk->idbits, (size_t)ncap * sizeof(*nb));
		if (!nb)
			return false;
		memset(nb + bk->cap_bits, 0, (size_t)(ncap - bk->cap_bits) * sizeof(*nb));
		bk->idbits = nb;
		bk->cap_bits = ncap;
	}
	return true;
}

/* Side-file events before `end` land in the bucket being written. */
static void consume_series(struct an_buckets *bk, uint64_t end)
{
	while (bk->series_next < bk->nseries && bk->series[bk->series_next].ts < end) {
		const struct an_series *e = &bk->series[bk->series_next++];
		if (e->kind >= AN_SER_NIC_CNP_SENT) {
			bk->nic[e->kind - AN_SER_NIC_CNP_SENT] += e->v;
			continue;
		}
		if (e->flow == AN_NONE || e->flow >= bk->ft->n || !room(bk))
			continue;
		struct an_bk_flow *a = &bk->at[e->flow];
		if (e->kind == AN_SER_RATE) {
			a->rate = e->v;
			a->rate_known = true;
		} else {
			a->src_cnp++;
			bk->src_cnp_all++;
		}
		an_bk_mark(bk, &bk->ft->flows[e->flow], e->flow);
	}
}

/* The flow's row: what changed since its previous one. */
static void flow_row(struct an_buckets *bk, uint32_t fi, struct rt_an_flow_row *r)
{
	const struct an_flow *f = &bk->ft->flows[fi];
	struct an_bk_flow *a = &bk->at[fi];
	const struct an_xport *x = f->x;
	uint64_t nak = x ? x->naks_received : 0, retx = x ? x->retransmitted : 0;
	uint64_t rtt_n = x && x->rtt ? x->rtt->n : 0, rtt_sum = x && x->rtt ? x->rtt->sum : 0;
	r->id = f->id;
	r->selected = (f->flags & AN_FLOW_SELECTED) != 0;
	r->d.packets = f->packets - a->packets;
	r->d.bytes = f->bytes - a->bytes;
	r->d.ce = f->ecn[3] - a->ce;
	r->d.cnp = f->cnp_received - a->cnp;
	r->d.nak = nak - a->nak;
	r->d.retransmitted = retx - a->retransmitted;
	r->rtt_samples = rtt_n - a->rtt_n;
	r->rtt_sum_ns = rtt_sum - a->rtt_sum;
	r->source_rate_known = a->rate_known;
	r->source_rate_mbps = a->rate;
	r->source_cnp = a->src_cnp;
	a->packets = f->packets;
	a->bytes = f->bytes;
	a->ce = f->ecn[3];
	a->cnp = f->cnp_received;
	a->nak = nak;
	a->retransmitted = retx;
	a->rtt_n = rtt_n;
	a->rtt_sum = rtt_sum;
	a->src_cnp = 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The rows of the flows on the list, in id order, into *rows (`rows` here,
 * or the row_room's); the list is emptied. Returns how many.
 */
static uint32_t flow_rows(struct an_buckets *bk, struct rt_an_flow_row **rows)
{
	uint32_t n = bk->ndirty, k = 0;
	struct rt_an_flow_row row, *out = NULL;
	if (room(bk))
		out = bk->row_room ? bk->row_room(bk->ctx, n) : bk->rows;
	*rows = out;
	if (!out) { /* out of memory: the list empties, the counts wait for the flows' next rows */
		for (uint32_t i = 0; i < n; i++)
			bk->ft->flows[bk->dirty[i]].flags &= (uint16_t)~AN_FLOW_TL_DIRTY;
		bk->ndirty = 0;
		return 0;
	}
	uint32_t words = (bk->ft->next_id + 63) / 64;
	if (words <= (uint64_t)n * 16) {
		/*
		 * their ids marked in a bitmap and read back in order: a sort of
		 * the ids (qsort) took 8% of report's time, 100 us buckets
		 * of 10,000 flows; a walk over every id took longer where most
		 * are idle
		 */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t id = bk->ft->flows[bk->dirty[i]].id;
			if (id != AN_NONE)
				bk->idbits[id / 64] |= 1ull << (id % 64);
		}
		for (uint32_t w = 0; w < words; w++) {
			for (uint64_t x = bk->idbits[w]; x; x &= x - 1)
				flow_row(bk, bk->ft->order[w * 64 + (uint32_t)__builtin_ctzll(x)],
				         &out[k++]);
			bk->idbits[w] = 0;
		}
	} else { /* a few flows among very many: their ids sorted */
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++)
			if (bk->ft->flows[bk->dirty[i]].id != AN_NONE)
				bk->ids[m++] = bk->ft->flows[bk->dirty[i]].id;
		qsort(bk->ids, m, sizeof(*bk->ids), cmp_u32);
		for (uint32_t i = 0; i < m; i++)
			flow_row(bk, bk->ft->order[bk->ids[i]], &out[k++]);
	}
	/* flows without an id (no packet yet) have no row: their snapshot moves on */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t fi = bk->dirty[i];
		struct an_flow *f = &bk->ft->flows[fi];
		if (f->id == AN_NONE)
			flow_row(bk, fi, &row);
		f->flags &= (uint16_t)~AN_FLOW_TL_DIRTY;
	}
	bk->ndirty = 0;
	return k;
}

/* Hand over bucket [t, t + len) unless nothing happened in it. */
static int emit(struct an_buckets *bk, uint64_t t)
{
	const struct an_totals *tot = bk->tot;
	struct rt_an_bucket b;
	const struct rt_an_flow_row *taken = NULL;
	uint32_t ntaken = bk->take_rows ? bk->take_rows(bk->take_ctx, t, &taken) : 0;
	consume_series(bk, t + bk->len);
	memset(&b, 0, sizeof(b));
	b.t_ns = t;
	b.len_ns = bk->len;
	b.all.packets = tot->c.packets - tot->copies - bk->all_at.packets;
	b.all.bytes = tot->c.bytes - tot->copy_bytes - bk->all_at.bytes;
	b.all.ce = tot->c.ce - bk->all_at.ce;
	b.all.cnp = tot->c.cnp - bk->all_at.cnp;
	b.all.nak = tot->c.nak - bk->all_at.nak;
	b.all.retransmitted = tot->c.retransmitted - bk->all_at.retransmitted;
	bool any = b.all.packets || bk->ndirty || ntaken || bk->nic[0] || bk->nic[1] || bk->nic[2];
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		b.pfc_xoff[c] = bk->pfc->xoff[c] - bk->xoff_at[c];
		b.pfc_paused_ns[c] = bk->pfc->paused_ns[c] - bk->paused_at[c];
		any |= b.pfc_xoff[c] || b.pfc_paused_ns[c];
	}
	if (!any)
		return 0;
	struct rt_an_flow_row *own = NULL;
	b.nrows = bk->take_rows ? ntaken : flow_rows(bk, &own);
	b.rows = bk->take_rows ? taken : own;
	b.source_log = bk->srclog;
	b.counters = bk->counters;
	b.source_cnp = bk->src_cnp_all;
	b.nic_cnp_sent = bk->nic[0];
	b.nic_cnp_handled = bk->nic[1];
	b.nic_pause_frames = bk->nic[2];
	bk->all_at.packets += b.all.packets;
	bk->all_at.bytes += b.all.bytes;
	bk->all_at.ce += b.all.ce;
	bk->all_at.cnp += b.all.cnp;
	bk->all_at.nak += b.all.nak;
	bk->all_at.retransmitted += b.all.retransmitted;
	memcpy(bk->xoff_at, bk->pfc->xoff, sizeof(bk->xoff_at));
	memcpy(bk->paused_at, bk->pfc->paused_ns, sizeof(bk->paused_at));
	bk->src_cnp_all = 0;
	memset(bk->nic, 0, sizeof(bk->nic));
	return bk->deliver ? bk->deliver(bk->ctx, &b) : 0;
}

int an_bk_close(struct an_buckets *bk, uint64_t to, bool paused)
{
	uint64_t end = bk->cur + bk->len;
	int rc = emit(bk, bk->cur);
	if (paused && bk->tot->c.packets == bk->frames_at)
		bk->fill++;
	uint64_t next = paused ? end : to;
	/* do not skip over buckets that side-file events fall in */
	if (bk->series_next < bk->nseries && bk->series[bk->series_next].ts < next) {
		uint64_t st = bk->series[bk->series_next].ts;
		next = st - st % bk->len;
		if (next < end)
			next = end;
	}
	bk->cur = next;
	bk->frames_at = bk->tot->c.packets;
	return rc;
}

uint64_t an_bk_fill_ahead(const struct an_buckets *bk, uint64_t to, uint64_t until)
{
	uint64_t last = until < to ? until : to;
	return last > bk->cur ? (last - bk->cur) / bk->len + 1 : 0;
}

int an_bk_series_add(struct an_buckets *bk, uint64_t ts, uint32_t flow, enum an_series_kind kind,
                     double v)
{
	if (bk->nseries == bk->cap_series) {
		size_t ncap = bk->cap_series ? bk->cap_series * 2 : 256;
		struct an_series *n = realloc(bk->series, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		bk->series = n;
		bk->cap_series = ncap;
	}
	bk->series[bk->nseries] = (struct an_series){
	    .ts = ts, .flow = flow, .seq = (uint32_t)bk->nseries, .kind = (uint8_t)kind, .v = v};
	bk->nseries++;
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	const struct an_series *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void an_bk_sort_series(struct an_buckets *bk)
{
	if (bk->nseries > 1)
		qsort(bk->series, bk->nseries, sizeof(*bk->series), cmp_series);
}

/* Incast: flows with requests grouped by receiver; among those with two senders or more and evidence of congestion, the one with the most CE marks. */
#include "analyze/incast.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/figures.h"

/* A receiver and what its senders' flows carry. */
struct an_incast {
	const struct rt_res_flow *any; /* a flow into the receiver (its dst, ipver) */
	uint32_t senders, flows;
	uint64_t bytes, ce, first, last;
	unsigned evidence; /* enum rt_incast_evidence bits */
};

static int by_dst_src(const void *a, const void *b, void *ctx)
{
	const struct rt_res_flow *flows = ctx;
	const struct rt_an_flow_key *x = &flows[*(const uint32_t *)a].key,
	                            *y = &flows[*(const uint32_t *)b].key;
	if (x->ipver != y->ipver)
		return x->ipver < y->ipver ? -1 : 1;
	int c = memcmp(x->dst, y->dst, 16);
	return c ? c : memcmp(x->src, y->src, 16);
}

const char *rt_incast_evidence_name(unsigned k)
{
	static const char *const names[RT_INCAST_EVIDENCE_KINDS] = {"ce", "pause", "loss",
	                                                            "link_full"};
	return k < RT_INCAST_EVIDENCE_KINDS ? names[k] : "";
}

static bool hotter(const struct an_incast *a, const struct an_incast *b)
{
	if (!b->any)
		return true;
	if (a->ce != b->ce)
		return a->ce > b->ce;
	if (a->senders != b->senders)
		return a->senders > b->senders;
	return a->bytes > b->bytes;
}

/* Losses the flow shows: PSN gaps, resends, NAKs to its sender. */
static bool lossy(const struct rt_res_flow *f)
{
	const struct rt_res_transport *x = f->xport;
	return x && (x->gaps || x->retransmitted || x->naks_received || x->rnr_naks_received);
}

/*
 * The hot receiver (true), or none (false): then *quiet is the receiver
 * such a one would have been without the evidence (its `any` NULL when no
 * receiver has two senders).
 */
static bool find(const struct rt_results *r, bool paused, struct an_incast *best,
                 struct an_incast *quiet)
{
	uint32_t n = 0, *idx = malloc((r->nflows ? r->nflows : 1) * sizeof(*idx));
	memset(best, 0, sizeof(*best));
	memset(quiet, 0, sizeof(*quiet));
	if (!idx)
		return false;
	for (uint32_t id = 0; id < r->nflows; id++)
		if (r->flows[id].requests)
			idx[n++] = id;
	qsort_r(idx, n, sizeof(*idx), by_dst_src, (void *)r->flows);
	for (uint32_t i = 0; i < n;) {
		struct an_incast cur = {.any = &r->flows[idx[i]], .first = UINT64_MAX};
		const struct rt_res_flow *prev = NULL;
		bool loss = false;
		for (; i < n; i++) {
			const struct rt_res_flow *f = &r->flows[idx[i]];
			if (f->key.ipver != cur.any->key.ipver ||
			    memcmp(f->key.dst, cur.any->key.dst, 16))
				break;
			if (!prev || memcmp(f->key.src, prev->key.src, 16))
				cur.senders++;
			prev = f;
			cur.flows++;
			cur.bytes += f->bytes;
			cur.ce += f->ecn[3];
			loss |= lossy(f);
			if (f->first_ns < cur.first)
				cur.first = f->first_ns;
			if (f->last_ns > cur.last)
				cur.last = f->last_ns;
		}
		if (cur.senders < 2)
			continue;
		double span = cur.last > cur.first ? (double)(cur.last - cur.first) : 0;
		cur.evidence =
		    (cur.ce ? RT_INCAST_CE : 0u) | (paused ? RT_INCAST_PAUSE : 0u) |
		    (loss ? RT_INCAST_LOSS : 0u) |
		    (span > 0 && (double)cur.bytes * 8e9 / span >= 0.95 * (double)r->link_speed_bps
		         ? RT_INCAST_LINK_FULL
		         : 0u);
		struct an_incast *into = cur.evidence ? best : quiet;
		if (hotter(&cur, into))
			*into = cur;
	}
	free(idx);
	return best->any != NULL;
}

void an_incast_view(struct rt_results *r)
{
	bool paused = false;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++)
		paused |= r->pfc[c].paused_ns > 0;
	struct an_incast best, quiet;
	r->incast = find(r, paused, &best, &quiet);
	const struct an_incast ic = r->incast ? best : quiet;
	r->fan_in = ic.any != NULL;
	if (!r->incast)
		r->incast_null_reason = r->fan_in
		                            ? "receivers with two senders or more show no "
		                              "congestion: no CE mark, pause, loss, nor a full "
		                              "link"
		                            : "no receiver has two senders";
	if (!r->fan_in)
		return;
	r->incast_evidence = ic.evidence;
	r->incast_ipver = ic.any->key.ipver;
	memcpy(r->incast_receiver, ic.any->key.dst, sizeof(r->incast_receiver));
	r->incast_senders = ic.senders;
	r->incast_flows = ic.flows;
	r->incast_bytes = ic.bytes;
	r->incast_ce = ic.ce;
	r->incast_gbps = an_rate_gbps(ic.bytes, ic.first, ic.last);
}

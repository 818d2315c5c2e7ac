/* Incast: flows with requests grouped by receiver; among those with two senders or more and evidence of congestion, the one with the most CE marks. */
#include "analyze/incast.h"

#include <stdlib.h>
#include <string.h>

static int by_dst_src(const void *a, const void *b, void *ctx)
{
	const struct an_flow *flows = ctx;
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
static bool lossy(const struct an_flow *f)
{
	const struct an_xport *x = f->x;
	return x && (x->gaps || x->retransmitted || x->naks_received || x->rnr_naks_received);
}

bool an_incast_find(const struct an_flowtab *ft, bool paused, uint64_t link_bps,
                    struct an_incast *best, struct an_incast *quiet)
{
	uint32_t n = 0, *idx = malloc((ft->n ? ft->n : 1) * sizeof(*idx));
	memset(best, 0, sizeof(*best));
	memset(quiet, 0, sizeof(*quiet));
	if (!idx)
		return false;
	for (uint32_t fi = 0; fi < ft->n; fi++)
		if (ft->flows[fi].requests && ft->flows[fi].id != AN_NONE)
			idx[n++] = fi;
	qsort_r(idx, n, sizeof(*idx), by_dst_src, ft->flows);
	for (uint32_t i = 0; i < n;) {
		struct an_incast cur = {.any = &ft->flows[idx[i]], .first = UINT64_MAX};
		const struct an_flow *prev = NULL;
		bool loss = false;
		for (; i < n; i++) {
			const struct an_flow *f = &ft->flows[idx[i]];
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
			if (f->first_ts < cur.first)
				cur.first = f->first_ts;
			if (f->last_ts > cur.last)
				cur.last = f->last_ts;
		}
		if (cur.senders < 2)
			continue;
		double span = cur.last > cur.first ? (double)(cur.last - cur.first) : 0;
		cur.evidence =
		    (cur.ce ? RT_INCAST_CE : 0u) | (paused ? RT_INCAST_PAUSE : 0u) |
		    (loss ? RT_INCAST_LOSS : 0u) |
		    (span > 0 && (double)cur.bytes * 8e9 / span >= 0.95 * (double)link_bps
		         ? RT_INCAST_LINK_FULL
		         : 0u);
		struct an_incast *into = cur.evidence ? best : quiet;
		if (hotter(&cur, into))
			*into = cur;
	}
	free(idx);
	return best->any != NULL;
}

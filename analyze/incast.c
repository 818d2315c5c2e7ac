/* Incast: flows with requests grouped by receiver; the one with the most CE marks among those with two senders or more. */
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

bool an_incast_find(const struct an_flowtab *ft, struct an_incast *best)
{
	uint32_t n = 0, *idx = malloc((ft->n ? ft->n : 1) * sizeof(*idx));
	memset(best, 0, sizeof(*best));
	if (!idx)
		return false;
	for (uint32_t fi = 0; fi < ft->n; fi++)
		if (ft->flows[fi].requests && ft->flows[fi].id != AN_NONE)
			idx[n++] = fi;
	qsort_r(idx, n, sizeof(*idx), by_dst_src, ft->flows);
	for (uint32_t i = 0; i < n;) {
		struct an_incast cur = {.any = &ft->flows[idx[i]], .first = UINT64_MAX};
		const struct an_flow *prev = NULL;
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
			if (f->first_ts < cur.first)
				cur.first = f->first_ts;
			if (f->last_ts > cur.last)
				cur.last = f->last_ts;
		}
		if (cur.senders < 2)
			continue;
		if (!best->any || cur.ce > best->ce ||
		    (cur.ce == best->ce && cur.senders > best->senders) ||
		    (cur.ce == best->ce && cur.senders == best->senders && cur.bytes > best->bytes))
			*best = cur;
	}
	free(idx);
	return best->any != NULL;
}

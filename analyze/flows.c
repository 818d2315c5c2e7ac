/* Flow table: open addressing by key (load at most 1/2, grows by doubling), ids in first-seen order, rare state. */
#include "analyze/flows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/reaction.h"

#define AN_INITIAL_FLOWS 1024u

int an_flows_init(struct an_flowtab *ft, uint32_t max_flows)
{
	memset(ft, 0, sizeof(*ft));
	ft->max = max_flows;
	ft->cap = AN_INITIAL_FLOWS;
	ft->flows = aligned_alloc(_Alignof(struct an_flow), ft->cap * sizeof(*ft->flows));
	ft->tab_mask = 2 * AN_INITIAL_FLOWS - 1;
	ft->tab = malloc((size_t)(ft->tab_mask + 1) * sizeof(*ft->tab));
	ft->order_cap = AN_INITIAL_FLOWS;
	ft->order = malloc(ft->order_cap * sizeof(*ft->order));
	ft->first_frame = malloc(ft->order_cap * sizeof(*ft->first_frame));
	if (!ft->flows || !ft->tab || !ft->order || !ft->first_frame)
		return -ENOMEM;
	memset(ft->tab, 0xff, (size_t)(ft->tab_mask + 1) * sizeof(*ft->tab));
	return 0;
}

static void flow_free(struct an_flow *f)
{
	if (f->x) {
		free(f->x->rtt);
		free(f->x->gbn_delay);
		free(f->x->timeout_gap);
		free(f->x->rnr_wait);
		free(f->x->nak_codes);
		free(f->x->ar_frame);
		free(f->x);
	}
	an_np_free(f->np);
	an_rp_free(f->rp);
	free(f->src);
}

void an_flows_free(struct an_flowtab *ft)
{
	for (uint32_t i = 0; ft->flows && i < ft->n; i++)
		flow_free(&ft->flows[i]);
	free(ft->flows);
	free(ft->tab);
	free(ft->order);
	free(ft->first_frame);
	ft->flows = NULL;
	ft->tab = ft->order = NULL;
	ft->first_frame = NULL;
}

static int grow_table(struct an_flowtab *ft)
{
	uint32_t nmask = ft->tab_mask * 2 + 1;
	uint32_t *nt = malloc((size_t)(nmask + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	memset(nt, 0xff, (size_t)(nmask + 1) * sizeof(*nt));
	for (uint32_t fi = 0; fi < ft->n; fi++) {
		uint32_t i = ft->flows[fi].hash & nmask;
		while (nt[i] != AN_NONE)
			i = (i + 1) & nmask;
		nt[i] = fi;
	}
	free(ft->tab);
	ft->tab = nt;
	ft->tab_mask = nmask;
	return 0;
}

/* Room for `n` flows in all, the table's load kept at most 1/2; false when out of memory. */
static bool flows_room(struct an_flowtab *ft, uint32_t n)
{
	if (n > ft->cap) {
		uint32_t ncap = ft->cap;
		while (ncap < n)
			ncap *= 2;
		struct an_flow *nf =
		    aligned_alloc(_Alignof(struct an_flow), (size_t)ncap * sizeof(*nf));
		if (!nf)
			return false;
		memcpy(nf, ft->flows, (size_t)ft->n * sizeof(*nf));
		free(ft->flows);
		ft->flows = nf;
		ft->cap = ncap;
	}
	while ((uint64_t)(n + 1) * 2 > (uint64_t)ft->tab_mask + 1)
		if (grow_table(ft) < 0)
			return false;
	return true;
}

uint32_t an_flow_create(struct an_flowtab *ft, const struct rt_an_flow_key *key, uint32_t h)
{
	uint32_t i = h & ft->tab_mask;
	while (ft->tab[i] != AN_NONE)
		i = (i + 1) & ft->tab_mask;
	if (ft->n == AN_NONE - 1 || (ft->max && ft->n >= ft->max)) {
		ft->full = ft->max != 0;
		return AN_NONE;
	}
	if (ft->n == ft->cap || (ft->n + 1) * 2 > ft->tab_mask + 1) {
		if (!flows_room(ft, ft->n + 1))
			return AN_NONE;
		i = h & ft->tab_mask;
		while (ft->tab[i] != AN_NONE)
			i = (i + 1) & ft->tab_mask;
	}
	uint32_t fi = ft->n++;
	struct an_flow *f = &ft->flows[fi];
	memset(f, 0, sizeof(*f));
	f->key = *key;
	f->hash = h;
	f->id = AN_NONE;
	f->reverse = AN_NONE;
	f->peer_qp = AN_NONE;
	f->transport = AN_TRANSPORT_NONE;
	ft->tab[i] = fi;
	return fi;
}

/* Room for ids up to `need` in order and first_frame; false when out of memory. */
static bool order_room(struct an_flowtab *ft, uint32_t need)
{
	if (need <= ft->order_cap)
		return true;
	uint32_t ncap = ft->order_cap;
	while (ncap < need)
		ncap *= 2;
	uint32_t *no = realloc(ft->order, (size_t)ncap * sizeof(*no));
	if (no)
		ft->order = no;
	uint64_t *nf = no ? realloc(ft->first_frame, (size_t)ncap * sizeof(*nf)) : NULL;
	if (!nf)
		return false;
	ft->first_frame = nf;
	ft->order_cap = ncap;
	return true;
}

void an_flow_assign_id(struct an_flowtab *ft, uint32_t fi, uint64_t frame)
{
	struct an_flow *f = &ft->flows[fi];
	if (f->id != AN_NONE)
		return;
	if (!order_room(ft, ft->next_id + 1))
		return; /* stays without an id: counted, not listed */
	f->id = ft->next_id++;
	ft->order[f->id] = fi;
	ft->first_frame[f->id] = frame;
}

struct an_xport *an_xport(struct an_flow *f)
{
	if (!f->x)
		f->x = calloc(1, sizeof(*f->x));
	return f->x;
}

void an_flows_xport_sum(const struct an_flowtab *ft, struct an_xport_sum *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (uint32_t i = 0; i < ft->n; i++) {
		const struct an_xport *x = ft->flows[i].x;
		if (!x)
			continue;
		sum->gaps += x->gaps;
		sum->gap_psns += x->gap_psns;
		sum->go_back_n += x->go_back_n;
		sum->timeouts += x->timeouts;
		sum->psn_jumps += x->psn_jumps;
	}
}

const char *an_pairing_name(enum an_pair_how p)
{
	static const char *const names[] = {"none", "ack", "response", "deth", "cm", "cnp", "sole"};
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "none";
}

/* The ids of both tables interleaved by first frame (dst's first on a tie); at: src index -> dst index. */
static void merge_ids(struct an_flowtab *dst, const struct an_flowtab *src, const uint32_t *at,
                      uint32_t *order, uint64_t *ff, uint32_t *map_dst, uint32_t *map_src)
{
	uint32_t i = 0, j = 0, k = 0;
	while (i < dst->next_id || j < src->next_id) {
		bool take_src = j < src->next_id &&
		                (i == dst->next_id || src->first_frame[j] < dst->first_frame[i]);
		if (take_src) {
			order[k] = at[src->order[j]];
			ff[k] = src->first_frame[j];
			if (map_src)
				map_src[j] = k;
			j++;
		} else {
			order[k] = dst->order[i];
			ff[k] = dst->first_frame[i];
			if (map_dst)
				map_dst[i] = k;
			i++;
		}
		k++;
	}
}

int an_flows_merge(struct an_flowtab *dst, struct an_flowtab *src, uint32_t *map_dst,
                   uint32_t *map_src, uint32_t *at_src)
{
	uint32_t ids = dst->next_id + src->next_id;
	uint32_t *at = malloc((size_t)(src->n ? src->n : 1) * sizeof(*at));
	uint32_t *order = malloc((size_t)(ids ? ids : 1) * sizeof(*order));
	uint64_t *ff = malloc((size_t)(ids ? ids : 1) * sizeof(*ff));
	if (!at || !order || !ff || dst->n > AN_NONE - 1 - src->n ||
	    !flows_room(dst, dst->n + src->n) || !order_room(dst, ids)) {
		free(at);
		free(order);
		free(ff);
		return -ENOMEM;
	}
	uint32_t max = dst->max;
	dst->max = 0; /* each part kept its own flows: the merge keeps them all */
	for (uint32_t si = 0; si < src->n; si++)
		at[si] = an_flow_create(dst, &src->flows[si].key, src->flows[si].hash);
	dst->max = max;
	for (uint32_t si = 0; si < src->n; si++) {
		struct an_flow *f = &dst->flows[at[si]];
		*f = src->flows[si];
		f->flags &= (uint16_t)~AN_FLOW_TL_DIRTY;
		if (f->reverse != AN_NONE)
			f->reverse = at[f->reverse];
	}
	merge_ids(dst, src, at, order, ff, map_dst, map_src);
	if (at_src)
		memcpy(at_src, at, (size_t)src->n * sizeof(*at));
	memcpy(dst->order, order, (size_t)ids * sizeof(*order));
	memcpy(dst->first_frame, ff, (size_t)ids * sizeof(*ff));
	for (uint32_t id = 0; id < ids; id++)
		dst->flows[dst->order[id]].id = id;
	dst->next_id = ids;
	dst->beyond_packets += src->beyond_packets;
	dst->beyond_bytes += src->beyond_bytes;
	dst->full |= src->full;
	/* src keeps nothing: its flows' rare state is dst's now */
	src->n = src->next_id = 0;
	src->beyond_packets = src->beyond_bytes = 0;
	memset(src->tab, 0xff, (size_t)(src->tab_mask + 1) * sizeof(*src->tab));
	free(at);
	free(order);
	free(ff);
	return 0;
}

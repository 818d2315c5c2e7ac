/* The flow table: per-QP flows (one direction of one QP) by key, and their ids in first-seen order. */
#ifndef RT_ANALYZE_FLOWS_H
#define RT_ANALYZE_FLOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flow.h"
#include "common/hash.h"

/* The table: flows by index (creation order) and by key, their ids. */
struct an_flowtab {
	struct an_flow *flows;
	uint32_t n, cap;
	uint32_t *tab; /* open addressing: flow index or AN_NONE */
	uint32_t tab_mask;
	uint32_t next_id;
	uint32_t *order; /* flow indexes by id */
	uint64_t
	    *first_frame; /* by id: the frame number of the flow's first packet (merge order) */
	uint32_t order_cap;
	uint32_t max; /* the most flows kept (rt_analyzer_opts.max_flows), 0 = no limit */
	/* records of flows beyond `max`: counted in the totals only */
	uint64_t beyond_packets, beyond_bytes;
	bool full; /* a flow was refused for `max` */
};

int an_flows_init(struct an_flowtab *ft, uint32_t max_flows);
void an_flows_free(struct an_flowtab *ft);

static inline uint32_t an_flow_hash(const struct rt_an_flow_key *k)
{
	uint64_t h = 0x243f6a8885a308d3ull ^ k->dest_qp;
	uint64_t w[4];
	if (k->ipver == 4) {
		uint32_t a, b;
		memcpy(&a, k->src, 4);
		memcpy(&b, k->dst, 4);
		h = rt_hash_mix(h, (uint64_t)a << 32 | b);
	} else {
		memcpy(w, k->src, 16);
		memcpy(w + 2, k->dst, 16);
		for (int i = 0; i < 4; i++)
			h = rt_hash_mix(h, w[i]);
	}
	h = rt_hash_mix(h, k->ipver);
	return (uint32_t)(h ^ (h >> 32));
}

static inline bool an_same_key(const struct rt_an_flow_key *a, const struct rt_an_flow_key *b)
{
	if (a->dest_qp != b->dest_qp || a->ipver != b->ipver)
		return false;
	if (a->ipver == 4)
		return !memcmp(a->src, b->src, 4) && !memcmp(a->dst, b->dst, 4);
	return !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16);
}

/* A new flow of `key` (hash h, absent); AN_NONE when out of memory or beyond the most flows kept. */
uint32_t an_flow_create(struct an_flowtab *ft, const struct rt_an_flow_key *key, uint32_t h);

/*
 * Index of the flow of `key`, created when absent and `create` is set;
 * AN_NONE when absent, out of memory or beyond the most flows kept.
 */
static inline uint32_t an_flow_get_hashed(struct an_flowtab *ft, const struct rt_an_flow_key *key,
                                          uint32_t h, bool create)
{
	for (uint32_t i = h & ft->tab_mask;; i = (i + 1) & ft->tab_mask) {
		uint32_t fi = ft->tab[i];
		if (fi == AN_NONE)
			return create ? an_flow_create(ft, key, h) : AN_NONE;
		if (ft->flows[fi].hash == h && an_same_key(&ft->flows[fi].key, key))
			return fi;
	}
}

static inline uint32_t an_flow_get(struct an_flowtab *ft, const struct rt_an_flow_key *key,
                                   bool create)
{
	return an_flow_get_hashed(ft, key, an_flow_hash(key), create);
}

/*
 * Ask for what looking up the flow of hash h will read (its table slot, and
 * the flow that slot names when the slot is in cache already), so that the
 * loads overlap other work.
 */
static inline void an_flow_prefetch_slot(const struct an_flowtab *ft, uint32_t h)
{
	__builtin_prefetch(&ft->tab[h & ft->tab_mask]);
}
static inline void an_flow_prefetch(const struct an_flowtab *ft, uint32_t h)
{
	uint32_t fi = ft->tab[h & ft->tab_mask];
	if (fi != AN_NONE) {
		const char *f = (const char *)&ft->flows[fi];
		__builtin_prefetch(f, 1);
		__builtin_prefetch(f + 64, 1);
		__builtin_prefetch(f + 128, 1);
	}
}
/* Give flow fi the next id (its first packet, frame number `frame`). */
void an_flow_assign_id(struct an_flowtab *ft, uint32_t fi, uint64_t frame);
/* The flow with id `id` (id < next_id). */
static inline struct an_flow *an_flow_by_id(const struct an_flowtab *ft, uint32_t id)
{
	return &ft->flows[ft->order[id]];
}
/* The rare transport state of f, allocated at first use (NULL when out of memory). */
struct an_xport *an_xport(struct an_flow *f);

/* Transport counters summed over every flow. */
struct an_xport_sum {
	uint64_t gaps, gap_psns, go_back_n, timeouts, psn_jumps;
};
void an_flows_xport_sum(const struct an_flowtab *ft, struct an_xport_sum *sum);

/*
 * Move every flow of `src` (finished, fed other host pairs than dst) into
 * `dst`, rare state and all; `src` is left empty. Ids are given anew in the
 * order of the flows' first frames (dst's first on a tie): map_dst[old id]
 * and map_src[old id] (arrays of dst's and src's next_id entries, or NULL)
 * get each flow's new id; at_src[index] (src's n entries, or NULL) each src
 * flow's index in dst's table. 0 or -ENOMEM (nothing moved).
 */
int an_flows_merge(struct an_flowtab *dst, struct an_flowtab *src, uint32_t *map_dst,
                   uint32_t *map_src, uint32_t *at_src);

#endif

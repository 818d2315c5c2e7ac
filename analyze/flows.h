/* The flow table: per-QP flows (one direction of one QP) by key, and their ids in first-seen order. */
#ifndef RT_ANALYZE_FLOWS_H
#define RT_ANALYZE_FLOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flow.h"

/* The table: flows by index (creation order) and by key, their ids. */
struct an_flowtab {
	struct an_flow *flows;
	uint32_t n, cap;
	uint32_t *tab; /* open addressing: flow index or AN_NONE */
	uint32_t tab_mask;
	uint32_t next_id;
	uint32_t *order; /* flow indexes by id */
	uint32_t order_cap;
	uint32_t max; /* the most flows kept (rt_analyzer_opts.max_flows), 0 = no limit */
	/* records of flows beyond `max`: counted in the totals only */
	uint64_t beyond_packets, beyond_bytes;
	bool full; /* a flow was refused for `max` */
};

int an_flows_init(struct an_flowtab *ft, uint32_t max_flows);
void an_flows_free(struct an_flowtab *ft);
/*
 * Index of the flow of `key`, created when absent and `create` is set;
 * AN_NONE when absent, out of memory or beyond the most flows kept.
 */
uint32_t an_flow_get(struct an_flowtab *ft, const struct rt_an_flow_key *key, bool create);
/* Give flow fi the next id (its first packet). */
void an_flow_assign_id(struct an_flowtab *ft, uint32_t fi);
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

#endif

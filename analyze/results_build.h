/* Building the results view (analyze/results.c, results_flows.c, results_arena.c): its arena and its flows. */
#ifndef RT_ANALYZE_RESULTS_BUILD_H
#define RT_ANALYZE_RESULTS_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/results.h"

/* The view and the memory it lives in (analyze/results_arena.c). */
struct an_res_block;
struct an_results {
	struct rt_results r;
	uint64_t frames; /* the records fed when it was built: later ones make it stale */
	struct an_res_block *blocks;
};
struct an_vp_result;

/* `size` zeroed bytes that live as long as the view; NULL when out of memory. */
void *an_res_alloc(struct an_results *res, size_t size);
/*
 * The view's flows, by id, into *flows (the paths between vantage points in
 * vr; `at`: a live view's time, 0 after the end). 0 or -ENOMEM.
 */
int an_res_flows(struct an_results *res, const struct rt_res_flow **flows,
                 const struct rt_analyzer *an, const struct an_vp_result *vr, uint64_t at);

#endif

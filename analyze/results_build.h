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
struct an_vp_path;
struct an_vantage;
struct an_pfc;
struct an_episodes;

/* `size` zeroed bytes that live as long as the view; NULL when out of memory. */
void *an_res_alloc(struct an_results *res, size_t size);
/*
 * (results_arena.c) A set of vantage points in the view's memory: the
 * points 0..63 of `bits` (bit p: point p). 0 or -ENOMEM.
 */
int an_res_points(struct an_results *res, struct rt_res_points *out, uint64_t bits);
/*
 * The view's flows, by id, into *flows (the paths between vantage points in
 * vr; `at`: a live view's time, 0 after the end). 0 or -ENOMEM.
 */
int an_res_flows(struct an_results *res, const struct rt_res_flow **flows,
                 const struct rt_analyzer *an, const struct an_vp_result *vr, uint64_t at);

/* (results_flows.c) Flow o's paths between vantage points (by its key) and what each lost. 0 or -ENOMEM. */
int an_res_flow_paths(struct an_results *res, struct rt_res_flow *o, const struct an_vantage *v,
                      const struct an_vp_result *vr);
/* (results.c) Path q as the view says it, named by the points vp. */
void an_res_path(struct rt_res_path *o, const struct an_vp_path *q, const struct rt_an_vantage *vp);
/* (results.c) PFC and PAUSE of p: frames, classes, sending MACs, storms. 0 or -ENOMEM. */
int an_res_pfc(struct an_results *res, const struct an_pfc *p);
/*
 * (results.c) The storm incidents of p: those that ended, then (a live
 * view, at > 0) those still under way at `at`. 0 or -ENOMEM.
 */
int an_res_incidents(struct an_results *res, const struct an_pfc *p, uint64_t at);
/*
 * (results.c) The episodes of eps, the capture's first and last frame
 * saying whether the gaps around each lie inside it. 0 or -ENOMEM.
 */
int an_res_episodes(struct an_results *res, const struct an_episodes *eps, uint64_t first_ts,
                    uint64_t last_ts);

#endif

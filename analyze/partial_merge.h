/* Merging partials across vantage points: the state of a merge, and the parts of the merged view each file builds. */
#ifndef RT_ANALYZE_PARTIAL_MERGE_H
#define RT_ANALYZE_PARTIAL_MERGE_H

#include <stdint.h>

#include "analyze/partial.h"
#include "analyze/results_build.h"

/*
 * A merge under way (analyze/partial_merge.c makes it and calls the parts in
 * order: flows and totals first, then the parts below, then the incast, the
 * findings and the verdict of the merged view).
 */
struct an_pm {
	struct rt_partial *const *p; /* the points: point i is p[i] */
	unsigned n;
	struct an_results
	    *out; /* the merged view being built: out->r, memory from an_res_alloc(out, ...) */
	/* the merged flows by id (out->r.flows, writable here), and how many */
	struct rt_res_flow *flows;
	uint32_t nflows;
	/* flow_id[i][id]: the merged id of p[i]'s flow `id` (every flow of every point has one) */
	uint32_t **flow_id;
	/* home[merged id]: the point the flow's figures come from (its first frame, raw clocks) */
	unsigned *home;
	uint64_t window_ns; /* the sampled packets are matched within it (--vantage-window) */
	/* the strings copied into the merged view lately (an_pm_str) */
	unsigned nstr;
	const char *str[32];
};
/* The window the merge matches the points' sampled packets in unless given: analyze's --vantage-window default (10 ms). */
#define AN_PM_VANTAGE_WINDOW_NS 10000000ull

/*
 * analyze/partial_merge.c: a merge of p[0..n-1] begun (*m and its merged
 * view allocated), or refused (-EINVAL, errbuf names why: fewer than 2 or
 * more than RT_PARTIAL_MERGE_MAX points, two of one name, settings that
 * differ); an_pm_end frees what it holds but the view (m->out, the
 * caller's once taken: set it NULL).
 */
int an_pm_start(struct an_pm *m, struct rt_partial *const *p, unsigned n, char *errbuf);
void an_pm_end(struct an_pm *m);
/* A string in the merged view's memory (the same text copied once); NULL stays NULL, and when out of memory. */
const char *an_pm_str(struct an_pm *m, const char *s);

/* analyze/partial_merge.c: out->r.flows (with each flow's CE marks seen at other points) and nflows. */
int an_pm_flows(struct an_pm *m, char *errbuf);
/* analyze/partial_merge.c: out->r.c and the totals beyond it, from the flows and each point's own. */
int an_pm_totals(struct an_pm *m, char *errbuf);
/*
 * analyze/partial_paths.c: out->r.vantage (each partial a point) and
 * out->r.paths from the points' sampled packets replayed in time order
 * through the matcher; each merged flow's npaths, paths and path_lost.
 */
int an_pm_paths(struct an_pm *m, char *errbuf);
/* analyze/partial_pfc.c: PFC and PAUSE (frames, classes, sending MACs, storms, incidents) and the MACs. */
int an_pm_pfc(struct an_pm *m, char *errbuf);
/* analyze/partial_pfc.c: the MAC table (out->r.macs), each MAC's points renumbered. */
int an_pm_macs(struct an_pm *m, char *errbuf);
/* analyze/partial_episodes.c: the episodes of all points chained, their flows renumbered. */
int an_pm_episodes(struct an_pm *m, char *errbuf);
/*
 * analyze/partial_episodes.c: what the captures said about themselves
 * (drops, duplicates, cut frames, time order, warnings), per point where a
 * point's own.
 */
int an_pm_capture(struct an_pm *m, char *errbuf);

/*
 * analyze/partial_merge.c: an index of the flows of view r by key (slot ->
 * id, RT_AN_NONE: empty; *size a power of 2), and a key's id in it
 * (RT_AN_NONE: none). NULL: out of memory.
 */
uint32_t *an_pm_key_index(const struct rt_results *r, uint64_t *size);
uint32_t an_pm_key_find(const struct rt_results *r, const uint32_t *slot, uint64_t size,
                        const struct rt_an_flow_key *k);

/* What a CNP sighting adds beyond a home's (an_pm_cnp.flags). */
enum {
	AN_PM_CNP_CARRIER = 1, /* a CNP its carrier's home missed: counted here */
	AN_PM_CNP_DATA = 2,    /* a CNP the throttled flow's home missed: counted here */
};
/* A CNP (a packet a partial flags RT_PP_CNP) as one point saw it. */
struct an_pm_cnp {
	uint64_t fp, ts;  /* its fingerprint; its time in the point's clock */
	uint32_t carrier; /* the merged flow that carried it */
	/* the merged flow it throttles (the carrier's reverse), RT_AN_NONE: unknown */
	uint32_t data;
	uint32_t peer; /* the carrier's peer QP as this point learned it, RT_AN_NONE: not */
	unsigned point;
	uint8_t flags;
};
/*
 * analyze/partial_cnp.c: the CNPs the partials p[0..n-1] flag, of merged
 * flows (map[i][id]: the merged id of point i's flow id; home[id] its home
 * point; r the merged view), sorted by carrier, fingerprint, point and
 * time into *out (n of them: *nout; the caller frees it). A merged flow
 * counts the CNPs its home saw; of each fingerprint (identical CNPs share
 * one) the point that saw the most (ties: the lower point) adds its latest
 * beyond the home's count, flagged AN_PM_CNP_CARRIER for the carrier's
 * home and AN_PM_CNP_DATA for the throttled flow's (a home that never
 * paired the carrier counts none). The throttled flow: the carrier's
 * reverse by its peer QP, the merged view's else a point's. 0 or -ENOMEM.
 */
int an_pm_cnps(struct rt_partial *const *p, unsigned n, const struct rt_results *r,
               uint32_t *const *map, const unsigned *home, struct an_pm_cnp **out, uint64_t *nout);

#endif

/* Split and merge: the finished state of an analyzer fed some host pairs merged into another's, part by part. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/internal.h"

/* New flow ids of each side (old id -> new id), and src's flows' indexes in dst's table, from the flows' merge. */
struct merge_maps {
	uint32_t *dst, *src, *at_src;
};

/* The time and the frames: first and last times, the running clock, the frame numbers. */
static int merge_time(struct rt_analyzer *dst, struct rt_analyzer *src, const struct merge_maps *m)
{
	(void)m;
	if (!src->tot.c.packets)
		return 0;
	if (!dst->tot.c.packets || src->first_ts < dst->first_ts)
		dst->first_ts = src->first_ts;
	if (src->last_ts > dst->last_ts)
		dst->last_ts = src->last_ts;
	if (src->now > dst->now)
		dst->now = src->now;
	if (src->frame > dst->frame)
		dst->frame = src->frame;
	return 0;
}

/* The totals: every count summed. */
static int merge_totals(struct rt_analyzer *dst, struct rt_analyzer *src,
                        const struct merge_maps *m)
{
	(void)m;
	_Static_assert(sizeof(struct an_totals) % sizeof(uint64_t) == 0, "counters only");
	uint64_t *d = (uint64_t *)&dst->tot;
	const uint64_t *s = (const uint64_t *)&src->tot;
	for (size_t i = 0; i < sizeof(dst->tot) / sizeof(uint64_t); i++)
		d[i] += s[i];
	dst->cm.pairs += src->cm.pairs;
	an_tally_merge(&dst->tally, &src->tally);
	an_dup_merge(&dst->dups, &src->dups);
	an_macs_merge(&dst->macs, &src->macs);
	/* the RP reaction follows flows at their home point once a part matched across points */
	dst->rpx.apart |= src->rpx.apart;
	if (!dst->input_error[0])
		memcpy(dst->input_error, src->input_error, sizeof(dst->input_error));
	return 0;
}

/* PFC/PAUSE: sending MACs, storms, storm incidents (analyze/pfc_merge.c). */
static int merge_pfc(struct rt_analyzer *dst, struct rt_analyzer *src, const struct merge_maps *m)
{
	(void)m;
	return an_pfc_merge(&dst->pfc, &src->pfc);
}

/* A part of a staged analysis has no episodes of its own: its stage made them (analyze/stage.c). */
static int merge_episodes(struct rt_analyzer *dst, struct rt_analyzer *src,
                          const struct merge_maps *m)
{
	return src->part ? 0 : an_ep_merge(&dst->ep, &src->ep, m->dst, m->src);
}

/* The findings' facts of src's flows, at their indexes in dst's table. */
static int merge_facts(struct rt_analyzer *dst, struct rt_analyzer *src, const struct merge_maps *m)
{
	return an_facts_merge(&dst->facts, &src->facts, m->at_src);
}

/* Vantage points: each side's host pairs with their matches (analyze/vantage.c), the points joined. */
static int merge_vantage(struct rt_analyzer *dst, struct rt_analyzer *src,
                         const struct merge_maps *m)
{
	(void)m;
	if (!dst->vp.nvp && src->vp.nvp) { /* the points' description: dst's, else src's */
		dst->vp.vp = src->vp.vp;
		dst->vp.nvp = src->vp.nvp;
		src->vp.vp = NULL;
		src->vp.nvp = 0;
	}
	return an_vp_merge(&dst->vp, &src->vp);
}

/* A partial's packets (analyze/partial_collect.c), their flows' ids given anew. */
static int merge_partial(struct rt_analyzer *dst, struct rt_analyzer *src,
                         const struct merge_maps *m)
{
	return an_pp_merge(&dst->pk, &src->pk, m->dst, m->src);
}

/*
 * The parts that merge, in this order after the flows (which give the maps).
 * A part whose state hangs off the flows (transport, NP and RP reactions,
 * the source log's join) moves with them and needs no line here.
 */
static const struct {
	int (*merge)(struct rt_analyzer *dst, struct rt_analyzer *src, const struct merge_maps *m);
} parts[] = {{merge_time},  {merge_totals},  {merge_pfc},    {merge_episodes},
             {merge_facts}, {merge_vantage}, {merge_partial}};

int rt_analyzer_merge(struct rt_analyzer *dst, struct rt_analyzer *src, char *errbuf)
{
	const char *why = an_vp_merge_refused(&dst->vp, &src->vp);
	if (why)
		return rt_errmsg(errbuf, ENOTSUP, "%s", why);
	if (dst->pfc.active || src->pfc.active)
		return rt_errmsg(errbuf, EINVAL,
		                 "an analyzer with a pause still running is not finished: it does "
		                 "not merge");
	if (src->side.counters_loaded || src->side.srclog_loaded)
		return rt_errmsg(
		    errbuf, ENOTSUP,
		    "an analyzer with side files does not merge into another (load them "
		    "into the merged one)");
	struct merge_maps m = {
	    .dst = malloc((size_t)(dst->ft.next_id ? dst->ft.next_id : 1) * sizeof(uint32_t)),
	    .src = malloc((size_t)(src->ft.next_id ? src->ft.next_id : 1) * sizeof(uint32_t)),
	    .at_src = malloc((size_t)(src->ft.n ? src->ft.n : 1) * sizeof(uint32_t))};
	int rc = m.dst && m.src && m.at_src
	             ? an_flows_merge(&dst->ft, &src->ft, m.dst, m.src, m.at_src)
	             : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < sizeof(parts) / sizeof(parts[0]); i++)
		rc = parts[i].merge(dst, src, &m);
	free(m.dst);
	free(m.src);
	free(m.at_src);
	an_results_free(dst->res);
	dst->res = NULL;
	return rc < 0 ? rt_errorf(errbuf, -rc, "merging analyzers") : 0;
}

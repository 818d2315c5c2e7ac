/* Merging partials: the points' congestion episodes chained, and what each point's capture said about itself. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/episodes.h"
#include "analyze/partial_merge.h"
#include "common/errbuf.h"

/*
 * Episodes: each point's are rebuilt from its view and merged as analyzer
 * parts merge (an_ep_merge): in order of start (raw clocks, as one pass
 * reads the points), chained where one starts within the episode gap of
 * the end of the one before, counts summed, the flows renumbered to the
 * merged ids and listed once. The CE marks' and CNPs' counts are each
 * point's: a packet seen at two points (a CNP at its sender and its
 * receiver) counts at both, where one pass counts it once, where first
 * seen. A point's listed flows are in their order; when they are joined
 * with another point's, the earlier episode's come first (a view does not
 * say when each flow was first counted).
 */

/* Point i's episodes as an_ep_merge takes them (flow ids the point's own). 0 or -ENOMEM. */
static int rebuild(struct an_episodes *ep, const struct rt_results *r)
{
	memset(ep, 0, sizeof(*ep));
	ep->gap_ns = r->episode_gap_ns;
	ep->slot_w = r->episode_gap_ns / 8 ? r->episode_gap_ns / 8 : 1;
	ep->list = calloc(r->nepisodes ? r->nepisodes : 1, sizeof(*ep->list));
	if (!ep->list)
		return -ENOMEM;
	ep->cap = r->nepisodes ? r->nepisodes : 1;
	for (uint32_t k = 0; k < r->nepisodes; k++) {
		const struct rt_res_episode *e = &r->episodes[k];
		struct an_episode *o = &ep->list[ep->n++];
		*o = (struct an_episode){.start = e->start_ns,
		                         .end = e->end_ns,
		                         .ce = e->ce,
		                         .cnp = e->cnp,
		                         .paused_ns = e->paused_ns,
		                         .pfc_xoff = e->pfc_xoff,
		                         .flows = e->flow_count,
		                         .merged = true};
		unsigned nf = e->nflows < AN_EP_FLOWS ? e->nflows : AN_EP_FLOWS, listed = 0;
		for (unsigned f = 0; f < nf; f++)
			if (e->flows[f] < r->nflows) { /* (a read view's ids are checked) */
				o->flow_ids[listed] = e->flows[f];
				o->flow_ts[listed++] = e->start_ns;
			}
		if (o->flows < AN_EP_FLOWS)
			o->flows = listed;
	}
	return 0;
}

int an_pm_episodes(struct an_pm *m, char *errbuf)
{
	struct an_episodes all, one;
	int rc = rebuild(&all, m->p[0]->r);
	/* the first merge renumbers both, the next ones only the point merged in */
	for (unsigned i = 1; i < m->n && rc == 0; i++) {
		rc = rebuild(&one, m->p[i]->r);
		if (rc == 0)
			rc = an_ep_merge(&all, &one, i == 1 ? m->flow_id[0] : NULL, m->flow_id[i]);
		free(one.list);
	}
	if (rc == 0 && m->n == 1)
		for (uint32_t k = 0; k < all.n; k++)
			for (unsigned f = 0; f < all.list[k].flows && f < AN_EP_FLOWS; f++)
				all.list[k].flow_ids[f] = m->flow_id[0][all.list[k].flow_ids[f]];
	if (rc == 0) /* (merged episodes: no throughput around them, no CE peak) */
		rc = an_res_episodes(m->out, &all, 0, 0);
	free(all.list);
	if (rc < 0)
		return rt_errorf(errbuf, -rc, "the episodes of the vantage points");
	/* a flow an episode counted at any point */
	for (unsigned i = 0; i < m->n; i++) {
		const struct rt_results *r = m->p[i]->r;
		for (uint32_t id = 0; id < r->nflows; id++)
			if (r->flows[id].in_episodes)
				m->flows[m->flow_id[i][id]].in_episodes = true;
	}
	return 0;
}

/* ---- what the captures said about themselves ---- */

/* Point i's warning w, said as that point's, after the view's own. 0 or -ENOMEM. */
static int point_warning(struct an_pm *m, unsigned i, const struct rt_an_warning *w)
{
	struct rt_results *r = &m->out->r;
	if (r->nwarnings == RT_AN_WARNINGS_MAX)
		return 0;
	struct rt_an_warning *o = &r->warnings[r->nwarnings++];
	*o = *w;
	snprintf(o->message, sizeof(o->message), "at %s: %s", m->p[i]->point, w->message);
	if (!(o->code = an_pm_keep(m, w->code)))
		return -ENOMEM;
	for (unsigned k = 0; k < o->nvalues; k++)
		if (!(o->values[k].name = an_pm_keep(m, w->values[k].name)))
			return -ENOMEM;
	if (o->nvalues < RT_AN_WARNING_VALUES) {
		o->values[o->nvalues].name = "point";
		o->values[o->nvalues++].value = i;
	}
	return 0;
}

/* Where the drops were read: "pcapng" when some point read them there, else "counters_file", else NULL. */
static const char *drops_source(const struct an_pm *m)
{
	const char *src = NULL;
	for (unsigned i = 0; i < m->n; i++) {
		const char *s = m->p[i]->r->drops_source;
		if (s && !strcmp(s, "pcapng"))
			return "pcapng";
		if (s && !strcmp(s, "counters_file"))
			src = "counters_file";
	}
	return src;
}

int an_pm_capture(struct an_pm *m, char *errbuf)
{
	struct rt_results *r = &m->out->r;
	const struct rt_results *r0 = m->p[0]->r;
	r->drops_source = drops_source(m);
	r->dup_window_ns = r0->dup_window_ns;
	r->max_flows = r0->max_flows;
	for (unsigned i = 0; i < m->n; i++) {
		const struct rt_results *p = m->p[i]->r;
		r->if_dropped += p->if_dropped;
		r->os_dropped += p->os_dropped;
		r->dup_on |= p->dup_on;
		r->dup_other_point += p->dup_other_point;
		r->dup_same_point += p->dup_same_point;
		r->dup_forgotten_early += p->dup_forgotten_early;
		r->max_flows_reached |= p->max_flows_reached;
		r->packets_beyond += p->packets_beyond;
		r->bytes_beyond += p->bytes_beyond;
		r->icrc_unchecked += p->icrc_unchecked;
		r->headers_cut += p->headers_cut;
		r->time_backwards += p->time_backwards;
		if (p->time_backwards_max_ns > r->time_backwards_max_ns)
			r->time_backwards_max_ns = p->time_backwards_max_ns;
		r->time_backwards_across += p->time_backwards_across;
		for (unsigned k = 0; k < p->nwarnings; k++)
			if (point_warning(m, i, &p->warnings[k]) < 0)
				return rt_errorf(errbuf, ENOMEM, "the warnings of the vantage points");
	}
	return 0;
}

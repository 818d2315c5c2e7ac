/* Merging partials: the points' congestion episodes chained, and what each point's capture said about itself. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/dedup.h"
#include "analyze/episodes.h"
#include "analyze/partial_merge.h"
#include "common/errbuf.h"

/*
 * Episodes: each point's are rebuilt from its view and merged as analyzer
 * parts merge (an_ep_merge): in order of start (raw clocks, as one pass
 * reads the points), chained where one starts within the episode gap of
 * the end of the one before, counts summed, the flows renumbered to the
 * merged ids and listed once. A CE mark or a CNP seen at two points (a CNP
 * at its sender and its receiver) counts at both, where one pass counts it
 * once, where first seen: the copies the partials' packets show come off
 * (uncount_copies). A point's listed flows are in their order; when they
 * are joined with another point's, the earlier episode's come first (a
 * view does not say when each flow was first counted).
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

/* A CE mark or a CNP (what: 0, 1) as a point's episodes counted it. */
struct sighting {
	uint64_t fp, ts;
	unsigned point;
	uint8_t what;
};

static int by_packet(const void *a, const void *b)
{
	const struct sighting *x = a, *y = b;
	if (x->what != y->what)
		return x->what < y->what ? -1 : 1;
	if (x->fp != y->fp)
		return x->fp < y->fp ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->point < y->point ? -1 : x->point > y->point;
}

/* The merged episode holding time ts (they are in order, apart), or NULL. */
static struct an_episode *episode_at(struct an_episodes *ep, uint64_t ts)
{
	uint32_t lo = 0, hi = ep->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ep->list[mid].end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ep->n && ep->list[lo].start <= ts ? &ep->list[lo] : NULL;
}

/*
 * The points' CE marks (every CE-marked packet a partial keeps) and CNPs
 * (those it flags RT_PP_CNP) that are copies of one packet: one pass counts
 * a packet's CE mark once, at its first CE-marked frame, and a CNP once, at
 * its first frame: frames of one fingerprint each within AN_DUP_SPAN_NS of
 * the one before are one run, where a frame at a point that saw fewer of
 * them than another point is a copy (identical packets in flight, CNPs to
 * one QP, pair up by their counts, as duplicate detection pairs them) and
 * else another packet (a resend). The copies' counts come off
 * the merged episodes holding them; an episode left with nothing is none.
 * 0 or -ENOMEM.
 */
static int uncount_copies(const struct an_pm *m, struct an_episodes *ep)
{
	size_t n = 0, k = 0;
	unsigned np = m->n;
	for (unsigned i = 0; i < np; i++)
		for (uint64_t j = 0; j < m->p[i]->npackets; j++)
			n += ((m->p[i]->packets[j].flags & RT_PP_CE) != 0) +
			     ((m->p[i]->packets[j].flags & RT_PP_CNP) != 0);
	struct sighting *s = malloc((n ? n : 1) * sizeof(*s));
	uint64_t *seen = calloc(np, sizeof(*seen)), most = 0;
	if (!s || !seen) {
		free(s);
		free(seen);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < np; i++)
		for (uint64_t j = 0; j < m->p[i]->npackets; j++) {
			const struct rt_partial_packet *q = &m->p[i]->packets[j];
			for (uint8_t w = 0; w < 2; w++)
				if (q->flags & (w ? RT_PP_CNP : RT_PP_CE))
					s[k++] = (struct sighting){
					    .fp = q->fp, .ts = q->ts_ns, .point = i, .what = w};
		}
	qsort(s, n, sizeof(*s), by_packet);
	/* identical packets (CNPs to one QP) share a run: a frame is a copy while its point saw fewer */
	const struct sighting *run = s;
	for (const struct sighting *x = s; x < s + n; x++) {
		if (x == s || x->what != x[-1].what || x->fp != x[-1].fp ||
		    x->ts - x[-1].ts > AN_DUP_SPAN_NS) {
			for (; run < x; run++) /* the points of the run before: none seen */
				seen[run->point] = 0;
			most = 0;
		}
		bool copy = seen[x->point] < most;
		if (++seen[x->point] > most)
			most = seen[x->point];
		if (!copy)
			continue;
		struct an_episode *e = episode_at(ep, x->ts);
		uint64_t *count = e ? (x->what ? &e->cnp : &e->ce) : NULL;
		if (count && *count)
			--*count;
	}
	free(s);
	free(seen);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < ep->n; i++) {
		const struct an_episode *e = &ep->list[i];
		if (e->ce || e->cnp || e->pfc_xoff || e->paused_ns)
			ep->list[kept++] = *e;
	}
	ep->n = kept;
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
	if (rc == 0)
		rc = uncount_copies(m, &all);
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
	if (!(o->code = an_pm_str(m, w->code)))
		return -ENOMEM;
	for (unsigned k = 0; k < o->nvalues; k++)
		if (!(o->values[k].name = an_pm_str(m, w->values[k].name)))
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
				return rt_errorf(errbuf, ENOMEM,
				                 "the warnings of the vantage points");
	}
	return 0;
}

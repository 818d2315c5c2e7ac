/* The results view's flows: each flow's figures, its rare parts (transport, NP, RP, source log) only where it has them. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analyze/figures.h"
#include "analyze/internal.h"
#include "analyze/reaction.h"
#include "analyze/results_build.h"
#include "dissect/opcodes.h"

/* A quantile sketch's summary (p99, mean and stddev too when `full`); samples 0 when there is none. */
static void quantiles(struct rt_res_quantiles *q, const struct an_hist *h, bool full)
{
	memset(q, 0, sizeof(*q));
	if (!h || !h->n)
		return;
	q->samples = h->n;
	q->min = h->min;
	q->max = h->max;
	q->median = an_hist_quantile(h, 0.5);
	if (full) {
		q->p99 = an_hist_quantile(h, 0.99);
		q->mean = h->sum / h->n;
		q->stddev = (uint64_t)(an_hist_stddev(h) + 0.5);
	}
}

static const struct rt_res_transport *transport(struct an_results *res, const struct an_xport *x)
{
	struct rt_res_transport *t = an_res_alloc(res, sizeof(*t));
	if (!t)
		return NULL;
	t->naks_received = x->naks_received;
	t->rnr_naks_received = x->rnr_naks_received;
	t->retransmitted = x->retransmitted;
	t->go_back_n = x->go_back_n;
	t->rnr_retries = x->rnr_retries;
	t->timeouts = x->timeouts;
	t->gaps = x->gaps;
	t->gap_psns = x->gap_psns;
	t->psn_jumps = x->psn_jumps;
	t->duplicates = x->duplicates;
	t->retransmitted_bytes = x->retransmitted_bytes;
	t->rnr_timer = x->rnr_timer;
	if (x->nak_codes) {
		/* codes 5..31 share the name "reserved": one entry with their sum */
		uint64_t reserved = 0;
		for (unsigned c = 0; c < 32; c++) {
			const char *name = rt_nak_code_name((uint8_t)c);
			if (!x->nak_codes[c])
				continue;
			if (!strcmp(name, "reserved")) {
				reserved += x->nak_codes[c];
			} else if (t->nnak_codes < RT_RES_NAK_NAMES - 1) {
				t->nak_codes[t->nnak_codes].name = name;
				t->nak_codes[t->nnak_codes++].count = x->nak_codes[c];
			}
		}
		if (reserved) {
			t->nak_codes[t->nnak_codes].name = "reserved";
			t->nak_codes[t->nnak_codes++].count = reserved;
		}
	}
	quantiles(&t->go_back_n_delay, x->gbn_delay, false);
	quantiles(&t->timeout_idle, x->timeout_gap, true);
	quantiles(&t->rnr_wait, x->rnr_wait, true);
	quantiles(&t->rtt, x->rtt, true);
	return t;
}

static const struct rt_res_np *np_side(struct an_results *res, const struct an_np *np)
{
	struct rt_res_np *n = an_res_alloc(res, sizeof(*n));
	if (!n)
		return NULL;
	quantiles(&n->reaction, np->reaction, false);
	n->cnp_without_ce = np->cnp_without_ce;
	n->answered = np->answered;
	n->rate_limited = np->rate_limited;
	n->unanswered = an_np_unanswered(np);
	n->held_or_unanswered = np->unsure;
	n->interval_known = an_np_interval(np, &n->interval_ns);
	n->first_ce_ns = np->first_ce_ts;
	n->last_ce_ns = np->last_ce_ts;
	return n;
}

/* The RP reaction of flow f: the drops measured, the CNPs set apart, the capture point's side. */
static const struct rt_res_rp *rp_side(struct an_results *res, const struct rt_analyzer *an,
                                       const struct an_flow *f)
{
	const struct an_rp *rp = f->rp;
	struct rt_res_rp *p = an_res_alloc(res, sizeof(*p));
	if (!p)
		return NULL;
	bool m = rp->measured > 0;
	p->cnps = rp->cnps;
	p->measured = rp->measured;
	p->mean_drop_pct = m ? rp->drop_sum / (double)rp->measured : NAN;
	p->max_drop_pct = m ? rp->drop_max : NAN;
	p->median_drop_pct = m ? an_rp_drop_quantile(rp, 0.5) : NAN;
	p->drop_p25_pct = m ? an_rp_drop_quantile(rp, 0.25) : NAN;
	p->drop_p75_pct = m ? an_rp_drop_quantile(rp, 0.75) : NAN;
	p->min_drop_pct = m ? rp->drop_min : NAN;
	p->drop_sum_pct = rp->drop_sum;
	p->drop_null_reason = m ? NULL : an_rp_null_reason(rp);
	p->too_few_packets = rp->few;
	p->cnp_in_window = rp->cnp_in_window;
	p->psn_gap_in_window = rp->gap_in_window;
	p->resend_in_window = rp->resend_in_window;
	p->pause_in_window = rp->pause_in_window;
	p->idle_before = rp->idle_before;
	p->idle_after = rp->idle_after;
	p->full_link = rp->full_link;
	p->recovered = rp->recovered;
	p->interrupted = rp->interrupted;
	quantiles(&p->recover, rp->recover, false);
	quantiles(&p->cut_delay, rp->cut_delay, false);
	p->rate_window_needed_known = rp->need_n > 0;
	p->rate_window_needed_ns = an_rp_nice_window(rp->need_ns);
	p->rate_window_would_measure = rp->need_n;
	enum an_rp_side side = an_rp_side(&an->rpx, f);
	p->capture_side = an_rp_side_name(side);
	p->capture_side_how = an_rp_side_how(side);
	return p;
}

static const struct rt_res_source *source(struct an_results *res, const struct an_src *e)
{
	struct rt_res_source *s = an_res_alloc(res, sizeof(*s));
	if (!s)
		return NULL;
	s->rates = e->rate_events > 0;
	s->rate_mbps_first = e->rate_first;
	s->rate_mbps_last = e->rate_last;
	s->rate_mbps_min = e->rate_min;
	s->rate_changes = e->rate_events;
	s->cuts = e->cuts;
	s->cut_mean_pct = e->cuts ? e->cut_sum / (double)e->cuts : NAN;
	s->cut_max_pct = e->cuts ? e->cut_max : NAN;
	s->cut_sum_pct = e->cut_sum;
	s->cnp_handled = e->end_seen ? e->cnp_handled : e->cnp_events;
	s->retransmitted_reported = e->end_seen ? e->retrans : e->retransmit_count;
	s->retransmit_events = e->retransmit_events;
	s->timeouts_reported = e->timeouts;
	s->naks_reported = e->naks;
	s->end_seen = e->end_seen;
	s->packets_reported = e->packets;
	s->bytes_reported = e->bytes;
	return s;
}

/*
 * What the findings read of a flow: its UDP source port, frames, CNPs, and
 * its longest stall during a pause (a silence from its last packet to `end`
 * counts when a pause ran in it).
 */
static void findings_facts(struct rt_res_flow *o, const struct an_flow *f, uint32_t fi,
                           const struct rt_analyzer *an, uint64_t end)
{
	o->udp_sport_known = (f->flags & AN_FLOW_SPORT) != 0;
	o->udp_sport_varied = (f->flags & AN_FLOW_SPORTS) != 0;
	o->udp_sport = f->udp_sport;
	o->pmtu = f->pmtu;
	o->max_frame = f->max_len;
	const struct an_fact *fa = an_facts_find(&an->facts, fi);
	if (fa && fa->cnp_seen) {
		o->cnp_carried = true;
		o->cnp_tagged = fa->cnp_tagged;
		o->cnp_mixed = fa->cnp_mixed;
		o->cnp_dscp = fa->cnp_dscp;
		o->cnp_pcp = fa->cnp_pcp;
	}
	if (fa) {
		o->stall_from_ns = fa->stall_from;
		o->stall_ns = fa->stall_ns;
	}
	if (f->packets && end > f->last_ts && end - f->last_ts >= an->stall_min_ns &&
	    end - f->last_ts > o->stall_ns && an_pfc_paused_since(&an->pfc, f->last_ts)) {
		o->stall_from_ns = f->last_ts;
		o->stall_ns = end - f->last_ts;
	}
}

/*
 * A flow's first and last frame. With several vantage points matched, both at
 * its home point, in its clock: the last put in the first one's clock by the
 * offset the paths measured when the home changed (its capture stopped); the
 * first and last counted (maybe at two points) when none measured it.
 */
static void flow_span(struct rt_res_flow *o, const struct an_flow *f, const struct an_vp_result *vr)
{
	const struct an_xport *x = f->x;
	int64_t off = 0;
	o->first_ns = f->first_ts;
	o->last_ns = f->last_ts;
	if (!x || !x->span_from ||
	    (x->span_to != x->span_from &&
	     !an_vp_clock_offset(vr, x->span_from - 1u, x->span_to - 1u, &off)))
		return;
	o->first_ns = x->span_first;
	o->last_ns = (uint64_t)((int64_t)x->span_last - off);
	if (o->last_ns < o->first_ns)
		o->last_ns = o->first_ns;
}

int an_res_flow_paths(struct an_results *res, struct rt_res_flow *o, const struct an_vantage *v,
                      const struct an_vp_result *vr)
{
	unsigned on[AN_VP_PAIRS];
	uint64_t lost[AN_VP_PAIRS];
	o->npaths = an_vp_flow_paths(v, vr, o->key.ipver, o->key.src, o->key.dst, on, lost);
	o->paths = NULL;
	o->path_lost = NULL;
	if (!o->npaths)
		return 0;
	unsigned *paths = an_res_alloc(res, o->npaths * sizeof(*paths));
	uint64_t *path_lost = an_res_alloc(res, o->npaths * sizeof(*path_lost));
	if (!paths || !path_lost)
		return -ENOMEM;
	memcpy(paths, on, o->npaths * sizeof(*paths));
	memcpy(path_lost, lost, o->npaths * sizeof(*path_lost));
	o->paths = paths;
	o->path_lost = path_lost;
	return 0;
}

/* The figures of one flow, its rare parts where it has them. 0 or -ENOMEM. */
static int flow(struct an_results *res, struct rt_res_flow *o, const struct an_flow *f,
                const struct rt_analyzer *an, const struct an_vp_result *vr)
{
	const struct an_vantage *v = &an->vp;
	const struct an_np *np = f->np;
	o->key = f->key;
	o->id = f->id;
	o->peer_qp = f->peer_qp;
	o->pairing = f->pairing == AN_PAIR_NONE ? NULL : an_pairing_name(f->pairing);
	o->transport = f->transport == AN_TRANSPORT_NONE
	                   ? NULL
	                   : rt_transport_name((uint8_t)(f->transport << 5));
	o->selected = (f->flags & AN_FLOW_SELECTED) != 0;
	o->tagged = (f->flags & AN_FLOW_TAGGED) != 0;
	/* every flow an episode counted (an episode lists the first RT_RES_EPISODE_FLOWS) */
	o->in_episodes = f->ep_mark != 0;
	o->dscp = f->dscp;
	o->pcp = f->pcp;
	flow_span(o, f, vr);
	o->packets = f->packets;
	o->bytes = f->bytes;
	o->requests = f->requests;
	o->responses = f->responses;
	memcpy(o->ecn, f->ecn, sizeof(o->ecn));
	o->cnp_received = f->cnp_received;
	o->cnp_sent = f->cnp_sent;
	o->gbps = an_rate_gbps(f->bytes, o->first_ns, o->last_ns);
	o->ce_fraction = an_ce_share(f->ecn);
	o->ect_fraction = an_ect_share(f->ecn);
	o->cnp_rate_per_s =
	    np && f->cnp_received > 1 && np->last_cnp_ts > np->first_cnp_ts
	        ? (double)(f->cnp_received - 1) * 1e9 / (double)(np->last_cnp_ts - np->first_cnp_ts)
	        : NAN;
	if ((f->x && !(o->xport = transport(res, f->x))) || (np && !(o->np = np_side(res, np))) ||
	    (f->rp && f->rp->cnps && !(o->rp = rp_side(res, an, f))) ||
	    (f->src && !(o->source = source(res, f->src))))
		return -ENOMEM;
	if (an_res_flow_paths(res, o, v, vr) < 0)
		return -ENOMEM;
	if (v->matching && f->home && f->home <= v->nvp)
		o->followed_at = v->vp[f->home - 1].name;
	return 0;
}

int an_res_flows(struct an_results *res, const struct rt_res_flow **flows,
                 const struct rt_analyzer *an, const struct an_vp_result *vr, uint64_t at)
{
	uint64_t end = at ? at : an->last_ts; /* a silence to the end lasts up to it */
	uint32_t n = an->ft.next_id;
	struct rt_res_flow *out = an_res_alloc(res, (n ? n : 1) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (uint32_t id = 0; id < n; id++) {
		uint32_t fi = an->ft.order[id];
		int rc = flow(res, &out[id], &an->ft.flows[fi], an, vr);
		if (rc < 0)
			return rc;
		findings_facts(&out[id], &an->ft.flows[fi], fi, an, end);
	}
	*flows = out;
	return 0;
}

/* The results view: built once from the analyzer's parts after the end (analyze/results.h), the verdict last. */
#include "analyze/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/figures.h"
#include "analyze/findings.h"
#include "analyze/incast.h"
#include "analyze/internal.h"
#include "analyze/results_build.h"
#include "common/textfmt.h"
#include "analyze/verdict.h"
#include "analyze/warnings.h"

/* ---- the parts of the view ---- */

static void totals(struct rt_results *r, const struct rt_analyzer *an)
{
	const struct an_totals *t = &an->tot;
	rt_analyzer_totals(an, &r->c);
	r->any_frame = t->c.packets > 0;
	r->start_ns = r->any_frame ? an->first_ts : 0;
	r->end_ns = r->any_frame ? an->last_ts : 0;
	r->link_speed_bps = an->o.link_speed_bps;
	r->episode_gap_ns = an->o.episode_gap_ns;
	r->rate_window_ns = an->o.rate_window_ns;
	r->storm_ns = an->o.storm_ns;
	r->rate_window_gaps = AN_RP_GAPS;
	r->flow_selector = an->sel.given ? an->sel.text : NULL;
	r->input_error = an->input_error[0] ? an->input_error : NULL;
	memcpy(r->ecn, t->ecn, sizeof(r->ecn));
	r->cnp_unattributed = t->cnp_unattributed;
	r->nak_unattributed = t->nak_unattributed;
	r->malformed = t->malformed;
	r->truncated = t->truncated;
	r->other = t->other;
	r->cm_pairs = an->cm.pairs;
	struct an_xport_sum x;
	an_flows_xport_sum(&an->ft, &x);
	r->go_back_n = x.go_back_n;
	r->timeouts = x.timeouts;
	r->gaps = x.gaps;
	r->gap_psns = x.gap_psns;
	r->psn_jumps = x.psn_jumps;
	r->ecn_off = an_ecn_off(an, &r->ecn_not_ect, &r->ecn_data_packets);
}

/* Drops, duplicates, the flow limit, the warnings: what the capture says about itself. */
static void capture_facts(struct rt_results *r, const struct rt_analyzer *an)
{
	r->drops_source = an_capture_drops(an, &r->if_dropped, &r->os_dropped);
	const struct an_dups *d = &an->dups;
	struct an_dup_totals dt;
	an_dup_totals(d, &dt);
	r->dup_on = d->s != NULL;
	r->dup_other_point = dt.other_interface;
	r->dup_same_point = dt.same_interface;
	r->dup_window_ns = d->window_ns;
	r->dup_forgotten_early = dt.evicted;
	const struct an_flowtab *ft = &an->ft;
	r->max_flows = ft->max;
	r->max_flows_reached = ft->full;
	r->packets_beyond = ft->beyond_packets;
	r->bytes_beyond = ft->beyond_bytes;
	const struct an_tallies *t = &an->tally;
	r->icrc_unchecked = t->icrc_cut;
	r->headers_cut = t->headers_cut;
	r->time_backwards = t->ts_back;
	r->time_backwards_max_ns = t->ts_back_max;
	r->time_backwards_across = t->ts_back_across;
	unsigned n = rt_analyzer_warnings(an, r->warnings, RT_AN_WARNINGS_MAX);
	r->nwarnings = n < RT_AN_WARNINGS_MAX ? n : RT_AN_WARNINGS_MAX;
}

int an_res_incidents(struct an_results *res, const struct an_pfc *p, uint64_t at)
{
	struct rt_results *r = &res->r;
	struct an_incident live[RT_AN_PFC_CLASSES];
	unsigned nlive = at ? an_pfc_ongoing(p, at, live, RT_AN_PFC_CLASSES) : 0;
	uint32_t n = p->ninc + nlive;
	struct rt_res_incident *o = an_res_alloc(res, (n ? n : 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	r->incidents = o;
	r->nincidents = n;
	r->incidents_beyond = p->inc_beyond;
	for (uint32_t i = 0; i < n; i++) {
		const struct an_incident *in = i < p->ninc ? &p->inc[i] : &live[i - p->ninc];
		o[i] = (struct rt_res_incident){.cls = in->cls,
		                                .ongoing = in->ongoing,
		                                .start_ns = in->start,
		                                .end_ns = in->end,
		                                .nmacs = in->nmacs,
		                                .macs_total = in->macs_total};
		for (uint32_t k = 0; k < in->nmacs; k++) {
			memcpy(o[i].macs[k].mac, in->macs[k].mac, 6);
			o[i].macs[k].first_ns = in->macs[k].first;
			o[i].macs[k].paused_ns = in->macs[k].paused;
			o[i].macs[k].longest_ns = in->macs[k].longest;
		}
	}
	return 0;
}

/* The MAC table. 0 or -ENOMEM. */
static int macs(struct an_results *res, const struct rt_analyzer *an)
{
	struct rt_results *r = &res->r;
	const struct an_macs *m = &an->macs;
	struct rt_res_mac *o = an_res_alloc(res, (m->n ? m->n : 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	r->macs = o;
	r->nmacs = m->n;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct an_mac *e = &m->e[i];
		memcpy(o[i].mac, e->mac, 6);
		memcpy(o[i].ip, e->ip, sizeof(o[i].ip));
		if (an_res_points(res, &o[i].points, e->points) < 0 ||
		    an_res_points(res, &o[i].src_points, e->src_points) < 0)
			return -ENOMEM;
		o[i].ipver = e->ipver;
		o[i].several = e->several;
		o[i].frames = e->frames;
	}
	return 0;
}

int an_res_pfc(struct an_results *res, const struct an_pfc *p)
{
	struct rt_results *r = &res->r;
	r->pfc_frames = p->pfc_frames;
	r->pause_frames = p->pause_frames;
	uint32_t n = 0;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		r->pfc[c] = (struct rt_res_pfc_class){.xoff = p->xoff[c],
		                                      .xon = p->xon[c],
		                                      .paused_ns = p->paused_ns[c],
		                                      .storms = an_pfc_class_storms(p, c)};
		for (uint32_t i = 0; i < p->nmacs; i++)
			n += p->macs[i].cls[c].xoff || p->macs[i].cls[c].xon;
	}
	struct rt_res_pfc_source *src = an_res_alloc(res, (n ? n : 1) * sizeof(*src));
	struct rt_res_storm *st = an_res_alloc(res, (p->nstorms ? p->nstorms : 1) * sizeof(*st));
	if (!src || !st)
		return -ENOMEM;
	r->pfc_sources = src;
	r->npfc_sources = n;
	for (uint32_t i = 0; i < p->nmacs; i++)
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *cl = &p->macs[i].cls[c];
			if (!cl->xoff && !cl->xon)
				continue;
			memcpy(src->mac, p->macs[i].mac, 6);
			src->cls = (uint8_t)c;
			if (an_res_points(res, &src->points, p->macs[i].points) < 0)
				return -ENOMEM;
			src->xoff = cl->xoff;
			src->xon = cl->xon;
			src->paused_ns = cl->paused_ns;
			src->first_xoff_ns = cl->first_xoff;
			src->longest_start_ns = cl->longest_start;
			src->longest_ns = cl->longest_ns;
			src++;
		}
	r->storms = st;
	r->nstorms = p->nstorms;
	for (uint32_t i = 0; i < p->nstorms; i++) {
		memcpy(st[i].mac, p->storms[i].mac, 6);
		st[i].cls = p->storms[i].cls;
		st[i].start_ns = p->storms[i].start;
		st[i].end_ns = p->storms[i].end;
	}
	return 0;
}

int an_res_episodes(struct an_results *res, const struct an_episodes *eps, uint64_t first_ts,
                    uint64_t last_ts)
{
	struct rt_results *r = &res->r;
	uint64_t gap = eps->gap_ns, slot = an_ep_slot_ns(eps);
	struct rt_res_episode *e = an_res_alloc(res, (eps->n ? eps->n : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->episodes = e;
	r->nepisodes = eps->n;
	for (uint32_t i = 0; i < eps->n; i++, e++) {
		const struct an_episode *ep = &eps->list[i];
		e->start_ns = ep->start;
		e->end_ns = ep->end;
		e->ce = ep->ce;
		e->cnp = ep->cnp;
		e->pfc_xoff = ep->pfc_xoff;
		e->paused_ns = ep->paused_ns;
		e->flow_count = ep->flows;
		e->nflows = ep->flows < AN_EP_FLOWS ? (unsigned)ep->flows : AN_EP_FLOWS;
		memcpy(e->flows, ep->flow_ids, e->nflows * sizeof(e->flows[0]));
		e->peak_ce_per_s = (double)ep->peak_ce_slot * 1e9 / (double)slot;
		if (ep->merged) { /* each part counted its own frames around its own episodes */
			e->peak_ce_per_s = e->gbps_before = e->gbps_during = e->gbps_after = NAN;
			continue;
		}
		/* the gaps before and after lie inside the capture, or are unknown */
		e->gbps_before = ep->start - first_ts >= gap ? an_gbps(ep->bytes_before, gap) : NAN;
		e->gbps_during = an_gbps(ep->bytes_during, ep->end - ep->start);
		e->gbps_after = last_ts >= ep->end && last_ts - ep->end >= gap
		                    ? an_gbps(ep->bytes_after, gap)
		                    : NAN;
	}
	return 0;
}

void an_res_path(struct rt_res_path *o, const struct an_vp_path *q, const struct rt_an_vantage *vp)
{
	*o = (struct rt_res_path){.from = vp[q->from].name,
	                          .to = vp[q->to].name,
	                          .sample_k = q->sample_k,
	                          .sample_m = q->sample_m,
	                          .matched = q->matched,
	                          .lost = q->lost,
	                          .ce_marked = q->ce_marked,
	                          .judged = q->judged,
	                          .not_judged = q->not_judged,
	                          .not_judged_reason = q->not_judged ? AN_VP_NOT_JUDGED : NULL,
	                          .offset_known = q->offset_known,
	                          .offset_ns = q->offset_ns,
	                          .offset_null_reason = q->offset_null_reason,
	                          .delay_known = q->delay_known,
	                          .delay_includes_offset = q->delay_includes_offset,
	                          .delay_min = q->delay_min,
	                          .delay_median = q->delay_median,
	                          .delay_p99 = q->delay_p99,
	                          .delay_null_reason = q->delay_null_reason};
}

/* The paths between the vantage points (into the view), vr kept for the flows' own. */
static int paths(struct an_results *res, const struct rt_analyzer *an,
                 const struct an_vp_result *vr)
{
	struct rt_results *r = &res->r;
	const struct an_vantage *v = &an->vp;
	r->vantage = v->vp;
	r->nvantage = v->nvp;
	struct rt_res_path *p = an_res_alloc(res, (vr->npaths ? vr->npaths : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->paths = p;
	r->npaths = vr->npaths;
	bool any_matched = false;
	for (unsigned i = 0; i < vr->npaths; i++)
		any_matched |= vr->path[i].matched > 0;
	for (unsigned i = 0; i < vr->npaths; i++) {
		an_res_path(&p[i], &vr->path[i], v->vp);
		if (any_matched || !r->dup_other_point)
			continue;
		/* no path matched any, yet copies of packets came from another point: the window is too short */
		char win[48], *why = an_res_alloc(res, 400);
		if (!why)
			return -ENOMEM;
		snprintf(
		    why, 400,
		    "no packet was matched within the vantage window (%s), yet %llu frames were "
		    "copies of packets seen at another point: the clocks are likely further apart "
		    "than the window; give a longer --vantage-window (meanwhile each flow is "
		    "followed at one point, its followed_at, and the copies count once)",
		    rt_fmt_duration(win, sizeof(win), v->window_ns),
		    (unsigned long long)r->dup_other_point);
		p[i].offset_null_reason = p[i].delay_null_reason = why;
	}
	return 0;
}

static struct rt_res_counter_sum counter_sum(const struct an_side *s, const char *name)
{
	struct rt_res_counter_sum sum = {0};
	sum.value = an_side_sum_delta(s, name, &sum.found);
	sum.known = sum.found && sum.value >= 0;
	return sum;
}

static int side_files(struct an_results *res, const struct rt_analyzer *an)
{
	struct rt_results *r = &res->r;
	const struct an_side *s = &an->side;
	r->counters_loaded = s->counters_loaded;
	r->source_log_loaded = s->srclog_loaded;
	if (s->srclog_loaded) {
		bool matched;
		r->source_log_lines = s->srclog_lines;
		r->source_log_bad_lines = s->srclog_bad;
		r->source_log_unmatched = an_side_srclog_unmatched(s, &matched);
	}
	if (!s->counters_loaded)
		return 0;
	r->counter_lines = s->counter_lines;
	r->counter_bad_lines = s->counter_bad;
	struct rt_res_counter_dev *d = an_res_alloc(res, (s->ncdev ? s->ncdev : 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	r->counter_devs = d;
	r->ncounter_devs = s->ncdev;
	for (size_t k = 0; k < s->ncdev; k++) {
		const struct an_counter_dev *cd = &s->cdev[k];
		double *deltas = an_res_alloc(res, (cd->n ? cd->n : 1) * sizeof(*deltas));
		if (!deltas)
			return -ENOMEM;
		for (size_t i = 0; i < cd->n; i++)
			deltas[i] = an_side_delta(cd, i);
		d[k] = (struct rt_res_counter_dev){.name = cd->name,
		                                   .samples = cd->samples,
		                                   .duration_ns = cd->last_ts - cd->first_ts,
		                                   .ncounters = cd->n,
		                                   .names = (const char *const *)cd->names,
		                                   .deltas = deltas};
	}
	r->np_cnp_sent = counter_sum(s, "np_cnp_sent");
	r->rp_cnp_handled = counter_sum(s, "rp_cnp_handled");
	for (unsigned p = 0; p < 8; p++)
		for (unsigned k = 0; k < 4; k++) {
			char name[40];
			snprintf(name, sizeof(name), "%s_prio%u_pause%s", k % 2 ? "tx" : "rx", p,
			         k < 2 ? "" : "_duration");
			r->counter_pause[p][k] = counter_sum(s, name);
		}
	return 0;
}

/*
 * The whole view, or -ENOMEM. `at`: 0 after the end; else the time a live
 * view is taken at (pauses still running count up to it).
 */
static int build(struct an_results *res, const struct rt_analyzer *an, uint64_t at)
{
	struct rt_results *r = &res->r;
	totals(r, an);
	capture_facts(r, an);
	struct an_vp_result *vr = malloc(sizeof(*vr));
	if (!vr || an_vp_compute(&an->vp, vr) < 0) {
		free(vr);
		return -ENOMEM;
	}
	int rc = paths(res, an, vr);
	if (rc == 0)
		rc = an_res_flows(res, &r->flows, an, vr, at);
	an_vp_result_free(vr);
	free(vr);
	if (rc < 0 || (rc = an_res_pfc(res, &an->pfc)) < 0 ||
	    (rc = an_res_incidents(res, &an->pfc, at)) < 0 || (rc = macs(res, an)) < 0 ||
	    (rc = an_res_episodes(res, &an->ep, an->first_ts, an->last_ts)) < 0 ||
	    (rc = side_files(res, an)) < 0)
		return rc;
	r->nflows = an->ft.next_id;
	for (uint32_t id = 0; id < r->nflows; id++) {
		r->nselected += r->flows[id].selected;
		r->npaired += r->flows[id].peer_qp != RT_AN_NONE;
	}
	an_incast_view(r);
	struct rt_finding *f = an_res_alloc(res, RT_FINDINGS_MAX * sizeof(*f));
	if (!f)
		return -ENOMEM;
	int n = an_findings_build(r, f, RT_FINDINGS_MAX);
	if (n < 0)
		return n;
	r->findings = f;
	r->nfindings = (unsigned)n;
	return rt_verdict_build(r, &r->verdict);
}

const struct rt_results *rt_analyzer_results(struct rt_analyzer *an)
{
	if (an->res && an->res->frames == an->tot.c.packets)
		return &an->res->r;
	an_results_free(an->res);
	an->res = NULL;
	struct an_results *res = calloc(1, sizeof(*res));
	if (!res || build(res, an, 0) < 0) {
		an_results_free(res);
		errno = ENOMEM;
		return NULL;
	}
	res->frames = an->tot.c.packets;
	an->res = res;
	return &res->r;
}

int rt_analyzer_live_findings(const struct rt_analyzer *an, uint64_t idle_ns,
                              struct rt_finding_tag *out, unsigned max)
{
	uint64_t at = an->now + idle_ns < an->now ? UINT64_MAX : an->now + idle_ns;
	struct an_results *res = calloc(1, sizeof(*res));
	int rc = res ? build(res, an, at ? at : 1) : -ENOMEM;
	unsigned n = 0;
	for (; rc == 0 && n < res->r.nfindings && n < max; n++)
		out[n] = (struct rt_finding_tag){.code = res->r.findings[n].code,
		                                 .severity = res->r.findings[n].severity};
	an_results_free(res);
	return rc < 0 ? rc : (int)n;
}

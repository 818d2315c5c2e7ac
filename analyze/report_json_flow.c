/* The JSON report's per-flow object: counts, ECN, round trips, transport, NP/RP reaction, the source log. */
#include <string.h>

#include "analyze/figures.h"
#include "analyze/internal.h"
#include "analyze/reaction.h"
#include "analyze/report_json.h"
#include "common/json.h"
#include "dissect/opcodes.h"

/* {"not_ect":N,"ect0":N,"ect1":N,"ce":N} from counts indexed by the ECN codepoint */
void an_report_json_ecn(struct rt_json *j, const uint64_t ecn[4])
{
	rt_json_obj(j);
	RT_JSON_U64(j, "not_ect", ecn[0]);
	RT_JSON_U64(j, "ect0", ecn[2]);
	RT_JSON_U64(j, "ect1", ecn[1]);
	RT_JSON_U64(j, "ce", ecn[3]);
	rt_json_obj_end(j);
}

/* {"min","median","max","samples"} (+ p99, mean and stddev when asked) or null */
static void hist_json(struct rt_json *j, const struct an_hist *h, bool p99)
{
	if (!h || !h->n) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	RT_JSON_U64(j, "min", h->min);
	RT_JSON_U64(j, "median", an_hist_quantile(h, 0.5));
	if (p99) {
		RT_JSON_U64(j, "p99", an_hist_quantile(h, 0.99));
		RT_JSON_U64(j, "mean", h->sum / h->n);
		RT_JSON_U64(j, "stddev", (uint64_t)(an_hist_stddev(h) + 0.5));
	}
	RT_JSON_U64(j, "max", h->max);
	RT_JSON_U64(j, "samples", h->n);
	rt_json_obj_end(j);
}

static void rp_json(const struct rt_analyzer *an, struct rt_json *j, const struct an_flow *f)
{
	const struct an_rp *rp = f->rp;
	if (!rp || !rp->cnps) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	RT_JSON_U64(j, "cnps", rp->cnps);
	RT_JSON_U64(j, "measured", rp->measured);
	NUM(j, "mean_drop_pct", rp->measured ? rp->drop_sum / (double)rp->measured : 0, 1,
	    rp->measured > 0);
	NUM(j, "max_drop_pct", rp->drop_max, 1, rp->measured > 0);
	RT_JSON_KEY(j, "drop_null_reason");
	if (rp->measured)
		rt_json_null(j);
	else
		rt_json_str(j, an_rp_null_reason(rp));
	RT_JSON_U64(j, "too_few_packets", rp->few);
	RT_JSON_U64(j, "cnp_in_window", rp->cnp_in_window);
	RT_JSON_U64(j, "window_gaps", AN_RP_GAPS);
	RT_JSON_U64(j, "max_window_ns", an->o.rate_window_ns);
	RT_JSON_U64(j, "recovered", rp->recovered);
	RT_JSON_U64(j, "interrupted", rp->interrupted);
	RT_JSON_KEY(j, "recover_ns");
	hist_json(j, rp->recover, false);
	/* the robust figure: the median drop and its spread; windows set apart; the capture's side */
	bool m = rp->measured > 0;
	NUM(j, "median_drop_pct", m ? an_rp_drop_quantile(rp, 0.5) : 0, 1, m);
	NUM(j, "drop_p25_pct", m ? an_rp_drop_quantile(rp, 0.25) : 0, 1, m);
	NUM(j, "drop_p75_pct", m ? an_rp_drop_quantile(rp, 0.75) : 0, 1, m);
	NUM(j, "min_drop_pct", rp->drop_min, 1, m);
	RT_JSON_U64(j, "psn_gap_in_window", rp->gap_in_window);
	RT_JSON_U64(j, "resend_in_window", rp->resend_in_window);
	RT_JSON_U64(j, "pause_in_window", rp->pause_in_window);
	RT_JSON_U64(j, "idle_before", rp->idle_before);
	RT_JSON_U64(j, "full_link", rp->full_link);
	U64_OR_NULL(j, "rate_window_needed_ns", an_rp_nice_window(rp->need_ns), rp->need_n > 0);
	RT_JSON_U64(j, "rate_window_would_measure", rp->need_n);
	enum an_rp_side side = an_rp_side(&an->rpx, f);
	RT_JSON_KEY(j, "capture_side");
	if (an_rp_side_name(side))
		rt_json_name(j, an_rp_side_name(side));
	else
		rt_json_null(j);
	RT_JSON_STR(j, "capture_side_how", an_rp_side_how(side));
	rt_json_obj_end(j);
}

static void source_json(const struct an_flow *f, struct rt_json *j)
{
	const struct an_src *e = f->src;
	if (!e) {
		rt_json_null(j);
		return;
	}
	bool rates = e->rate_events > 0;
	rt_json_obj(j);
	NUM(j, "rate_mbps_first", e->rate_first, 3, rates);
	NUM(j, "rate_mbps_last", e->rate_last, 3, rates);
	NUM(j, "rate_mbps_min", e->rate_min, 3, rates);
	RT_JSON_U64(j, "rate_changes", e->rate_events);
	RT_JSON_U64(j, "cuts", e->cuts);
	NUM(j, "cut_mean_pct", e->cuts ? e->cut_sum / (double)e->cuts : 0, 1, e->cuts > 0);
	NUM(j, "cut_max_pct", e->cut_max, 1, e->cuts > 0);
	NUM(j, "measured_gbps", an_rate_gbps(f->bytes, f->first_ts, f->last_ts), 6, true);
	RT_JSON_U64(j, "cnp_handled", e->end_seen ? e->cnp_handled : e->cnp_events);
	RT_JSON_U64(j, "cnp_seen", f->cnp_received);
	RT_JSON_U64(j, "retransmitted_reported", e->end_seen ? e->retrans : e->retransmit_count);
	RT_JSON_U64(j, "retransmitted_seen", f->x ? f->x->retransmitted : 0);
	RT_JSON_U64(j, "retransmit_events", e->retransmit_events);
	RT_JSON_U64(j, "timeouts_reported", e->timeouts);
	RT_JSON_U64(j, "naks_reported", e->naks);
	RT_JSON_U64(j, "naks_seen", f->x ? f->x->naks_received : 0);
	if (e->end_seen) {
		RT_JSON_U64(j, "packets_reported", e->packets);
		RT_JSON_U64(j, "bytes_reported", e->bytes);
	}
	rt_json_obj_end(j);
}

static void nak_codes_json(struct rt_json *j, const struct an_xport *x)
{
	rt_json_obj(j);
	if (x && x->nak_codes) {
		/* codes 5..31 share the name "reserved": one key with their sum (JSON keys are unique) */
		uint64_t reserved = 0;
		for (unsigned c = 0; c < 32; c++) {
			if (!x->nak_codes[c])
				continue;
			if (strcmp(rt_nak_code_name((uint8_t)c), "reserved")) {
				rt_json_key(j, rt_nak_code_name((uint8_t)c));
				rt_json_u64(j, x->nak_codes[c]);
			} else {
				reserved += x->nak_codes[c];
			}
		}
		if (reserved)
			RT_JSON_U64(j, "reserved", reserved);
	}
	rt_json_obj_end(j);
}

void an_report_json_flow(const struct rt_analyzer *an, struct rt_json *j, const struct an_flow *f,
                         const struct an_vp_result *vr)
{
	const struct an_xport *x = f->x;
	const struct an_np *np = f->np;
	rt_json_obj(j);
	RT_JSON_U64(j, "id", f->id);
	RT_JSON_KEY(j, "src");
	rt_json_ip(j, f->key.ipver, f->key.src);
	RT_JSON_KEY(j, "dst");
	rt_json_ip(j, f->key.ipver, f->key.dst);
	RT_JSON_U64(j, "dest_qp", f->key.dest_qp);
	char sel[RT_FLOWSEL_TEXT_MAX];
	RT_JSON_STR(j, "selector",
	            rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp));
	U64_OR_NULL(j, "peer_qp", f->peer_qp, f->peer_qp != AN_NONE);
	RT_JSON_KEY(j, "pairing");
	if (f->pairing == AN_PAIR_NONE)
		rt_json_null(j);
	else
		rt_json_name(j, an_pairing_name(f->pairing));
	RT_JSON_KEY(j, "transport");
	if (f->transport == AN_TRANSPORT_NONE)
		rt_json_null(j);
	else
		rt_json_str(j, rt_transport_name((uint8_t)(f->transport << 5)));
	TS_NS(j, "first", f->first_ts);
	TS_NS(j, "last", f->last_ts);
	RT_JSON_U64(j, "packets", f->packets);
	RT_JSON_U64(j, "bytes", f->bytes);
	NUM(j, "gbps", an_rate_gbps(f->bytes, f->first_ts, f->last_ts), 6, true);
	RT_JSON_U64(j, "requests", f->requests);
	RT_JSON_U64(j, "responses", f->responses);
	RT_JSON_U64(j, "dscp", f->dscp);
	U64_OR_NULL(j, "pcp", f->pcp, (f->flags & AN_FLOW_TAGGED) != 0);
	RT_JSON_KEY(j, "ecn");
	an_report_json_ecn(j, f->ecn);
	NUM(j, "ce_fraction", an_ce_share(f->ecn), 6, true);
	NUM(j, "ect_fraction", an_ect_share(f->ecn), 6, true);
	RT_JSON_U64(j, "cnp_received", f->cnp_received);
	RT_JSON_U64(j, "cnp_sent", f->cnp_sent);
	/* every flow an episode counted (episodes[].flows lists the first AN_EP_FLOWS of each) */
	RT_JSON_BOOL(j, "in_episodes", f->ep_mark != 0);
	double rate = NAN;
	if (np && f->cnp_received > 1 && np->last_cnp_ts > np->first_cnp_ts)
		rate = (double)(f->cnp_received - 1) * 1e9 /
		       (double)(np->last_cnp_ts - np->first_cnp_ts);
	NUM(j, "cnp_rate_per_s", rate, 1, true);
	RT_JSON_U64(j, "naks_received", x ? x->naks_received : 0);
	RT_JSON_KEY(j, "nak_codes");
	nak_codes_json(j, x);
	RT_JSON_U64(j, "rnr_naks_received", x ? x->rnr_naks_received : 0);
	RT_JSON_U64(j, "retransmitted", x ? x->retransmitted : 0);
	RT_JSON_U64(j, "go_back_n", x ? x->go_back_n : 0);
	RT_JSON_U64(j, "rnr_retries", x ? x->rnr_retries : 0);
	RT_JSON_U64(j, "timeouts", x ? x->timeouts : 0);
	RT_JSON_U64(j, "gaps", x ? x->gaps : 0);
	RT_JSON_U64(j, "gap_psns", x ? x->gap_psns : 0);
	RT_JSON_U64(j, "psn_jumps", x ? x->psn_jumps : 0);
	RT_JSON_U64(j, "duplicates", x ? x->duplicates : 0);
	RT_JSON_KEY(j, "np_reaction_ns");
	hist_json(j, np ? np->reaction : NULL, false);
	RT_JSON_U64(j, "cnp_without_ce", np ? np->cnp_without_ce : 0);
	uint64_t interval = 0;
	bool learned = np && an_np_interval(np, &interval);
	U64_OR_NULL(j, "cnp_interval_ns", interval, learned);
	RT_JSON_U64(j, "ce_rate_limited", np ? np->rate_limited : 0);
	RT_JSON_U64(j, "ce_unanswered", np ? an_np_unanswered(np) : 0);
	RT_JSON_U64(j, "ce_held_or_unanswered", np ? np->unsure : 0);
	RT_JSON_KEY(j, "go_back_n_delay_ns");
	hist_json(j, x ? x->gbn_delay : NULL, false);
	RT_JSON_KEY(j, "timeout_idle_ns");
	hist_json(j, x ? x->timeout_gap : NULL, false);
	RT_JSON_KEY(j, "rtt_ns");
	hist_json(j, x ? x->rtt : NULL, true);
	RT_JSON_KEY(j, "rp_reaction");
	rp_json(an, j, f);
	/* the paths between vantage points its host pair's packets were seen on: upstream first */
	unsigned on[AN_VP_PAIRS],
	    non = an_vp_flow_paths(&an->vp, vr, f->key.ipver, f->key.src, f->key.dst, on);
	RT_JSON_KEY(j, "vantage_paths");
	rt_json_arr(j);
	for (unsigned k = 0; k < non; k++) {
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "from", an->vp.vp[vr->path[on[k]].from].name);
		RT_JSON_STR(j, "to", an->vp.vp[vr->path[on[k]].to].name);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	/* several points: the one whose frames its PSN order, round trips and RP windows come from */
	RT_JSON_KEY(j, "followed_at");
	if (an->vp.matching && f->home && f->home <= an->vp.nvp)
		rt_json_str(j, an->vp.vp[f->home - 1].name);
	else
		rt_json_null(j);
	if (an->side.srclog_loaded) {
		RT_JSON_KEY(j, "source");
		source_json(f, j);
	}
	rt_json_obj_end(j);
}

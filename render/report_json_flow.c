/* The JSON report's per-flow object: counts, ECN, round trips, transport, NP/RP reaction, the source log. */
#include "analyze/results.h"
#include "common/textfmt.h"
#include "common/json.h"
#include "render/report_json.h"
#include "render/report_json_values.h"

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
static void quantiles_json(struct rt_json *j, const struct rt_res_quantiles *q, bool p99)
{
	if (!q || !q->samples) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	RT_JSON_U64(j, "min", q->min);
	RT_JSON_U64(j, "median", q->median);
	if (p99) {
		RT_JSON_U64(j, "p99", q->p99);
		RT_JSON_U64(j, "mean", q->mean);
		RT_JSON_U64(j, "stddev", q->stddev);
	}
	RT_JSON_U64(j, "max", q->max);
	RT_JSON_U64(j, "samples", q->samples);
	rt_json_obj_end(j);
}

static void rp_json(const struct rt_results *r, struct rt_json *j, const struct rt_res_rp *rp)
{
	if (!rp) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	RT_JSON_U64(j, "cnps", rp->cnps);
	RT_JSON_U64(j, "measured", rp->measured);
	NUM(j, "mean_drop_pct", rp->mean_drop_pct, 1, true);
	NUM(j, "max_drop_pct", rp->max_drop_pct, 1, true);
	RT_JSON_KEY(j, "drop_null_reason");
	rt_json_str_or_null(j, rp->drop_null_reason);
	RT_JSON_U64(j, "too_few_packets", rp->too_few_packets);
	RT_JSON_U64(j, "cnp_in_window", rp->cnp_in_window);
	RT_JSON_U64(j, "window_gaps", r->rate_window_gaps);
	RT_JSON_U64(j, "max_window_ns", r->rate_window_ns);
	RT_JSON_U64(j, "recovered", rp->recovered);
	RT_JSON_U64(j, "interrupted", rp->interrupted);
	RT_JSON_KEY(j, "recover_ns");
	quantiles_json(j, &rp->recover, false);
	/* the robust figure: the median drop and its spread; windows set apart; the capture's side */
	NUM(j, "median_drop_pct", rp->median_drop_pct, 1, true);
	NUM(j, "drop_p25_pct", rp->drop_p25_pct, 1, true);
	NUM(j, "drop_p75_pct", rp->drop_p75_pct, 1, true);
	NUM(j, "min_drop_pct", rp->min_drop_pct, 1, true);
	RT_JSON_U64(j, "psn_gap_in_window", rp->psn_gap_in_window);
	RT_JSON_U64(j, "resend_in_window", rp->resend_in_window);
	RT_JSON_U64(j, "pause_in_window", rp->pause_in_window);
	RT_JSON_U64(j, "idle_before", rp->idle_before);
	RT_JSON_U64(j, "idle_after", rp->idle_after);
	RT_JSON_U64(j, "full_link", rp->full_link);
	U64_OR_NULL(j, "rate_window_needed_ns", rp->rate_window_needed_ns,
	            rp->rate_window_needed_known);
	RT_JSON_U64(j, "rate_window_would_measure", rp->rate_window_would_measure);
	RT_JSON_KEY(j, "capture_side");
	rt_json_str_or_null(j, rp->capture_side);
	RT_JSON_STR(j, "capture_side_how", rp->capture_side_how);
	rt_json_obj_end(j);
}

static void source_json(const struct rt_res_flow *f, struct rt_json *j)
{
	const struct rt_res_source *e = f->source;
	const struct rt_res_transport *x = f->xport;
	if (!e) {
		rt_json_null(j);
		return;
	}
	rt_json_obj(j);
	NUM(j, "rate_mbps_first", e->rate_mbps_first, 3, e->rates);
	NUM(j, "rate_mbps_last", e->rate_mbps_last, 3, e->rates);
	NUM(j, "rate_mbps_min", e->rate_mbps_min, 3, e->rates);
	RT_JSON_U64(j, "rate_changes", e->rate_changes);
	RT_JSON_U64(j, "cuts", e->cuts);
	NUM(j, "cut_mean_pct", e->cut_mean_pct, 1, true);
	NUM(j, "cut_max_pct", e->cut_max_pct, 1, true);
	NUM(j, "measured_gbps", f->gbps, 6, true);
	RT_JSON_U64(j, "cnp_handled", e->cnp_handled);
	RT_JSON_U64(j, "cnp_seen", f->cnp_received);
	RT_JSON_U64(j, "retransmitted_reported", e->retransmitted_reported);
	RT_JSON_U64(j, "retransmitted_seen", x ? x->retransmitted : 0);
	RT_JSON_U64(j, "retransmit_events", e->retransmit_events);
	RT_JSON_U64(j, "timeouts_reported", e->timeouts_reported);
	RT_JSON_U64(j, "naks_reported", e->naks_reported);
	RT_JSON_U64(j, "naks_seen", x ? x->naks_received : 0);
	if (e->end_seen) {
		RT_JSON_U64(j, "packets_reported", e->packets_reported);
		RT_JSON_U64(j, "bytes_reported", e->bytes_reported);
	}
	rt_json_obj_end(j);
}

static void nak_codes_json(struct rt_json *j, const struct rt_res_transport *x)
{
	rt_json_obj(j);
	for (unsigned i = 0; x && i < x->nnak_codes; i++) {
		rt_json_key(j, x->nak_codes[i].name);
		rt_json_u64(j, x->nak_codes[i].count);
	}
	rt_json_obj_end(j);
}

void an_report_json_flow(const struct rt_results *r, struct rt_json *j, const struct rt_res_flow *f)
{
	const struct rt_res_transport *x = f->xport;
	const struct rt_res_np *np = f->np;
	rt_json_obj(j);
	RT_JSON_U64(j, "id", f->id);
	RT_JSON_KEY(j, "src");
	rt_json_ip(j, f->key.ipver, f->key.src);
	RT_JSON_KEY(j, "dst");
	rt_json_ip(j, f->key.ipver, f->key.dst);
	RT_JSON_U64(j, "dest_qp", f->key.dest_qp);
	char qp[RT_QP_TEXT_MAX];
	RT_JSON_STR(j, "dest_qp_hex", rt_fmt_qp(qp, f->key.dest_qp));
	char sel[RT_FLOWSEL_TEXT_MAX];
	RT_JSON_STR(j, "selector",
	            rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp));
	U64_OR_NULL(j, "peer_qp", f->peer_qp, f->peer_qp != RT_AN_NONE);
	RT_JSON_KEY(j, "peer_qp_hex");
	rt_json_str_or_null(j, f->peer_qp != RT_AN_NONE ? rt_fmt_qp(qp, f->peer_qp) : NULL);
	RT_JSON_KEY(j, "pairing");
	rt_json_str_or_null(j, f->pairing);
	RT_JSON_KEY(j, "transport");
	rt_json_str_or_null(j, f->transport);
	TS_NS(j, "first", f->first_ns);
	TS_NS(j, "last", f->last_ns);
	RT_JSON_U64(j, "packets", f->packets);
	RT_JSON_U64(j, "bytes", f->bytes);
	NUM(j, "gbps", f->gbps, 6, true);
	RT_JSON_U64(j, "requests", f->requests);
	RT_JSON_U64(j, "responses", f->responses);
	RT_JSON_U64(j, "dscp", f->dscp);
	U64_OR_NULL(j, "pcp", f->pcp, f->tagged);
	U64_OR_NULL(j, "udp_sport", f->udp_sport, f->udp_sport_known);
	RT_JSON_BOOL(j, "udp_sport_varied", f->udp_sport_varied);
	U64_OR_NULL(j, "pmtu", f->pmtu, f->pmtu != 0);
	RT_JSON_U64(j, "max_frame_bytes", f->max_frame);
	RT_JSON_KEY(j, "ecn");
	an_report_json_ecn(j, f->ecn);
	NUM(j, "ce_fraction", f->ce_fraction, 6, true);
	NUM(j, "ect_fraction", f->ect_fraction, 6, true);
	RT_JSON_U64(j, "cnp_received", f->cnp_received);
	RT_JSON_U64(j, "cnp_sent", f->cnp_sent);
	/* every flow an episode counted (episodes[].flows lists the first of each) */
	RT_JSON_BOOL(j, "in_episodes", f->in_episodes);
	NUM(j, "cnp_rate_per_s", f->cnp_rate_per_s, 1, true);
	RT_JSON_U64(j, "naks_received", x ? x->naks_received : 0);
	RT_JSON_KEY(j, "nak_codes");
	nak_codes_json(j, x);
	RT_JSON_U64(j, "rnr_naks_received", x ? x->rnr_naks_received : 0);
	U64_OR_NULL(j, "rnr_timer", x ? x->rnr_timer : 0, x && x->rnr_naks_received);
	RT_JSON_U64(j, "retransmitted", x ? x->retransmitted : 0);
	RT_JSON_U64(j, "go_back_n", x ? x->go_back_n : 0);
	RT_JSON_U64(j, "rnr_retries", x ? x->rnr_retries : 0);
	RT_JSON_U64(j, "timeouts", x ? x->timeouts : 0);
	RT_JSON_U64(j, "gaps", x ? x->gaps : 0);
	RT_JSON_U64(j, "gap_psns", x ? x->gap_psns : 0);
	RT_JSON_U64(j, "psn_jumps", x ? x->psn_jumps : 0);
	RT_JSON_U64(j, "duplicates", x ? x->duplicates : 0);
	RT_JSON_KEY(j, "np_reaction_ns");
	quantiles_json(j, np ? &np->reaction : NULL, false);
	RT_JSON_U64(j, "cnp_without_ce", np ? np->cnp_without_ce : 0);
	U64_OR_NULL(j, "cnp_interval_ns", np ? np->interval_ns : 0, np && np->interval_known);
	RT_JSON_U64(j, "ce_rate_limited", np ? np->rate_limited : 0);
	RT_JSON_U64(j, "ce_unanswered", np ? np->unanswered : 0);
	RT_JSON_U64(j, "ce_held_or_unanswered", np ? np->held_or_unanswered : 0);
	RT_JSON_KEY(j, "go_back_n_delay_ns");
	quantiles_json(j, x ? &x->go_back_n_delay : NULL, false);
	RT_JSON_KEY(j, "timeout_idle_ns");
	quantiles_json(j, x ? &x->timeout_idle : NULL, false);
	RT_JSON_KEY(j, "rtt_ns");
	quantiles_json(j, x ? &x->rtt : NULL, true);
	RT_JSON_KEY(j, "rp_reaction");
	rp_json(r, j, f->rp);
	/* the paths between vantage points its host pair's packets were seen on: upstream first */
	RT_JSON_KEY(j, "vantage_paths");
	rt_json_arr(j);
	for (unsigned k = 0; k < f->npaths; k++) {
		rt_json_next(j);
		rt_json_obj(j);
		RT_JSON_STR(j, "from", r->paths[f->paths[k]].from);
		RT_JSON_STR(j, "to", r->paths[f->paths[k]].to);
		rt_json_obj_end(j);
	}
	rt_json_arr_end(j);
	/* several points: the one whose frames its PSN order, round trips and RP windows come from */
	RT_JSON_KEY(j, "followed_at");
	rt_json_str_or_null(j, f->followed_at);
	if (r->source_log_loaded) {
		RT_JSON_KEY(j, "source");
		source_json(f, j);
	}
	rt_json_obj_end(j);
}

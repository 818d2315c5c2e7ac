/* The partial format's flows (with their transport, NP, RP and source-log parts) and packets, and the order of the view's sections. */
#include "analyze/partial_codec.h"

static void quantiles(struct pc *c, struct rt_res_quantiles *q)
{
	pc_u64(c, &q->samples);
	pc_u64(c, &q->min);
	pc_u64(c, &q->median);
	pc_u64(c, &q->max);
	pc_u64(c, &q->p99);
	pc_u64(c, &q->mean);
	pc_u64(c, &q->stddev);
}

static void transport(struct pc *c, void *part)
{
	struct rt_res_transport *t = part;
	pc_u64(c, &t->naks_received);
	pc_u64(c, &t->rnr_naks_received);
	pc_u64(c, &t->retransmitted);
	pc_u64(c, &t->go_back_n);
	pc_u64(c, &t->rnr_retries);
	pc_u64(c, &t->timeouts);
	pc_u64(c, &t->gaps);
	pc_u64(c, &t->gap_psns);
	pc_u64(c, &t->psn_jumps);
	pc_u64(c, &t->duplicates);
	pc_u64(c, &t->retransmitted_bytes);
	pc_u8(c, &t->rnr_timer);
	uint64_t n = t->nnak_codes;
	pc_count(c, &n, RT_RES_NAK_NAMES, 12, "NAK codes");
	t->nnak_codes = (unsigned)n;
	for (unsigned k = 0; k < t->nnak_codes; k++) {
		pc_str(c, &t->nak_codes[k].name, true, "NAK code name");
		pc_u64(c, &t->nak_codes[k].count);
	}
	quantiles(c, &t->go_back_n_delay);
	quantiles(c, &t->timeout_idle);
	quantiles(c, &t->rnr_wait);
	quantiles(c, &t->rtt);
}

static void np_side(struct pc *c, void *part)
{
	struct rt_res_np *n = part;
	quantiles(c, &n->reaction);
	pc_u64(c, &n->cnp_without_ce);
	pc_u64(c, &n->answered);
	pc_u64(c, &n->rate_limited);
	pc_u64(c, &n->unanswered);
	pc_u64(c, &n->held_or_unanswered);
	pc_u64(c, &n->first_ce_ns);
	pc_u64(c, &n->last_ce_ns);
	pc_bool(c, &n->interval_known);
	pc_u64(c, &n->interval_ns);
}

static void rp_side(struct pc *c, void *part)
{
	struct rt_res_rp *p = part;
	pc_u64(c, &p->cnps);
	pc_u64(c, &p->measured);
	pc_f64(c, &p->mean_drop_pct);
	pc_f64(c, &p->max_drop_pct);
	pc_f64(c, &p->median_drop_pct);
	pc_f64(c, &p->drop_p25_pct);
	pc_f64(c, &p->drop_p75_pct);
	pc_f64(c, &p->min_drop_pct);
	pc_f64(c, &p->drop_sum_pct);
	pc_str(c, &p->drop_null_reason, false, "RP reason");
	pc_u64(c, &p->too_few_packets);
	pc_u64(c, &p->cnp_in_window);
	pc_u64(c, &p->psn_gap_in_window);
	pc_u64(c, &p->resend_in_window);
	pc_u64(c, &p->pause_in_window);
	pc_u64(c, &p->idle_before);
	pc_u64(c, &p->idle_after);
	pc_u64(c, &p->full_link);
	pc_u64(c, &p->recovered);
	pc_u64(c, &p->interrupted);
	quantiles(c, &p->recover);
	quantiles(c, &p->cut_delay);
	pc_bool(c, &p->rate_window_needed_known);
	pc_u64(c, &p->rate_window_needed_ns);
	pc_u64(c, &p->rate_window_would_measure);
	pc_str(c, &p->capture_side, false, "capture side");
	pc_str(c, &p->capture_side_how, false, "capture side");
}

static void source(struct pc *c, void *part)
{
	struct rt_res_source *s = part;
	pc_bool(c, &s->rates);
	pc_f64(c, &s->rate_mbps_first);
	pc_f64(c, &s->rate_mbps_last);
	pc_f64(c, &s->rate_mbps_min);
	pc_u64(c, &s->rate_changes);
	pc_u64(c, &s->cuts);
	pc_f64(c, &s->cut_mean_pct);
	pc_f64(c, &s->cut_max_pct);
	pc_f64(c, &s->cut_sum_pct);
	pc_u64(c, &s->cnp_handled);
	pc_u64(c, &s->retransmitted_reported);
	pc_u64(c, &s->retransmit_events);
	pc_u64(c, &s->timeouts_reported);
	pc_u64(c, &s->naks_reported);
	pc_bool(c, &s->end_seen);
	pc_u64(c, &s->packets_reported);
	pc_u64(c, &s->bytes_reported);
}

/* A part a flow may lack: a flag (u8 1: there), then its record. */
static void optional(struct pc *c, const void **part, size_t size,
                     void (*walk)(struct pc *c, void *part))
{
	bool there = *part != NULL;
	pc_bool(c, &there);
	if (!there)
		return;
	void *p = pc_items(c, *part, 1, size);
	if (!p)
		return;
	struct pc_mark m;
	pc_open(c, &m);
	walk(c, p);
	pc_close(c, &m);
	*part = p;
}

/* What the findings read of a flow. */
static void findings_facts(struct pc *c, struct rt_res_flow *f)
{
	pc_bool(c, &f->udp_sport_known);
	pc_bool(c, &f->udp_sport_varied);
	pc_u16(c, &f->udp_sport);
	pc_u16(c, &f->pmtu);
	/* a path MTU is a RoCE MTU (256 to 4096, a power of two) or unknown (0) */
	pc_check(c, !f->pmtu || (f->pmtu >= 256 && f->pmtu <= 4096 && !(f->pmtu & (f->pmtu - 1))),
	         "path MTU");
	pc_u16(c, &f->max_frame);
	pc_bool(c, &f->cnp_carried);
	pc_bool(c, &f->cnp_tagged);
	pc_bool(c, &f->cnp_mixed);
	pc_u8(c, &f->cnp_dscp);
	pc_u8(c, &f->cnp_pcp);
	pc_check(c, f->cnp_dscp < 64 && f->cnp_pcp < 8, "CNP DSCP or PCP");
	pc_u64(c, &f->stall_from_ns);
	pc_u64(c, &f->stall_ns);
}

/* The vantage paths a flow's host pair was seen on, each with what it lost. */
static void flow_paths(struct pc *c, const struct rt_results *r, struct rt_res_flow *f)
{
	uint64_t n = f->npaths;
	pc_count(c, &n, r->npaths, 12, "flow paths");
	unsigned *paths = pc_items(c, f->paths, n, sizeof(*paths));
	uint64_t *lost = pc_items(c, f->path_lost, n, sizeof(*lost));
	for (uint64_t k = 0; paths && lost && k < n; k++) {
		pc_uint(c, &paths[k]);
		pc_check(c, paths[k] < r->npaths, "flow path index");
		pc_u64(c, &lost[k]);
	}
	f->npaths = (unsigned)n;
	f->paths = n ? paths : NULL;
	f->path_lost = n ? lost : NULL;
}

static void flow(struct pc *c, const struct rt_results *r, void *item, uint64_t id)
{
	struct rt_res_flow *f = item;
	pc_bytes(c, f->key.src, sizeof(f->key.src));
	pc_bytes(c, f->key.dst, sizeof(f->key.dst));
	pc_u32(c, &f->key.dest_qp);
	pc_u8(c, &f->key.ipver);
	pc_check(c, f->key.ipver == 4 || f->key.ipver == 6, "flow IP version");
	pc_u32(c, &f->id);
	pc_check(c, f->id == id, "flow id");
	pc_u32(c, &f->peer_qp);
	pc_str(c, &f->pairing, false, "pairing");
	pc_str(c, &f->transport, false, "transport");
	pc_bool(c, &f->selected);
	pc_bool(c, &f->tagged);
	pc_bool(c, &f->in_episodes);
	pc_u8(c, &f->dscp);
	pc_u8(c, &f->pcp);
	pc_check(c, f->dscp < 64 && f->pcp < 8, "flow DSCP or PCP");
	pc_u64(c, &f->first_ns);
	pc_u64(c, &f->last_ns);
	pc_u64(c, &f->packets);
	pc_u64(c, &f->bytes);
	pc_u64(c, &f->requests);
	pc_u64(c, &f->responses);
	pc_u64s(c, f->ecn, 4);
	pc_u64(c, &f->cnp_received);
	pc_u64(c, &f->cnp_sent);
	pc_f64(c, &f->gbps);
	pc_f64(c, &f->ce_fraction);
	pc_f64(c, &f->ect_fraction);
	pc_f64(c, &f->cnp_rate_per_s);
	optional(c, (const void **)&f->xport, sizeof(struct rt_res_transport), transport);
	optional(c, (const void **)&f->np, sizeof(struct rt_res_np), np_side);
	optional(c, (const void **)&f->rp, sizeof(struct rt_res_rp), rp_side);
	optional(c, (const void **)&f->source, sizeof(struct rt_res_source), source);
	findings_facts(c, f);
	flow_paths(c, r, f);
	pc_str(c, &f->followed_at, false, "followed_at");
}

void pc_flows(struct pc *c, struct rt_results *r)
{
	uint64_t n = r->nflows;
	r->flows = pc_list(c, r->flows, &n, sizeof(*r->flows), UINT32_MAX - 1, "flows", flow, r);
	r->nflows = (uint32_t)n;
}

void pc_packet(struct pc *c, struct rt_partial_packet *pk, uint32_t nflows)
{
	pc_u64(c, &pk->fp);
	pc_u64(c, &pk->ts_ns);
	pc_u32(c, &pk->flow);
	pc_check(c, pk->flow < nflows || pk->flow == RT_AN_NONE, "packet's flow id");
	pc_u8(c, &pk->flags);
	pc_u8(c, &pk->ecn);
	pc_check(c, pk->ecn <= 3, "packet's ECN");
	pc_u8(c, &pk->ttl);
	pc_u8(c, &pk->ipver);
	pc_check(c, pk->ipver == 4 || pk->ipver == 6, "packet's IP version");
	pc_bytes(c, pk->src, sizeof(pk->src));
	pc_bytes(c, pk->dst, sizeof(pk->dst));
}

const struct pc_section pc_view_sections[] = {
    {PC_TAG('T', 'O', 'T', 'L'), "totals", pc_totals},
    {PC_TAG('W', 'A', 'R', 'N'), "warnings", pc_warnings},
    {PC_TAG('V', 'A', 'N', 'T'), "vantage", pc_vantage},
    {PC_TAG('F', 'L', 'O', 'W'), "flows", pc_flows},
    {PC_TAG('P', 'F', 'C', ' '), "pfc", pc_pfc},
    {PC_TAG('M', 'A', 'C', 'S'), "macs", pc_macs},
    {PC_TAG('E', 'P', 'I', 'S'), "episodes", pc_episodes},
    {PC_TAG('C', 'D', 'E', 'V'), "counters", pc_counter_devs},
    {PC_TAG('F', 'I', 'N', 'D'), "findings", pc_findings},
};
const unsigned pc_nview_sections = sizeof(pc_view_sections) / sizeof(pc_view_sections[0]);

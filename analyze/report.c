/* Report sinks: the analyze JSON document (every key in analyze/README.md) and the human summary. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/json.h"
#include "dissect/opcodes.h"

static void key(struct rt_outbuf *o, const char *k, bool *first)
{
	if (!*first)
		rt_out_char(o, ',');
	*first = false;
	rt_out_json_str(o, k);
	rt_out_char(o, ':');
}

static void kv_u64(struct rt_outbuf *o, const char *k, uint64_t v, bool *first)
{
	key(o, k, first);
	rt_out_u64(o, v);
}

/* {"not_ect":N,"ect0":N,"ect1":N,"ce":N} from counts indexed by the ECN codepoint */
static void ecn_json(struct rt_outbuf *o, const uint64_t ecn[4])
{
	bool first = true;
	rt_out_char(o, '{');
	kv_u64(o, "not_ect", ecn[0], &first);
	kv_u64(o, "ect0", ecn[2], &first);
	kv_u64(o, "ect1", ecn[1], &first);
	kv_u64(o, "ce", ecn[3], &first);
	rt_out_char(o, '}');
}

static void kv_ts(struct rt_outbuf *o, const char *k, uint64_t ts, bool *first)
{
	key(o, k, first);
	rt_out_char(o, '"');
	rt_out_ts(o, ts);
	rt_out_char(o, '"');
}

/* "K": "SECONDS.NANOSECONDS" and "K_ns": the same ns as an integer */
static void kv_ts_ns(struct rt_outbuf *o, const char *k, uint64_t ts, bool *first)
{
	char name[32];
	kv_ts(o, k, ts, first);
	snprintf(name, sizeof(name), "%s_ns", k);
	kv_u64(o, name, ts, first);
}

/* {"min","median","max"} (+ p99 and samples when asked) or null */
static void hist_json(struct rt_outbuf *o, const struct an_hist *h, bool p99)
{
	if (!h || !h->n) {
		rt_out_str(o, "null");
		return;
	}
	bool f = true;
	rt_out_char(o, '{');
	kv_u64(o, "min", h->min, &f);
	kv_u64(o, "median", an_hist_quantile(h, 0.5), &f);
	if (p99) {
		kv_u64(o, "p99", an_hist_quantile(h, 0.99), &f);
		kv_u64(o, "mean", h->sum / h->n, &f);
	}
	kv_u64(o, "max", h->max, &f);
	kv_u64(o, "samples", h->n, &f);
	rt_out_char(o, '}');
}

static const char *class_name(unsigned c, char *buf)
{
	if (c == RT_AN_PAUSE_CLASS)
		return "pause";
	buf[0] = (char)('0' + c);
	buf[1] = 0;
	return buf;
}

static void flow_json(const struct rt_analyzer *an, struct rt_outbuf *o, const struct an_flow *f)
{
	bool first = true;
	const struct an_flow_ext *e = f->ext;
	rt_out_char(o, '{');
	kv_u64(o, "id", f->id, &first);
	key(o, "src", &first);
	rt_out_char(o, '"');
	rt_out_ip(o, f->key.ipver, f->key.src);
	rt_out_char(o, '"');
	key(o, "dst", &first);
	rt_out_char(o, '"');
	rt_out_ip(o, f->key.ipver, f->key.dst);
	rt_out_char(o, '"');
	kv_u64(o, "dest_qp", f->key.dest_qp, &first);
	char sel[RT_FLOWSEL_TEXT_MAX];
	key(o, "selector", &first);
	rt_out_char(o, '"');
	rt_out_str(o, rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp));
	rt_out_char(o, '"');
	key(o, "peer_qp", &first);
	if (f->peer_qp == AN_NONE)
		rt_out_str(o, "null");
	else
		rt_out_u64(o, f->peer_qp);
	key(o, "pairing", &first);
	if (f->pairing == AN_PAIR_NONE)
		rt_out_str(o, "null");
	else
		rt_out_json_str(o, an_pairing_name(f->pairing));
	key(o, "transport", &first);
	rt_out_json_str(o, f->transport == 0xff ? "none" : rt_transport_name((uint8_t)(f->transport << 5)));
	kv_ts_ns(o, "first", f->first_ts, &first);
	kv_ts_ns(o, "last", f->last_ts, &first);
	kv_u64(o, "packets", f->packets, &first);
	kv_u64(o, "bytes", f->bytes, &first);
	kv_u64(o, "requests", f->requests, &first);
	kv_u64(o, "responses", f->responses, &first);
	kv_u64(o, "dscp", f->dscp, &first);
	key(o, "pcp", &first);
	if (f->tagged)
		rt_out_u64(o, f->pcp);
	else
		rt_out_str(o, "null");
	key(o, "ecn", &first);
	ecn_json(o, f->ecn);
	key(o, "ce_fraction", &first);
	rt_out_double(o, f->packets ? (double)f->ecn[3] / (double)f->packets : 0.0, 6);
	kv_u64(o, "cnp_received", f->cnp_received, &first);
	kv_u64(o, "cnp_sent", f->cnp_sent, &first);
	key(o, "cnp_rate_per_s", &first);
	double rate = 0;
	if (e && f->cnp_received > 1 && e->last_cnp_ts > e->first_cnp_ts)
		rate = (double)(f->cnp_received - 1) * 1e9 / (double)(e->last_cnp_ts - e->first_cnp_ts);
	rt_out_double(o, rate, 1);
	kv_u64(o, "naks_received", f->naks_received, &first);
	key(o, "nak_codes", &first);
	rt_out_char(o, '{');
	bool f2 = true;
	if (e) {
		/* codes 5..31 share the name "reserved": one key with their sum (JSON keys are unique) */
		uint64_t reserved = 0;
		for (unsigned c = 0; c < 32; c++) {
			if (!e->nak_codes[c])
				continue;
			if (strcmp(rt_nak_code_name((uint8_t)c), "reserved"))
				kv_u64(o, rt_nak_code_name((uint8_t)c), e->nak_codes[c], &f2);
			else
				reserved += e->nak_codes[c];
		}
		if (reserved)
			kv_u64(o, "reserved", reserved, &f2);
	}
	rt_out_char(o, '}');
	kv_u64(o, "rnr_naks_received", f->rnr_naks_received, &first);
	kv_u64(o, "retransmitted", f->retransmitted, &first);
	kv_u64(o, "go_back_n", f->go_back_n, &first);
	kv_u64(o, "rnr_retries", f->rnr_retries, &first);
	kv_u64(o, "timeouts", f->timeouts, &first);
	kv_u64(o, "gaps", f->gaps, &first);
	kv_u64(o, "gap_psns", f->gap_psns, &first);
	kv_u64(o, "psn_jumps", f->psn_jumps, &first);
	kv_u64(o, "duplicates", f->duplicates, &first);
	key(o, "np_reaction_ns", &first);
	hist_json(o, e ? e->np_reaction : NULL, false);
	kv_u64(o, "cnp_without_ce", e ? e->cnp_without_ce : 0, &first);
	key(o, "go_back_n_delay_ns", &first);
	hist_json(o, e ? e->gbn_delay : NULL, false);
	key(o, "timeout_idle_ns", &first);
	hist_json(o, e ? e->timeout_gap : NULL, false);
	key(o, "rtt_ns", &first);
	hist_json(o, e ? e->rtt : NULL, true);
	key(o, "rp_reaction", &first);
	if (e && e->rp_samples) {
		bool f3 = true;
		rt_out_char(o, '{');
		kv_u64(o, "cnps", e->rp_samples, &f3);
		key(o, "mean_drop_pct", &f3);
		rt_out_double(o, e->rp_drop_sum / (double)e->rp_samples, 1);
		key(o, "max_drop_pct", &f3);
		rt_out_double(o, e->rp_drop_max, 1);
		kv_u64(o, "recovered", e->rp_recovered, &f3);
		kv_u64(o, "interrupted", e->rp_interrupted, &f3);
		key(o, "recover_ns", &f3);
		hist_json(o, e->recover, false);
		rt_out_char(o, '}');
	} else {
		rt_out_str(o, "null");
	}
	if (an->srclog_loaded) {
		key(o, "source", &first);
		if (e && e->src_seen) {
			bool f3 = true;
			rt_out_char(o, '{');
			key(o, "rate_mbps_first", &f3);
			rt_out_double(o, e->src_rate_first, 3);
			key(o, "rate_mbps_last", &f3);
			rt_out_double(o, e->src_rate_last, 3);
			key(o, "rate_mbps_min", &f3);
			rt_out_double(o, e->src_rate_min, 3);
			kv_u64(o, "rate_changes", e->src_rate_events, &f3);
			key(o, "measured_gbps", &f3);
			double dur = f->last_ts > f->first_ts ? (double)(f->last_ts - f->first_ts) : 0;
			rt_out_double(o, dur > 0 ? (double)f->bytes * 8.0 / dur : 0.0, 6);
			kv_u64(o, "cnp_handled", e->src_end_seen ? e->src_cnp_handled : e->src_cnp_events, &f3);
			kv_u64(o, "cnp_seen", f->cnp_received, &f3);
			kv_u64(o, "retransmitted_reported",
			       e->src_end_seen ? e->src_retrans : e->src_retransmit_count, &f3);
			kv_u64(o, "retransmitted_seen", f->retransmitted, &f3);
			kv_u64(o, "retransmit_events", e->src_retransmit_events, &f3);
			kv_u64(o, "timeouts_reported", e->src_timeouts, &f3);
			kv_u64(o, "naks_reported", e->src_naks, &f3);
			kv_u64(o, "naks_seen", f->naks_received, &f3);
			if (e->src_end_seen) {
				kv_u64(o, "packets_reported", e->src_packets, &f3);
				kv_u64(o, "bytes_reported", e->src_bytes, &f3);
			}
			rt_out_char(o, '}');
		} else {
			rt_out_str(o, "null");
		}
	}
	rt_out_char(o, '}');
}

static uint64_t class_paused(const struct rt_analyzer *an, unsigned c)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < an->nmacs; i++)
		s += an->macs[i].cls[c].paused_ns;
	return s;
}

static uint64_t class_storms(const struct rt_analyzer *an, unsigned c)
{
	uint64_t s = 0;
	for (uint32_t i = 0; i < an->nmacs; i++)
		s += an->macs[i].cls[c].storms;
	return s;
}

static void pfc_json(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	bool first = true;
	uint64_t xoff = 0, xon = 0;
	for (unsigned c = 0; c < 8; c++) {
		xoff += an->tot.pfc_xoff[c];
		xon += an->tot.pfc_xon[c];
	}
	rt_out_str(o, ",\"pfc\":{");
	kv_u64(o, "frames", an->pfc_frames, &first);
	kv_u64(o, "xoff", xoff, &first);
	kv_u64(o, "xon", xon, &first);
	key(o, "priorities", &first);
	rt_out_char(o, '{');
	bool f2 = true;
	char nb[2];
	for (unsigned c = 0; c < 8; c++) {
		if (!an->tot.pfc_xoff[c] && !an->tot.pfc_xon[c])
			continue;
		key(o, class_name(c, nb), &f2);
		bool f3 = true;
		rt_out_char(o, '{');
		kv_u64(o, "xoff", an->tot.pfc_xoff[c], &f3);
		kv_u64(o, "xon", an->tot.pfc_xon[c], &f3);
		kv_u64(o, "paused_ns", class_paused(an, c), &f3);
		kv_u64(o, "storms", class_storms(an, c), &f3);
		rt_out_char(o, '}');
	}
	rt_out_char(o, '}');
	key(o, "sources", &first);
	rt_out_char(o, '[');
	bool f4 = true;
	for (uint32_t i = 0; i < an->nmacs; i++) {
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *cl = &an->macs[i].cls[c];
			if (!cl->xoff && !cl->xon)
				continue;
			if (!f4)
				rt_out_char(o, ',');
			f4 = false;
			bool f3 = true;
			rt_out_char(o, '{');
			key(o, "mac", &f3);
			rt_out_char(o, '"');
			rt_out_mac(o, an->macs[i].mac);
			rt_out_char(o, '"');
			key(o, "priority", &f3);
			rt_out_json_str(o, class_name(c, nb));
			kv_u64(o, "xoff", cl->xoff, &f3);
			kv_u64(o, "xon", cl->xon, &f3);
			kv_u64(o, "paused_ns", cl->paused_ns, &f3);
			rt_out_char(o, '}');
		}
	}
	rt_out_str(o, "]}");

	first = true;
	rt_out_str(o, ",\"pause\":{");
	kv_u64(o, "frames", an->pause_frames, &first);
	kv_u64(o, "xoff", an->tot.pfc_xoff[RT_AN_PAUSE_CLASS], &first);
	kv_u64(o, "xon", an->tot.pfc_xon[RT_AN_PAUSE_CLASS], &first);
	kv_u64(o, "paused_ns", class_paused(an, RT_AN_PAUSE_CLASS), &first);
	kv_u64(o, "storms", class_storms(an, RT_AN_PAUSE_CLASS), &first);
	rt_out_char(o, '}');

	rt_out_str(o, ",\"storms\":[");
	for (uint32_t i = 0; i < an->nstorms; i++) {
		const struct an_storm *s = &an->storms[i];
		bool f3 = true;
		if (i)
			rt_out_char(o, ',');
		rt_out_char(o, '{');
		key(o, "mac", &f3);
		rt_out_char(o, '"');
		rt_out_mac(o, s->mac);
		rt_out_char(o, '"');
		key(o, "priority", &f3);
		rt_out_json_str(o, class_name(s->cls, nb));
		kv_ts_ns(o, "start", s->start, &f3);
		kv_ts_ns(o, "end", s->end, &f3);
		kv_u64(o, "duration_ns", s->end - s->start, &f3);
		rt_out_char(o, '}');
	}
	rt_out_char(o, ']');
}

static double gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0.0;
}

static void episodes_json(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	rt_out_str(o, ",\"episodes\":[");
	uint64_t gap = an->o.episode_gap_ns, slot = an_ep_slot_ns(an);
	for (uint32_t i = 0; i < an->neps; i++) {
		const struct an_episode *ep = &an->eps[i];
		bool f = true;
		if (i)
			rt_out_char(o, ',');
		rt_out_char(o, '{');
		kv_ts(o, "start", ep->start, &f);
		kv_ts(o, "end", ep->end, &f);
		kv_u64(o, "start_ns", ep->start, &f);
		kv_u64(o, "end_ns", ep->end, &f);
		kv_u64(o, "duration_ns", ep->end - ep->start, &f);
		kv_u64(o, "flow_count", ep->flows, &f);
		key(o, "flows", &f);
		rt_out_char(o, '[');
		uint64_t n = ep->flows < 16 ? ep->flows : 16;
		for (uint64_t k = 0; k < n; k++) {
			if (k)
				rt_out_char(o, ',');
			rt_out_u64(o, ep->flow_ids[k]);
		}
		rt_out_char(o, ']');
		kv_u64(o, "ce", ep->ce, &f);
		kv_u64(o, "cnp", ep->cnp, &f);
		kv_u64(o, "pfc_xoff", ep->pfc_xoff, &f);
		kv_u64(o, "paused_ns", ep->paused_ns, &f);
		key(o, "peak_ce_per_s", &f);
		rt_out_double(o, (double)ep->peak_ce_slot * 1e9 / (double)slot, 0);
		key(o, "gbps_before", &f);
		rt_out_double(o, gbps(ep->bytes_before, gap), 3);
		key(o, "gbps_during", &f);
		rt_out_double(o, gbps(ep->bytes_during, ep->end - ep->start), 3);
		key(o, "gbps_after", &f);
		rt_out_double(o, gbps(ep->bytes_after, gap), 3);
		rt_out_char(o, '}');
	}
	rt_out_char(o, ']');
}

int rt_analyzer_report_json(struct rt_analyzer *an, FILE *fp)
{
	struct rt_outbuf *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	rt_out_init(o, fp);
	bool first = true;
	rt_out_char(o, '{');
	kv_u64(o, "schema", RT_JSON_SCHEMA, &first);
	kv_u64(o, "packets", an->tot.packets, &first);
	kv_u64(o, "roce_packets", an->tot.roce_packets, &first);
	kv_ts_ns(o, "start", an->first_ts, &first);
	kv_ts_ns(o, "end", an->last_ts, &first);
	kv_u64(o, "bytes", an->tot.bytes, &first);
	kv_u64(o, "link_speed_bps", an->o.link_speed_bps, &first);
	kv_u64(o, "flow_count", an->next_id, &first);
	key(o, "totals", &first);
	bool f2 = true;
	uint64_t gaps = 0, gap_psns = 0, gbn = 0, tmo = 0, jumps = 0;
	for (uint32_t i = 0; i < an->nflows; i++) {
		gaps += an->flows[i].gaps;
		gap_psns += an->flows[i].gap_psns;
		gbn += an->flows[i].go_back_n;
		tmo += an->flows[i].timeouts;
		jumps += an->flows[i].psn_jumps;
	}
	rt_out_char(o, '{');
	kv_u64(o, "ce", an->tot.ce, &f2);
	kv_u64(o, "cnp", an->tot.cnp, &f2);
	kv_u64(o, "nak", an->tot.nak, &f2);
	kv_u64(o, "rnr_nak", an->tot.rnr_nak, &f2);
	kv_u64(o, "retransmitted", an->tot.retransmitted, &f2);
	kv_u64(o, "icrc_bad", an->tot.icrc_bad, &f2);
	kv_u64(o, "cnp_unattributed", an->cnp_unattributed, &f2);
	kv_u64(o, "nak_unattributed", an->nak_unattributed, &f2);
	kv_u64(o, "go_back_n", gbn, &f2);
	kv_u64(o, "timeouts", tmo, &f2);
	kv_u64(o, "gaps", gaps, &f2);
	kv_u64(o, "gap_psns", gap_psns, &f2);
	kv_u64(o, "psn_jumps", jumps, &f2);
	kv_u64(o, "malformed", an->malformed, &f2);
	kv_u64(o, "truncated", an->truncated, &f2);
	kv_u64(o, "other", an->other, &f2);
	kv_u64(o, "cm_pairs", an->cm_pairs, &f2);
	key(o, "ecn", &f2);
	ecn_json(o, an->ecn);
	rt_out_char(o, '}');
	pfc_json(an, o);
	episodes_json(an, o);
	if (an->counters_loaded)
		an_report_counters_json(an, o);
	an_report_findings_json(an, o);
	if (an->srclog_loaded) {
		f2 = true;
		rt_out_str(o, ",\"source_log\":{");
		kv_u64(o, "lines", an->srclog_lines, &f2);
		kv_u64(o, "bad_lines", an->srclog_bad, &f2);
		kv_u64(o, "unmatched_events", an->srclog_unmatched, &f2);
		rt_out_char(o, '}');
	}
	rt_out_str(o, ",\"flows\":[");
	bool first_flow = true;
	for (uint32_t id = 0; id < an->next_id; id++) {
		const struct an_flow *f = &an->flows[an->order[id]];
		if (!f->selected) /* --flow */
			continue;
		if (!first_flow)
			rt_out_str(o, ",\n");
		first_flow = false;
		flow_json(an, o, f);
	}
	rt_out_str(o, "]}\n");
	int err = rt_out_flush(o);
	free(o);
	return err ? -err : 0;
}

/* ---- text ---- */

/* The flow as --flow takes it ("10.0.0.1>10.0.0.2:0x000011"), and its peer QP. */
static void flow_name(struct rt_outbuf *o, const struct an_flow *f)
{
	char sel[RT_FLOWSEL_TEXT_MAX];
	rt_out_str(o, rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp));
	if (f->peer_qp != AN_NONE)
		rt_out_printf(o, " (peer 0x%06x)", f->peer_qp);
}

static int by_ce(const void *a, const void *b, void *ctx)
{
	const struct an_flow *flows = ctx;
	const struct an_flow *x = &flows[*(const uint32_t *)a];
	const struct an_flow *y = &flows[*(const uint32_t *)b];
	uint64_t kx = x->ecn[3] + x->cnp_received, ky = y->ecn[3] + y->cnp_received;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->id < y->id ? -1 : 1;
}

static void fmt_ns(struct rt_outbuf *o, uint64_t ns)
{
	if (ns >= 1000000000ull)
		rt_out_printf(o, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		rt_out_printf(o, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000ull)
		rt_out_printf(o, "%.1f us", (double)ns / 1e3);
	else
		rt_out_printf(o, "%llu ns", (unsigned long long)ns);
}

int rt_analyzer_report_text(struct rt_analyzer *an, FILE *fp, unsigned top)
{
	struct rt_outbuf *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	rt_out_init(o, fp);
	uint64_t dur = an->last_ts > an->first_ts ? an->last_ts - an->first_ts : 0;
	rt_out_printf(o, "%llu frames, %llu RoCE packets, %llu bytes over ",
		      (unsigned long long)an->tot.packets, (unsigned long long)an->tot.roce_packets,
		      (unsigned long long)an->tot.bytes);
	fmt_ns(o, dur);
	rt_out_str(o, " (");
	rt_out_ts(o, an->first_ts);
	rt_out_str(o, " .. ");
	rt_out_ts(o, an->last_ts);
	rt_out_str(o, ")\n");
	uint32_t paired = 0, nsel = 0;
	for (uint32_t id = 0; id < an->next_id; id++) {
		paired += an->flows[an->order[id]].peer_qp != AN_NONE;
		nsel += an->flows[an->order[id]].selected;
	}
	rt_out_printf(o, "%u flows (one direction of one QP), %u with their peer QP known", an->next_id,
		      paired);
	if (an->o.flow)
		rt_out_printf(o, "; --flow '%s' lists %u of them", an->o.flow, nsel);
	rt_out_char(o, '\n');
	rt_out_printf(o,
		      "ECN: %llu CE-marked (%.2f%% of RoCE), CNPs: %llu (%llu not matched to a flow)\n",
		      (unsigned long long)an->tot.ce,
		      an->tot.roce_packets ? 100.0 * (double)an->tot.ce / (double)an->tot.roce_packets : 0.0,
		      (unsigned long long)an->tot.cnp, (unsigned long long)an->cnp_unattributed);
	uint64_t gaps = 0, gap_psns = 0, gbn = 0, tmo = 0;
	for (uint32_t i = 0; i < an->nflows; i++) {
		gaps += an->flows[i].gaps;
		gap_psns += an->flows[i].gap_psns;
		gbn += an->flows[i].go_back_n;
		tmo += an->flows[i].timeouts;
	}
	rt_out_printf(o,
		      "Transport: %llu NAKs, %llu RNR NAKs, %llu retransmitted packets "
		      "(%llu go-back-N, %llu implied timeouts), %llu PSN gaps (%llu PSNs missing)\n",
		      (unsigned long long)an->tot.nak, (unsigned long long)an->tot.rnr_nak,
		      (unsigned long long)an->tot.retransmitted, (unsigned long long)gbn,
		      (unsigned long long)tmo, (unsigned long long)gaps, (unsigned long long)gap_psns);
	if (an->tot.icrc_bad || an->malformed)
		rt_out_printf(o, "Damaged: %llu bad ICRC, %llu malformed frames\n",
			      (unsigned long long)an->tot.icrc_bad, (unsigned long long)an->malformed);
	an_report_warnings_text(an, o);
	/* PFC */
	if (an->pfc_frames || an->pause_frames) {
		rt_out_printf(o, "PFC: %llu frames, PAUSE: %llu frames (link speed %.0f Gb/s)\n",
			      (unsigned long long)an->pfc_frames, (unsigned long long)an->pause_frames,
			      (double)an->o.link_speed_bps / 1e9);
		char nb[2];
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			if (!an->tot.pfc_xoff[c] && !an->tot.pfc_xon[c])
				continue;
			char label[16];
			if (c == RT_AN_PAUSE_CLASS)
				snprintf(label, sizeof(label), "802.3x PAUSE");
			else
				snprintf(label, sizeof(label), "priority %s", class_name(c, nb));
			rt_out_printf(o, "  %-13s %llu XOFF, %llu XON, paused ", label,
				      (unsigned long long)an->tot.pfc_xoff[c],
				      (unsigned long long)an->tot.pfc_xon[c]);
			fmt_ns(o, class_paused(an, c));
			rt_out_char(o, '\n');
		}
	}
	/* top flows (of those --flow selects) */
	uint32_t n = 0;
	uint32_t *idx = malloc((an->next_id ? an->next_id : 1) * sizeof(*idx));
	for (uint32_t i = 0; idx && i < an->next_id; i++)
		if (an->flows[an->order[i]].selected)
			idx[n++] = an->order[i];
	if (idx && n) {
		qsort_r(idx, n, sizeof(*idx), by_ce, an->flows);
		rt_out_printf(o, "\nTop flows by CE marks + CNPs (of %u):\n", n);
		rt_out_str(o, "  id  flow                                              packets     CE    CE%   CNP  NAK  retx  NP reaction (median)\n");
		for (uint32_t i = 0; i < n && i < top; i++) {
			const struct an_flow *f = &an->flows[idx[i]];
			char name[RT_FLOWSEL_TEXT_MAX];
			rt_flowsel_format(name, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp);
			rt_out_printf(o, "  %-3u %-48s %9llu %6llu %5.1f %5llu %4llu %5llu  ", f->id, name,
				      (unsigned long long)f->packets, (unsigned long long)f->ecn[3],
				      f->packets ? 100.0 * (double)f->ecn[3] / (double)f->packets : 0.0,
				      (unsigned long long)f->cnp_received,
				      (unsigned long long)f->naks_received,
				      (unsigned long long)f->retransmitted);
			if (f->ext && f->ext->np_reaction)
				fmt_ns(o, an_hist_quantile(f->ext->np_reaction, 0.5));
			else
				rt_out_str(o, "-");
			rt_out_char(o, '\n');
		}
	}
	free(idx);
	/* how the throttled senders reacted */
	bool rp_head = false;
	for (uint32_t id = 0; id < an->next_id; id++) {
		const struct an_flow *f = &an->flows[an->order[id]];
		const struct an_flow_ext *e = f->ext;
		if (!e || !e->rp_samples || !f->selected)
			continue;
		if (!rp_head) {
			rt_out_str(o, "\nSender reaction to CNPs (rate in the ");
			fmt_ns(o, an->o.rate_window_ns);
			rt_out_str(o, " before each CNP vs after it):\n");
			rp_head = true;
		}
		rt_out_printf(o, "  flow %u: %llu CNPs, rate down %.0f%% on average (at most %.0f%%)", f->id,
			      (unsigned long long)e->rp_samples, e->rp_drop_sum / (double)e->rp_samples,
			      e->rp_drop_max);
		if (e->recover) {
			rt_out_printf(o, ", back to 90%% in ");
			fmt_ns(o, an_hist_quantile(e->recover, 0.5));
			rt_out_printf(o, " (median of %llu)", (unsigned long long)e->rp_recovered);
		}
		rt_out_char(o, '\n');
	}
	/* episodes */
	if (an->neps) {
		rt_out_printf(o, "\nCongestion episodes (events less than ");
		fmt_ns(o, an->o.episode_gap_ns);
		rt_out_printf(o, " apart): %u\n", an->neps);
		for (uint32_t i = 0; i < an->neps && i < 20; i++) {
			const struct an_episode *ep = &an->eps[i];
			rt_out_str(o, "  ");
			rt_out_ts(o, ep->start);
			rt_out_str(o, " +");
			fmt_ns(o, ep->end - ep->start);
			rt_out_printf(o, ": %llu flows, %llu CE, %llu CNP",
				      (unsigned long long)ep->flows, (unsigned long long)ep->ce,
				      (unsigned long long)ep->cnp);
			if (ep->paused_ns) {
				rt_out_str(o, ", paused ");
				fmt_ns(o, ep->paused_ns);
			}
			rt_out_printf(o, "; throughput %.2f -> %.2f -> %.2f Gb/s\n",
				      gbps(ep->bytes_before, an->o.episode_gap_ns),
				      gbps(ep->bytes_during, ep->end - ep->start),
				      gbps(ep->bytes_after, an->o.episode_gap_ns));
		}
		if (an->neps > 20)
			rt_out_printf(o, "  ... %u more (see --json)\n", an->neps - 20);
	}
	/* anomalies */
	bool head = false, drops_known;
	uint64_t capture_dropped = an_capture_dropped(an, &drops_known);
#define ANOMALY()                                                                                  \
	do {                                                                                       \
		if (!head)                                                                         \
			rt_out_str(o, "\nAnomalies:\n");                                            \
		head = true;                                                                       \
	} while (0)
	for (uint32_t id = 0; id < an->next_id; id++) {
		const struct an_flow *f = &an->flows[an->order[id]];
		if (!(f->naks_received || f->rnr_naks_received || f->gaps || f->timeouts || f->psn_jumps) ||
		    !f->selected)
			continue;
		ANOMALY();
		rt_out_printf(o, "  flow %u ", f->id);
		flow_name(o, f);
		rt_out_char(o, ':');
		if (f->naks_received)
			rt_out_printf(o, " %llu NAK", (unsigned long long)f->naks_received);
		if (f->rnr_naks_received)
			rt_out_printf(o, " %llu RNR NAK", (unsigned long long)f->rnr_naks_received);
		if (f->go_back_n && f->ext && f->ext->gbn_delay) {
			rt_out_printf(o, " %llu go-back-N (resend after ", (unsigned long long)f->go_back_n);
			fmt_ns(o, an_hist_quantile(f->ext->gbn_delay, 0.5));
			rt_out_str(o, " median)");
		}
		if (f->timeouts)
			rt_out_printf(o, " %llu implied timeouts", (unsigned long long)f->timeouts);
		if (f->gaps && capture_dropped)
			rt_out_printf(o, " %llu PSN gaps (%llu PSNs lost before the capture point or dropped by the capture, "
					 "which dropped %llu frames)",
				      (unsigned long long)f->gaps, (unsigned long long)f->gap_psns,
				      (unsigned long long)capture_dropped);
		else if (f->gaps)
			rt_out_printf(o, " %llu PSN gaps (%llu lost before the capture point)",
				      (unsigned long long)f->gaps, (unsigned long long)f->gap_psns);
		if (f->psn_jumps)
			rt_out_printf(o, " %llu PSN jumps", (unsigned long long)f->psn_jumps);
		rt_out_char(o, '\n');
	}
	for (uint32_t i = 0; i < an->nstorms; i++) {
		const struct an_storm *s = &an->storms[i];
		char nb[2];
		ANOMALY();
		rt_out_str(o, "  storm: ");
		rt_out_mac(o, s->mac);
		rt_out_printf(o, " kept %s%s paused for ", s->cls == RT_AN_PAUSE_CLASS ? "" : "priority ",
			      class_name(s->cls, nb));
		fmt_ns(o, s->end - s->start);
		rt_out_str(o, " from ");
		rt_out_ts(o, s->start);
		rt_out_char(o, '\n');
	}
	if (an->counters_loaded)
		an_report_counters_text(an, o);
	if (an->srclog_loaded) {
		rt_out_printf(o, "\nTraffic source log (%llu lines, %llu bad, %llu events for flows not in the capture):\n",
			      (unsigned long long)an->srclog_lines, (unsigned long long)an->srclog_bad,
			      (unsigned long long)an->srclog_unmatched);
		for (uint32_t id = 0; id < an->next_id; id++) {
			const struct an_flow *f = &an->flows[an->order[id]];
			const struct an_flow_ext *e = f->ext;
			if (!e || !e->src_seen || !f->selected)
				continue;
			double span = f->last_ts > f->first_ts ? (double)(f->last_ts - f->first_ts) : 0;
			rt_out_printf(o, "  flow %u: source rate %.0f -> min %.0f -> %.0f Mb/s, measured %.3f Gb/s; "
					 "CNPs handled %llu, seen %llu; resends reported %llu, seen %llu\n",
				      f->id, e->src_rate_first, e->src_rate_min, e->src_rate_last,
				      span > 0 ? (double)f->bytes * 8.0 / span : 0.0,
				      (unsigned long long)(e->src_end_seen ? e->src_cnp_handled : e->src_cnp_events),
				      (unsigned long long)f->cnp_received,
				      (unsigned long long)(e->src_end_seen ? e->src_retrans : e->src_retransmit_count),
				      (unsigned long long)f->retransmitted);
		}
	}
	int err = rt_out_flush(o);
	free(o);
	return err ? -err : 0;
}

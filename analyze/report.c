/* Report sinks: the analyze JSON document (every key in analyze/README.md) and the human summary. */
#include <errno.h>
#include <math.h>
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

/* A number, or null when it is not known (`known` false, or not finite). */
static void kv_num(struct rt_outbuf *o, const char *k, double v, int decimals, bool known, bool *first)
{
	key(o, k, first);
	if (known && isfinite(v))
		rt_out_double(o, v, decimals);
	else
		rt_out_str(o, "null");
}

static void kv_u64_or_null(struct rt_outbuf *o, const char *k, uint64_t v, bool known, bool *first)
{
	key(o, k, first);
	if (known)
		rt_out_u64(o, v);
	else
		rt_out_str(o, "null");
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

/* {"min","median","max","samples"} (+ p99, mean and stddev when asked) or null */
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
		kv_u64(o, "stddev", (uint64_t)(an_hist_stddev(h) + 0.5), &f);
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

/* bits per second over a span, or NaN (unknown) when the span is empty */
static double rate_gbps(uint64_t bytes, uint64_t first, uint64_t last)
{
	return last > first ? (double)bytes * 8.0 / (double)(last - first) : NAN;
}

/* What share of the packets with an ECN field carried ECT(0), ECT(1) or CE; NaN when none had one. */
static double ect_share(const uint64_t ecn[4])
{
	uint64_t all = ecn[0] + ecn[1] + ecn[2] + ecn[3];
	return all ? (double)(ecn[1] + ecn[2] + ecn[3]) / (double)all : NAN;
}

static double ce_share(const uint64_t ecn[4])
{
	uint64_t all = ecn[0] + ecn[1] + ecn[2] + ecn[3];
	return all ? (double)ecn[3] / (double)all : NAN;
}

/* Why no CNP of the flow gave a rate drop. */
static const char *rp_null_reason(const struct an_flow_ext *e)
{
	return e->rp_cnp_in_window > e->rp_few ? "another CNP within the window"
					      : "too few packets around the CNP";
}

static void rp_json(const struct rt_analyzer *an, struct rt_outbuf *o, const struct an_flow_ext *e)
{
	if (!e || !e->rp_cnps) {
		rt_out_str(o, "null");
		return;
	}
	bool f = true;
	rt_out_char(o, '{');
	kv_u64(o, "cnps", e->rp_cnps, &f);
	kv_u64(o, "measured", e->rp_measured, &f);
	kv_num(o, "mean_drop_pct", e->rp_measured ? e->rp_drop_sum / (double)e->rp_measured : 0, 1,
	       e->rp_measured > 0, &f);
	kv_num(o, "max_drop_pct", e->rp_drop_max, 1, e->rp_measured > 0, &f);
	key(o, "drop_null_reason", &f);
	if (e->rp_measured)
		rt_out_str(o, "null");
	else
		rt_out_json_str(o, rp_null_reason(e));
	kv_u64(o, "too_few_packets", e->rp_few, &f);
	kv_u64(o, "cnp_in_window", e->rp_cnp_in_window, &f);
	kv_u64(o, "window_gaps", AN_RP_GAPS, &f);
	kv_u64(o, "max_window_ns", an->o.rate_window_ns, &f);
	kv_u64(o, "recovered", e->rp_recovered, &f);
	kv_u64(o, "interrupted", e->rp_interrupted, &f);
	key(o, "recover_ns", &f);
	hist_json(o, e->recover, false);
	rt_out_char(o, '}');
}

static void source_json(const struct an_flow *f, struct rt_outbuf *o)
{
	const struct an_flow_ext *e = f->ext;
	if (!e || !e->src_seen) {
		rt_out_str(o, "null");
		return;
	}
	bool f3 = true, rates = e->src_rate_events > 0;
	rt_out_char(o, '{');
	kv_num(o, "rate_mbps_first", e->src_rate_first, 3, rates, &f3);
	kv_num(o, "rate_mbps_last", e->src_rate_last, 3, rates, &f3);
	kv_num(o, "rate_mbps_min", e->src_rate_min, 3, rates, &f3);
	kv_u64(o, "rate_changes", e->src_rate_events, &f3);
	kv_u64(o, "cuts", e->src_cuts, &f3);
	kv_num(o, "cut_mean_pct", e->src_cuts ? e->src_cut_sum / (double)e->src_cuts : 0, 1, e->src_cuts > 0,
	       &f3);
	kv_num(o, "cut_max_pct", e->src_cut_max, 1, e->src_cuts > 0, &f3);
	kv_num(o, "measured_gbps", rate_gbps(f->bytes, f->first_ts, f->last_ts), 6, true, &f3);
	kv_u64(o, "cnp_handled", e->src_end_seen ? e->src_cnp_handled : e->src_cnp_events, &f3);
	kv_u64(o, "cnp_seen", f->cnp_received, &f3);
	kv_u64(o, "retransmitted_reported", e->src_end_seen ? e->src_retrans : e->src_retransmit_count, &f3);
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
	kv_u64_or_null(o, "peer_qp", f->peer_qp, f->peer_qp != AN_NONE, &first);
	key(o, "pairing", &first);
	if (f->pairing == AN_PAIR_NONE)
		rt_out_str(o, "null");
	else
		rt_out_json_str(o, an_pairing_name(f->pairing));
	key(o, "transport", &first);
	if (f->transport == 0xff)
		rt_out_str(o, "null");
	else
		rt_out_json_str(o, rt_transport_name((uint8_t)(f->transport << 5)));
	kv_ts_ns(o, "first", f->first_ts, &first);
	kv_ts_ns(o, "last", f->last_ts, &first);
	kv_u64(o, "packets", f->packets, &first);
	kv_u64(o, "bytes", f->bytes, &first);
	kv_num(o, "gbps", rate_gbps(f->bytes, f->first_ts, f->last_ts), 6, true, &first);
	kv_u64(o, "requests", f->requests, &first);
	kv_u64(o, "responses", f->responses, &first);
	kv_u64(o, "dscp", f->dscp, &first);
	kv_u64_or_null(o, "pcp", f->pcp, f->tagged, &first);
	key(o, "ecn", &first);
	ecn_json(o, f->ecn);
	kv_num(o, "ce_fraction", ce_share(f->ecn), 6, true, &first);
	kv_num(o, "ect_fraction", ect_share(f->ecn), 6, true, &first);
	kv_u64(o, "cnp_received", f->cnp_received, &first);
	kv_u64(o, "cnp_sent", f->cnp_sent, &first);
	double rate = NAN;
	if (e && f->cnp_received > 1 && e->last_cnp_ts > e->first_cnp_ts)
		rate = (double)(f->cnp_received - 1) * 1e9 / (double)(e->last_cnp_ts - e->first_cnp_ts);
	kv_num(o, "cnp_rate_per_s", rate, 1, true, &first);
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
	uint64_t interval = 0;
	bool learned = e && an_np_interval(e, &interval);
	kv_u64_or_null(o, "cnp_interval_ns", interval, learned, &first);
	kv_u64(o, "ce_rate_limited", e && e->np ? e->np->rate_limited : 0, &first);
	kv_u64(o, "ce_unanswered", e ? an_np_unanswered(e) : 0, &first);
	key(o, "go_back_n_delay_ns", &first);
	hist_json(o, e ? e->gbn_delay : NULL, false);
	key(o, "timeout_idle_ns", &first);
	hist_json(o, e ? e->timeout_gap : NULL, false);
	key(o, "rtt_ns", &first);
	hist_json(o, e ? e->rtt : NULL, true);
	key(o, "rp_reaction", &first);
	rp_json(an, o, e);
	if (an->srclog_loaded) {
		key(o, "source", &first);
		source_json(f, o);
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

/* Gb/s over ns nanoseconds; NaN (unknown) over none. */
static double gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : NAN;
}

/* The gap before an episode lies inside the capture. */
static bool ep_before_known(const struct rt_analyzer *an, const struct an_episode *ep)
{
	return ep->start - an->first_ts >= an->o.episode_gap_ns;
}

/* The gap after an episode lies inside the capture. */
static bool ep_after_known(const struct rt_analyzer *an, const struct an_episode *ep)
{
	return an->last_ts >= ep->end && an->last_ts - ep->end >= an->o.episode_gap_ns;
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
		kv_num(o, "gbps_before", gbps(ep->bytes_before, gap), 3, ep_before_known(an, ep), &f);
		kv_num(o, "gbps_during", gbps(ep->bytes_during, ep->end - ep->start), 3, true, &f);
		kv_num(o, "gbps_after", gbps(ep->bytes_after, gap), 3, ep_after_known(an, ep), &f);
		rt_out_char(o, '}');
	}
	rt_out_char(o, ']');
}

/* The receiver the most CE-marked data goes to, with the senders feeding it. */
struct incast {
	const struct an_flow *any; /* a flow into the receiver (its dst, ipver) */
	uint32_t senders, flows;
	uint64_t bytes, ce, first, last;
};

static int by_dst_src(const void *a, const void *b, void *ctx)
{
	const struct an_flow *flows = ctx;
	const struct an_key *x = &flows[*(const uint32_t *)a].key, *y = &flows[*(const uint32_t *)b].key;
	if (x->ipver != y->ipver)
		return x->ipver < y->ipver ? -1 : 1;
	int c = memcmp(x->dst, y->dst, 16);
	return c ? c : memcmp(x->src, y->src, 16);
}

/* The hot receiver: most CE marks, then most senders, then most bytes; false unless 2+ senders feed it. */
static bool incast_find(const struct rt_analyzer *an, struct incast *best)
{
	uint32_t n = 0, *idx = malloc((an->nflows ? an->nflows : 1) * sizeof(*idx));
	if (!idx)
		return false;
	for (uint32_t fi = 0; fi < an->nflows; fi++)
		if (an->flows[fi].requests && an->flows[fi].id != AN_NONE)
			idx[n++] = fi;
	qsort_r(idx, n, sizeof(*idx), by_dst_src, an->flows);
	memset(best, 0, sizeof(*best));
	for (uint32_t i = 0; i < n;) {
		struct incast cur = {.any = &an->flows[idx[i]], .first = UINT64_MAX};
		const struct an_flow *prev = NULL;
		for (; i < n; i++) {
			const struct an_flow *f = &an->flows[idx[i]];
			if (f->key.ipver != cur.any->key.ipver || memcmp(f->key.dst, cur.any->key.dst, 16))
				break;
			if (!prev || memcmp(f->key.src, prev->key.src, 16))
				cur.senders++;
			prev = f;
			cur.flows++;
			cur.bytes += f->bytes;
			cur.ce += f->ecn[3];
			if (f->first_ts < cur.first)
				cur.first = f->first_ts;
			if (f->last_ts > cur.last)
				cur.last = f->last_ts;
		}
		if (cur.senders < 2)
			continue;
		if (!best->any || cur.ce > best->ce || (cur.ce == best->ce && cur.senders > best->senders) ||
		    (cur.ce == best->ce && cur.senders == best->senders && cur.bytes > best->bytes))
			*best = cur;
	}
	free(idx);
	return best->any != NULL;
}

static void incast_json(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	struct incast ic;
	rt_out_str(o, ",\"incast\":");
	if (!incast_find(an, &ic)) {
		rt_out_str(o, "null");
		return;
	}
	bool f = true;
	rt_out_char(o, '{');
	key(o, "receiver", &f);
	rt_out_char(o, '"');
	rt_out_ip(o, ic.any->key.ipver, ic.any->key.dst);
	rt_out_char(o, '"');
	kv_u64(o, "senders", ic.senders, &f);
	kv_u64(o, "flows", ic.flows, &f);
	kv_u64(o, "bytes", ic.bytes, &f);
	kv_num(o, "gbps", rate_gbps(ic.bytes, ic.first, ic.last), 6, true, &f);
	kv_u64(o, "ce", ic.ce, &f);
	rt_out_char(o, '}');
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
	if (an->tot.packets) {
		kv_ts_ns(o, "start", an->first_ts, &first);
		kv_ts_ns(o, "end", an->last_ts, &first);
	} else {
		rt_out_str(o, ",\"start\":null,\"start_ns\":null,\"end\":null,\"end_ns\":null");
	}
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
	incast_json(an, o);
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

/* "+12.345 ms (1700000000.012345000)": a time relative to the capture start, then absolute. */
static void fmt_at(const struct rt_analyzer *an, struct rt_outbuf *o, uint64_t ts)
{
	uint64_t rel = ts >= an->first_ts ? ts - an->first_ts : 0;
	rt_out_char(o, '+');
	if (rel >= 1000000000ull)
		rt_out_printf(o, "%.6f s", (double)rel / 1e9);
	else if (rel >= 1000000ull)
		rt_out_printf(o, "%.3f ms", (double)rel / 1e6);
	else
		rt_out_printf(o, "%.3f us", (double)rel / 1e3);
	rt_out_str(o, " (");
	rt_out_ts(o, ts);
	rt_out_char(o, ')');
}

static uint32_t top_flows(const struct rt_analyzer *an, uint32_t **idx)
{
	uint32_t n = 0;
	*idx = malloc((an->next_id ? an->next_id : 1) * sizeof(**idx));
	if (!*idx)
		return 0;
	for (uint32_t i = 0; i < an->next_id; i++)
		if (an->flows[an->order[i]].selected)
			(*idx)[n++] = an->order[i];
	qsort_r(*idx, n, sizeof(**idx), by_ce, an->flows);
	return n;
}

/* The top flows: traffic, marking classes, ECN, CNPs, transport, NP reaction; then their round trips. */
static void text_top(const struct rt_analyzer *an, struct rt_outbuf *o, unsigned top)
{
	uint32_t *idx = NULL, n = top ? top_flows(an, &idx) : 0;
	if (!n) {
		free(idx);
		return;
	}
	uint32_t shown = n < top ? n : top;
	rt_out_printf(o, "\nTop flows by CE marks + CNPs (%u of %u):\n", shown, n);
	rt_out_str(o, "  id  flow                                          packets       bytes     Gb/s DSCP PCP  ECT%"
		      "     CE    CE%   CNP   NAK  retx  NP reaction\n");
	for (uint32_t i = 0; i < shown; i++) {
		const struct an_flow *f = &an->flows[idx[i]];
		char name[RT_FLOWSEL_TEXT_MAX], pcp[8];
		rt_flowsel_format(name, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp);
		snprintf(pcp, sizeof(pcp), f->tagged ? "%u" : "-", f->pcp);
		rt_out_printf(o, "  %-3u %-44s %9llu %11llu ", f->id, name, (unsigned long long)f->packets,
			      (unsigned long long)f->bytes);
		double g = rate_gbps(f->bytes, f->first_ts, f->last_ts), ect = ect_share(f->ecn),
		       ce = ce_share(f->ecn);
		if (isfinite(g))
			rt_out_printf(o, "%8.3f", g);
		else
			rt_out_printf(o, "%8s", "-");
		rt_out_printf(o, " %4u %3s ", f->dscp, pcp);
		if (isfinite(ect))
			rt_out_printf(o, "%5.1f", 100.0 * ect);
		else
			rt_out_printf(o, "%5s", "-");
		rt_out_printf(o, " %6llu ", (unsigned long long)f->ecn[3]);
		if (isfinite(ce))
			rt_out_printf(o, "%6.2f", 100.0 * ce);
		else
			rt_out_printf(o, "%6s", "-");
		rt_out_printf(o, " %5llu %5llu %5llu  ", (unsigned long long)f->cnp_received,
			      (unsigned long long)f->naks_received, (unsigned long long)f->retransmitted);
		if (f->ext && f->ext->np_reaction)
			fmt_ns(o, an_hist_quantile(f->ext->np_reaction, 0.5));
		else
			rt_out_str(o, "-");
		rt_out_char(o, '\n');
	}
	bool head = false;
	for (uint32_t i = 0; i < shown; i++) {
		const struct an_flow *f = &an->flows[idx[i]];
		const struct an_hist *h = f->ext ? f->ext->rtt : NULL;
		if (!h || !h->n)
			continue;
		if (!head)
			rt_out_str(o, "\nRound trips of these flows (request with AckReq -> its ACK):\n");
		head = true;
		rt_out_printf(o, "  flow %u: min ", f->id);
		fmt_ns(o, h->min);
		rt_out_str(o, ", median ");
		fmt_ns(o, an_hist_quantile(h, 0.5));
		rt_out_str(o, ", p99 ");
		fmt_ns(o, an_hist_quantile(h, 0.99));
		rt_out_str(o, ", jitter (std dev) ");
		fmt_ns(o, (uint64_t)(an_hist_stddev(h) + 0.5));
		rt_out_printf(o, "; %llu samples\n", (unsigned long long)h->n);
	}
	free(idx);
}

/* How the notification points answered CE marks. */
static void text_np(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	bool head = false;
	for (uint32_t id = 0; id < an->next_id; id++) {
		const struct an_flow *f = &an->flows[an->order[id]];
		const struct an_flow_ext *e = f->ext;
		if (!e || !f->cnp_received || !f->selected)
			continue;
		if (!head)
			rt_out_str(o, "\nReceiver reaction to CE marks (the NP's delay from the CE mark each CNP answers):\n");
		head = true;
		rt_out_printf(o, "  flow %u: %llu CNPs", f->id, (unsigned long long)f->cnp_received);
		if (e->np_reaction && e->np_reaction->n) {
			rt_out_str(o, ", delay min ");
			fmt_ns(o, e->np_reaction->min);
			rt_out_str(o, ", median ");
			fmt_ns(o, an_hist_quantile(e->np_reaction, 0.5));
			rt_out_str(o, ", max ");
			fmt_ns(o, e->np_reaction->max);
		}
		uint64_t iv;
		if (an_np_interval(e, &iv)) {
			rt_out_str(o, "; at most one CNP per ");
			fmt_ns(o, iv);
		}
		rt_out_printf(o, "; CE marks: %llu answered, %llu held back by the CNP limiter, %llu unanswered",
			      (unsigned long long)(e->np ? e->np->answered : 0),
			      (unsigned long long)(e->np ? e->np->rate_limited : 0),
			      (unsigned long long)an_np_unanswered(e));
		if (e->cnp_without_ce)
			rt_out_printf(o, "; %llu CNPs with no CE mark before them",
				      (unsigned long long)e->cnp_without_ce);
		rt_out_char(o, '\n');
	}
}

/* How the throttled senders reacted, on the wire and (with --source-log) in their own log. */
static void text_rp(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	bool head = false;
	for (uint32_t id = 0; id < an->next_id; id++) {
		const struct an_flow *f = &an->flows[an->order[id]];
		const struct an_flow_ext *e = f->ext;
		if (!e || (!e->rp_cnps && !e->src_cuts) || !f->selected)
			continue;
		if (!head) {
			rt_out_printf(o, "\nSender reaction to CNPs (rate over %u packet gaps before each CNP vs after it,"
					 " each window at most ",
				      AN_RP_GAPS);
			fmt_ns(o, an->o.rate_window_ns);
			rt_out_str(o, "):\n");
			head = true;
		}
		rt_out_printf(o, "  flow %u: ", f->id);
		if (e->rp_cnps && e->rp_measured) {
			rt_out_printf(o, "wire: %llu CNPs, rate down %.0f%% on average (at most %.0f%%) over %llu measured",
				      (unsigned long long)e->rp_cnps, e->rp_drop_sum / (double)e->rp_measured,
				      e->rp_drop_max, (unsigned long long)e->rp_measured);
			if (e->rp_few || e->rp_cnp_in_window)
				rt_out_printf(o, " (%llu not: %llu with too few packets, %llu with another CNP within the window)",
					      (unsigned long long)(e->rp_few + e->rp_cnp_in_window),
					      (unsigned long long)e->rp_few, (unsigned long long)e->rp_cnp_in_window);
			if (e->recover) {
				rt_out_str(o, ", back to 90% in ");
				fmt_ns(o, an_hist_quantile(e->recover, 0.5));
				rt_out_printf(o, " (median of %llu)", (unsigned long long)e->rp_recovered);
			}
		} else if (e->rp_cnps) {
			rt_out_printf(o, "wire: %llu CNPs, rate drop unknown: %s", (unsigned long long)e->rp_cnps,
				      rp_null_reason(e));
		} else {
			rt_out_str(o, "wire: no CNP seen");
		}
		if (e->src_cuts)
			rt_out_printf(o, "; sender's log: %llu cuts, %.0f%% on average (at most %.0f%%)",
				      (unsigned long long)e->src_cuts, e->src_cut_sum / (double)e->src_cuts,
				      e->src_cut_max);
		else if (e->src_seen)
			rt_out_str(o, "; sender's log: no cut");
		rt_out_char(o, '\n');
	}
}

static void text_pfc(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	if (!an->pfc_frames && !an->pause_frames)
		return;
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
		rt_out_printf(o, "  %-13s %llu XOFF, %llu XON, paused ", label, (unsigned long long)an->tot.pfc_xoff[c],
			      (unsigned long long)an->tot.pfc_xon[c]);
		fmt_ns(o, class_paused(an, c));
		rt_out_char(o, '\n');
	}
	for (uint32_t i = 0; i < an->nmacs; i++) {
		bool any = false;
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *cl = &an->macs[i].cls[c];
			if (!cl->xoff && !cl->xon)
				continue;
			if (!any) {
				rt_out_str(o, "  sent by ");
				rt_out_mac(o, an->macs[i].mac);
				rt_out_char(o, ':');
			}
			rt_out_printf(o, "%s %s%s %llu XOFF, %llu XON, paused ", any ? ";" : "",
				      c == RT_AN_PAUSE_CLASS ? "" : "priority ",
				      c == RT_AN_PAUSE_CLASS ? "PAUSE" : class_name(c, nb), (unsigned long long)cl->xoff,
				      (unsigned long long)cl->xon);
			fmt_ns(o, cl->paused_ns);
			any = true;
		}
		if (any)
			rt_out_char(o, '\n');
	}
}

static void text_episodes(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	if (!an->neps)
		return;
	rt_out_printf(o, "\nCongestion episodes (events less than ");
	fmt_ns(o, an->o.episode_gap_ns);
	rt_out_printf(o, " apart): %u\n", an->neps);
	for (uint32_t i = 0; i < an->neps && i < 20; i++) {
		const struct an_episode *ep = &an->eps[i];
		rt_out_str(o, "  ");
		fmt_at(an, o, ep->start);
		rt_out_str(o, " lasting ");
		fmt_ns(o, ep->end - ep->start);
		rt_out_printf(o, ": %llu flows, %llu CE, %llu CNP", (unsigned long long)ep->flows,
			      (unsigned long long)ep->ce, (unsigned long long)ep->cnp);
		if (ep->paused_ns) {
			rt_out_str(o, ", paused ");
			fmt_ns(o, ep->paused_ns);
		}
		double g[3] = {gbps(ep->bytes_before, an->o.episode_gap_ns), gbps(ep->bytes_during, ep->end - ep->start),
			       gbps(ep->bytes_after, an->o.episode_gap_ns)};
		bool known[3] = {ep_before_known(an, ep), isfinite(g[1]), ep_after_known(an, ep)};
		rt_out_str(o, "; throughput");
		for (int k = 0; k < 3; k++) {
			if (known[k])
				rt_out_printf(o, " %.2f", g[k]);
			else
				rt_out_str(o, " ?");
			rt_out_str(o, k < 2 ? " ->" : " Gb/s (before, during, after)\n");
		}
	}
	if (an->neps > 20)
		rt_out_printf(o, "  ... %u more (see --json)\n", an->neps - 20);
}

static void text_anomalies(const struct rt_analyzer *an, struct rt_outbuf *o)
{
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
		fmt_at(an, o, s->start);
		rt_out_char(o, '\n');
	}
#undef ANOMALY
}

static void text_source_log(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	rt_out_printf(o, "\nTraffic source log (%llu lines, %llu bad, %llu events for flows not in the capture):\n",
		      (unsigned long long)an->srclog_lines, (unsigned long long)an->srclog_bad,
		      (unsigned long long)an->srclog_unmatched);
	for (uint32_t id = 0; id < an->next_id; id++) {
		const struct an_flow *f = &an->flows[an->order[id]];
		const struct an_flow_ext *e = f->ext;
		if (!e || !e->src_seen || !f->selected)
			continue;
		rt_out_printf(o, "  flow %u: ", f->id);
		if (e->src_rate_events)
			rt_out_printf(o, "source rate %.0f -> min %.0f -> %.0f Mb/s", e->src_rate_first, e->src_rate_min,
				      e->src_rate_last);
		else
			rt_out_str(o, "source rate not logged");
		double g = rate_gbps(f->bytes, f->first_ts, f->last_ts);
		if (isfinite(g))
			rt_out_printf(o, ", measured %.3f Gb/s", g);
		rt_out_printf(o, "; CNPs handled %llu, seen %llu; resends reported %llu, seen %llu\n",
			      (unsigned long long)(e->src_end_seen ? e->src_cnp_handled : e->src_cnp_events),
			      (unsigned long long)f->cnp_received,
			      (unsigned long long)(e->src_end_seen ? e->src_retrans : e->src_retransmit_count),
			      (unsigned long long)f->retransmitted);
	}
}

int rt_analyzer_report_text(struct rt_analyzer *an, FILE *fp, unsigned top)
{
	struct rt_outbuf *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	rt_out_init(o, fp);
	uint64_t dur = an->last_ts > an->first_ts ? an->last_ts - an->first_ts : 0;
	rt_out_printf(o, "%llu frames, %llu RoCE packets, %llu bytes", (unsigned long long)an->tot.packets,
		      (unsigned long long)an->tot.roce_packets, (unsigned long long)an->tot.bytes);
	if (an->tot.packets) {
		rt_out_str(o, " over ");
		fmt_ns(o, dur);
		rt_out_str(o, " (");
		rt_out_ts(o, an->first_ts);
		rt_out_str(o, " .. ");
		rt_out_ts(o, an->last_ts);
		rt_out_char(o, ')');
	}
	rt_out_char(o, '\n');
	uint32_t paired = 0, nsel = 0;
	for (uint32_t id = 0; id < an->next_id; id++) {
		paired += an->flows[an->order[id]].peer_qp != AN_NONE;
		nsel += an->flows[an->order[id]].selected;
	}
	rt_out_printf(o, "%u flows (one direction of one QP), %u with their peer QP known", an->next_id, paired);
	if (an->o.flow)
		rt_out_printf(o, "; --flow '%s' lists %u of them", an->o.flow, nsel);
	rt_out_char(o, '\n');
	uint64_t ecn_all = an->ecn[0] + an->ecn[1] + an->ecn[2] + an->ecn[3];
	rt_out_printf(o, "ECN: %llu CE-marked", (unsigned long long)an->tot.ce);
	if (ecn_all)
		rt_out_printf(o, " (%.2f%% of RoCE over IP), %.1f%% ECN-capable",
			      100.0 * (double)an->ecn[3] / (double)ecn_all, 100.0 * ect_share(an->ecn));
	rt_out_printf(o, "; CNPs: %llu (%llu not matched to a flow)\n", (unsigned long long)an->tot.cnp,
		      (unsigned long long)an->cnp_unattributed);
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
		      (unsigned long long)an->tot.retransmitted, (unsigned long long)gbn, (unsigned long long)tmo,
		      (unsigned long long)gaps, (unsigned long long)gap_psns);
	struct incast ic;
	if (incast_find(an, &ic)) {
		rt_out_str(o, "Incast: ");
		rt_out_ip(o, ic.any->key.ipver, ic.any->key.dst);
		rt_out_printf(o, " receives from %u senders (%u flows)", ic.senders, ic.flows);
		double g = rate_gbps(ic.bytes, ic.first, ic.last);
		if (isfinite(g))
			rt_out_printf(o, ", %.3f Gb/s together", g);
		rt_out_printf(o, ", %llu CE marks\n", (unsigned long long)ic.ce);
	}
	if (an->tot.icrc_bad || an->malformed)
		rt_out_printf(o, "Damaged: %llu bad ICRC, %llu malformed frames\n", (unsigned long long)an->tot.icrc_bad,
			      (unsigned long long)an->malformed);
	an_report_warnings_text(an, o);
	text_pfc(an, o);
	text_top(an, o, top);
	text_np(an, o);
	text_rp(an, o);
	text_episodes(an, o);
	text_anomalies(an, o);
	if (an->counters_loaded)
		an_report_counters_text(an, o);
	if (an->srclog_loaded)
		text_source_log(an, o);
	int err = rt_out_flush(o);
	free(o);
	return err ? -err : 0;
}

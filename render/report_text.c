/* The text report sink: the human summary (totals, warnings, PFC, top flows, reactions, episodes, anomalies, side files). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/results.h"
#include "common/outbuf.h"
#include "common/textfmt.h"
#include "render/report_text.h"
#include "render/sinks.h"

static uint64_t naks_of(const struct rt_res_flow *f)
{
	return f->xport ? f->xport->naks_received : 0;
}

static uint64_t retx_of(const struct rt_res_flow *f)
{
	return f->xport ? f->xport->retransmitted : 0;
}

/* The flow as --flow takes it ("10.0.0.1>10.0.0.2:0x000011"), and its peer QP. */
static void flow_name(struct rt_outbuf *o, const struct rt_res_flow *f)
{
	char sel[RT_FLOWSEL_TEXT_MAX];
	rt_out_str(o, rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp));
	char qp[RT_QP_TEXT_MAX];
	if (f->peer_qp != RT_AN_NONE)
		rt_out_printf(o, " (peer %s)", rt_fmt_qp(qp, f->peer_qp));
}

static int by_ce(const void *a, const void *b, void *ctx)
{
	const struct rt_res_flow *flows = ctx;
	const struct rt_res_flow *x = &flows[*(const uint32_t *)a];
	const struct rt_res_flow *y = &flows[*(const uint32_t *)b];
	uint64_t kx = x->ecn[3] + x->cnp_received, ky = y->ecn[3] + y->cnp_received;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->id < y->id ? -1 : 1;
}

/* "+12.345 ms (1700000000.012345000)": a time relative to the capture start, then absolute. */
static void fmt_at(const struct rt_results *r, struct rt_outbuf *o, uint64_t ts)
{
	uint64_t rel = ts >= r->start_ns ? ts - r->start_ns : 0;
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

static uint32_t top_flows(const struct rt_results *r, uint32_t **idx)
{
	uint32_t n = 0;
	*idx = malloc((r->nflows ? r->nflows : 1) * sizeof(**idx));
	if (!*idx)
		return 0;
	for (uint32_t id = 0; id < r->nflows; id++)
		if (r->flows[id].selected)
			(*idx)[n++] = id;
	qsort_r(*idx, n, sizeof(**idx), by_ce, (void *)r->flows);
	return n;
}

/* The flow column of the top flows: an IPv4 flow's selector fits; a longer one has a line of its own. */
#define FLOW_COL 28

/* A number, or "-" when it is not finite, in `decimals`. */
static void fmt_real(char *buf, size_t size, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, size, "%.*f", decimals, v);
	else
		snprintf(buf, size, "-");
}

/* One flow of the table (100 columns): id, selector, packets, rate, classes, CE, CNP, NAK, NP. */
static void top_row(struct rt_outbuf *o, const struct rt_res_flow *f)
{
	char name[RT_FLOWSEL_TEXT_MAX], cls[16], rate[RT_RATE_TEXT_MAX], cep[16], np[32] = "-";
	rt_flowsel_format(name, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp);
	if (f->tagged)
		snprintf(cls, sizeof(cls), "%u/%u", f->dscp, f->pcp);
	else
		snprintf(cls, sizeof(cls), "%u/-", f->dscp);
	rt_fmt_rate(rate, sizeof(rate), f->gbps * 1e9);
	fmt_real(cep, sizeof(cep), 100.0 * f->ce_fraction, f->ce_fraction < 0.9995 ? 1 : 0);
	if (f->np && f->np->reaction.samples)
		rt_fmt_duration(np, sizeof(np), f->np->reaction.median);
	if (strlen(name) > FLOW_COL) { /* the selector whole, to copy; the figures below it */
		rt_out_printf(o, "  %-3u %s\n", f->id, name);
		name[0] = '\0';
		rt_out_printf(o, "  %-3s %-*s", "", FLOW_COL, "");
	} else {
		rt_out_printf(o, "  %-3u %-*s", f->id, FLOW_COL, name);
	}
	rt_out_printf(o, " %8llu %9s %8s %6llu %5s %5llu %4llu %4llu %8s\n",
	              (unsigned long long)f->packets, rate, cls, (unsigned long long)f->ecn[3], cep,
	              (unsigned long long)f->cnp_received, (unsigned long long)naks_of(f),
	              (unsigned long long)retx_of(f), np);
}

/* The top flows: traffic, marking classes, ECN, CNPs, transport, NP reaction; then their round trips. */
static void text_top(const struct rt_results *r, struct rt_outbuf *o, unsigned top)
{
	uint32_t *idx = NULL, n = top ? top_flows(r, &idx) : 0;
	if (!n) {
		free(idx);
		return;
	}
	uint32_t shown = n < top ? n : top;
	rt_out_printf(o, "\nTop flows by CE marks + CNPs (%u of %u):\n", shown, n);
	rt_out_printf(o, "  %-3s %-*s %8s %9s %8s %6s %5s %5s %4s %4s %8s\n", "id", FLOW_COL,
	              "flow", "packets", "rate", "DSCP/PCP", "CE", "CE%", "CNP", "NAK", "retx",
	              "NP react");
	for (uint32_t i = 0; i < shown; i++)
		top_row(o, &r->flows[idx[i]]);
	bool head = false;
	for (uint32_t i = 0; i < shown; i++) {
		const struct rt_res_flow *f = &r->flows[idx[i]];
		const struct rt_res_quantiles *h = f->xport ? &f->xport->rtt : NULL;
		if (!h || !h->samples)
			continue;
		if (!head)
			rt_out_str(
			    o, "\nRound trips of these flows (request with AckReq -> its ACK):\n");
		head = true;
		rt_out_printf(o, "  flow %u: min ", f->id);
		an_text_ns(o, h->min);
		rt_out_str(o, ", median ");
		an_text_ns(o, h->median);
		rt_out_str(o, ", p99 ");
		an_text_ns(o, h->p99);
		rt_out_str(o, ", jitter (std dev) ");
		an_text_ns(o, h->stddev);
		rt_out_printf(o, "; %llu samples\n", (unsigned long long)h->samples);
	}
	free(idx);
}

/* How the notification points answered CE marks. */
static void text_np(const struct rt_results *r, struct rt_outbuf *o)
{
	bool head = false;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		const struct rt_res_np *np = f->np;
		if (!np || !f->cnp_received || !f->selected)
			continue;
		if (!head)
			rt_out_str(o, "\nReceiver reaction to CE marks (the NP's delay from the CE "
			              "mark each CNP answers):\n");
		head = true;
		rt_out_printf(o, "  flow %u: %llu CNPs", f->id,
		              (unsigned long long)f->cnp_received);
		if (np->reaction.samples) {
			rt_out_str(o, ", delay min ");
			an_text_ns(o, np->reaction.min);
			rt_out_str(o, ", median ");
			an_text_ns(o, np->reaction.median);
			rt_out_str(o, ", max ");
			an_text_ns(o, np->reaction.max);
		}
		if (np->interval_known) {
			rt_out_str(o, "; at most one CNP per ");
			an_text_ns(o, np->interval_ns);
		}
		rt_out_printf(o, "; CE marks: %llu answered, %llu held back by the CNP limiter",
		              (unsigned long long)np->answered,
		              (unsigned long long)np->rate_limited);
		if (np->held_or_unanswered)
			rt_out_printf(o,
			              ", %llu held back or unanswered: cannot tell (the limiter's "
			              "interval was not learned from %llu CNPs)",
			              (unsigned long long)np->held_or_unanswered,
			              (unsigned long long)f->cnp_received);
		rt_out_printf(o, ", %llu unanswered", (unsigned long long)np->unanswered);
		if (np->cnp_without_ce)
			rt_out_printf(o, "; %llu CNPs with no CE mark before them",
			              (unsigned long long)np->cnp_without_ce);
		rt_out_char(o, '\n');
	}
}

static void text_pfc(const struct rt_results *r, struct rt_outbuf *o)
{
	if (!r->pfc_frames && !r->pause_frames)
		return;
	char speed[RT_RATE_TEXT_MAX];
	rt_out_printf(o, "PFC: %llu frames, PAUSE: %llu frames (link speed %s)\n",
	              (unsigned long long)r->pfc_frames, (unsigned long long)r->pause_frames,
	              rt_fmt_rate(speed, sizeof(speed), (double)r->link_speed_bps));
	char nb[2];
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		const struct rt_res_pfc_class *p = &r->pfc[c];
		if (!p->xoff && !p->xon)
			continue;
		char label[16];
		if (c == RT_AN_PAUSE_CLASS)
			snprintf(label, sizeof(label), "802.3x PAUSE");
		else
			snprintf(label, sizeof(label), "priority %s", rt_res_class_name(c, nb));
		rt_out_printf(o, "  %-13s %llu XOFF, %llu XON, paused ", label,
		              (unsigned long long)p->xoff, (unsigned long long)p->xon);
		an_text_ns(o, p->paused_ns);
		rt_out_char(o, '\n');
	}
	/* per sending MAC: its classes on one line */
	for (uint32_t i = 0; i < r->npfc_sources; i++) {
		const struct rt_res_pfc_source *s = &r->pfc_sources[i];
		bool first = i == 0 || memcmp(s->mac, r->pfc_sources[i - 1].mac, 6) != 0;
		if (first) {
			rt_out_str(o, "  sent by ");
			rt_out_mac(o, s->mac);
			rt_out_char(o, ':');
		}
		rt_out_printf(o, "%s %s%s %llu XOFF, %llu XON, paused ", first ? "" : ";",
		              s->cls == RT_AN_PAUSE_CLASS ? "" : "priority ",
		              s->cls == RT_AN_PAUSE_CLASS ? "PAUSE" : rt_res_class_name(s->cls, nb),
		              (unsigned long long)s->xoff, (unsigned long long)s->xon);
		an_text_ns(o, s->paused_ns);
		if (i + 1 == r->npfc_sources || memcmp(s->mac, r->pfc_sources[i + 1].mac, 6) != 0)
			rt_out_char(o, '\n');
	}
}

static void text_episodes(const struct rt_results *r, struct rt_outbuf *o)
{
	if (!r->nepisodes)
		return;
	rt_out_printf(o, "\nCongestion episodes (events less than ");
	an_text_ns(o, r->episode_gap_ns);
	rt_out_printf(o, " apart): %u\n", r->nepisodes);
	for (uint32_t i = 0; i < r->nepisodes && i < 20; i++) {
		const struct rt_res_episode *ep = &r->episodes[i];
		rt_out_str(o, "  ");
		fmt_at(r, o, ep->start_ns);
		rt_out_str(o, " lasting ");
		an_text_ns(o, ep->end_ns - ep->start_ns);
		rt_out_printf(o, ": %llu flows, %llu CE, %llu CNP",
		              (unsigned long long)ep->flow_count, (unsigned long long)ep->ce,
		              (unsigned long long)ep->cnp);
		if (ep->paused_ns) {
			rt_out_str(o, ", paused ");
			an_text_ns(o, ep->paused_ns);
		}
		double g[3] = {ep->gbps_before, ep->gbps_during, ep->gbps_after}, top = 0;
		for (int k = 0; k < 3; k++)
			if (isfinite(g[k]) && g[k] > top)
				top = g[k];
		if (!isfinite(g[0]) && !isfinite(g[1]) && !isfinite(g[2])) {
			/* a merge of analyses: no part saw every frame around the episode */
			rt_out_str(o, "; throughput not known\n");
			continue;
		}
		struct rt_rate_unit u = rt_rate_unit_for(top * 1e9); /* one unit for the three */
		rt_out_str(o, "; throughput");
		for (int k = 0; k < 3; k++) {
			char num[RT_RATE_TEXT_MAX];
			if (isfinite(g[k]))
				rt_out_printf(o, " %s",
				              rt_fmt_rate_in(num, sizeof(num), g[k] * 1e9, u));
			else
				rt_out_str(o, " ?");
			if (k < 2)
				rt_out_str(o, " ->");
			else
				rt_out_printf(o, " %s (before, during, after)\n", u.name);
		}
	}
	if (r->nepisodes > 20)
		rt_out_printf(o, "  ... %u more (see --json)\n", r->nepisodes - 20);
}

static void text_anomalies(const struct rt_results *r, struct rt_outbuf *o)
{
	bool head = false;
	uint64_t capture_dropped = r->if_dropped + r->os_dropped;
#define ANOMALY()                                                                                  \
	do {                                                                                       \
		if (!head)                                                                         \
			rt_out_str(o, "\nAnomalies:\n");                                           \
		head = true;                                                                       \
	} while (0)
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		const struct rt_res_transport *x = f->xport;
		if (!x ||
		    !(x->naks_received || x->rnr_naks_received || x->gaps || x->timeouts ||
		      x->psn_jumps) ||
		    !f->selected)
			continue;
		ANOMALY();
		rt_out_printf(o, "  flow %u ", f->id);
		flow_name(o, f);
		rt_out_char(o, ':');
		if (x->naks_received)
			rt_out_printf(o, " %llu NAK", (unsigned long long)x->naks_received);
		if (x->rnr_naks_received)
			rt_out_printf(o, " %llu RNR NAK", (unsigned long long)x->rnr_naks_received);
		if (x->go_back_n && x->go_back_n_delay.samples) {
			rt_out_printf(o, " %llu go-back-N (resend after ",
			              (unsigned long long)x->go_back_n);
			an_text_ns(o, x->go_back_n_delay.median);
			rt_out_str(o, " median)");
		}
		if (x->timeouts)
			rt_out_printf(o, " %llu implied timeouts", (unsigned long long)x->timeouts);
		if (x->gaps && capture_dropped)
			rt_out_printf(o,
			              " %llu PSN gaps (%llu PSNs lost before the capture point or "
			              "dropped by the capture, "
			              "which dropped %llu frames)",
			              (unsigned long long)x->gaps, (unsigned long long)x->gap_psns,
			              (unsigned long long)capture_dropped);
		else if (x->gaps)
			rt_out_printf(o, " %llu PSN gaps (%llu lost before the capture point)",
			              (unsigned long long)x->gaps, (unsigned long long)x->gap_psns);
		if (x->psn_jumps)
			rt_out_printf(o, " %llu PSN jumps", (unsigned long long)x->psn_jumps);
		rt_out_char(o, '\n');
	}
	for (uint32_t i = 0; i < r->nstorms; i++) {
		const struct rt_res_storm *s = &r->storms[i];
		char nb[2];
		ANOMALY();
		rt_out_str(o, "  storm: ");
		rt_out_mac(o, s->mac);
		rt_out_printf(o, " kept %s%s paused for ",
		              s->cls == RT_AN_PAUSE_CLASS ? "" : "priority ",
		              rt_res_class_name(s->cls, nb));
		an_text_ns(o, s->end_ns - s->start_ns);
		rt_out_str(o, " from ");
		fmt_at(r, o, s->start_ns);
		rt_out_char(o, '\n');
	}
#undef ANOMALY
}

static void text_source_log(const struct rt_results *r, struct rt_outbuf *o)
{
	rt_out_printf(o,
	              "\nTraffic source log (%llu lines, %llu bad, %llu events for flows not in "
	              "the capture):\n",
	              (unsigned long long)r->source_log_lines,
	              (unsigned long long)r->source_log_bad_lines,
	              (unsigned long long)r->source_log_unmatched);
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		const struct rt_res_source *e = f->source;
		if (!e || !f->selected)
			continue;
		rt_out_printf(o, "  flow %u: ", f->id);
		char a[RT_RATE_TEXT_MAX], b[RT_RATE_TEXT_MAX], c[RT_RATE_TEXT_MAX];
		if (e->rates) {
			double most =
			    fmax(e->rate_mbps_first, fmax(e->rate_mbps_min, e->rate_mbps_last));
			struct rt_rate_unit u =
			    rt_rate_unit_for(most * 1e6); /* one unit for the three */
			rt_out_printf(o, "source rate %s -> min %s -> %s %s",
			              rt_fmt_rate_in(a, sizeof(a), e->rate_mbps_first * 1e6, u),
			              rt_fmt_rate_in(b, sizeof(b), e->rate_mbps_min * 1e6, u),
			              rt_fmt_rate_in(c, sizeof(c), e->rate_mbps_last * 1e6, u),
			              u.name);
		} else {
			rt_out_str(o, "source rate not logged");
		}
		if (isfinite(f->gbps))
			rt_out_printf(o, ", measured %s", rt_fmt_rate(a, sizeof(a), f->gbps * 1e9));
		rt_out_printf(
		    o, "; CNPs handled %llu, seen %llu; resends reported %llu, seen %llu\n",
		    (unsigned long long)e->cnp_handled, (unsigned long long)f->cnp_received,
		    (unsigned long long)e->retransmitted_reported, (unsigned long long)retx_of(f));
	}
}

static void text_counters(const struct rt_results *r, struct rt_outbuf *o)
{
	rt_out_printf(o, "\nNIC counters (%zu devices, %llu lines, %llu bad):\n", r->ncounter_devs,
	              (unsigned long long)r->counter_lines,
	              (unsigned long long)r->counter_bad_lines);
	const struct rt_res_counter_sum *sent = &r->np_cnp_sent, *handled = &r->rp_cnp_handled;
	if (sent->found || handled->found) {
		rt_out_str(o, "  CNPs:");
		if (sent->known)
			rt_out_printf(o, " %.0f sent by NPs,", sent->value);
		if (handled->known)
			rt_out_printf(o, " %.0f handled by RPs,", handled->value);
		rt_out_printf(o, " %llu seen on the wire\n", (unsigned long long)r->c.cnp);
	}
	for (unsigned p = 0; p < 8; p++) {
		const struct rt_res_counter_sum *rx = &r->counter_pause[p][0],
		                                *tx = &r->counter_pause[p][1];
		if ((rx->found || tx->found) && (rx->value > 0 || tx->value > 0)) {
			rt_out_printf(o, "  priority %u:", p);
			if (rx->known)
				rt_out_printf(o, " %.0f pause frames received", rx->value);
			if (tx->known)
				rt_out_printf(o, "%s %.0f sent", rx->known ? "," : "", tx->value);
			rt_out_printf(o, "%s\n", r->pfc_frames ? "" : " (none in the capture)");
		}
	}
}

/* The "Verdict:" block (analyze/README.md, "Verdict"): its sentences, as the JSON and the page say them. */
static void text_verdict(const struct rt_results *r, struct rt_outbuf *o)
{
	rt_out_str(o, "\nVerdict:\n");
	for (unsigned p = 0; p < RT_VERDICT_PARTS; p++)
		if (r->verdict.part[p][0]) {
			rt_out_str(o, "  ");
			rt_out_str(o, r->verdict.part[p]);
			rt_out_char(o, '\n');
		}
}

/* The "Warnings:" block (nothing when there is none). */
static void text_warnings(const struct rt_results *r, struct rt_outbuf *o)
{
	if (!r->nwarnings)
		return;
	rt_out_str(o, "\nWarnings:\n");
	for (unsigned i = 0; i < r->nwarnings; i++) {
		rt_out_str(o, "  - ");
		rt_out_str(o, r->warnings[i].message);
		rt_out_char(o, '\n');
	}
}

/* A signed time difference, as an_text_ns writes magnitudes ("-1.5 us"). */
static void fmt_sns(struct rt_outbuf *o, int64_t ns)
{
	if (ns < 0)
		rt_out_char(o, '-');
	an_text_ns(o, ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns);
}

/* The vantage points and what happened between them, in words (analyze/README.md, "Vantage points"). */
static void text_vantage(const struct rt_results *r, struct rt_outbuf *o)
{
	if (r->nvantage < 2)
		return;
	rt_out_str(o, "Vantage points:");
	for (unsigned i = 0; i < r->nvantage; i++) {
		const struct rt_an_vantage *v = &r->vantage[i];
		rt_out_printf(o, "%s %s (%u file%s, %llu frames)", i ? "," : "", v->name, v->nfiles,
		              v->nfiles == 1 ? "" : "s", (unsigned long long)v->frames);
	}
	rt_out_char(o, '\n');
	for (unsigned i = 0; i < r->npaths; i++) {
		const struct rt_res_path *p = &r->paths[i];
		rt_out_printf(o, "  %s -> %s", p->from, p->to);
		if (p->sample_m > 1)
			rt_out_printf(o, " (of the packets sampled, %u in %u)", p->sample_k,
			              p->sample_m);
		rt_out_printf(o, ": %llu packets seen at both", (unsigned long long)p->matched);
		if (!p->matched) {
			if (p->offset_null_reason)
				rt_out_printf(o, "; %s", p->offset_null_reason);
			rt_out_str(o, "\n");
			continue;
		}
		if (p->ce_marked)
			rt_out_printf(
			    o,
			    "; a hop between them marks: %llu packets became CE between %s and %s",
			    (unsigned long long)p->ce_marked, p->from, p->to);
		else
			rt_out_str(o, "; none became CE between them");
		if (p->lost)
			rt_out_printf(o, "; %llu lost between them (of %llu judged",
			              (unsigned long long)p->lost, (unsigned long long)p->judged);
		if (p->lost && r->if_dropped + r->os_dropped)
			rt_out_printf(
			    o,
			    "; the captures dropped %llu frames: some may be those, missing at "
			    "%s, not lost in the network",
			    (unsigned long long)(r->if_dropped + r->os_dropped), p->to);
		if (p->lost)
			rt_out_char(o, ')');
		else if (p->judged)
			rt_out_printf(o, "; none lost between them (%llu judged)",
			              (unsigned long long)p->judged);
		if (p->not_judged)
			rt_out_printf(
			    o,
			    "; %llu seen at %s only not judged (%s was not capturing when "
			    "they would have passed it)",
			    (unsigned long long)p->not_judged, p->from, p->to);
		if (p->offset_known) {
			rt_out_printf(o, "; %s's clock ", p->to);
			if (p->offset_ns == 0)
				rt_out_printf(o, "agrees with %s's", p->from);
			else {
				fmt_sns(o, p->offset_ns < 0 ? -p->offset_ns : p->offset_ns);
				rt_out_printf(o, " %s %s's",
				              p->offset_ns > 0 ? "ahead of" : "behind", p->from);
			}
		} else {
			rt_out_str(o, "; clock offset unknown (packets were matched one way only)");
		}
		rt_out_str(o, p->delay_includes_offset
		                  ? "; time from one to the other, offset included: min "
		                  : "; one-way delay (queueing between them): min ");
		fmt_sns(o, p->delay_min);
		rt_out_str(o, ", median ");
		fmt_sns(o, p->delay_median);
		rt_out_str(o, ", p99 ");
		fmt_sns(o, p->delay_p99);
		rt_out_char(o, '\n');
	}
}

/* The hot receiver, named only with evidence of congestion there; a fan-in without it, said so. */
static void text_incast(const struct rt_results *r, struct rt_outbuf *o)
{
	static const char *const words[RT_INCAST_EVIDENCE_KINDS] = {"CE marks", "pauses", "losses",
	                                                            "a full link"};
	if (!r->fan_in)
		return;
	rt_out_str(o, r->incast ? "Incast: " : "Fan-in: ");
	rt_out_ip(o, r->incast_ipver, r->incast_receiver);
	rt_out_printf(o, " receives from %u senders (%u flows)", r->incast_senders,
	              r->incast_flows);
	char rate[RT_RATE_TEXT_MAX];
	if (isfinite(r->incast_gbps))
		rt_out_printf(o, ", %s together",
		              rt_fmt_rate(rate, sizeof(rate), r->incast_gbps * 1e9));
	if (!r->incast) {
		rt_out_str(o, "; no sign of congestion there (no CE mark, pause, loss, nor a full "
		              "link): not an incast\n");
		return;
	}
	rt_out_printf(o, ", %llu CE marks; congestion shown by", (unsigned long long)r->incast_ce);
	for (unsigned k = 0, n = 0; k < RT_INCAST_EVIDENCE_KINDS; k++)
		if (r->incast_evidence & (1u << k))
			rt_out_printf(o, "%s %s", n++ ? "," : "", words[k]);
	rt_out_char(o, '\n');
}

static void report(const struct rt_results *r, struct rt_outbuf *o, unsigned top)
{
	uint64_t dur = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
	an_text_findings(r, o);
	rt_out_printf(o, "%llu frames, %llu RoCE packets, %llu bytes",
	              (unsigned long long)r->c.packets, (unsigned long long)r->c.roce_packets,
	              (unsigned long long)r->c.bytes);
	if (r->any_frame) {
		rt_out_str(o, " over ");
		an_text_ns(o, dur);
		rt_out_str(o, " (");
		rt_out_ts(o, r->start_ns);
		rt_out_str(o, " .. ");
		rt_out_ts(o, r->end_ns);
		rt_out_char(o, ')');
	}
	rt_out_char(o, '\n');
	if (r->input_error)
		rt_out_printf(o, "Reading stopped early: %s; this covers the frames before it\n",
		              r->input_error);
	rt_out_printf(o, "%u flows (one direction of one QP), %u with their peer QP known",
	              r->nflows, r->npaired);
	if (r->flow_selector)
		rt_out_printf(o, "; %s lists %u of them", r->flow_selector, r->nselected);
	rt_out_char(o, '\n');
	uint64_t ecn_all = r->ecn[0] + r->ecn[1] + r->ecn[2] + r->ecn[3];
	rt_out_printf(o, "ECN: %llu CE-marked", (unsigned long long)r->c.ce);
	if (ecn_all)
		rt_out_printf(o, " (%.2f%% of RoCE over IP), %.1f%% ECN-capable",
		              100.0 * (double)r->ecn[3] / (double)ecn_all,
		              100.0 * (double)(r->ecn[1] + r->ecn[2] + r->ecn[3]) /
		                  (double)ecn_all);
	rt_out_printf(o, "; CNPs: %llu (%llu not matched to a flow)\n",
	              (unsigned long long)r->c.cnp, (unsigned long long)r->cnp_unattributed);
	if (r->ecn_off)
		rt_out_printf(
		    o,
		    "ECN is off: %llu of %llu RoCE packets (CNPs aside) are Not-ECT, so no CE mark "
		    "can show congestion; look at the pauses and losses below\n",
		    (unsigned long long)r->ecn_not_ect, (unsigned long long)r->ecn_data_packets);
	rt_out_printf(
	    o,
	    "Transport: %llu NAKs, %llu RNR NAKs, %llu retransmitted packets "
	    "(%llu go-back-N, %llu implied timeouts), %llu PSN gaps (%llu PSNs missing)\n",
	    (unsigned long long)r->c.nak, (unsigned long long)r->c.rnr_nak,
	    (unsigned long long)r->c.retransmitted, (unsigned long long)r->go_back_n,
	    (unsigned long long)r->timeouts, (unsigned long long)r->gaps,
	    (unsigned long long)r->gap_psns);
	text_incast(r, o);
	if (r->icrc_unchecked)
		rt_out_printf(o,
		              "Capture: the snap length cut %llu RoCE frames after their headers "
		              "(ICRC unchecked: %llu)\n",
		              (unsigned long long)r->icrc_unchecked,
		              (unsigned long long)r->icrc_unchecked);
	if (r->c.icrc_bad || r->malformed)
		rt_out_printf(o, "Damaged: %llu bad ICRC, %llu malformed frames\n",
		              (unsigned long long)r->c.icrc_bad, (unsigned long long)r->malformed);
	text_verdict(r, o);
	text_warnings(r, o);
	text_vantage(r, o);
	text_pfc(r, o);
	text_top(r, o, top);
	text_np(r, o);
	an_text_rp(r, o);
	text_episodes(r, o);
	text_anomalies(r, o);
	if (r->counters_loaded)
		text_counters(r, o);
	if (r->source_log_loaded)
		text_source_log(r, o);
}

struct text_sink {
	FILE *fp;
	unsigned top;
};

/* The report is written in memory, then to the output with its long lines wrapped at 100 columns. */
static int text_report(void *ctx, const struct rt_results *r, char *errbuf)
{
	struct text_sink *s = ctx;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct rt_outbuf *o = mem ? malloc(sizeof(*o)) : NULL;
	if (!o) {
		if (mem)
			fclose(mem);
		free(text);
		return rt_errorf(errbuf, ENOMEM, "writing the report");
	}
	rt_out_init(o, mem);
	report(r, o, s->top);
	int err = rt_out_flush(o);
	free(o);
	if (fclose(mem) != 0 && !err)
		err = ENOMEM;
	if (!err)
		err = rt_text_wrap(s->fp, text, len, RT_TEXT_WIDTH, 4, 0);
	if (!err && fflush(s->fp) != 0)
		err = errno ? errno : EIO;
	free(text);
	return err ? rt_errorf(errbuf, err, "writing the report") : 0;
}

static void text_free(void *ctx)
{
	free(ctx);
}

int rt_an_report_text_sink(FILE *fp, unsigned top, struct rt_an_sink *out, char *errbuf)
{
	struct text_sink *s = malloc(sizeof(*s));
	if (!s)
		return rt_errorf(errbuf, ENOMEM, "report");
	s->fp = fp;
	s->top = top;
	*out = (struct rt_an_sink){.report = text_report, .free = text_free, .ctx = s};
	return 0;
}

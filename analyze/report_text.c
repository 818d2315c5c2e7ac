/* The text report sink: the human summary (totals, warnings, PFC, top flows, reactions, episodes, anomalies, side files). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "analyze/figures.h"
#include "analyze/incast.h"
#include "analyze/internal.h"
#include "analyze/reaction.h"
#include "analyze/sinks.h"
#include "analyze/warnings.h"
#include "common/outbuf.h"

/* --flow lists it */
static bool listed(const struct an_flow *f)
{
	return (f->flags & AN_FLOW_SELECTED) != 0;
}

static uint64_t naks_of(const struct an_flow *f)
{
	return f->x ? f->x->naks_received : 0;
}

static uint64_t retx_of(const struct an_flow *f)
{
	return f->x ? f->x->retransmitted : 0;
}

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
	*idx = malloc((an->ft.next_id ? an->ft.next_id : 1) * sizeof(**idx));
	if (!*idx)
		return 0;
	for (uint32_t i = 0; i < an->ft.next_id; i++)
		if (listed(&an->ft.flows[an->ft.order[i]]))
			(*idx)[n++] = an->ft.order[i];
	qsort_r(*idx, n, sizeof(**idx), by_ce, an->ft.flows);
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
	rt_out_str(o, "  id  flow                                          packets       bytes     "
	              "Gb/s DSCP PCP  ECT%"
	              "     CE    CE%   CNP   NAK  retx  NP reaction\n");
	for (uint32_t i = 0; i < shown; i++) {
		const struct an_flow *f = &an->ft.flows[idx[i]];
		char name[RT_FLOWSEL_TEXT_MAX], pcp[8];
		rt_flowsel_format(name, f->key.ipver, f->key.src, f->key.dst, f->key.dest_qp);
		snprintf(pcp, sizeof(pcp), (f->flags & AN_FLOW_TAGGED) ? "%u" : "-", f->pcp);
		rt_out_printf(o, "  %-3u %-44s %9llu %11llu ", f->id, name,
		              (unsigned long long)f->packets, (unsigned long long)f->bytes);
		double g = an_rate_gbps(f->bytes, f->first_ts, f->last_ts),
		       ect = an_ect_share(f->ecn), ce = an_ce_share(f->ecn);
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
		              (unsigned long long)naks_of(f), (unsigned long long)retx_of(f));
		if (f->np && f->np->reaction)
			fmt_ns(o, an_hist_quantile(f->np->reaction, 0.5));
		else
			rt_out_str(o, "-");
		rt_out_char(o, '\n');
	}
	bool head = false;
	for (uint32_t i = 0; i < shown; i++) {
		const struct an_flow *f = &an->ft.flows[idx[i]];
		const struct an_hist *h = f->x ? f->x->rtt : NULL;
		if (!h || !h->n)
			continue;
		if (!head)
			rt_out_str(
			    o, "\nRound trips of these flows (request with AckReq -> its ACK):\n");
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
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		const struct an_np *np = f->np;
		if (!np || !f->cnp_received || !listed(f))
			continue;
		if (!head)
			rt_out_str(o, "\nReceiver reaction to CE marks (the NP's delay from the CE "
			              "mark each CNP answers):\n");
		head = true;
		rt_out_printf(o, "  flow %u: %llu CNPs", f->id,
		              (unsigned long long)f->cnp_received);
		if (np->reaction && np->reaction->n) {
			rt_out_str(o, ", delay min ");
			fmt_ns(o, np->reaction->min);
			rt_out_str(o, ", median ");
			fmt_ns(o, an_hist_quantile(np->reaction, 0.5));
			rt_out_str(o, ", max ");
			fmt_ns(o, np->reaction->max);
		}
		uint64_t iv;
		if (an_np_interval(np, &iv)) {
			rt_out_str(o, "; at most one CNP per ");
			fmt_ns(o, iv);
		}
		rt_out_printf(o, "; CE marks: %llu answered, %llu held back by the CNP limiter",
		              (unsigned long long)np->answered,
		              (unsigned long long)np->rate_limited);
		if (np->unsure)
			rt_out_printf(o,
			              ", %llu held back or unanswered: cannot tell (the limiter's "
			              "interval was not learned from %llu CNPs)",
			              (unsigned long long)np->unsure,
			              (unsigned long long)f->cnp_received);
		rt_out_printf(o, ", %llu unanswered", (unsigned long long)an_np_unanswered(np));
		if (np->cnp_without_ce)
			rt_out_printf(o, "; %llu CNPs with no CE mark before them",
			              (unsigned long long)np->cnp_without_ce);
		rt_out_char(o, '\n');
	}
}

/* How the throttled senders reacted, on the wire and (with --source-log) in their own log. */
static void text_rp(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	bool head = false;
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		const struct an_rp *rp = f->rp;
		const struct an_src *src = f->src;
		uint64_t cnps = rp ? rp->cnps : 0, cuts = src ? src->cuts : 0;
		if ((!cnps && !cuts) || !listed(f))
			continue;
		if (!head) {
			rt_out_printf(o,
			              "\nSender reaction to CNPs (rate over %u packet gaps before "
			              "each CNP vs after it,"
			              " each window at most ",
			              AN_RP_GAPS);
			fmt_ns(o, an->o.rate_window_ns);
			rt_out_str(o, "):\n");
			head = true;
		}
		rt_out_printf(o, "  flow %u: ", f->id);
		char words[1024];
		if (cnps)
			rt_out_printf(o, "capture point: %s.\n    wire: %s",
			              an_rp_side_how(an_rp_side(&an->rpx, f)),
			              an_rp_words(f, an->o.rate_window_ns, words, sizeof(words)));
		else
			rt_out_str(o, "wire: no CNP seen");
		if (cuts)
			rt_out_printf(
			    o, "; sender's log: %llu cuts, %.0f%% on average (at most %.0f%%)",
			    (unsigned long long)cuts, src->cut_sum / (double)cuts, src->cut_max);
		else if (src)
			rt_out_str(o, "; sender's log: no cut");
		rt_out_char(o, '\n');
	}
}

static void text_pfc(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	const struct an_pfc *p = &an->pfc;
	if (!p->pfc_frames && !p->pause_frames)
		return;
	rt_out_printf(o, "PFC: %llu frames, PAUSE: %llu frames (link speed %.0f Gb/s)\n",
	              (unsigned long long)p->pfc_frames, (unsigned long long)p->pause_frames,
	              (double)an->o.link_speed_bps / 1e9);
	char nb[2];
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		if (!p->xoff[c] && !p->xon[c])
			continue;
		char label[16];
		if (c == RT_AN_PAUSE_CLASS)
			snprintf(label, sizeof(label), "802.3x PAUSE");
		else
			snprintf(label, sizeof(label), "priority %s", an_class_name(c, nb));
		rt_out_printf(o, "  %-13s %llu XOFF, %llu XON, paused ", label,
		              (unsigned long long)p->xoff[c], (unsigned long long)p->xon[c]);
		fmt_ns(o, p->paused_ns[c]);
		rt_out_char(o, '\n');
	}
	for (uint32_t i = 0; i < p->nmacs; i++) {
		bool any = false;
		for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
			const struct an_pfc_class *cl = &p->macs[i].cls[c];
			if (!cl->xoff && !cl->xon)
				continue;
			if (!any) {
				rt_out_str(o, "  sent by ");
				rt_out_mac(o, p->macs[i].mac);
				rt_out_char(o, ':');
			}
			rt_out_printf(o, "%s %s%s %llu XOFF, %llu XON, paused ", any ? ";" : "",
			              c == RT_AN_PAUSE_CLASS ? "" : "priority ",
			              c == RT_AN_PAUSE_CLASS ? "PAUSE" : an_class_name(c, nb),
			              (unsigned long long)cl->xoff, (unsigned long long)cl->xon);
			fmt_ns(o, cl->paused_ns);
			any = true;
		}
		if (any)
			rt_out_char(o, '\n');
	}
}

static void text_episodes(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	const struct an_episodes *eps = &an->ep;
	if (!eps->n)
		return;
	rt_out_printf(o, "\nCongestion episodes (events less than ");
	fmt_ns(o, an->o.episode_gap_ns);
	rt_out_printf(o, " apart): %u\n", eps->n);
	for (uint32_t i = 0; i < eps->n && i < 20; i++) {
		const struct an_episode *ep = &eps->list[i];
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
		double g[3] = {an_gbps(ep->bytes_before, an->o.episode_gap_ns),
		               an_gbps(ep->bytes_during, ep->end - ep->start),
		               an_gbps(ep->bytes_after, an->o.episode_gap_ns)};
		bool known[3] = {ep->start - an->first_ts >= an->o.episode_gap_ns, isfinite(g[1]),
		                 an->last_ts >= ep->end &&
		                     an->last_ts - ep->end >= an->o.episode_gap_ns};
		rt_out_str(o, "; throughput");
		for (int k = 0; k < 3; k++) {
			if (known[k])
				rt_out_printf(o, " %.2f", g[k]);
			else
				rt_out_str(o, " ?");
			rt_out_str(o, k < 2 ? " ->" : " Gb/s (before, during, after)\n");
		}
	}
	if (eps->n > 20)
		rt_out_printf(o, "  ... %u more (see --json)\n", eps->n - 20);
}

static void text_anomalies(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	bool head = false, drops_known;
	uint64_t capture_dropped = an_capture_dropped(an, &drops_known);
#define ANOMALY()                                                                                  \
	do {                                                                                       \
		if (!head)                                                                         \
			rt_out_str(o, "\nAnomalies:\n");                                           \
		head = true;                                                                       \
	} while (0)
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		const struct an_xport *x = f->x;
		if (!x ||
		    !(x->naks_received || x->rnr_naks_received || x->gaps || x->timeouts ||
		      x->psn_jumps) ||
		    !listed(f))
			continue;
		ANOMALY();
		rt_out_printf(o, "  flow %u ", f->id);
		flow_name(o, f);
		rt_out_char(o, ':');
		if (x->naks_received)
			rt_out_printf(o, " %llu NAK", (unsigned long long)x->naks_received);
		if (x->rnr_naks_received)
			rt_out_printf(o, " %llu RNR NAK", (unsigned long long)x->rnr_naks_received);
		if (x->go_back_n && x->gbn_delay) {
			rt_out_printf(o, " %llu go-back-N (resend after ",
			              (unsigned long long)x->go_back_n);
			fmt_ns(o, an_hist_quantile(x->gbn_delay, 0.5));
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
	for (uint32_t i = 0; i < an->pfc.nstorms; i++) {
		const struct an_storm *s = &an->pfc.storms[i];
		char nb[2];
		ANOMALY();
		rt_out_str(o, "  storm: ");
		rt_out_mac(o, s->mac);
		rt_out_printf(o, " kept %s%s paused for ",
		              s->cls == RT_AN_PAUSE_CLASS ? "" : "priority ",
		              an_class_name(s->cls, nb));
		fmt_ns(o, s->end - s->start);
		rt_out_str(o, " from ");
		fmt_at(an, o, s->start);
		rt_out_char(o, '\n');
	}
#undef ANOMALY
}

static void text_source_log(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	const struct an_side *sd = &an->side;
	bool matched;
	rt_out_printf(o,
	              "\nTraffic source log (%llu lines, %llu bad, %llu events for flows not in "
	              "the capture):\n",
	              (unsigned long long)sd->srclog_lines, (unsigned long long)sd->srclog_bad,
	              (unsigned long long)an_side_srclog_unmatched(sd, &matched));
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		const struct an_src *e = f->src;
		if (!e || !listed(f))
			continue;
		rt_out_printf(o, "  flow %u: ", f->id);
		if (e->rate_events)
			rt_out_printf(o, "source rate %.0f -> min %.0f -> %.0f Mb/s", e->rate_first,
			              e->rate_min, e->rate_last);
		else
			rt_out_str(o, "source rate not logged");
		double g = an_rate_gbps(f->bytes, f->first_ts, f->last_ts);
		if (isfinite(g))
			rt_out_printf(o, ", measured %.3f Gb/s", g);
		rt_out_printf(o,
		              "; CNPs handled %llu, seen %llu; resends reported %llu, seen %llu\n",
		              (unsigned long long)(e->end_seen ? e->cnp_handled : e->cnp_events),
		              (unsigned long long)f->cnp_received,
		              (unsigned long long)(e->end_seen ? e->retrans : e->retransmit_count),
		              (unsigned long long)retx_of(f));
	}
}

static void text_counters(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	const struct an_side *sd = &an->side;
	rt_out_printf(o, "\nNIC counters (%zu devices, %llu lines, %llu bad):\n", sd->ncdev,
	              (unsigned long long)sd->counter_lines, (unsigned long long)sd->counter_bad);
	bool f_sent = false, f_handled = false;
	double sent = an_side_sum_delta(sd, "np_cnp_sent", &f_sent);
	double handled = an_side_sum_delta(sd, "rp_cnp_handled", &f_handled);
	if (f_sent || f_handled) {
		rt_out_str(o, "  CNPs:");
		if (f_sent && sent >= 0)
			rt_out_printf(o, " %.0f sent by NPs,", sent);
		if (f_handled && handled >= 0)
			rt_out_printf(o, " %.0f handled by RPs,", handled);
		rt_out_printf(o, " %llu seen on the wire\n", (unsigned long long)an->tot.c.cnp);
	}
	for (unsigned p = 0; p < 8; p++) {
		char rx[32], tx[32];
		snprintf(rx, sizeof(rx), "rx_prio%u_pause", p);
		snprintf(tx, sizeof(tx), "tx_prio%u_pause", p);
		bool f1 = false, f2 = false;
		double r = an_side_sum_delta(sd, rx, &f1), t = an_side_sum_delta(sd, tx, &f2);
		if ((f1 || f2) && (r > 0 || t > 0)) {
			rt_out_printf(o, "  priority %u:", p);
			if (f1 && r >= 0)
				rt_out_printf(o, " %.0f pause frames received", r);
			if (f2 && t >= 0)
				rt_out_printf(o, "%s %.0f sent", f1 && r >= 0 ? "," : "", t);
			rt_out_printf(o, "%s\n",
			              an->pfc.pfc_frames ? "" : " (none in the capture)");
		}
	}
}

/* The "Warnings:" block (nothing when there is none). */
static void text_warnings(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned n = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	if (n > RT_AN_WARNINGS_MAX)
		n = RT_AN_WARNINGS_MAX;
	if (!n)
		return;
	rt_out_str(o, "\nWarnings:\n");
	for (unsigned i = 0; i < n; i++) {
		rt_out_str(o, "  - ");
		rt_out_str(o, w[i].message);
		rt_out_char(o, '\n');
	}
}

/* A signed time difference, as fmt_ns writes magnitudes ("-1.5 us"). */
static void fmt_sns(struct rt_outbuf *o, int64_t ns)
{
	if (ns < 0)
		rt_out_char(o, '-');
	fmt_ns(o, ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns);
}

/* The vantage points and what happened between them, in words (analyze/README.md, "Vantage points"). */
static void text_vantage(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	const struct an_vantage *v = &an->vp;
	if (v->nvp < 2)
		return;
	rt_out_str(o, "Vantage points:");
	for (unsigned i = 0; i < v->nvp; i++)
		rt_out_printf(o, "%s %s (%u file%s, %llu frames)", i ? "," : "", v->vp[i].name,
		              v->vp[i].nfiles, v->vp[i].nfiles == 1 ? "" : "s",
		              (unsigned long long)v->vp[i].frames);
	rt_out_char(o, '\n');
	struct an_vp_result *r = malloc(sizeof(*r));
	if (!r || an_vp_compute(v, r) < 0) {
		free(r);
		rt_out_str(o, "  (out of memory: no paths)\n");
		return;
	}
	const struct an_vp_path *p = r->path;
	for (unsigned i = 0; i < r->npaths; i++) {
		const char *from = v->vp[p[i].from].name, *to = v->vp[p[i].to].name;
		rt_out_printf(o, "  %s -> %s: %llu packets seen at both", from, to,
		              (unsigned long long)p[i].matched);
		if (!p[i].matched) {
			rt_out_str(o, "\n");
			continue;
		}
		if (p[i].ce_marked)
			rt_out_printf(
			    o,
			    "; a hop between them marks: %llu packets became CE between %s and %s",
			    (unsigned long long)p[i].ce_marked, from, to);
		else
			rt_out_str(o, "; none became CE between them");
		if (p[i].lost)
			rt_out_printf(o, "; %llu lost between them (of %llu judged)",
			              (unsigned long long)p[i].lost,
			              (unsigned long long)p[i].judged);
		else if (p[i].judged)
			rt_out_printf(o, "; none lost between them (%llu judged)",
			              (unsigned long long)p[i].judged);
		if (p[i].not_judged)
			rt_out_printf(
			    o,
			    "; %llu seen at %s only not judged (%s was not capturing when "
			    "they would have passed it)",
			    (unsigned long long)p[i].not_judged, from, to);
		if (p[i].offset_known) {
			rt_out_printf(o, "; %s's clock ", to);
			if (p[i].offset_ns == 0)
				rt_out_printf(o, "agrees with %s's", from);
			else {
				fmt_sns(o, p[i].offset_ns < 0 ? -p[i].offset_ns : p[i].offset_ns);
				rt_out_printf(o, " %s %s's",
				              p[i].offset_ns > 0 ? "ahead of" : "behind", from);
			}
		} else {
			rt_out_str(o, "; clock offset unknown (packets were matched one way only)");
		}
		rt_out_str(o, p[i].delay_includes_offset
		                  ? "; time from one to the other, offset included: min "
		                  : "; one-way delay (queueing between them): min ");
		fmt_sns(o, p[i].delay_min);
		rt_out_str(o, ", median ");
		fmt_sns(o, p[i].delay_median);
		rt_out_str(o, ", p99 ");
		fmt_sns(o, p[i].delay_p99);
		rt_out_char(o, '\n');
	}
	an_vp_result_free(r);
	free(r);
}

/* The hot receiver, named only with evidence of congestion there; a fan-in without it, said so. */
static void text_incast(const struct rt_analyzer *an, struct rt_outbuf *o)
{
	static const char *const words[AN_INCAST_EVIDENCE_KINDS] = {"CE marks", "pauses", "losses",
	                                                            "a full link"};
	struct an_incast ic, quiet;
	bool found = an_incast_find(&an->ft, an_paused_any(an->pfc.paused_ns), an->o.link_speed_bps,
	                            &ic, &quiet);
	const struct an_incast *r = found ? &ic : &quiet;
	if (!r->any)
		return;
	rt_out_str(o, found ? "Incast: " : "Fan-in: ");
	rt_out_ip(o, r->any->key.ipver, r->any->key.dst);
	rt_out_printf(o, " receives from %u senders (%u flows)", r->senders, r->flows);
	double g = an_rate_gbps(r->bytes, r->first, r->last);
	if (isfinite(g))
		rt_out_printf(o, ", %.3f Gb/s together", g);
	if (!found) {
		rt_out_str(o, "; no sign of congestion there (no CE mark, pause, loss, nor a full "
		              "link): not an incast\n");
		return;
	}
	rt_out_printf(o, ", %llu CE marks; congestion shown by", (unsigned long long)ic.ce);
	for (unsigned k = 0, n = 0; k < AN_INCAST_EVIDENCE_KINDS; k++)
		if (ic.evidence & (1u << k))
			rt_out_printf(o, "%s %s", n++ ? "," : "", words[k]);
	rt_out_char(o, '\n');
}

static void report(const struct rt_analyzer *an, struct rt_outbuf *o, unsigned top)
{
	const struct an_totals *t = &an->tot;
	uint64_t dur = an->last_ts > an->first_ts ? an->last_ts - an->first_ts : 0;
	rt_out_printf(o, "%llu frames, %llu RoCE packets, %llu bytes",
	              (unsigned long long)t->c.packets, (unsigned long long)t->c.roce_packets,
	              (unsigned long long)t->c.bytes);
	if (t->c.packets) {
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
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		const struct an_flow *f = an_flow_by_id(&an->ft, id);
		paired += f->peer_qp != AN_NONE;
		nsel += listed(f);
	}
	rt_out_printf(o, "%u flows (one direction of one QP), %u with their peer QP known",
	              an->ft.next_id, paired);
	if (an->o.flow)
		rt_out_printf(o, "; --flow '%s' lists %u of them", an->o.flow, nsel);
	rt_out_char(o, '\n');
	uint64_t ecn_all = t->ecn[0] + t->ecn[1] + t->ecn[2] + t->ecn[3];
	rt_out_printf(o, "ECN: %llu CE-marked", (unsigned long long)t->c.ce);
	if (ecn_all)
		rt_out_printf(o, " (%.2f%% of RoCE over IP), %.1f%% ECN-capable",
		              100.0 * (double)t->ecn[3] / (double)ecn_all,
		              100.0 * an_ect_share(t->ecn));
	rt_out_printf(o, "; CNPs: %llu (%llu not matched to a flow)\n",
	              (unsigned long long)t->c.cnp, (unsigned long long)t->cnp_unattributed);
	uint64_t not_ect, data;
	if (an_ecn_off(an, &not_ect, &data))
		rt_out_printf(
		    o,
		    "ECN is off: %llu of %llu RoCE packets (CNPs aside) are Not-ECT, so no CE mark "
		    "can show congestion; look at the pauses and losses below\n",
		    (unsigned long long)not_ect, (unsigned long long)data);
	struct an_xport_sum x;
	an_flows_xport_sum(&an->ft, &x);
	rt_out_printf(
	    o,
	    "Transport: %llu NAKs, %llu RNR NAKs, %llu retransmitted packets "
	    "(%llu go-back-N, %llu implied timeouts), %llu PSN gaps (%llu PSNs missing)\n",
	    (unsigned long long)t->c.nak, (unsigned long long)t->c.rnr_nak,
	    (unsigned long long)t->c.retransmitted, (unsigned long long)x.go_back_n,
	    (unsigned long long)x.timeouts, (unsigned long long)x.gaps,
	    (unsigned long long)x.gap_psns);
	text_incast(an, o);
	if (an->find.icrc_cut)
		rt_out_printf(o,
		              "Capture: the snap length cut %llu RoCE frames after their headers "
		              "(ICRC unchecked: %llu)\n",
		              (unsigned long long)an->find.icrc_cut,
		              (unsigned long long)an->find.icrc_cut);
	if (t->c.icrc_bad || t->malformed)
		rt_out_printf(o, "Damaged: %llu bad ICRC, %llu malformed frames\n",
		              (unsigned long long)t->c.icrc_bad, (unsigned long long)t->malformed);
	text_warnings(an, o);
	text_vantage(an, o);
	text_pfc(an, o);
	text_top(an, o, top);
	text_np(an, o);
	text_rp(an, o);
	text_episodes(an, o);
	text_anomalies(an, o);
	if (an->side.counters_loaded)
		text_counters(an, o);
	if (an->side.srclog_loaded)
		text_source_log(an, o);
}

struct text_sink {
	FILE *fp;
	unsigned top;
};

static int text_report(void *ctx, const struct rt_analyzer *an, char *errbuf)
{
	struct text_sink *s = ctx;
	struct rt_outbuf *o = malloc(sizeof(*o));
	if (!o)
		return rt_errorf(errbuf, ENOMEM, "writing the report");
	rt_out_init(o, s->fp);
	report(an, o, s->top);
	int err = rt_out_flush(o);
	free(o);
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

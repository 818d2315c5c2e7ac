/* The verdict on the results view: congestion or not; where, when, who; did the NPs answer, did the senders slow. */
#include "common/textfmt.h"
#include "analyze/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/hist.h"
#include "analyze/wording.h"
#include "common/outbuf.h"

const char *rt_verdict_state_name(enum rt_verdict_state s)
{
	static const char *const names[] = {"empty", "no_roce", "calm", "congested", "ecn_off"};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *rt_verdict_part_name(enum rt_verdict_part p)
{
	static const char *const names[RT_VERDICT_PARTS] = {
	    "headline", "findings",   "where",   "pfc",    "pause",
	    "when",     "who",        "victims", "losses", "notification_points",
	    "senders",  "source_log", "capture"};
	return (unsigned)p < RT_VERDICT_PARTS ? names[p] : "?";
}

/* ms from the capture's start (the difference taken in integers: times since the epoch lose ns as doubles) */
static double rel_ms(const struct rt_results *r, uint64_t ns)
{
	return ns >= r->start_ns ? (double)(ns - r->start_ns) / 1e6
	                         : -(double)(r->start_ns - ns) / 1e6;
}

/* ---- the sentences ---- */

#define append(buf, ...) rt_text_appendf(buf, RT_VERDICT_TEXT, __VA_ARGS__)
#define say(v, p, ...)   append((v)->part[p], __VA_ARGS__)
#define plural           an_w_plural

/* Congestion or not, in figures; false when there is nothing more to say (no frame). */
static bool headline(const struct rt_results *r, struct rt_verdict *v)
{
	char a[32], b[32], c[32], d[32], e[32], t[48];
	uint64_t xoff = 0;
	for (unsigned k = 0; k < RT_AN_PFC_CLASSES; k++)
		xoff += r->pfc[k].xoff;
	bool congested = r->c.ce || r->c.cnp || xoff || r->nepisodes;
	if (!r->c.packets) {
		v->state = RT_VERDICT_EMPTY;
		if (r->input_error)
			say(v, RT_VERDICT_HEADLINE, "Nothing to report: %s.", r->input_error);
		else
			say(v, RT_VERDICT_HEADLINE,
			    "The capture holds no frames: nothing to report.");
		return false;
	}
	if (!r->c.roce_packets) {
		v->state = RT_VERDICT_NO_ROCE;
		say(v, RT_VERDICT_HEADLINE,
		    "The capture holds %s frames and none of them is RoCE%s",
		    an_w_int(a, r->c.packets),
		    xoff ? " (but PFC/PAUSE frames paused the link)." : ".");
	} else if (!congested && r->ecn_off) {
		/* Not-ECT traffic: no switch could mark it, so no CE mark says nothing of congestion */
		v->state = RT_VERDICT_ECN_OFF;
		say(v, RT_VERDICT_HEADLINE,
		    "Congestion cannot be told from CE marks: ECN is off (%s of %s RoCE data "
		    "packets "
		    "are Not-ECT, so no switch could mark them). What the capture shows: no "
		    "PFC/PAUSE pause, %s resent packets, %s PSN gaps in %s RoCE packets over %s.",
		    an_w_int(a, r->ecn_not_ect), an_w_int(b, r->ecn_data_packets),
		    an_w_int(c, r->c.retransmitted), an_w_int(d, r->gaps),
		    an_w_int(e, r->c.roce_packets), an_w_dur(t, r->end_ns - r->start_ns));
	} else if (!congested) {
		v->state = RT_VERDICT_CALM;
		say(v, RT_VERDICT_HEADLINE,
		    "No congestion seen: no CE mark, no CNP, no PFC/PAUSE pause in %s RoCE packets "
		    "over %s.",
		    an_w_int(a, r->c.roce_packets), an_w_dur(t, r->end_ns - r->start_ns));
	} else {
		v->state = RT_VERDICT_CONGESTED;
		say(v, RT_VERDICT_HEADLINE,
		    "Congestion: %s episode%s, %s CE marks, %s CNPs, %s PFC/PAUSE XOFF frames.",
		    an_w_int(a, r->nepisodes), plural(r->nepisodes, "", "s"), an_w_int(b, r->c.ce),
		    an_w_int(c, r->c.cnp), an_w_int(d, xoff));
		if (r->ecn_off)
			say(v, RT_VERDICT_HEADLINE,
			    " ECN is off: most RoCE data packets are Not-ECT, so CE marks cannot "
			    "show "
			    "where the congestion is; the pauses and losses do.");
	}
	return true;
}

/* Where: the hot receiver, the paused priorities, PAUSE. */
static void where(const struct rt_results *r, struct rt_verdict *v)
{
	char a[32], b[32], c[32], t[48], ip[64];
	if (r->incast) {
		say(v, RT_VERDICT_WHERE,
		    "Where: hot receiver %s, fed by %s senders over %s flows (%s CE marks",
		    rt_ip_to_str(r->incast_ipver, r->incast_receiver, ip, sizeof(ip)),
		    an_w_int(a, r->incast_senders), an_w_int(b, r->incast_flows),
		    an_w_int(c, r->incast_ce));
		if (isfinite(r->incast_gbps))
			say(v, RT_VERDICT_WHERE, ", %s",
			    rt_fmt_rate(t, sizeof(t), r->incast_gbps * 1e9));
		say(v, RT_VERDICT_WHERE, ").");
	}
	unsigned prios = 0;
	for (unsigned k = 0; k < 8; k++)
		prios += r->pfc[k].xoff || r->pfc[k].xon;
	for (unsigned k = 0, n = 0; k < 8; k++) {
		if (!r->pfc[k].xoff && !r->pfc[k].xon)
			continue;
		if (!n++)
			say(v, RT_VERDICT_PFC, "PFC paused priorit%s", plural(prios, "y ", "ies "));
		say(v, RT_VERDICT_PFC, "%s%u (%s)", n > 1 ? ", " : "", k,
		    an_w_dur(t, r->pfc[k].paused_ns));
	}
	if (prios && r->nstorms)
		say(v, RT_VERDICT_PFC, "; %s PFC storm(s).", an_w_int(a, r->nstorms));
	else if (prios)
		say(v, RT_VERDICT_PFC, ".");
	if (r->pause_frames)
		say(v, RT_VERDICT_PAUSE, "802.3x PAUSE: %s XOFF, paused %s.",
		    an_w_int(a, r->pfc[RT_AN_PAUSE_CLASS].xoff),
		    an_w_dur(t, r->pfc[RT_AN_PAUSE_CLASS].paused_ns));
}

/* When: the first episode to the last, the longest, the highest marking rate. */
static void when(const struct rt_results *r, struct rt_verdict *v)
{
	if (!r->nepisodes)
		return;
	const struct rt_res_episode *eps = r->episodes, *longest = &eps[0], *peak = &eps[0];
	for (uint32_t i = 0; i < r->nepisodes; i++) {
		if (eps[i].end_ns - eps[i].start_ns > longest->end_ns - longest->start_ns)
			longest = &eps[i];
		if (eps[i].peak_ce_per_s > peak->peak_ce_per_s)
			peak = &eps[i];
	}
	char a[48], b[48], c[48], d[48];
	say(v, RT_VERDICT_WHEN,
	    "When: from %s ms to %s ms of the capture; the longest episode lasted %s (at %s ms)",
	    an_w_num(a, rel_ms(r, eps[0].start_ns), 3),
	    an_w_num(b, rel_ms(r, eps[r->nepisodes - 1].end_ns), 3),
	    an_w_dur(c, longest->end_ns - longest->start_ns),
	    an_w_num(d, rel_ms(r, longest->start_ns), 3));
	if (peak->peak_ce_per_s > 0)
		say(v, RT_VERDICT_WHEN, ", the highest marking rate was %s CE/s (at %s ms)",
		    an_w_num(a, peak->peak_ce_per_s, 0), an_w_num(b, rel_ms(r, peak->start_ns), 3));
	say(v, RT_VERDICT_WHEN, ".");
}

#define VERDICT_NAMED 5 /* flows a sentence names at most */

/* Who: the most CE-marked flows; the victims; the flows that resent. */
static void who(const struct rt_results *r, struct rt_verdict *v)
{
	const struct rt_res_flow *top[VERDICT_NAMED];
	uint64_t marked = 0, victims = 0, resent = 0;
	unsigned ntop = 0;
	char sel[RT_FLOWSEL_TEXT_MAX], names[RT_VERDICT_TEXT] = "", a[32], b[32], c[32], d[32];
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!f->selected)
			continue;
		resent += f->xport && f->xport->retransmitted;
		if (f->in_episodes && !f->ecn[3] && f->requests && victims++ < VERDICT_NAMED)
			append(names, "%s%s", victims > 1 ? ", " : "",
			       rt_flowsel_format(sel, f->key.ipver, f->key.src, f->key.dst,
			                         f->key.dest_qp));
		if (!f->ecn[3])
			continue;
		marked++;
		/* the most marks first; as many: the first seen */
		unsigned k = ntop;
		if (ntop < VERDICT_NAMED)
			ntop++;
		else if (top[VERDICT_NAMED - 1]->ecn[3] >= f->ecn[3])
			continue;
		else
			k = VERDICT_NAMED - 1;
		for (; k > 0 && top[k - 1]->ecn[3] < f->ecn[3]; k--)
			top[k] = top[k - 1];
		top[k] = f;
	}
	if (victims)
		say(v, RT_VERDICT_VICTIMS,
		    "Victims: %s flow%s with no CE mark of their own sent during the episodes: "
		    "%s%s.",
		    an_w_int(a, victims), plural(victims, "", "s"), names,
		    victims > VERDICT_NAMED ? ", ..." : "");
	if (marked) {
		say(v, RT_VERDICT_WHO, "Who: %s flow%s CE-marked; most: ", an_w_int(a, marked),
		    plural(marked, " was", "s were"));
		for (unsigned k = 0; k < ntop; k++)
			say(v, RT_VERDICT_WHO, "%s%s (%s)", k ? ", " : "",
			    rt_flowsel_format(sel, top[k]->key.ipver, top[k]->key.src,
			                      top[k]->key.dst, top[k]->key.dest_qp),
			    an_w_int(b, top[k]->ecn[3]));
		say(v, RT_VERDICT_WHO, ".");
	}
	if (resent)
		say(v, RT_VERDICT_LOSSES,
		    "Losses: %s packets resent by %s flow(s), %s NAKs, %s implied timeouts.",
		    an_w_int(a, r->c.retransmitted), an_w_int(b, resent), an_w_int(c, r->c.nak),
		    an_w_int(d, r->timeouts));
}

/* Did the notification points answer the CE marks? 0 or -ENOMEM. */
static int nps(const struct rt_results *r, struct rt_verdict *v)
{
	char a[32], b[32], t[48];
	if (!r->c.ce)
		return 0;
	if (!r->c.cnp) {
		say(v, RT_VERDICT_NPS,
		    "Notification points: no CNP answered the %s CE marks: the receivers' NP (ECN "
		    "on "
		    "the RoCE priority) may be off, or the CNPs were not captured.",
		    an_w_int(a, r->c.ce));
		return 0;
	}
	uint64_t *med = malloc((r->nselected ? r->nselected : 1) * sizeof(*med)), limited = 0;
	size_t n = 0;
	if (!med)
		return -ENOMEM;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!f->selected || !f->np)
			continue;
		limited += f->np->rate_limited;
		if (f->np->reaction.samples)
			med[n++] = f->np->reaction.median;
	}
	uint64_t median = an_median_u64(med, n);
	say(v, RT_VERDICT_NPS, "Notification points answered: %s CNPs for %s CE marks",
	    an_w_int(a, r->c.cnp), an_w_int(b, r->c.ce));
	if (n)
		say(v, RT_VERDICT_NPS, "; NP delay (median of %s flows' medians) %s",
		    an_w_int(a, n), an_w_dur(t, median));
	free(med);
	if (limited)
		say(v, RT_VERDICT_NPS, "; the CNP limiter held back %s marks",
		    an_w_int(a, limited));
	if (r->cnp_unattributed)
		say(v, RT_VERDICT_NPS, "; %s CNPs matched no flow",
		    an_w_int(a, r->cnp_unattributed));
	say(v, RT_VERDICT_NPS, ".");
	return 0;
}

#define VERDICT_REASONS 8 /* distinct reasons the RP drop was not measured (analyze/rp.c has 8) */

/* Why the most CNPs of flows without a measured drop went unmeasured (as the first to reach the most). */
struct why_tally {
	unsigned n;
	const char *reason[VERDICT_REASONS];
	uint64_t cnps[VERDICT_REASONS];
	int top; /* -1: none yet */
};

static void why_add(struct why_tally *w, const char *reason, uint64_t cnps)
{
	unsigned k = 0;
	while (k < w->n && strcmp(w->reason[k], reason))
		k++;
	if (k == w->n) {
		if (w->n == VERDICT_REASONS)
			return;
		w->reason[w->n++] = reason;
	}
	w->cnps[k] += cnps;
	if (w->top < 0 || w->cnps[k] > w->cnps[w->top])
		w->top = (int)k;
}

/*
 * Did the senders slow down: on the wire (the median of the flows' median
 * drops; none measured: the reason of most CNPs), and by their own log.
 * 0 or -ENOMEM.
 */
static int senders(const struct rt_results *r, struct rt_verdict *v)
{
	uint64_t cnps = 0, measured = 0, cuts = 0;
	double cut_sum = 0, *med = malloc((r->nselected ? r->nselected : 1) * sizeof(*med));
	size_t n = 0;
	struct why_tally why = {.top = -1};
	char a[32], b[32], c[32], t[48];
	if (!med)
		return -ENOMEM;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!f->selected)
			continue;
		if (f->rp) {
			cnps += f->rp->cnps;
			if (f->rp->measured && isfinite(f->rp->median_drop_pct)) {
				measured += f->rp->measured;
				med[n++] = f->rp->median_drop_pct;
			} else if (f->rp->drop_null_reason) {
				why_add(&why, f->rp->drop_null_reason, f->rp->cnps);
			}
		}
		if (f->source && f->source->cuts) {
			cuts += f->source->cuts;
			cut_sum += f->source->cut_sum_pct;
		}
	}
	double median = an_median_double(med, n);
	if (measured)
		say(v, RT_VERDICT_SENDERS,
		    "Senders: after %s of %s CNPs the sender's rate fell by %s %% (median of %s "
		    "flows' median drops; wire view, %u packet gaps before and after each CNP).",
		    an_w_int(a, measured), an_w_int(b, cnps), an_w_num(t, median, 1),
		    an_w_int(c, n), r->rate_window_gaps);
	else if (cnps && why.top >= 0)
		say(v, RT_VERDICT_SENDERS,
		    "Senders: the rate drop after the %s CNPs could not be measured (%s).",
		    an_w_int(a, cnps), why.reason[why.top]);
	free(med);
	if (r->source_log_loaded && cuts)
		say(v, RT_VERDICT_SOURCE,
		    "The traffic source logged %s rate cuts for CNPs, %s %% on average.",
		    an_w_int(a, cuts), an_w_num(t, cut_sum / (double)cuts, 1));
	return 0;
}

#define VERDICT_FINDINGS 3 /* findings the verdict says in words at most */

/* What is wrong: how many findings of each severity, and the most severe ones' sentences. */
static void findings(const struct rt_results *r, struct rt_verdict *v)
{
	uint64_t n[3] = {0};
	for (unsigned i = 0; i < r->nfindings; i++)
		n[r->findings[i].severity]++;
	if (!r->nfindings)
		return;
	static const char *const names[3][2] = {
	    {"note", "notes"}, {"warning", "warnings"}, {"error", "errors"}};
	say(v, RT_VERDICT_FINDINGS, "Findings:");
	for (int s = RT_SEV_ERROR, k = 0; s >= RT_SEV_INFO; s--)
		if (n[s])
			say(v, RT_VERDICT_FINDINGS, "%s %llu %s", k++ ? "," : "",
			    (unsigned long long)n[s], names[s][n[s] != 1]);
	/* the findings are most severe first: their first sentences, notes left to the list */
	for (unsigned i = 0; i < r->nfindings && i < VERDICT_FINDINGS; i++) {
		const struct rt_finding *f = &r->findings[i];
		if (f->severity == RT_SEV_INFO)
			break;
		say(v, RT_VERDICT_FINDINGS, "%s %s", i ? ";" : ":", f->summary);
		size_t len = strlen(v->part[RT_VERDICT_FINDINGS]);
		if (len && v->part[RT_VERDICT_FINDINGS][len - 1] == '.')
			v->part[RT_VERDICT_FINDINGS][len - 1] = 0; /* the sentence goes on */
	}
	say(v, RT_VERDICT_FINDINGS, ".");
}

int rt_verdict_build(const struct rt_results *r, struct rt_verdict *v)
{
	char a[32];
	memset(v, 0, sizeof(*v));
	if (!headline(r, v))
		return 0;
	findings(r, v);
	where(r, v);
	when(r, v);
	who(r, v);
	int rc = nps(r, v);
	if (rc < 0 || (rc = senders(r, v)) < 0)
		return rc;
	if (r->nwarnings)
		say(v, RT_VERDICT_CAPTURE, "The capture itself: %s warning(s), listed below.",
		    an_w_int(a, r->nwarnings));
	return 0;
}

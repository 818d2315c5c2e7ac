/* The verdict on the results view: congestion or not; where, when, who; did the NPs answer, did the senders slow. */
#include "common/textfmt.h"
#include "analyze/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/outbuf.h"

const char *rt_verdict_state_name(enum rt_verdict_state s)
{
	static const char *const names[] = {"empty", "no_roce", "calm", "congested"};
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *rt_verdict_part_name(enum rt_verdict_part p)
{
	static const char *const names[RT_VERDICT_PARTS] = {
	    "headline", "where",      "pfc",
	    "pause",    "when",       "who",
	    "victims",  "losses",     "notification_points",
	    "senders",  "source_log", "capture"};
	return (unsigned)p < RT_VERDICT_PARTS ? names[p] : "?";
}

/* ---- numbers as people read them: 1,234,567; 1.23; durations in ns, us, ms, s ---- */

/* Thousands separated by commas in the integer part of a number written out in full ("-1234.5"). */
static void group(char *out, size_t size, const char *plain)
{
	const char *digits = plain + (plain[0] == '-'), *dot = strchr(digits, '.');
	size_t nint = dot ? (size_t)(dot - digits) : strlen(digits), k = 0;
	if (plain[0] == '-' && k + 1 < size)
		out[k++] = '-';
	for (size_t i = 0; i < nint && k + 2 < size; i++) {
		if (i && (nint - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	snprintf(out + k, size - k, "%s", dot ? dot : "");
}

static const char *fmt_int(char out[32], uint64_t v)
{
	char plain[24];
	snprintf(plain, sizeof(plain), "%llu", (unsigned long long)v);
	group(out, 32, plain);
	return out;
}

/* Two significant digits of a number below 0.01 ("0.0012", "1.5e-7"). */
static void two_digits(char out[48], double v)
{
	char e[32];
	snprintf(e, sizeof(e), "%.1e",
	         fabs(v)); /* "1.2e-03": the digits and the exponent, rounded */
	int exp = atoi(strchr(e, 'e') + 1);
	const char *sign = v < 0 ? "-" : "";
	if (exp < -6) {
		snprintf(out, 48, "%s%c.%ce%d", sign, e[0], e[2], exp);
		return;
	}
	char zeros[8] = "";
	for (int i = 0; i < -exp - 1 && i < 6; i++)
		zeros[i] = '0';
	snprintf(out, 48, "%s0.%s%c%c", sign, zeros, e[0], e[2]);
}

/* At most `digits` decimals, trailing zeros dropped, thousands grouped; two significant digits below 0.01. */
static const char *fmt_num(char out[48], double v, int digits)
{
	double a = fabs(v);
	if (a != 0 && a < 0.01) {
		two_digits(out, v);
		return out;
	}
	char plain[48];
	snprintf(plain, sizeof(plain), "%.*f", digits, v);
	char *dot = strchr(plain, '.');
	if (dot) {
		char *end = plain + strlen(plain);
		while (end > dot + 1 && end[-1] == '0')
			*--end = 0;
		if (end == dot + 1)
			*dot = 0;
	}
	group(out, 48, plain);
	return out;
}

/* "850 ns", "12.5 us", "3.25 ms", "1.5 s" */
static const char *fmt_dur(char out[48], uint64_t ns)
{
	char n[48];
	double v = (double)ns;
	if (v < 1e3)
		snprintf(out, 48, "%s ns", fmt_num(n, v, 0));
	else if (v < 1e6)
		snprintf(out, 48, "%s us", fmt_num(n, v / 1e3, 2));
	else if (v < 1e9)
		snprintf(out, 48, "%s ms", fmt_num(n, v / 1e6, 3));
	else
		snprintf(out, 48, "%s s", fmt_num(n, v / 1e9, 3));
	return out;
}

/* ms from the capture's start (the difference taken in integers: times since the epoch lose ns as doubles) */
static double rel_ms(const struct rt_results *r, uint64_t ns)
{
	return ns >= r->start_ns ? (double)(ns - r->start_ns) / 1e6
	                         : -(double)(r->start_ns - ns) / 1e6;
}

/* ---- the sentences ---- */

/* Append to a sentence (cut at its end when it would not fit). */
__attribute__((format(printf, 2, 3))) static void append(char buf[RT_VERDICT_TEXT], const char *fmt,
                                                         ...)
{
	size_t len = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, RT_VERDICT_TEXT - len, fmt, ap);
	va_end(ap);
}
#define say(v, p, ...) append((v)->part[p], __VA_ARGS__)

static const char *plural(uint64_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* Congestion or not, in figures; false when there is nothing more to say (no frame). */
static bool headline(const struct rt_results *r, struct rt_verdict *v)
{
	char a[32], b[32], c[32], d[32], t[48];
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
		    fmt_int(a, r->c.packets),
		    xoff ? " (but PFC/PAUSE frames paused the link)." : ".");
	} else if (!congested) {
		v->state = RT_VERDICT_CALM;
		say(v, RT_VERDICT_HEADLINE,
		    "No congestion seen: no CE mark, no CNP, no PFC/PAUSE pause in %s RoCE packets "
		    "over %s.",
		    fmt_int(a, r->c.roce_packets), fmt_dur(t, r->end_ns - r->start_ns));
	} else {
		v->state = RT_VERDICT_CONGESTED;
		say(v, RT_VERDICT_HEADLINE,
		    "Congestion: %s episode%s, %s CE marks, %s CNPs, %s PFC/PAUSE XOFF frames.",
		    fmt_int(a, r->nepisodes), plural(r->nepisodes, "", "s"), fmt_int(b, r->c.ce),
		    fmt_int(c, r->c.cnp), fmt_int(d, xoff));
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
		    fmt_int(a, r->incast_senders), fmt_int(b, r->incast_flows),
		    fmt_int(c, r->incast_ce));
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
		    fmt_dur(t, r->pfc[k].paused_ns));
	}
	if (prios && r->nstorms)
		say(v, RT_VERDICT_PFC, "; %s PFC storm(s).", fmt_int(a, r->nstorms));
	else if (prios)
		say(v, RT_VERDICT_PFC, ".");
	if (r->pause_frames)
		say(v, RT_VERDICT_PAUSE, "802.3x PAUSE: %s XOFF, paused %s.",
		    fmt_int(a, r->pfc[RT_AN_PAUSE_CLASS].xoff),
		    fmt_dur(t, r->pfc[RT_AN_PAUSE_CLASS].paused_ns));
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
	    fmt_num(a, rel_ms(r, eps[0].start_ns), 3),
	    fmt_num(b, rel_ms(r, eps[r->nepisodes - 1].end_ns), 3),
	    fmt_dur(c, longest->end_ns - longest->start_ns),
	    fmt_num(d, rel_ms(r, longest->start_ns), 3));
	if (peak->peak_ce_per_s > 0)
		say(v, RT_VERDICT_WHEN, ", the highest marking rate was %s CE/s (at %s ms)",
		    fmt_num(a, peak->peak_ce_per_s, 0), fmt_num(b, rel_ms(r, peak->start_ns), 3));
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
		    fmt_int(a, victims), plural(victims, "", "s"), names,
		    victims > VERDICT_NAMED ? ", ..." : "");
	if (marked) {
		say(v, RT_VERDICT_WHO, "Who: %s flow%s CE-marked; most: ", fmt_int(a, marked),
		    plural(marked, " was", "s were"));
		for (unsigned k = 0; k < ntop; k++)
			say(v, RT_VERDICT_WHO, "%s%s (%s)", k ? ", " : "",
			    rt_flowsel_format(sel, top[k]->key.ipver, top[k]->key.src,
			                      top[k]->key.dst, top[k]->key.dest_qp),
			    fmt_int(b, top[k]->ecn[3]));
		say(v, RT_VERDICT_WHO, ".");
	}
	if (resent)
		say(v, RT_VERDICT_LOSSES,
		    "Losses: %s packets resent by %s flow(s), %s NAKs, %s implied timeouts.",
		    fmt_int(a, r->c.retransmitted), fmt_int(b, resent), fmt_int(c, r->c.nak),
		    fmt_int(d, r->timeouts));
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
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
		    fmt_int(a, r->c.ce));
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
	qsort(med, n, sizeof(*med), by_value);
	say(v, RT_VERDICT_NPS, "Notification points answered: %s CNPs for %s CE marks",
	    fmt_int(a, r->c.cnp), fmt_int(b, r->c.ce));
	if (n)
		say(v, RT_VERDICT_NPS, "; NP delay (median of %s flows' medians) %s", fmt_int(a, n),
		    fmt_dur(t, med[(n - 1) / 2]));
	free(med);
	if (limited)
		say(v, RT_VERDICT_NPS, "; the CNP limiter held back %s marks", fmt_int(a, limited));
	if (r->cnp_unattributed)
		say(v, RT_VERDICT_NPS, "; %s CNPs matched no flow",
		    fmt_int(a, r->cnp_unattributed));
	say(v, RT_VERDICT_NPS, ".");
	return 0;
}

/* Did the senders slow down: on the wire, and by their own log. */
static void senders(const struct rt_results *r, struct rt_verdict *v)
{
	uint64_t cnps = 0, measured = 0, few = 0, in_window = 0, cuts = 0;
	double drop_sum = 0, cut_sum = 0;
	char a[32], b[32], t[48];
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		if (!f->selected)
			continue;
		if (f->rp) {
			cnps += f->rp->cnps;
			few += f->rp->too_few_packets;
			in_window += f->rp->cnp_in_window;
			measured += f->rp->measured;
			drop_sum += f->rp->measured ? f->rp->drop_sum_pct : 0;
		}
		if (f->source && f->source->cuts) {
			cuts += f->source->cuts;
			cut_sum += f->source->cut_sum_pct;
		}
	}
	if (measured)
		say(v, RT_VERDICT_SENDERS,
		    "Senders: after %s of %s CNPs the sender's rate fell by %s %% on average (wire "
		    "view, %u packet gaps before and after each CNP).",
		    fmt_int(a, measured), fmt_int(b, cnps),
		    fmt_num(t, drop_sum / (double)measured, 1), r->rate_window_gaps);
	else if (cnps)
		say(v, RT_VERDICT_SENDERS,
		    "Senders: the rate drop after the %s CNPs could not be measured (%s).",
		    fmt_int(a, cnps),
		    few >= in_window ? "too few packets around the CNPs"
		                     : "another CNP within the window");
	if (r->source_log_loaded && cuts)
		say(v, RT_VERDICT_SOURCE,
		    "The traffic source logged %s rate cuts for CNPs, %s %% on average.",
		    fmt_int(a, cuts), fmt_num(t, cut_sum / (double)cuts, 1));
}

int rt_verdict_build(const struct rt_results *r, struct rt_verdict *v)
{
	char a[32];
	memset(v, 0, sizeof(*v));
	if (!headline(r, v))
		return 0;
	where(r, v);
	when(r, v);
	who(r, v);
	int rc = nps(r, v);
	if (rc < 0)
		return rc;
	senders(r, v);
	if (r->nwarnings)
		say(v, RT_VERDICT_CAPTURE, "The capture itself: %s warning(s), listed below.",
		    fmt_int(a, r->nwarnings));
	return 0;
}

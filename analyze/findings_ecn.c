/* Findings about ECN and DCQCN: silent notification points, deaf or slow reaction points, slow NPs, ECN off. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/finding.h"
#include "analyze/hist.h"
#include "analyze/wording.h"
#include "common/outbuf.h"
#include "common/textfmt.h"

#define NP_SILENT_MARKS    8          /* CE marks into a receiver before its silence counts */
#define NP_SILENT_SPAN_NS  1000000ull /* ... or spread over this long: longer than any CNP limiter */
#define RP_MEASURED        8          /* CNPs measured before a sender is judged */
#define RP_DEAF_MEDIAN_PCT 5.0        /* deaf: its median drop below this, */
#define RP_DEAF_P75_PCT    10.0       /* ... and three drops in four below this */
#define RP_REACTS_PCT      10.0       /* a sender that reacts: its median drop at least this */
#define SLOW_SAMPLES       3          /* NP delays or RP cuts before a flow is judged slow */
#define SLOW_NP_NS         50000ull   /* CE -> CNP: NICs answer within a few us */
#define SLOW_RP_NS         50000ull   /* CNP -> the cut: NICs cut within a few us */
#define SLOW_RP_GAPS       4          /* ... and longer than this many of the flow's packet gaps */
#define ECN_OFF_PACKETS    4          /* data packets in the capture before ECN is judged */

/* Per host: what the ECN rules sum. */
struct host {
	uint64_t ce_in, first_ce, last_ce; /* CE marks on the data into it; the first, the latest */
	uint64_t cnp_out, packets_out;     /* CNPs it sent; its packets */
	uint64_t not_ect_out, ecn_out;     /* its data packets Not-ECT; with an ECN field */
	uint64_t deaf, judged;             /* its flows with a deaf RP; judged */
	uint64_t hidden, hidden_cnps;      /* its flows whose CNPs a full link hid; their CNPs */
	uint64_t slow_np, slow_rp; /* flows into it with a slow NP; from it with a slow RP */
	double np_median_max, rp_median_max;
};

/*
 * How the wire shows a flow's sender, the one place the findings decide
 * it, from the RP reaction (analyze/README.md, "RP reaction"): only CNPs
 * measured count (the windows a PSN gap, a resend, a pause, an idle sender
 * or a full link disturbed are set apart, never read as "no cut"); with
 * RP_MEASURED of them (or `min`), the capture point is before the
 * bottleneck (capture_side "sender": the sender's pacing shows), or after
 * the marking point or cannot be told (a cut seen there is judged only
 * against other senders that do slow down there).
 */
enum rp_view { RP_UNJUDGED, RP_UPSTREAM, RP_BEHIND };
static enum rp_view rp_view(const struct rt_res_flow *f, uint64_t min)
{
	if (!f->rp || f->rp->measured < min || !isfinite(f->rp->median_drop_pct))
		return RP_UNJUDGED;
	const char *side = f->rp->capture_side;
	return side && !strcmp(side, "sender") ? RP_UPSTREAM : RP_BEHIND;
}

/* Whether the flow's sender slowed down after its CNPs: a clear median cut. */
static bool rp_reacts(const struct rt_res_flow *f)
{
	return rp_view(f, RP_MEASURED) != RP_UNJUDGED && f->rp->median_drop_pct >= RP_REACTS_PCT;
}

/*
 * Deaf: the rate did not fall after the CNPs (the median drop, and three in
 * four, small: one odd window flips nothing); behind the marking point,
 * only where other senders' did.
 */
static bool rp_deaf(const struct rt_res_flow *f, bool others_react)
{
	enum rp_view v = rp_view(f, RP_MEASURED);
	return v != RP_UNJUDGED && (v == RP_UPSTREAM || others_react) &&
	       f->rp->median_drop_pct < RP_DEAF_MEDIAN_PCT && f->rp->drop_p75_pct < RP_DEAF_P75_PCT;
}

/*
 * The capture cannot tell: enough CNPs for a judgement, but most of them
 * fell where the link toward the receiver stayed full (the capture point
 * is after the bottleneck: the other senders filled what this one gave
 * up), and too few were measured.
 */
static bool rp_hidden(const struct rt_res_flow *f)
{
	const struct rt_res_rp *p = f->rp;
	return p && p->measured < RP_MEASURED && p->full_link >= RP_MEASURED &&
	       p->full_link * 2 > p->cnps;
}

static bool rp_slow(const struct rt_res_flow *f)
{
	const struct rt_res_quantiles *q = &f->rp->cut_delay;
	double gap =
	    f->packets > 1 ? (double)(f->last_ns - f->first_ns) / (double)(f->packets - 1) : 0;
	return q->samples >= SLOW_SAMPLES && q->median > SLOW_RP_NS && q->min > SLOW_RP_NS / 2 &&
	       (double)q->median > SLOW_RP_GAPS * gap;
}

static bool np_slow(const struct rt_res_flow *f)
{
	/* slow every time: a delay that scatters down to a few us is a mark misread, not a slow NP */
	const struct rt_res_quantiles *q = f->np ? &f->np->reaction : NULL;
	return q && q->samples >= SLOW_SAMPLES && q->median > SLOW_NP_NS && q->min > SLOW_NP_NS / 2;
}

/* Sum the figures per host (others_react: some sender's rate fell after its CNPs). */
static void sum(const struct an_fd *l, struct host *h, bool others_react)
{
	const struct rt_results *r = l->r;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *f = &r->flows[id];
		struct host *s = &h[l->src[id]], *d = &h[l->dst[id]];
		s->cnp_out += f->cnp_sent;
		s->packets_out += f->packets;
		if (!an_fd_data_flow(f))
			continue;
		s->not_ect_out += f->ecn[0];
		s->ecn_out += f->ecn[0] + f->ecn[1] + f->ecn[2] + f->ecn[3];
		d->ce_in += f->ecn[3];
		if (f->np && f->np->first_ce_ns) {
			if (!d->first_ce || f->np->first_ce_ns < d->first_ce)
				d->first_ce = f->np->first_ce_ns;
			if (f->np->last_ce_ns > d->last_ce)
				d->last_ce = f->np->last_ce_ns;
		}
		if (np_slow(f)) {
			d->slow_np++;
			if ((double)f->np->reaction.median > d->np_median_max)
				d->np_median_max = (double)f->np->reaction.median;
		}
		if (rp_view(f, RP_MEASURED) != RP_UNJUDGED) {
			s->judged++;
			s->deaf += rp_deaf(f, others_react);
		} else if (rp_hidden(f)) {
			s->hidden++;
			s->hidden_cnps += f->rp->cnps;
		}
		if (rp_view(f, SLOW_SAMPLES) == RP_UPSTREAM && rp_slow(f)) {
			s->slow_rp++;
			if ((double)f->rp->cut_delay.median > s->rp_median_max)
				s->rp_median_max = (double)f->rp->cut_delay.median;
		}
	}
}

/* What a rule picks flows by: the flow, and whether some sender reacts (rp_deaf). */
typedef bool (*pick_fn)(const struct rt_res_flow *f, bool others_react);

/* The flows of host `ip` (as source when `from`, else as destination) that `pick` chooses. */
static void name_flows(const struct rt_results *r, struct rt_finding *f, const struct an_fd_ip *ip,
                       bool from, pick_fn pick, bool others_react)
{
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (an_fd_data_flow(fl) &&
		    an_fd_same_ip(fl->key.ipver, from ? fl->key.src : fl->key.dst, ip->ipver,
		                  ip->ip) &&
		    pick(fl, others_react))
			an_fd_flow(f, fl);
	}
}

static bool marked(const struct rt_res_flow *f, bool others_react)
{
	(void)others_react;
	return f->ecn[3] > 0;
}

static bool slow_rp_flow(const struct rt_res_flow *f, bool others_react)
{
	(void)others_react;
	return rp_view(f, SLOW_SAMPLES) == RP_UPSTREAM && rp_slow(f);
}

static bool slow_np_flow(const struct rt_res_flow *f, bool others_react)
{
	(void)others_react;
	return np_slow(f);
}

static void np_silent(struct an_fd *l, const struct an_fd_ip *ip, const struct host *h, bool others)
{
	char a[48], d[48];
	/* its own packets in the capture: its CNPs would be too; else, where other receivers'
	 * CNPs are, the way back is captured for them at least */
	bool seen = h->packets_out > 0;
	enum rt_severity sev = seen ? RT_SEV_ERROR : others ? RT_SEV_WARNING : RT_SEV_INFO;
	struct rt_finding *f = an_fd_add(l, "np_silent", sev,
	                                 seen     ? (others ? "high" : "medium")
	                                 : others ? "low"
	                                          : NULL);
	if (!f)
		return;
	an_fd_host(f, ip->ipver, ip->ip);
	const char *host = f->hosts.v[0];
	if (seen || others)
		an_fd_summary(
		    f,
		    "%s receives CE-marked RoCE data (%s marks over %s) and sends no CNP for "
		    "it%s%s: its NIC's ECN notification point is off on that priority.",
		    host, an_w_int(a, h->ce_in), an_w_dur(d, h->last_ce - h->first_ce),
		    others ? ", while other receivers do" : "",
		    seen ? "" : " (though no packet of its own is in the capture)");
	else
		an_fd_summary(
		    f,
		    "Cannot tell whether %s answers its %s CE marks: the capture holds no "
		    "packet from it, so its CNPs would not show either.",
		    host, an_w_int(a, h->ce_in));
	name_flows(l->r, f, ip, false, marked, false);
	an_fd_u64(f, "ce_marks", h->ce_in);
	an_fd_time(f, l->r, "first", h->first_ce);
	an_fd_u64(f, "marks_span_ns", h->last_ce - h->first_ce);
	an_fd_u64(f, "cnps_sent", 0);
	an_fd_u64(f, "packets_from_host", h->packets_out);
	an_fd_bool(f, "other_receivers_answer", others);
	if (seen || others)
		an_fd_fix(f, "check ecn.np on that host (and counters.cnp_sent)",
		          "Turn the notification point on for the RoCE priority on %s: echo 1 > "
		          "/sys/class/net/NETDEV/ecn/roce_np/enable/P on mlx5 (elsewhere the NIC's "
		          "ECN/DCQCN setting).",
		          host);
	else
		an_fd_fix(f, "check ecn.np on that host",
		          "Capture where %s's packets pass too (its own port), and analyze again.",
		          host);
}

/*
 * The figures of the flows of a sender `pick` chooses: their CNPs, those
 * measured and set apart, the median of their median drops (returned, NaN:
 * none), the largest of their upper quartiles and drops. NaN with
 * l->err set when out of memory.
 */
static double rp_figures(struct an_fd *l, struct rt_finding *f, const struct an_fd_ip *ip,
                         pick_fn pick, bool others_react)
{
	const struct rt_results *r = l->r;
	uint64_t cnps = 0, measured = 0;
	double p75 = NAN, worst = NAN, *med = malloc((r->nflows ? r->nflows : 1) * sizeof(*med));
	size_t n = 0;
	if (!med) {
		l->err = -ENOMEM;
		return NAN;
	}
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!an_fd_same_ip(fl->key.ipver, fl->key.src, ip->ipver, ip->ip) ||
		    !pick(fl, others_react))
			continue;
		cnps += fl->rp->cnps;
		measured += fl->rp->measured;
		med[n++] = fl->rp->median_drop_pct;
		if (!isfinite(p75) || fl->rp->drop_p75_pct > p75)
			p75 = fl->rp->drop_p75_pct;
		if (!isfinite(worst) || fl->rp->max_drop_pct > worst)
			worst = fl->rp->max_drop_pct;
	}
	double median = an_median_double(med, n);
	free(med);
	an_fd_u64(f, "cnps", cnps);
	an_fd_u64(f, "cnps_measured", measured);
	an_fd_u64(f, "cnps_set_apart", cnps - measured);
	an_fd_real(f, "median_drop_pct", median);
	an_fd_real(f, "drop_p75_pct", p75);
	an_fd_real(f, "max_drop_pct", worst);
	return median;
}

static void rp_deaf_host(struct an_fd *l, const struct an_fd_ip *ip, const struct host *h,
                         bool others_react)
{
	struct rt_finding *f = an_fd_add(l, "rp_deaf", RT_SEV_ERROR, "medium");
	if (!f)
		return;
	an_fd_host(f, ip->ipver, ip->ip);
	name_flows(l->r, f, ip, true, rp_deaf, others_react);
	double median = rp_figures(l, f, ip, rp_deaf, others_react);
	an_fd_bool(f, "other_senders_slow_down", others_react);
	an_fd_u64(f, "flows", h->deaf);
	an_fd_u64(f, "flows_judged", h->judged);
	char a[48];
	an_fd_summary(
	    f,
	    "%s receives CNPs and does not lower its rate (%llu of its %llu flows judged; "
	    "after a CNP their rate fell by %s %% (median)): its NIC's reaction "
	    "point is off.",
	    f->hosts.v[0], (unsigned long long)h->deaf, (unsigned long long)h->judged,
	    an_w_num(a, median, 1));
	an_fd_fix(f, "check ecn.rp on that host (and counters.cnp_handled)",
	          "Turn the reaction point on for the RoCE priority on %s: echo 1 > "
	          "/sys/class/net/NETDEV/ecn/roce_rp/enable/P on mlx5 (elsewhere the NIC's "
	          "DCQCN setting).",
	          f->hosts.v[0]);
}

static void slow(struct an_fd *l, const struct an_fd_ip *ip, const struct host *h, bool rp)
{
	const struct rt_results *r = l->r;
	struct rt_finding *f = an_fd_add(l, rp ? "slow_rp" : "slow_np", RT_SEV_WARNING, "medium");
	if (!f)
		return;
	char d[48], t[48];
	an_fd_host(f, ip->ipver, ip->ip);
	name_flows(r, f, ip, rp, rp ? slow_rp_flow : slow_np_flow, false);
	if (rp)
		rp_figures(l, f, ip, slow_rp_flow, false);
	double med = rp ? h->rp_median_max : h->np_median_max;
	an_fd_u64(f, "flows", rp ? h->slow_rp : h->slow_np);
	an_fd_u64(f, rp ? "cut_delay_median_ns" : "np_delay_median_ns", (uint64_t)med);
	an_fd_u64(f, "threshold_ns", rp ? SLOW_RP_NS : SLOW_NP_NS);
	if (rp) {
		an_fd_summary(f,
		              "%s cuts its rate %s after a CNP (median, the slowest of its flows): "
		              "NICs cut within a few us, over %s is slow.",
		              f->hosts.v[0], an_w_dur(d, (uint64_t)med), an_w_dur(t, SLOW_RP_NS));
		an_fd_fix(
		    f, "checks ecn.rp and counters.cnp_handled on that host",
		    "Check that the reaction point runs in the NIC and its DCQCN settings (mlx5: "
		    "/sys/class/net/NETDEV/ecn/roce_rp/, or cc_params in debugfs) and firmware.");
	} else {
		an_fd_summary(
		    f,
		    "%s's notification point answers CE marks %s late (median, the slowest "
		    "of the flows into it): NICs answer within a few us, over %s is slow.",
		    f->hosts.v[0], an_w_dur(d, (uint64_t)med), an_w_dur(t, SLOW_NP_NS));
		an_fd_fix(
		    f, "checks ecn.np and counters.cnp_sent on that host",
		    "Check that CNPs are made in the NIC (not in software) and its NP settings "
		    "(mlx5: /sys/class/net/NETDEV/ecn/roce_np/, np_min_time_between_cnps) and "
		    "firmware.");
	}
}

/*
 * Senders whose CNPs the capture could not measure (rp_hidden) and that no
 * flow judged, while other senders are seen to slow down: whether their RP
 * works cannot be told here (info). With no sender judged at all, nothing
 * sets them apart: their flows' rp_reaction says why it is null.
 */
static void rp_cannot_tell(struct an_fd *l, const struct host *h)
{
	struct rt_finding *f = NULL;
	uint64_t hosts = 0, flows = 0, cnps = 0;
	for (uint32_t i = 0; i < l->nhosts; i++) {
		if (!h[i].hidden || h[i].judged)
			continue;
		if (!f && !(f = an_fd_add(l, "rp_deaf", RT_SEV_INFO, NULL)))
			return;
		an_fd_host(f, l->host[i].ipver, l->host[i].ip);
		hosts++;
		flows += h[i].hidden;
		cnps += h[i].hidden_cnps;
	}
	if (!f)
		return;
	for (uint32_t id = 0; id < l->r->nflows; id++)
		if (rp_hidden(&l->r->flows[id]))
			an_fd_flow(f, &l->r->flows[id]);
	char a[32], who[256];
	an_fd_summary(f,
	              "Cannot tell whether %s lower%s the rate after %s CNPs: the capture point is "
	              "after the bottleneck (the link toward the receiver stayed full around the "
	              "CNPs, so the other senders filled what one gave up).",
	              an_fd_hosts_words(f, hosts, who), hosts == 1 ? "s" : "", an_w_int(a, cnps));
	an_fd_u64(f, "hosts", hosts);
	an_fd_u64(f, "flows", flows);
	an_fd_u64(f, "cnps", cnps);
	an_fd_text(f, "reason", "capture point after the bottleneck");
	an_fd_fix(f, "check ecn.rp on those hosts",
	          "Capture before the bottleneck (the senders' ports or their uplinks), where "
	          "each sender's own pacing shows, and analyze again.");
}

/* RoCE data Not-ECT: say what the capture shows of congestion instead. */
static void ecn_off(struct an_fd *l, const struct host *h)
{
	const struct rt_results *r = l->r;
	struct rt_finding *f = NULL;
	uint64_t not_ect = 0, all = 0, hosts = 0, data = 0;
	for (uint32_t i = 0; i < l->nhosts; i++)
		data += h[i].ecn_out;
	for (uint32_t i = 0; i < l->nhosts && data >= ECN_OFF_PACKETS; i++) {
		if (!h[i].ecn_out || h[i].not_ect_out * 2 <= h[i].ecn_out)
			continue;
		if (!f && !(f = an_fd_add(l, "ecn_off", RT_SEV_WARNING, NULL)))
			return;
		an_fd_host(f, l->host[i].ipver, l->host[i].ip);
		not_ect += h[i].not_ect_out;
		all += h[i].ecn_out;
		hosts++;
	}
	if (!f)
		return;
	uint64_t xoff = 0, paused = 0;
	for (unsigned c = 0; c < RT_AN_PFC_CLASSES; c++) {
		xoff += r->pfc[c].xoff;
		paused += r->pfc[c].paused_ns;
	}
	char a[32], b[32], c[32], d[48], e[32], g[32], k[32], who[256];
	an_fd_summary(f,
	              "RoCE data from %s is Not-ECT (%s of %s packets): no switch can mark it, so "
	              "DCQCN cannot slow its senders; congestion can show only as PFC pauses and "
	              "losses",
	              an_fd_hosts_words(f, hosts, who), an_w_int(a, not_ect), an_w_int(b, all));
	if (xoff || r->c.retransmitted || r->c.nak || r->gaps)
		rt_text_appendf(
		    f->summary, sizeof(f->summary),
		    ", and here it does: %s XOFF frames (paused %s), %s packets resent, %s "
		    "NAKs, %s PSN gaps.",
		    an_w_int(c, xoff), an_w_dur(d, paused), an_w_int(e, r->c.retransmitted),
		    an_w_int(g, r->c.nak), an_w_int(k, r->gaps));
	else
		rt_text_appendf(f->summary, sizeof(f->summary),
		                ", and this capture holds neither.");
	an_fd_u64(f, "hosts", hosts);
	an_fd_u64(f, "not_ect", not_ect);
	an_fd_u64(f, "packets", all);
	an_fd_u64(f, "pfc_xoff", xoff);
	an_fd_u64(f, "paused_ns", paused);
	an_fd_u64(f, "retransmitted", r->c.retransmitted);
	an_fd_u64(f, "naks", r->c.nak);
	an_fd_u64(f, "timeouts", r->timeouts);
	an_fd_u64(f, "psn_gaps", r->gaps);
	an_fd_fix(f, "check traffic.ecn (doctor --traffic) and rdma_cm.tos",
	          "Mark RoCE data ECN-capable, ECT(0): ToS 106 (DSCP 26 with ECT(0)) for rdma_cm "
	          "(default_roce_tos) or NCCL_IB_TC=106, with ECN marking on the switches' RoCE "
	          "queue and the NICs' NP and RP on.");
}

void an_fd_ecn(struct an_fd *l)
{
	const struct rt_results *r = l->r;
	struct host *h = calloc(l->nhosts ? l->nhosts : 1, sizeof(*h));
	if (!h) {
		l->err = -ENOMEM;
		return;
	}
	bool react = false;
	for (uint32_t id = 0; id < r->nflows; id++)
		react |= rp_reacts(&r->flows[id]);
	sum(l, h, react);
	bool answered = false;
	for (uint32_t i = 0; i < l->nhosts; i++)
		answered |= h[i].cnp_out > 0;
	for (uint32_t i = 0; i < l->nhosts; i++)
		if (h[i].ce_in >= NP_SILENT_MARKS && !h[i].cnp_out &&
		    (answered || h[i].last_ce - h[i].first_ce >= NP_SILENT_SPAN_NS))
			np_silent(l, &l->host[i], &h[i], answered);
	for (uint32_t i = 0; i < l->nhosts; i++)
		if (h[i].deaf && h[i].deaf * 2 > h[i].judged)
			rp_deaf_host(l, &l->host[i], &h[i], react);
	if (react)
		rp_cannot_tell(l, h);
	ecn_off(l, h);
	for (uint32_t i = 0; i < l->nhosts; i++) {
		if (h[i].slow_np)
			slow(l, &l->host[i], &h[i], false);
		if (h[i].slow_rp)
			slow(l, &l->host[i], &h[i], true);
	}
	free(h);
}

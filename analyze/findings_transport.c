/* Findings about the transport: losses recovered by the ACK timeout, RNR NAKs, NAK storms and losses. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/finding.h"
#include "analyze/hist.h"
#include "analyze/wording.h"
#include "common/outbuf.h"
#include "common/textfmt.h"

#define ACK_TIMEOUT_UNIT_NS 4096.0 /* the local ACK timeout is 4.096 us x 2^t */
/* a resend sooner after the flow went quiet (t < 4) is no ACK timer a NIC runs: a NAK not seen */
#define ACK_TIMEOUT_MIN_NS 65536ull
#define NAK_STORM_NAKS     10   /* a storm: at least this many go-back-N runs (NAKs), */
#define NAK_STORM_SHARE    0.01 /* ... and resends at least this share of the requests */

/* The RNR NAK timer field's minimum wait in ns (InfiniBand spec, "RNR NAK timer field encodings"). */
static uint64_t rnr_timer_ns(unsigned code)
{
	static const uint32_t us[32] = {
	    655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
	    480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
	    20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
	return (uint64_t)us[code & 31] * 1000;
}

/* The sender of flow f is host ip. */
static bool from(const struct rt_res_flow *f, const struct an_fd_ip *ip)
{
	return an_fd_same_ip(f->key.ipver, f->key.src, ip->ipver, ip->ip);
}

/*
 * Where the flows' packets were lost, when vantage points tell: the paths
 * their host pairs' packets took that lost some ("between A and B (N
 * lost)", into `text`), or that none did (before the first point or after
 * the last) when every packet on them was judged; some not judged and none
 * lost: it cannot tell. As the evidence lost_where (null without vantage
 * points, or with no packet judged).
 */
static void where_lost(struct rt_finding *f, const struct rt_results *r,
                       bool (*pick)(const struct rt_res_flow *, const void *), const void *ctx,
                       char text[200])
{
	unsigned seen[64] = {0}, nseen = 0;
	uint64_t judged = 0, unjudged = 0;
	const char *why = NULL;
	text[0] = 0;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!pick(fl, ctx))
			continue;
		for (unsigned k = 0; k < fl->npaths; k++) {
			const struct rt_res_path *p = &r->paths[fl->paths[k]];
			bool dup = false;
			for (unsigned s = 0; s < nseen; s++)
				dup |= seen[s] == fl->paths[k];
			if (dup || nseen == 64)
				continue;
			seen[nseen++] = fl->paths[k];
			judged += p->judged;
			unjudged += p->not_judged;
			if (p->not_judged && !why)
				why = p->not_judged_reason;
			if (p->lost)
				rt_text_appendf(text, 200, "%sbetween %s and %s (%llu lost)",
				                text[0] ? "; " : "", p->from, p->to,
				                (unsigned long long)p->lost);
		}
	}
	if (text[0])
		an_fd_text(f, "lost_where", "%s", text);
	else if (unjudged)
		an_fd_text(f, "lost_where",
		           "cannot tell: none lost between the vantage points of the %llu packets "
		           "judged, but %llu could not be judged (%s)",
		           (unsigned long long)judged, (unsigned long long)unjudged,
		           why ? why : "not seen where the other point was capturing");
	else if (judged)
		an_fd_text(f, "lost_where",
		           "not between the vantage points: before the first or "
		           "after the last");
	else
		an_fd_null(f, "lost_where");
}

/* The end of a summary: where the vantage points place the loss, when they do, and a period. */
static void summary_end(struct rt_finding *f, const char *where)
{
	if (where[0])
		rt_text_appendf(f->summary, sizeof(f->summary),
		                "; the vantage points place the loss %s", where);
	rt_text_appendf(f->summary, sizeof(f->summary), ".");
}

/* Resends after an idle wait as long as an ACK timer's. */
static bool timed_out(const struct rt_res_flow *f)
{
	return f->xport && f->xport->timeouts &&
	       f->xport->timeout_idle.median >= ACK_TIMEOUT_MIN_NS;
}

static bool timed_out_from(const struct rt_res_flow *f, const void *ip)
{
	return timed_out(f) && from(f, ip);
}

static void ack_timeout(struct an_fd *l, const struct an_fd_ip *ip)
{
	const struct rt_results *r = l->r;
	uint64_t n = 0, timeouts = 0, lo = UINT64_MAX, hi = 0, *med, k = 0;
	double stall = 0;
	for (uint32_t id = 0; id < r->nflows; id++)
		n += timed_out_from(&r->flows[id], ip);
	if (!(med = malloc(n * sizeof(*med)))) {
		l->err = -ENOMEM;
		return;
	}
	struct rt_finding *f = an_fd_add(l, "ack_timeout", RT_SEV_ERROR, "medium");
	for (uint32_t id = 0; f && id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!timed_out_from(fl, ip))
			continue;
		const struct rt_res_quantiles *q = &fl->xport->timeout_idle;
		timeouts += fl->xport->timeouts;
		lo = q->min < lo ? q->min : lo;
		hi = q->max > hi ? q->max : hi;
		med[k++] = q->median;
		stall += (double)q->mean * (double)q->samples;
		an_fd_flow(f, fl);
	}
	if (f) {
		uint64_t m = an_median_u64(med, k);
		int t = (int)lround(log2((double)m / ACK_TIMEOUT_UNIT_NS));
		t = t < 0 ? 0 : t > 31 ? 31 : t;
		uint64_t nominal = (uint64_t)(ACK_TIMEOUT_UNIT_NS * ldexp(1.0, t));
		char a[32], d[48], e[48], g[48], where[200];
		an_fd_host(f, ip->ipver, ip->ip);
		an_fd_summary(
		    f,
		    "%s recovers lost packets by its QPs' local ACK timeout: %s resend%s "
		    "after an idle wait of %s (median; t = %d: 4.096 us x 2^%d = %s), %s of "
		    "stall in all",
		    f->hosts.v[0], an_w_int(a, timeouts), timeouts == 1 ? "" : "s", an_w_dur(d, m),
		    t, t, an_w_dur(e, nominal), an_w_dur(g, (uint64_t)stall));
		an_fd_u64(f, "timeouts", timeouts);
		an_fd_u64(f, "flows", k);
		an_fd_u64(f, "wait_min_ns", lo);
		an_fd_u64(f, "wait_median_ns", m);
		an_fd_u64(f, "wait_max_ns", hi);
		an_fd_u64(f, "timeout_t", (uint64_t)t);
		an_fd_u64(f, "timeout_ns", nominal);
		an_fd_u64(f, "stall_ns", (uint64_t)stall);
		where_lost(f, r, timed_out_from, ip, where);
		summary_end(f, where);
		an_fd_fix(
		    f, "checks counters.seq_err and counters.discards",
		    "Stop the loss (see the other findings: a lossy priority, drops, a bad "
		    "link); while losses remain, each costs the QP its whole local ACK timeout "
		    "(t = %d here): lower it (ibv_modify_qp's timeout, NCCL_IB_TIMEOUT) so a "
		    "loss costs less.",
		    t);
	}
	free(med);
}

static bool rnr_to(const struct rt_res_flow *f, const void *ip)
{
	const struct an_fd_ip *h = ip;
	return f->xport && f->xport->rnr_naks_received &&
	       an_fd_same_ip(f->key.ipver, f->key.dst, h->ipver, h->ip);
}

static void rnr(struct an_fd *l, const struct an_fd_ip *ip)
{
	const struct rt_results *r = l->r;
	struct rt_finding *f = an_fd_add(l, "rnr", RT_SEV_WARNING, NULL);
	if (!f)
		return;
	uint64_t naks = 0, retries = 0, flows = 0, wait_max = 0;
	double stall = 0;
	unsigned timer = 0;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!rnr_to(fl, ip))
			continue;
		const struct rt_res_transport *x = fl->xport;
		flows++;
		naks += x->rnr_naks_received;
		retries += x->rnr_retries;
		timer = x->rnr_timer;
		stall += (double)x->rnr_wait.mean * (double)x->rnr_wait.samples;
		wait_max = x->rnr_wait.max > wait_max ? x->rnr_wait.max : wait_max;
		an_fd_flow(f, fl);
	}
	char a[32], d[48], e[48];
	an_fd_host(f, ip->ipver, ip->ip);
	an_fd_summary(f,
	              "%s's application posts receives too slowly: it sent %s RNR NAK%s "
	              "(receiver not ready; RNR timer %u = %s), and the senders waited %s in all "
	              "before retrying.",
	              f->hosts.v[0], an_w_int(a, naks), naks == 1 ? "" : "s", timer,
	              an_w_dur(d, rnr_timer_ns(timer)), an_w_dur(e, (uint64_t)stall));
	an_fd_u64(f, "rnr_naks", naks);
	an_fd_u64(f, "retries", retries);
	an_fd_u64(f, "flows", flows);
	an_fd_u64(f, "rnr_timer", timer);
	an_fd_u64(f, "rnr_timer_ns", rnr_timer_ns(timer));
	an_fd_u64(f, "stall_ns", (uint64_t)stall);
	an_fd_u64(f, "wait_max_ns", wait_max);
	an_fd_fix(f, "check counters.out_of_buffer on that host",
	          "Post receive buffers ahead of the messages on %s (a deeper receive queue, a "
	          "shared receive queue), or keep the senders from outrunning it; a smaller "
	          "min_rnr_timer shortens each wait.",
	          f->hosts.v[0]);
}

/* ---- losses: NAKs and go-back-N, silent gaps ---- */

/* The PSNs a flow lost, as far as the capture tells: its gaps when it is downstream, else one per NAK. */
static uint64_t lost_of(const struct rt_res_transport *x, bool *by_gaps)
{
	*by_gaps = x->gap_psns > 0;
	return x->gap_psns ? x->gap_psns : x->go_back_n ? x->go_back_n : x->naks_received;
}

static bool lossy_flow(const struct rt_res_flow *f)
{
	const struct rt_res_transport *x = f->xport;
	return an_fd_data_flow(f) && x && (x->go_back_n || x->gap_psns || x->naks_received);
}

static bool storm_flow(const struct rt_res_flow *f)
{
	const struct rt_res_transport *x = f->xport;
	return lossy_flow(f) && x->go_back_n >= NAK_STORM_NAKS &&
	       (double)x->retransmitted >= NAK_STORM_SHARE * (double)f->requests;
}

static bool pick_storm(const struct rt_res_flow *f, const void *want)
{
	return lossy_flow(f) && storm_flow(f) == *(const bool *)want;
}

static void losses(struct an_fd *l, bool storm)
{
	const struct rt_results *r = l->r;
	uint64_t flows = 0, naks = 0, gbn = 0, resent = 0, resent_bytes = 0, lost = 0, gaps = 0;
	for (uint32_t id = 0; id < r->nflows; id++) {
		const struct rt_res_flow *fl = &r->flows[id];
		if (!pick_storm(fl, &storm))
			continue;
		const struct rt_res_transport *x = fl->xport;
		bool by_gaps;
		uint64_t lp = lost_of(x, &by_gaps);
		flows++;
		naks += x->naks_received;
		gbn += x->go_back_n;
		resent += x->retransmitted;
		resent_bytes += x->retransmitted_bytes;
		lost += lp;
		gaps += by_gaps;
	}
	if (!flows)
		return;
	/* gaps the capture itself may have made: frames it dropped, or a flow's own packets it put
	 * out of time order (the warning's flows; other disorder makes no gap) */
	const struct rt_an_warning *tw = an_fd_warning(r, "time_backwards");
	bool drops = r->drops_source && r->if_dropped + r->os_dropped > 0,
	     backwards = tw && an_fd_warning_value(tw, "flows") > 0;
	struct rt_finding *f =
	    an_fd_add(l, storm ? "nak_storm" : "loss", storm ? RT_SEV_ERROR : RT_SEV_WARNING,
	              drops || backwards ? "low" : NULL);
	if (!f)
		return;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t id = 0; id < r->nflows; id++) {
			const struct rt_res_flow *fl = &r->flows[id];
			if (pick_storm(fl, &storm) && (fl->xport->retransmitted > 0) == !pass) {
				an_fd_flow(f, fl);
				an_fd_host(f, fl->key.ipver, fl->key.src);
			}
		}
	/* a resend copies a packet sent before: packets resent per packet lost is bytes per byte */
	double amp = lost ? (double)resent / (double)lost : NAN;
	double secs = r->end_ns > r->start_ns ? (double)(r->end_ns - r->start_ns) / 1e9 : NAN;
	char a[32], b[32], c[32], d[48], e[32];
	an_fd_summary(f, "%s %s flow%s lost %s packet%s (%s) and resent %s after %s NAK%s%s",
	              storm ? "NAK storm:" : "Loss:", an_w_int(a, flows), flows == 1 ? "" : "s",
	              an_w_int(b, lost), lost == 1 ? "" : "s",
	              gaps == flows ? "PSN gaps seen here" : "at least one per NAK",
	              an_w_int(c, resent), an_w_int(e, naks), naks == 1 ? "" : "s",
	              drops       ? " (the capture dropped frames too: some gaps may be those)"
	              : backwards ? " (the capture's time goes backwards: some gaps and resends "
	                            "may be frames it put out of order)"
	                          : "");
	if (isfinite(amp))
		rt_text_appendf(f->summary, sizeof(f->summary),
		                ": go-back-N resent %s packets (as many bytes) per one lost",
		                an_w_num(d, amp, 1));
	an_fd_u64(f, "flows", flows);
	an_fd_u64(f, "naks", naks);
	an_fd_u64(f, "go_back_n", gbn);
	an_fd_u64(f, "lost_packets", lost);
	an_fd_text(f, "lost_from", gaps == flows ? "gaps" : gaps ? "gaps and naks" : "naks");
	an_fd_u64(f, "resent_packets", resent);
	an_fd_u64(f, "resent_bytes", resent_bytes);
	an_fd_real(f, "amplification", amp);
	an_fd_real(f, "naks_per_s", isfinite(secs) && secs > 0 ? (double)naks / secs : NAN);
	char where[200];
	where_lost(f, r, pick_storm, &storm, where);
	summary_end(f, where);
	an_fd_fix(f, "checks counters.seq_err, counters.discards and pfc.enabled",
	          "A lossless fabric loses nothing: find where these packets drop (a priority PFC "
	          "does not pause, full buffers, a bad link or optic: CRC errors on the switch "
	          "ports), since go-back-N resends everything after each loss.");
}

/* Each host whose flows `pick` chooses (as their sender when `src`, else their receiver) once, to `rule`. */
static void per_host(struct an_fd *l, bool (*pick)(const struct rt_res_flow *), bool src,
                     void (*rule)(struct an_fd *, const struct an_fd_ip *))
{
	const struct rt_results *r = l->r;
	bool *mark = calloc(l->nhosts ? l->nhosts : 1, sizeof(*mark));
	if (!mark) {
		l->err = -ENOMEM;
		return;
	}
	for (uint32_t id = 0; id < r->nflows; id++)
		if (pick(&r->flows[id]))
			mark[src ? l->src[id] : l->dst[id]] = true;
	for (uint32_t i = 0; i < l->nhosts; i++)
		if (mark[i])
			rule(l, &l->host[i]);
	free(mark);
}

static bool rnr_naked(const struct rt_res_flow *f)
{
	return f->xport && f->xport->rnr_naks_received;
}

void an_fd_transport(struct an_fd *l)
{
	per_host(l, timed_out, true, ack_timeout);
	per_host(l, rnr_naked, false, rnr);
	losses(l, true);
	losses(l, false);
}

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

/* A stall summed from the flows' means, in ns: saturated, as a partial's figures may be anything. */
static uint64_t stall_ns(double v)
{
	return v < 0x1p64 ? (uint64_t)v : UINT64_MAX;
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
		    t, t, an_w_dur(e, nominal), an_w_dur(g, stall_ns(stall)));
		an_fd_u64(f, "timeouts", timeouts);
		an_fd_u64(f, "flows", k);
		an_fd_u64(f, "wait_min_ns", lo);
		an_fd_u64(f, "wait_median_ns", m);
		an_fd_u64(f, "wait_max_ns", hi);
		an_fd_u64(f, "timeout_t", (uint64_t)t);
		an_fd_u64(f, "timeout_ns", nominal);
		an_fd_u64(f, "stall_ns", stall_ns(stall));
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
	              an_w_dur(d, rnr_timer_ns(timer)), an_w_dur(e, stall_ns(stall)));
	an_fd_u64(f, "rnr_naks", naks);
	an_fd_u64(f, "retries", retries);
	an_fd_u64(f, "flows", flows);
	an_fd_u64(f, "rnr_timer", timer);
	an_fd_u64(f, "rnr_timer_ns", rnr_timer_ns(timer));
	an_fd_u64(f, "stall_ns", stall_ns(stall));
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

/*
 * The most packets of a flow's host pair (this way) one of its vantage paths
 * lost; *home_after: its home point is upstream of such a path (the packets
 * lost were seen at its home: no gap there says them), else downstream.
 */
static uint64_t path_lost(const struct rt_results *r, const struct rt_res_flow *f, bool *home_after)
{
	uint64_t most = 0;
	*home_after = false;
	for (unsigned k = 0; k < f->npaths && f->path_lost; k++) {
		const struct rt_res_path *p = &r->paths[f->paths[k]];
		if (f->path_lost[k] > most)
			most = f->path_lost[k];
		if (f->path_lost[k] && f->followed_at && !strcmp(f->followed_at, p->from))
			*home_after = true;
	}
	return most;
}

static bool lossy_flow(const struct rt_results *r, const struct rt_res_flow *f)
{
	const struct rt_res_transport *x = f->xport;
	bool after;
	return an_fd_data_flow(f) && ((x && (x->go_back_n || x->gap_psns || x->naks_received)) ||
	                              path_lost(r, f, &after));
}

static bool storm_flow(const struct rt_results *r, const struct rt_res_flow *f)
{
	const struct rt_res_transport *x = f->xport;
	return lossy_flow(r, f) && x && x->go_back_n >= NAK_STORM_NAKS &&
	       (double)x->retransmitted >= NAK_STORM_SHARE * (double)f->requests;
}

struct storm_pick {
	const struct rt_results *r;
	bool storm;
};

static bool pick_storm(const struct rt_res_flow *f, const void *ctx)
{
	const struct storm_pick *p = ctx;
	return lossy_flow(p->r, f) && storm_flow(p->r, f) == p->storm;
}

/* How a loss was measured (loss_sum.from) */
enum { LOST_GAPS = 1, LOST_NAKS = 2, LOST_PATHS = 4 };

/* The losses of the flows a rule picks, summed. */
struct loss_sum {
	uint64_t flows, naks, gbn, resent, resent_bytes, lost, between;
	unsigned from; /* LOST_* */
};

/* A picked flow's id by its host pair, one way (host indexes). */
struct pair_flow {
	uint64_t pair;
	uint32_t id;
};

static int by_host_pair(const void *a, const void *b)
{
	const struct pair_flow *x = a, *y = b;
	if (x->pair != y->pair)
		return x->pair < y->pair ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The packets the flows of one host pair (one way: v[0..n)) lost. Their PSN
 * gaps (or NAKs) are counted at each flow's home point; the vantage paths
 * place the host pair's losses between two points whichever is home, once
 * for all its QPs. With every home upstream of the paths that lost packets,
 * their gaps are losses before it and the paths' come on top; else the gaps
 * hold the paths' losses too: the larger of the two.
 */
static void pair_losses(const struct rt_results *r, const struct pair_flow *v, uint32_t n,
                        struct loss_sum *s)
{
	uint64_t gaps = 0, naks = 0, between = 0;
	bool upstream = true;
	for (uint32_t i = 0; i < n; i++) {
		const struct rt_res_flow *fl = &r->flows[v[i].id];
		const struct rt_res_transport *x = fl->xport;
		bool by_gaps, after;
		uint64_t p = path_lost(r, fl, &after);
		if (p) {
			between = p > between ? p : between;
			upstream &= after;
		}
		s->flows++;
		if (!x)
			continue;
		uint64_t lp = lost_of(x, &by_gaps);
		*(by_gaps ? &gaps : &naks) += lp;
		s->naks += x->naks_received;
		s->gbn += x->go_back_n;
		s->resent += x->retransmitted;
		s->resent_bytes += x->retransmitted_bytes;
	}
	uint64_t seen = gaps + naks;
	s->between += between;
	if (!between || upstream) {
		s->lost += seen + between;
		s->from |=
		    (gaps ? LOST_GAPS : 0) | (naks ? LOST_NAKS : 0) | (between ? LOST_PATHS : 0);
		return;
	}
	s->lost += seen > between ? seen : between;
	s->from |= LOST_PATHS | (gaps > between ? LOST_GAPS : 0) |
	           (naks && seen > between ? LOST_NAKS : 0);
}

/* The losses of the flows `pick` chooses, host pair by host pair. 0, or -ENOMEM. */
static int loss_sums(const struct an_fd *l, const struct storm_pick *pick, struct loss_sum *s)
{
	const struct rt_results *r = l->r;
	memset(s, 0, sizeof(*s));
	struct pair_flow *v = malloc((r->nflows ? r->nflows : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t id = 0; id < r->nflows; id++)
		if (pick_storm(&r->flows[id], pick))
			v[n++] = (struct pair_flow){(uint64_t)l->src[id] << 32 | l->dst[id], id};
	qsort(v, n, sizeof(*v), by_host_pair);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].pair == v[i].pair;)
			j++;
		pair_losses(r, v + i, j - i, s);
	}
	free(v);
	return 0;
}

/* What the losses rest on, in words: for the summary, and as lost_from. */
static void loss_words(unsigned from, char *how, size_t how_size, char *key, size_t key_size)
{
	static const char *const phrase[] = {"PSN gaps seen here", "at least one per NAK",
	                                     "seen at one vantage point, never at the next"};
	static const char *const name[] = {"gaps", "naks", "paths"};
	how[0] = key[0] = 0;
	for (unsigned k = 0; k < 3; k++)
		if (from & 1u << k) {
			rt_text_appendf(how, how_size, "%s%s", how[0] ? "; " : "", phrase[k]);
			rt_text_appendf(key, key_size, "%s%s", key[0] ? " and " : "", name[k]);
		}
}

static void losses(struct an_fd *l, bool storm)
{
	const struct rt_results *r = l->r;
	struct storm_pick pick = {r, storm};
	struct loss_sum s;
	if (loss_sums(l, &pick, &s) < 0) {
		l->err = -ENOMEM;
		return;
	}
	if (!s.flows)
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
			const struct rt_res_transport *x = fl->xport;
			if (pick_storm(fl, &pick) && (x && x->retransmitted > 0) == !pass) {
				an_fd_flow(f, fl);
				an_fd_host(f, fl->key.ipver, fl->key.src);
			}
		}
	/* a resend copies a packet sent before: packets resent per packet lost is bytes per byte */
	double amp = s.lost ? (double)s.resent / (double)s.lost : NAN;
	double secs = r->end_ns > r->start_ns ? (double)(r->end_ns - r->start_ns) / 1e9 : NAN;
	char a[32], b[32], c[32], d[48], e[32], how[160], key[32];
	loss_words(s.from, how, sizeof(how), key, sizeof(key));
	an_fd_summary(f, "%s %s flow%s lost %s packet%s (%s) and resent %s after %s NAK%s%s",
	              storm ? "NAK storm:" : "Loss:", an_w_int(a, s.flows), s.flows == 1 ? "" : "s",
	              an_w_int(b, s.lost), s.lost == 1 ? "" : "s", how, an_w_int(c, s.resent),
	              an_w_int(e, s.naks), s.naks == 1 ? "" : "s",
	              drops && (s.from & LOST_PATHS)
	                  ? " (the capture dropped frames too: some packets missing downstream may "
	                    "be those, not lost in the network)"
	              : drops     ? " (the capture dropped frames too: some gaps may be those)"
	              : backwards ? " (the capture's time goes backwards: some gaps and resends "
	                            "may be frames it put out of order)"
	                          : "");
	if (isfinite(amp) && s.resent)
		rt_text_appendf(f->summary, sizeof(f->summary),
		                ": go-back-N resent %s packets (as many bytes) per one lost",
		                an_w_num(d, amp, 1));
	an_fd_u64(f, "flows", s.flows);
	an_fd_u64(f, "naks", s.naks);
	an_fd_u64(f, "go_back_n", s.gbn);
	an_fd_u64(f, "lost_packets", s.lost);
	an_fd_text(f, "lost_from", "%s", key);
	an_fd_u64(f, "lost_between_points", s.between);
	an_fd_u64(f, "resent_packets", s.resent);
	an_fd_u64(f, "resent_bytes", s.resent_bytes);
	an_fd_real(f, "amplification", amp);
	an_fd_real(f, "naks_per_s", isfinite(secs) && secs > 0 ? (double)s.naks / secs : NAN);
	char where[200];
	where_lost(f, r, pick_storm, &pick, where);
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

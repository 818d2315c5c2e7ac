/* DCQCN reactions seen on the wire: NP (CE mark -> CNP under CNP rate limiting) and RP (sending rate around a CNP). */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

/* ---- NP: which CE mark a CNP answers ----
 *
 * A notification point answers a CE-marked packet with a CNP after its own
 * delay, at most one CNP per QP per interval: marks that arrive while its
 * limiter is closed get none. So "the first CE mark after the previous CNP"
 * measures the limiter, not the NIC. Instead, every CNP votes for its lag to
 * each CE mark within reach (the flow's last AN_NP_RING marks before it): the
 * lag to the mark that triggered it is the NP's delay, CNP after CNP, while
 * the lags to the other marks spread out. The lag bin with the most votes per
 * nanosecond holds the NP's delay, and each CNP answers the mark nearest to
 * that lag before it that no other CNP answered. Until one bin has
 * AN_NP_MIN_VOTES votes, a CNP answers the mark nearest to its predecessor's
 * lag; the first CNP, the oldest mark.
 *
 * The CNPs also give the limiter's interval: the spacing of consecutive CNPs
 * with at least two CE marks between them (marking went on, so the limiter
 * set the pace), a low quantile of it.
 */
_Static_assert(AN_NP_RING <= 64, "answered_slots holds one bit per CE mark within reach");

#define AN_NP_MIN_VOTES 4
#define AN_NP_FLOOR_NS 64 /* a bin narrower than this counts its votes per this width */
#define AN_NP_LIMITED_MIN 20 /* 1/20 of the marks held back before the interval counts as learned */

static unsigned lag_bin(uint64_t v)
{
	if (v < AN_NP_SUB)
		return (unsigned)v;
	unsigned o = 63u - (unsigned)__builtin_clzll(v);
	return AN_NP_SUB + (o - 4u) * AN_NP_SUB + (unsigned)((v >> (o - 4u)) & (AN_NP_SUB - 1));
}

static uint64_t bin_width(unsigned b)
{
	return b < AN_NP_SUB ? 1 : 1ull << ((b - AN_NP_SUB) / AN_NP_SUB);
}

static uint64_t bin_center(unsigned b)
{
	if (b < AN_NP_SUB)
		return b;
	unsigned o = (b - AN_NP_SUB) / AN_NP_SUB + 4u, sub = (b - AN_NP_SUB) % AN_NP_SUB;
	return ((uint64_t)(AN_NP_SUB + sub) << (o - 4u)) + bin_width(b) / 2;
}

/* The width (ns) bin b's votes are counted over: its own, at least AN_NP_FLOOR_NS. */
static uint64_t bin_floor_width(unsigned b)
{
	uint64_t w = bin_width(b);
	return w < AN_NP_FLOOR_NS ? AN_NP_FLOOR_NS : w;
}

/* Bin a holds more votes per ns than bin b. */
static bool denser(const struct an_np_votes *v, unsigned a, unsigned b)
{
	return (uint64_t)v->votes[a] * bin_floor_width(b) > (uint64_t)v->votes[b] * bin_floor_width(a);
}

static void vote(struct an_np_votes *v, uint64_t lag)
{
	if (lag >> 32)
		return;
	unsigned b = lag_bin(lag);
	if (v->votes[b] == UINT16_MAX) /* halve them all: the densities keep their order */
		for (unsigned i = 0; i < AN_NP_BINS; i++)
			v->votes[i] /= 2;
	v->votes[b]++;
	if (b != v->peak && denser(v, b, v->peak))
		v->peak = b;
}

void an_np_ce(struct an_flow_ext *e, uint64_t ts, uint64_t frame)
{
	struct an_np *np = e->np;
	if (!np && !(np = e->np = calloc(1, sizeof(*np))))
		return;
	unsigned i = (unsigned)(np->ce_n % AN_NP_RING);
	np->ce_ts[i] = ts;
	np->answered_slots &= ~(1ull << i);
	if (frame && !np->ce_frame)
		np->ce_frame = calloc(AN_NP_RING, sizeof(*np->ce_frame));
	if (np->ce_frame)
		np->ce_frame[i] = frame;
	np->ce_n++;
}

uint64_t an_np_cnp(struct an_flow_ext *e, uint64_t ts)
{
	uint64_t prev = e->last_cnp_ts;
	if (!e->first_cnp_ts)
		e->first_cnp_ts = ts;
	if (ts > e->last_cnp_ts)
		e->last_cnp_ts = ts;
	struct an_np *np = e->np;
	if (!np || !np->ce_n) {
		e->cnp_without_ce++;
		return 0;
	}
	if (!np->v)
		np->v = calloc(1, sizeof(*np->v));
	struct an_np_votes *v = np->v;
	if (v && prev && ts > prev && np->ce_n - np->ce_at_cnp >= 2)
		v->gap[v->ngaps++ % AN_NP_GAPS] = ts - prev;
	np->ce_at_cnp = np->ce_n;

	uint64_t lo = np->ce_n > AN_NP_RING ? np->ce_n - AN_NP_RING : 0;
	if (v)
		for (uint64_t n = lo; n < np->ce_n; n++)
			if (np->ce_ts[n % AN_NP_RING] <= ts)
				vote(v, ts - np->ce_ts[n % AN_NP_RING]);
	/*
	 * Where the answered mark should be: at the voted lag; before the votes agree, at the
	 * previous CNP's lag (the first CNP: the oldest mark not answered yet).
	 */
	bool oldest = false;
	uint64_t lag = 0;
	if (v && v->votes[v->peak] >= AN_NP_MIN_VOTES)
		lag = bin_center(v->peak);
	else if (np->trig)
		lag = np->last_lag;
	else
		oldest = true;
	uint64_t target = ts > lag ? ts - lag : 0, best = UINT64_MAX, best_d = UINT64_MAX;
	uint64_t any = UINT64_MAX, any_d = UINT64_MAX;
	for (uint64_t n = lo; n < np->ce_n; n++) {
		uint64_t t = np->ce_ts[n % AN_NP_RING];
		if (t > ts)
			continue;
		uint64_t d = oldest ? 0 : t > target ? t - target : target - t;
		if (np->answered_slots >> (n % AN_NP_RING) & 1) {
			if (d < any_d) {
				any_d = d;
				any = n;
			}
		} else if (d < best_d) {
			best_d = d;
			best = n;
		}
	}
	/*
	 * A mark answers one CNP; but when a mark already answered fits the voted lag much
	 * better than any other, an earlier CNP took it by mistake: this CNP answers it too,
	 * so one mistake does not shift every later CNP by a mark.
	 */
	if (lag && any != UINT64_MAX && (best == UINT64_MAX || 2 * any_d + AN_NP_FLOOR_NS < best_d) &&
	    v && v->votes[v->peak] >= AN_NP_MIN_VOTES) {
		best = any;
		best_d = any_d;
	}
	if (best == UINT64_MAX) { /* no mark within reach before the CNP */
		e->cnp_without_ce++;
		return 0;
	}
	uint64_t t = np->ce_ts[best % AN_NP_RING];
	bool again = np->answered_slots >> (best % AN_NP_RING) & 1;
	np->answered_slots |= 1ull << (best % AN_NP_RING);
	np->last_lag = ts - t;
	an_hist_addp(&e->np_reaction, ts - t);
	if (again)
		return np->ce_frame ? np->ce_frame[best % AN_NP_RING] : 0;
	np->answered++;
	if (best + 1 > np->trig) {
		if (np->trig) /* the marks since the previous answered one: held back by the limiter */
			np->rate_limited += best - np->trig;
		else
			np->first_answer = best;
		np->trig = best + 1;
		np->trig_ts = t;
	} else if (best > np->first_answer && np->rate_limited) {
		np->rate_limited--; /* counted as held back when a later mark was answered first */
	}
	return np->ce_frame ? np->ce_frame[best % AN_NP_RING] : 0;
}

void an_np_settle(struct an_flow_ext *de, struct an_flow_ext *ce)
{
	uint32_t nce = de->ce_log ? de->ce_log_n : 0, ncnp = ce && ce->cnp_log ? ce->cnp_log_n : 0;
	/* all CE marks so far were logged unless the log filled up; CNPs past its end are not sampled */
	uint64_t covered = de->ce_data == nce || !nce ? UINT64_MAX : de->ce_log[nce - 1];
	uint32_t i = 0, j = 0;
	while (i < nce || j < ncnp) {
		if (i < nce && (j == ncnp || de->ce_log[i] <= ce->cnp_log[j])) {
			an_np_ce(de, de->ce_log[i], de->ce_log_frame ? de->ce_log_frame[i] : 0);
			i++;
			continue;
		}
		uint64_t t = ce->cnp_log[j++];
		if (t <= covered) {
			an_np_cnp(de, t);
		} else {
			if (!de->first_cnp_ts)
				de->first_cnp_ts = t;
			if (t > de->last_cnp_ts)
				de->last_cnp_ts = t;
		}
	}
}

bool an_np_interval(const struct an_flow_ext *e, uint64_t *ns)
{
	const struct an_np *np = e->np;
	if (!np || !np->v || np->v->ngaps < 3 || !np->rate_limited ||
	    np->rate_limited * AN_NP_LIMITED_MIN < np->answered + np->rate_limited)
		return false;
	uint64_t g[AN_NP_GAPS];
	uint32_t k = np->v->ngaps < AN_NP_GAPS ? np->v->ngaps : AN_NP_GAPS;
	memcpy(g, np->v->gap, k * sizeof(g[0]));
	/* the 10th percentile (nearest rank) by insertion sort: at most 32 values */
	for (uint32_t a = 1; a < k; a++)
		for (uint32_t b = a; b > 0 && g[b - 1] > g[b]; b--) {
			uint64_t x = g[b];
			g[b] = g[b - 1];
			g[b - 1] = x;
		}
	*ns = g[(k + 9) / 10 - 1];
	return true;
}

void an_np_finish(struct an_flow_ext *e)
{
	struct an_np *np = e->np;
	uint64_t iv;
	if (!np || !np->trig || !an_np_interval(e, &iv))
		return;
	/* marks after the last answered one, within the interval of it: the limiter held them back */
	uint64_t lo = np->ce_n > AN_NP_RING ? np->ce_n - AN_NP_RING : 0, until = np->trig_ts + iv;
	if (lo < np->trig)
		lo = np->trig;
	else if (lo > np->trig && np->ce_ts[lo % AN_NP_RING] < until)
		np->rate_limited += lo - np->trig; /* gone from the ring, all earlier still */
	for (uint64_t n = lo; n < np->ce_n; n++)
		if (np->ce_ts[n % AN_NP_RING] < until)
			np->rate_limited++;
}

uint64_t an_np_unanswered(const struct an_flow_ext *e)
{
	uint64_t done = e->np ? e->np->answered + e->np->rate_limited : 0;
	return e->ce_data > done ? e->ce_data - done : 0;
}

/* ---- RP: the sending rate before a CNP against the slowest rate after it ----
 *
 * A rate is measured over AN_RP_GAPS gaps between the flow's packets (each
 * packet's length, at most 65535, over the gap after it), so the windows adapt to
 * the flow's packet spacing, and a window lasts at most --rate-window: one
 * emptier than that says nothing about the sender. Before
 * the CNP: the last AN_RP_GAPS gaps. After it: every window of AN_RP_GAPS gaps
 * whose packets all came after the CNP and within --rate-window of it; the
 * slowest one is the sender's reaction, wherever the path and its queues
 * delayed it. No window reaches across another CNP: a CNP without a window
 * on both sides goes unmeasured, and says why.
 */

/*
 * The sending rate (bit/s) over the flow's last AN_RP_GAPS gaps, the newest packet at
 * `newest`, if they all came after `after` and span at most w; else -1.
 */
static double ring_rate(const struct an_flow *f, uint64_t newest, uint64_t after, uint64_t w)
{
	uint64_t span = 0, bytes = 0;
	for (unsigned i = 0; i < AN_RP_GAPS; i++) {
		span += f->rp_dt[i];
		bytes += f->rp_len[i];
	}
	if (!span || span > w || span >= newest || newest - span <= after || !bytes)
		return -1;
	return (double)bytes * 8e9 / (double)span;
}

/* The after windows are over: a drop measured from the slowest, or why none was. */
static void rp_end_after(struct an_flow_ext *e, bool next_cnp)
{
	if (!e->rp_windows) {
		if (next_cnp)
			e->rp_cnp_in_window++;
		else
			e->rp_few++;
		return;
	}
	double drop = 100.0 * (1.0 - e->rp_min_bps / e->rp_before_bps);
	if (!e->rp_measured++ || drop > e->rp_drop_max)
		e->rp_drop_max = drop;
	e->rp_drop_sum += drop;
}

void an_rp_cnp(struct rt_analyzer *an, struct an_flow *f, uint64_t ts)
{
	struct an_flow_ext *e = f->ext;
	uint64_t prev = e->rp_cnp_ts;
	e->rp_cnps++;
	if (f->rp_phase == AN_RP_AFTER)
		rp_end_after(e, true);
	if (f->rp_phase && e->rp_dipped && !e->rp_back)
		e->rp_interrupted++;
	f->rp_phase = 0;
	e->rp_cnp_ts = ts;
	/* the rate before: the last AN_RP_GAPS gaps, all within the window before the CNP */
	double before = f->packets > AN_RP_GAPS && ts >= f->last_ts ? ring_rate(f, f->last_ts, 0, UINT64_MAX) : -1;
	uint64_t span = 0;
	for (unsigned i = 0; i < AN_RP_GAPS; i++)
		span += f->rp_dt[i];
	if (before < 0 || ts - f->last_ts + span > an->o.rate_window_ns) {
		e->rp_few++;
		return;
	}
	if (prev && f->last_ts - span <= prev) {
		e->rp_cnp_in_window++;
		return;
	}
	e->rp_before_bps = before;
	e->rp_windows = 0;
	e->rp_dipped = e->rp_back = false;
	f->rp_phase = AN_RP_AFTER;
}

void an_rp_tick(struct rt_analyzer *an, struct an_flow *f, uint64_t ts)
{
	struct an_flow_ext *e = f->ext;
	uint64_t cnp = e->rp_cnp_ts, w = an->o.rate_window_ns;
	if (ts < cnp)
		return;
	if (f->rp_phase == AN_RP_AFTER && ts - cnp > w) {
		rp_end_after(e, false);
		f->rp_phase = e->rp_windows && e->rp_dipped && !e->rp_back ? AN_RP_RECOVER : 0;
	}
	if (!f->rp_phase || ts - cnp > 100 * w) {
		f->rp_phase = 0;
		return;
	}
	double rate = f->packets >= AN_RP_GAPS ? ring_rate(f, ts, cnp, w) : -1;
	if (rate < 0)
		return;
	if (f->rp_phase == AN_RP_AFTER && (!e->rp_windows++ || rate < e->rp_min_bps))
		e->rp_min_bps = rate;
	/* recovery: back to 90% of the rate before, after having been below it */
	if (rate * 10.0 < e->rp_before_bps * 9.0) {
		e->rp_dipped = true;
	} else if (e->rp_dipped && !e->rp_back) {
		e->rp_back = true;
		e->rp_recovered++;
		an_hist_addp(&e->recover, ts - cnp);
		if (f->rp_phase == AN_RP_RECOVER)
			f->rp_phase = 0;
	}
}

void an_rp_finish(struct an_flow *f)
{
	if (f->rp_phase == AN_RP_AFTER)
		rp_end_after(f->ext, false);
	f->rp_phase = 0;
}

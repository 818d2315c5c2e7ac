/* DCQCN reactions seen on the wire: the NP (CE mark -> CNP under CNP rate limiting); the RP is analyze/rp.c. */
#include "analyze/reaction.h"

#include <stdlib.h>
#include <string.h>

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
 *
 * Memory follows what a flow shows: the marks are kept in a ring that grows
 * to AN_NP_RING, the votes in a table that grows to the highest lag bin voted
 * for, and until the flow is paired only logs of times, grown as they fill.
 */
_Static_assert(AN_NP_RING <= 64, "answered_slots holds one bit per CE mark within reach");

#define AN_NP_MIN_VOTES   4
#define AN_NP_FLOOR_NS    64 /* a bin narrower than this counts its votes per this width */
#define AN_NP_LIMITED_MIN 20 /* 1/20 of the marks held back before the interval counts as learned */
#define AN_TLOG_FIRST     4u

struct an_np *an_np_of(struct an_flow *f)
{
	if (!f->np)
		f->np = calloc(1, sizeof(*f->np));
	return f->np;
}

static void tlog_free(struct an_tlog *l)
{
	free(l->ts);
	free(l->frame);
	memset(l, 0, sizeof(*l));
}

/* Append ts (and frame, once one is known) to a log of at most AN_PENDING_LOG entries. */
static void tlog_add(struct an_tlog *l, uint64_t ts, uint64_t frame)
{
	if (l->n == AN_PENDING_LOG)
		return;
	if (l->n == l->cap) {
		uint32_t ncap = l->cap ? l->cap * 2 : AN_TLOG_FIRST;
		uint64_t *nt = realloc(l->ts, ncap * sizeof(*nt));
		if (!nt)
			return;
		l->ts = nt;
		if (l->frame) {
			uint64_t *nf = realloc(l->frame, ncap * sizeof(*nf));
			if (!nf)
				return;
			l->frame = nf;
		}
		l->cap = ncap;
	}
	if (frame && !l->frame)
		l->frame =
		    calloc(l->cap, sizeof(*l->frame)); /* the entries before it: no frame known */
	if (l->frame)
		l->frame[l->n] = frame;
	l->ts[l->n++] = ts;
}

static void hist_free(struct an_np_hist *h)
{
	if (!h)
		return;
	an_sring_free(&h->ce_ts);
	an_sring_free(&h->ce_frame);
	an_sring_free(&h->gaps);
	free(h->votes);
	free(h);
}

void an_np_free(struct an_np *np)
{
	if (!np)
		return;
	tlog_free(&np->ce_log);
	tlog_free(&np->cnp_log);
	free(np->reaction);
	hist_free(np->h);
	free(np);
}

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

static uint64_t votes_of(const struct an_np_hist *h, unsigned b)
{
	return b < h->nbins ? h->votes[b] : 0;
}

/* Bin a holds more votes per ns than bin b. */
static bool denser(const struct an_np_hist *h, unsigned a, unsigned b)
{
	return votes_of(h, a) * bin_floor_width(b) > votes_of(h, b) * bin_floor_width(a);
}

/* Room for bin b in the vote table (it grows geometrically up to every bin); false when out of memory. */
static bool votes_room(struct an_np_hist *h, unsigned b)
{
	if (b < h->nbins)
		return true;
	uint32_t n = h->nbins ? h->nbins * 2 : 64;
	if (n <= b)
		n = b + 1;
	if (n > AN_NP_BINS)
		n = AN_NP_BINS;
	uint16_t *nv = realloc(h->votes, n * sizeof(*nv));
	if (!nv)
		return false;
	memset(nv + h->nbins, 0, (n - h->nbins) * sizeof(*nv));
	h->votes = nv;
	h->nbins = n;
	return true;
}

static void vote(struct an_np_hist *h, uint64_t lag)
{
	if (lag >> 32)
		return;
	unsigned b = lag_bin(lag);
	if (!votes_room(h, b))
		return;
	if (h->votes[b] == UINT16_MAX) /* halve them all: the densities keep their order */
		for (unsigned i = 0; i < h->nbins; i++)
			h->votes[i] /= 2;
	h->votes[b]++;
	if (b != h->peak && denser(h, b, h->peak))
		h->peak = b;
}

static struct an_np_hist *hist_of(struct an_np *np)
{
	if (!np->h && (np->h = calloc(1, sizeof(*np->h)))) {
		an_sring_init(&np->h->ce_ts, AN_NP_RING);
		an_sring_init(&np->h->ce_frame, AN_NP_RING);
		an_sring_init(&np->h->gaps, AN_NP_GAPS);
	}
	return np->h;
}

/* The frame of mark n, 0 when not known. */
static uint64_t mark_frame(const struct an_np_hist *h, uint64_t n)
{
	return h->ce_frame.v && an_sring_held(&h->ce_frame, n) ? *an_sring_at(&h->ce_frame, n) : 0;
}

void an_np_ce(struct an_np *np, uint64_t ts, uint64_t frame)
{
	struct an_np_hist *h = hist_of(np);
	if (!h)
		return;
	uint64_t n = h->ce_ts.next;
	if (an_sring_push(&h->ce_ts, ts) < 0)
		return;
	h->answered_slots &= ~(1ull << (n % AN_NP_RING));
	if (frame || h->ce_frame.v) {
		if (!h->ce_frame
		         .v) /* the first frame asked for: the ring of frames starts at this mark */
			h->ce_frame.next = n;
		if (an_sring_push(&h->ce_frame, frame) < 0)
			an_sring_free(&h->ce_frame);
	}
}

void an_np_log_ce(struct an_np *np, uint64_t ts, uint64_t frame)
{
	tlog_add(&np->ce_log, ts, frame);
}

void an_np_log_cnp(struct an_np *np, uint64_t ts)
{
	tlog_add(&np->cnp_log, ts, 0);
}

uint64_t an_np_cnp(struct an_np *np, uint64_t ts, uint64_t *lag_ns)
{
	if (lag_ns)
		*lag_ns = 0;
	uint64_t prev = np->last_cnp_ts;
	if (!np->first_cnp_ts)
		np->first_cnp_ts = ts;
	if (prev && ts > prev && (!np->min_cnp_gap || ts - prev < np->min_cnp_gap))
		np->min_cnp_gap = ts - prev;
	if (ts > np->last_cnp_ts)
		np->last_cnp_ts = ts;
	struct an_np_hist *h = np->h;
	uint64_t ce_n = h ? h->ce_ts.next : 0;
	if (!ce_n) {
		np->cnp_without_ce++;
		return 0;
	}
	if (prev && ts > prev && ce_n - h->ce_at_cnp >= 2)
		(void)an_sring_push(&h->gaps, ts - prev); /* out of memory: one gap fewer */
	h->ce_at_cnp = ce_n;

	uint64_t lo = an_sring_oldest(&h->ce_ts);
	for (uint64_t n = lo; n < ce_n; n++)
		if (*an_sring_at(&h->ce_ts, n) <= ts)
			vote(h, ts - *an_sring_at(&h->ce_ts, n));
	/*
	 * Where the answered mark should be: at the voted lag; before the votes agree, at the
	 * previous CNP's lag (the first CNP: the oldest mark not answered yet).
	 */
	bool voted = votes_of(h, h->peak) >= AN_NP_MIN_VOTES, oldest = false;
	uint64_t lag = 0;
	if (voted)
		lag = bin_center(h->peak);
	else if (h->trig)
		lag = h->last_lag;
	else
		oldest = true;
	uint64_t target = ts > lag ? ts - lag : 0, best = UINT64_MAX, best_d = UINT64_MAX;
	uint64_t any = UINT64_MAX, any_d = UINT64_MAX;
	for (uint64_t n = lo; n < ce_n; n++) {
		uint64_t t = *an_sring_at(&h->ce_ts, n);
		if (t > ts)
			continue;
		uint64_t d = oldest ? 0 : t > target ? t - target : target - t;
		if (h->answered_slots >> (n % AN_NP_RING) & 1) {
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
	if (lag && any != UINT64_MAX &&
	    (best == UINT64_MAX || 2 * any_d + AN_NP_FLOOR_NS < best_d) && voted) {
		best = any;
		best_d = any_d;
	}
	if (best == UINT64_MAX) { /* no mark within reach before the CNP */
		np->cnp_without_ce++;
		return 0;
	}
	uint64_t t = *an_sring_at(&h->ce_ts, best);
	bool again = h->answered_slots >> (best % AN_NP_RING) & 1;
	h->answered_slots |= 1ull << (best % AN_NP_RING);
	h->last_lag = ts - t;
	if (lag_ns)
		*lag_ns = ts - t;
	an_hist_addp(&np->reaction, ts - t);
	if (again)
		return mark_frame(h, best);
	np->answered++;
	if (best + 1 > h->trig) {
		if (h->trig) /* the marks since the previous answered one: held back by the limiter */
			np->rate_limited += best - h->trig;
		else
			h->first_answer = best;
		h->trig = best + 1;
		h->trig_ts = t;
	} else if (best > h->first_answer && np->rate_limited) {
		np->rate_limited--; /* counted as held back when a later mark was answered first */
	}
	return mark_frame(h, best);
}

void an_np_settle(struct an_np *data, struct an_np *carrier)
{
	if (!data) {
		if (carrier)
			tlog_free(&carrier->cnp_log);
		return;
	}
	const struct an_tlog *ce = &data->ce_log, *cnp = carrier ? &carrier->cnp_log : NULL;
	uint32_t nce = ce->n, ncnp = cnp ? cnp->n : 0;
	/* all CE marks so far were logged unless the log filled up; CNPs past its end are not sampled */
	uint64_t covered = data->ce_data == nce || !nce ? UINT64_MAX : ce->ts[nce - 1];
	uint32_t i = 0, j = 0;
	while (i < nce || j < ncnp) {
		if (i < nce && (j == ncnp || ce->ts[i] <= cnp->ts[j])) {
			an_np_ce(data, ce->ts[i], ce->frame ? ce->frame[i] : 0);
			i++;
			continue;
		}
		uint64_t t = cnp->ts[j++];
		if (t <= covered) {
			an_np_cnp(data, t, NULL);
		} else {
			if (!data->first_cnp_ts)
				data->first_cnp_ts = t;
			if (t > data->last_cnp_ts)
				data->last_cnp_ts = t;
		}
	}
	/* paired: CE marks go to the history and CNPs find this flow at once */
	tlog_free(&data->ce_log);
	if (carrier)
		tlog_free(&carrier->cnp_log);
}

bool an_np_interval(const struct an_np *np, uint64_t *ns)
{
	const struct an_np_hist *h = np->h;
	if (!h || h->gaps.next < 3 || !np->rate_limited ||
	    np->rate_limited * AN_NP_LIMITED_MIN < np->answered + np->rate_limited)
		return false;
	uint64_t g[AN_NP_GAPS];
	uint32_t k = 0;
	for (uint64_t n = an_sring_oldest(&h->gaps); n < h->gaps.next; n++)
		g[k++] = *an_sring_at(&h->gaps, n);
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

void an_np_finish(struct an_np *np)
{
	struct an_np_hist *h = np->h;
	uint64_t iv;
	if (!h || !h->trig)
		return;
	/*
	 * Marks after the last answered one, within the interval of it: the limiter held them
	 * back. Not learned: within the span a limiter could have, the capture cannot tell.
	 */
	bool learned = an_np_interval(np, &iv);
	if (!learned)
		iv = np->min_cnp_gap ? np->min_cnp_gap : UINT64_MAX;
	uint64_t *into = learned ? &np->rate_limited : &np->unsure;
	uint64_t ce_n = h->ce_ts.next, lo = an_sring_oldest(&h->ce_ts);
	uint64_t until = h->trig_ts + iv < h->trig_ts ? UINT64_MAX : h->trig_ts + iv;
	if (lo < h->trig)
		lo = h->trig;
	else if (lo > h->trig && *an_sring_at(&h->ce_ts, lo) < until)
		*into += lo - h->trig; /* gone from the ring, all earlier still */
	for (uint64_t n = lo; n < ce_n; n++)
		if (*an_sring_at(&h->ce_ts, n) < until)
			(*into)++;
}

uint64_t an_np_unanswered(const struct an_np *np)
{
	uint64_t done = np->answered + np->rate_limited + np->unsure;
	return np->ce_data > done ? np->ce_data - done : 0;
}

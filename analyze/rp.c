/* The RP reaction seen on the wire: the sending rate before a CNP against the slowest after it; windows disturbed by a loss, a resend, a pause or an idle sender (before the CNP, or after it as before any CNP) set apart; the links toward each receiver, to tell when a queue hides the sender's pacing. */
#include "analyze/rp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

/*
 * A rate is measured over AN_RP_GAPS gaps between the flow's packets (each
 * packet's length, at most 65535, over the gap after it), so the windows adapt to
 * the flow's packet spacing, and a window lasts at most --rate-window: one
 * emptier than that says nothing about the sender. Before the CNP: the last
 * AN_RP_GAPS gaps. After it: every window of AN_RP_GAPS gaps whose packets all
 * came after the CNP and within --rate-window of it; the slowest one is the
 * sender's reaction, wherever the path and its queues delayed it. No window
 * reaches across another CNP.
 *
 * A window is not measured (each counted apart) when it cannot show the
 * sender's rate: too few packets (then a probe finds the window that would
 * hold them), another CNP in it, a PSN gap or a resend of the flow in it (a
 * loss is not a cut), a PFC/PAUSE pause in it, the sender idle before the
 * CNP (a gap in the window before it 4 times the shortest, per byte), the
 * sender idle after it as it was before any CNP (see below), or its link
 * full: from the first CE mark or CNP on, the link toward each receiver is
 * followed, and a link whose packets left back to back (each gap at most 1.5
 * times the shortest per byte between packets of one length) with other
 * flows' packets among them, through the window before the CNP or the
 * windows after it, carrying a flow CE-marked before the capture point, is
 * one a queue before the capture point keeps full: what this sender gives
 * up, the others fill, and its own packets do not show its cut (a capture
 * point after the bottleneck).
 *
 * A sender that idles (a bursty one: it had nothing to send) takes gaps that
 * no CNP caused: before the flow's first CNP, a gap 16 times the one before
 * it (per byte) is one of its own idle gaps, and the shortest is kept, rounded
 * down to 1 us times a power of two (in 4 bits of the flow: 1 us to 16 ms).
 * After a CNP, a gap at least that long is the sender idle as before: no
 * window reaches across it. It ends the windows after the CNP (measured over
 * those before it; none: the CNP is set apart, "idle after"), a probe (the
 * CNP is "idle after", not "too few packets": no window would measure it),
 * and the following of a recovery (no time of recovery: the rate may have
 * come back anywhere in the idle time).
 *
 * The drops measured are kept as a distribution (exactly for the first 32,
 * then in 1-point bins): the median is the central figure, the quartiles
 * its spread; no figure outside what the windows showed.
 */

#define AN_RP_IDLE_RATIO 4.0 /* a gap this many times the window's shortest: the sender was idle */
#define AN_RP_FULL_GAP   1.5 /* a link gap at most this many back-to-back times: the link is full */
#define AN_RP_PROBE_MAX  4000000000ull /* the longest --rate-window */
#define AN_RP_LINKS_MAX  65536u        /* links followed, at most */
/* an_flow.rp_idle: the sender's shortest own idle gap is at least AN_RP_IDLE_UNIT << (rp_idle - 1) ns */
#define AN_RP_IDLE_UNIT 1000u
#define AN_RP_IDLE_MAX  15u /* rp_idle's largest value (16.384 ms) */

/* ---- the links toward each receiver ---- */

void an_rp_ctx_init(struct an_rp_ctx *c, uint64_t window_ns)
{
	memset(c, 0, sizeof(*c));
	c->window_ns = window_ns;
	c->lk = &c->own;
}

static void links_free(struct an_rp_links *l)
{
	free(l->e);
	free(l->idx);
	memset(l, 0, sizeof(*l));
}

void an_rp_ctx_free(struct an_rp_ctx *c)
{
	links_free(&c->own);
	memset(c, 0, sizeof(*c));
}

/* The links brought up to the frame being fed, for reading (a part's: locked until links_done). */
static struct an_rp_links *links_read(struct an_rp_ctx *c)
{
	if (c->share)
		c->share->lock(c->share->ctx);
	return c->lk;
}

static void links_done(struct an_rp_ctx *c)
{
	if (c->share)
		c->share->unlock(c->share->ctx);
}

/*
 * An address as two words, an IPv4 one in the first 4 bytes and the rest 0:
 * hashed and compared in place (a length known only at run time made a
 * call of memcmp at every packet on a link).
 */
static inline void address_words(uint8_t ipver, const uint8_t *dst, uint64_t w[2])
{
	w[0] = w[1] = 0;
	if (ipver == 4)
		memcpy(w, dst, 4);
	else
		memcpy(w, dst, 16);
}

static uint32_t link_hash(uint8_t ipver, const uint8_t *dst, unsigned point)
{
	uint64_t a[2];
	address_words(ipver, dst, a);
	uint64_t h = rt_hash_mix(rt_hash_mix((uint64_t)ipver << 8 | point, a[0]), a[1]);
	return (uint32_t)(h ^ (h >> 32));
}

static bool link_is(const struct an_rp_link *l, uint8_t ipver, const uint8_t *dst, unsigned point)
{
	uint64_t a[2], b[2];
	address_words(ipver, dst, a);
	address_words(ipver, l->dst, b);
	return l->ipver == ipver && l->point == point && a[0] == b[0] && a[1] == b[1];
}

static int link_grow(struct an_rp_links *c)
{
	uint32_t ncap = c->icap ? c->icap * 2 : 64;
	uint32_t *idx = calloc(ncap, sizeof(*idx));
	struct an_rp_link *l = realloc(c->e, (size_t)(ncap / 2) * sizeof(*l));
	if (!idx || !l) {
		free(idx);
		if (l)
			c->e = l;
		return -ENOMEM;
	}
	c->e = l;
	c->cap = ncap / 2;
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t i = link_hash(l[k].ipver, l[k].dst, l[k].point) & (ncap - 1);
		while (idx[i])
			i = (i + 1) & (ncap - 1);
		idx[i] = k + 1;
	}
	free(c->idx);
	c->idx = idx;
	c->icap = ncap;
	return 0;
}

/* The link toward dst at point, made at its first packet: its index + 1, or 0 (none kept). */
static uint32_t link_of(struct an_rp_links *c, uint8_t ipver, const uint8_t *dst, unsigned point)
{
	if (c->last && link_is(&c->e[c->last - 1], ipver, dst, point))
		return c->last;
	if (c->n == c->cap && (c->n >= AN_RP_LINKS_MAX || link_grow(c) < 0))
		return 0;
	uint32_t i = link_hash(ipver, dst, point) & (c->icap - 1);
	for (; c->idx[i]; i = (i + 1) & (c->icap - 1))
		if (link_is(&c->e[c->idx[i] - 1], ipver, dst, point))
			return c->last = c->idx[i];
	struct an_rp_link *l = &c->e[c->n];
	memset(l, 0, sizeof(*l));
	l->ipver = ipver;
	l->point = (uint8_t)point;
	memcpy(l->dst, dst, ipver == 4 ? 4u : 16u);
	c->idx[i] = ++c->n;
	return c->last = c->n;
}

void an_rp_link_packet(struct an_rp_ctx *c, const struct an_flow *f, uint64_t ts, uint32_t len,
                       unsigned point)
{
	struct an_rp_share *s = c->share;
	if (!s) {
		an_rp_links_packet(c->lk, f->key.ipver, f->key.dst, point, ts, len);
		return;
	}
	s->pending = true; /* the stage takes it in its turn */
	s->ipver = f->key.ipver;
	s->point = (uint8_t)point;
	memcpy(s->dst, f->key.dst, sizeof(s->dst));
}

void an_rp_links_packet(struct an_rp_links *c, uint8_t ipver, const uint8_t *dst, unsigned point,
                        uint64_t ts, uint32_t len)
{
	uint32_t k = link_of(c, ipver, dst, point);
	if (!k)
		return;
	struct an_rp_link *l = &c->e[k - 1];
	l->packets++;
	if (l->prev_ts && ts >= l->prev_ts && len) {
		uint64_t g = ts - l->prev_ts;
		if (g && len == l->prev_len &&
		    (!l->ns_per_byte || (double)g / len < l->ns_per_byte))
			l->ns_per_byte = (double)g / len;
		uint32_t m = len > l->prev_len ? len : l->prev_len;
		if (!l->ns_per_byte || (double)g > AN_RP_FULL_GAP * l->ns_per_byte * m)
			l->last_idle = ts;
	}
	l->prev_ts = ts;
	l->prev_len = len;
}

/* The flow's packets followed so far, and the latest one's time (analyze/analyze.c, rp_packet). */
static uint64_t followed(const struct an_rp_ctx *c, const struct an_flow *f, uint64_t *last)
{
	if (c->apart) {
		*last = f->x ? f->x->home_ts : 0;
		return f->x ? f->x->home_n : 0;
	}
	*last = f->last_ts;
	return f->packets;
}

/* The flow's packets are CE-marked where it is followed (marked before that point). */
static bool marked_here(const struct an_rp_ctx *c, const struct an_flow *f)
{
	return c->apart ? f->x && f->x->home_ce : f->ecn[3] > 0;
}

/* Link k (index + 1; 0: none) had no idle gap since `since` (its back-to-back time known). */
static bool link_busy(const struct an_rp_links *c, uint32_t k, uint64_t since)
{
	return k && c->e[k - 1].ns_per_byte > 0 && c->e[k - 1].last_idle <= since;
}

/*
 * The flow's link was full around its CNP: busy through the window before it
 * or the windows after it, with other flows' packets among its own after it,
 * and the flow CE-marked before this point (a capture before the marking
 * point, at the senders' side, sees the senders' own pacing: several
 * senders' links merged into one capture can look like one full link).
 */
static bool link_full(struct an_rp_ctx *c, const struct an_flow *f)
{
	const struct an_rp *rp = f->rp;
	if (!rp->link || !marked_here(c, f))
		return false;
	const struct an_rp_links *l = links_read(c);
	bool full = l->e[rp->link - 1].packets - rp->link_packets >
	                followed(c, f, &(uint64_t){0}) - rp->own_packets + 1 &&
	            (rp->full_before || link_busy(l, rp->link, rp->cnp_ts));
	links_done(c);
	return full;
}

/* ---- the drops measured ---- */

void an_rp_free(struct an_rp *rp)
{
	if (rp) {
		free(rp->recover);
		free(rp->cut_delay);
		free(rp->drops);
	}
	free(rp);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

double an_rp_drop_quantile(const struct an_rp *rp, double q)
{
	uint64_t n = rp->measured;
	if (!n || !rp->drops)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)n + 0.999999999);
	rank = rank < 1 ? 1 : rank > n ? n : rank;
	if (n <= AN_RP_EXACT) {
		float v[AN_RP_EXACT];
		memcpy(v, rp->drops->exact, n * sizeof(v[0]));
		qsort(v, n, sizeof(v[0]), cmp_float);
		return v[rank - 1];
	}
	uint64_t seen = 0;
	for (unsigned i = 0; i < AN_RP_BINS; i++) {
		seen += rp->drops->bin[i];
		if (seen >= rank) {
			double v = AN_RP_BIN_MIN + (double)i + 0.5;
			return v < rp->drop_min   ? rp->drop_min
			       : v > rp->drop_max ? rp->drop_max
			                          : v;
		}
	}
	return rp->drop_max;
}

static void drop_add(struct an_rp *rp, double drop)
{
	if (!rp->drops && !(rp->drops = calloc(1, sizeof(*rp->drops))))
		return;
	if (!rp->measured || drop > rp->drop_max)
		rp->drop_max = drop;
	if (!rp->measured || drop < rp->drop_min)
		rp->drop_min = drop;
	if (rp->measured < AN_RP_EXACT)
		rp->drops->exact[rp->measured] = (float)drop;
	double b = drop - AN_RP_BIN_MIN;
	rp->drops->bin[b < 0 ? 0 : b >= AN_RP_BINS - 1 ? AN_RP_BINS - 1 : (unsigned)b]++;
	rp->measured++;
	rp->drop_sum += drop;
}

/* ---- the windows ---- */

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

/* The time the flow's last AN_RP_GAPS gaps span. */
static uint64_t ring_span(const struct an_flow *f)
{
	uint64_t span = 0;
	for (unsigned i = 0; i < AN_RP_GAPS; i++)
		span += f->rp_dt[i];
	return span;
}

/* The shortest and longest gap per byte of the ring, slot `skip` aside (AN_RP_GAPS: none); 0: no gap. */
static void gaps_per_byte(const struct an_flow *f, unsigned skip, double *lo, double *hi)
{
	*lo = *hi = 0;
	for (unsigned i = 0; i < AN_RP_GAPS; i++) {
		if (i == skip || !f->rp_dt[i] || !f->rp_len[i])
			continue;
		double q = (double)f->rp_dt[i] / f->rp_len[i];
		if (!*lo || q < *lo)
			*lo = q;
		if (q > *hi)
			*hi = q;
	}
}

/* The sender was idle within the window before the CNP: a gap 4 times the shortest, per byte. */
static bool idle_before(const struct an_flow *f)
{
	double lo, hi;
	gaps_per_byte(f, AN_RP_GAPS, &lo, &hi);
	return lo > 0 && hi > AN_RP_IDLE_RATIO * lo;
}

void an_rp_own_idle(struct an_flow *f, uint32_t gap_ns)
{
	if (f->rp || gap_ns < AN_RP_IDLE_UNIT) /* learned before the first CNP only */
		return;
	unsigned v = 1;
	while (v < AN_RP_IDLE_MAX && (uint64_t)AN_RP_IDLE_UNIT << v <= gap_ns)
		v++;
	if (!f->rp_idle || v < f->rp_idle)
		f->rp_idle = (uint8_t)v;
}

/*
 * The gap that brought the newest packet is as long as the sender's own idle
 * gaps before any CNP (their length rounded down to a power of two), and, per
 * byte, AN_RP_IDLE_RATIO times the shortest gap before it: a cut of the rate,
 * however deep, leaves the gaps per byte within that ratio of the rate before.
 */
static bool idle_as_before(const struct an_flow *f)
{
	unsigned newest = (f->rp_head + AN_RP_GAPS - 1) % AN_RP_GAPS;
	if (!f->rp_idle || f->rp_dt[newest] < (uint64_t)AN_RP_IDLE_UNIT << (f->rp_idle - 1) ||
	    !f->rp_len[newest])
		return false;
	double lo, hi;
	gaps_per_byte(f, newest, &lo, &hi);
	return !lo || (double)f->rp_dt[newest] / f->rp_len[newest] > AN_RP_IDLE_RATIO * lo;
}

/* A CNP with too few packets: a longer window would measure it once 4 gaps follow it. */
static void probe(struct an_flow *f, uint64_t need_before)
{
	struct an_rp *rp = f->rp;
	rp->probe_need = need_before;
	f->rp_phase = AN_RP_PROBE;
}

/* The probe's answer: the window this CNP needs, counted when a longer one would do. */
static void probe_done(struct an_flow *f, uint64_t fifth_ts)
{
	struct an_rp *rp = f->rp;
	uint64_t need = fifth_ts - rp->cnp_ts;
	if (rp->probe_need > need)
		need = rp->probe_need;
	if (need <= AN_RP_PROBE_MAX) {
		if (need > rp->need_ns)
			rp->need_ns = need;
		rp->need_n++;
	}
	f->rp_phase = AN_RP_IDLE;
}

/* The after windows are over (now: the packet past them, or the next CNP): what became of the CNP. */
static void end_after(struct an_rp_ctx *c, struct an_flow *f, bool next_cnp)
{
	struct an_rp *rp = f->rp;
	const struct an_xport *x = f->x;
	f->rp_phase = AN_RP_IDLE;
	if (!rp->windows) {
		if (next_cnp) {
			rp->cnp_in_window++;
			return;
		}
		rp->few++;
		if (rp->fifth_ts)
			probe_done(f, rp->fifth_ts);
		else
			probe(f, rp->cnp_ts - rp->before_start);
		return;
	}
	uint64_t from = rp->before_start;
	if (x && x->gap_ts >= from)
		rp->gap_in_window++;
	else if (x && x->resend_ts >= from)
		rp->resend_in_window++;
	else if (c->paused_ts >= from)
		rp->pause_in_window++;
	else if (link_full(c, f))
		rp->full_link++;
	else {
		drop_add(rp, 100.0 * (1.0 - rp->min_bps / rp->before_bps));
		if (rp->cut_ns)
			an_hist_addp(&rp->cut_delay, rp->cut_ns);
		if (rp->dipped && !rp->back)
			f->rp_phase = AN_RP_RECOVER;
	}
}

void an_rp_cnp(struct an_rp_ctx *c, struct an_flow *f, uint64_t ts, unsigned point)
{
	if (!f->rp && !(f->rp = calloc(1, sizeof(*f->rp))))
		return;
	struct an_rp *rp = f->rp;
	uint64_t prev = rp->cnp_ts;
	rp->cnps++;
	an_rp_links_on(c);
	if (f->rp_phase == AN_RP_AFTER)
		end_after(c, f, true);
	if (f->rp_phase == AN_RP_RECOVER && rp->dipped && !rp->back)
		rp->interrupted++;
	f->rp_phase = AN_RP_IDLE;
	rp->cnp_ts = ts;
	rp->windows = rp->after_n = 0;
	rp->fifth_ts = rp->cut_ns = 0;
	rp->dipped = rp->back = false;
	/* the rate before: the last AN_RP_GAPS gaps, all within the window before the CNP */
	uint64_t last, n = followed(c, f, &last);
	bool have = n > AN_RP_GAPS && ts >= last;
	double before = have ? ring_rate(f, last, 0, UINT64_MAX) : -1;
	uint64_t start = have ? last - ring_span(f) : 0;
	bool crosses = prev && have && start <= prev;
	if (before < 0 || ts - start > c->window_ns) {
		rp->few++;
		if (before >= 0 && !crosses) /* a longer window would hold it: how long? */
			probe(f, ts - start);
		return;
	}
	if (crosses) {
		rp->cnp_in_window++;
		return;
	}
	if (idle_before(f)) {
		rp->idle_before++;
		return;
	}
	rp->before_bps = before;
	rp->before_start = start;
	struct an_rp_links *l = links_read(c);
	rp->link = link_of(l, f->key.ipver, f->key.dst, point);
	rp->link_packets = rp->link ? l->e[rp->link - 1].packets : 0;
	rp->own_packets = n;
	/* its link full through the window before: the rate before is a share of the link's */
	rp->full_before = link_busy(l, rp->link, start);
	links_done(c);
	f->rp_phase = AN_RP_AFTER;
}

/* The sender went idle after the CNP as it did before any CNP: no window reaches across that gap. */
static void idle_after(struct an_rp_ctx *c, struct an_flow *f)
{
	struct an_rp *rp = f->rp;
	if (f->rp_phase == AN_RP_AFTER && rp->windows)
		end_after(c, f, false); /* measured over the windows before the gap */
	else if (f->rp_phase == AN_RP_AFTER)
		rp->idle_after++;
	else if (f->rp_phase == AN_RP_PROBE) { /* counted with too few packets: none would do */
		rp->few--;
		rp->idle_after++;
	}
	f->rp_phase = AN_RP_IDLE;
}

void an_rp_tick(struct an_rp_ctx *c, struct an_flow *f, uint64_t ts)
{
	struct an_rp *rp = f->rp;
	uint64_t cnp = rp->cnp_ts, w = c->window_ns;
	if (ts < cnp)
		return;
	if (idle_as_before(f)) {
		idle_after(c, f);
		return;
	}
	if (ts > cnp && ++rp->after_n == AN_RP_GAPS + 1)
		rp->fifth_ts = ts;
	if (f->rp_phase == AN_RP_PROBE) {
		if (rp->fifth_ts)
			probe_done(f, rp->fifth_ts);
		else if (ts - cnp > AN_RP_PROBE_MAX)
			f->rp_phase = AN_RP_IDLE;
		return;
	}
	if (f->rp_phase == AN_RP_AFTER && ts - cnp > w)
		end_after(c, f, false);
	if (f->rp_phase != AN_RP_AFTER && f->rp_phase != AN_RP_RECOVER)
		return;
	if (ts - cnp > 100 * w) {
		f->rp_phase = AN_RP_IDLE;
		return;
	}
	double rate = followed(c, f, &(uint64_t){0}) >= AN_RP_GAPS ? ring_rate(f, ts, cnp, w) : -1;
	if (rate < 0)
		return;
	if (f->rp_phase == AN_RP_AFTER && (!rp->windows++ || rate < rp->min_bps))
		rp->min_bps = rate;
	/* recovery: back to 90% of the rate before, after having been below it */
	if (rate * 10.0 < rp->before_bps * 9.0) {
		/* the cut: the slower window started at its first packet (counted if the CNP is) */
		if (!rp->dipped && f->rp_phase == AN_RP_AFTER)
			rp->cut_ns = ts - ring_span(f) - cnp;
		rp->dipped = true;
	} else if (rp->dipped && !rp->back) {
		rp->back = true;
		rp->recovered++;
		an_hist_addp(&rp->recover, ts - cnp);
		if (f->rp_phase == AN_RP_RECOVER)
			f->rp_phase = AN_RP_IDLE;
	}
}

void an_rp_finish(struct an_rp_ctx *c, struct an_flow *f)
{
	if (f->rp_phase == AN_RP_AFTER)
		end_after(c, f, false);
	f->rp_phase = AN_RP_IDLE;
}

/* ---- what the reports say ---- */

uint64_t an_rp_nice_window(uint64_t need_ns)
{
	for (uint64_t p = 1; p <= AN_RP_PROBE_MAX; p *= 10)
		for (uint64_t m = 1; m <= 5; m += m == 1 ? 1 : 3)
			if (m * p >= need_ns)
				return m * p;
	return AN_RP_PROBE_MAX;
}

const char *an_rp_null_reason(const struct an_rp *rp)
{
	const struct {
		uint64_t n;
		const char *why;
	} r[] = {
	    {rp->few, "too few packets around the CNP"},
	    {rp->cnp_in_window, "another CNP within the window"},
	    {rp->full_link, "capture point after the bottleneck (its link stayed full around the "
	                    "CNPs: the other senders filled what this one gave up)"},
	    {rp->gap_in_window, "a PSN gap in the window (a loss is not a cut)"},
	    {rp->resend_in_window, "a resend in the window"},
	    {rp->pause_in_window, "a PFC/PAUSE pause in the window"},
	    {rp->idle_before, "the sender was idle before the CNP"},
	    {rp->idle_after, "the sender went idle after the CNP, as it did before any CNP (its "
	                     "own idle time is no reaction)"},
	};
	unsigned best = 0;
	for (unsigned i = 1; i < sizeof(r) / sizeof(r[0]); i++)
		if (r[i].n > r[best].n)
			best = i;
	return r[best].why;
}

enum an_rp_side an_rp_side(const struct an_rp_ctx *c, const struct an_flow *f)
{
	const struct an_rp *rp = f->rp;
	if (rp && rp->full_link)
		return AN_RP_SIDE_FULL;
	if (marked_here(c, f))
		return AN_RP_SIDE_RECEIVER;
	if (f->ecn[1] + f->ecn[2] && f->cnp_received)
		return AN_RP_SIDE_SENDER;
	return AN_RP_SIDE_UNKNOWN;
}

const char *an_rp_side_name(enum an_rp_side s)
{
	return s == AN_RP_SIDE_SENDER ? "sender" : s == AN_RP_SIDE_UNKNOWN ? NULL : "receiver";
}

const char *an_rp_side_how(enum an_rp_side s)
{
	switch (s) {
	case AN_RP_SIDE_FULL:
		return "after the bottleneck: its packets are CE-marked here and left a full link "
		       "toward the receiver (back to back with other flows' packets) around CNPs, "
		       "a queue before this point";
	case AN_RP_SIDE_RECEIVER:
		return "after the marking point: its packets are CE-marked here, and its link "
		       "toward the receiver was not found full around a CNP (a full link would "
		       "hide the sender's pacing)";
	case AN_RP_SIDE_SENDER:
		return "before the bottleneck: its packets carry no CE mark here while CNPs come "
		       "back, so they are marked after this point";
	default:
		return "cannot tell: no CE mark, and no full link seen";
	}
}

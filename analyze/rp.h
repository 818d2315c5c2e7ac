/* The RP reaction seen on the wire: a sender's rate before each CNP against the slowest after it, windows a loss, a pause or an idle sender disturb set apart, and which side of the bottleneck the capture is on. */
#ifndef RT_ANALYZE_RP_H
#define RT_ANALYZE_RP_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flow.h"
#include "analyze/hist.h"

/*
 * The link toward one receiver (at one vantage point) as the capture saw
 * it, followed from the first CE mark or CNP on: whether its packets left it back to
 * back, a queue before the capture point keeping it full (then a sender's
 * cut does not show in its own packets: the others fill the link).
 */
struct an_rp_link {
	uint8_t ipver, point;
	uint8_t dst[16];
	uint32_t prev_len;
	uint64_t prev_ts, packets;
	uint64_t last_idle; /* the packet that ended its latest idle gap (0: none yet) */
	double ns_per_byte; /* between back-to-back packets of one length (0: not seen yet) */
};

/* The links toward the receivers: an analyzer's own, or a staged analysis' that its parts share. */
struct an_rp_links {
	struct an_rp_link *e;
	uint32_t n, cap;
	uint32_t *idx, icap; /* open addressing: (dst, point) -> index + 1 */
	uint32_t last;       /* the link of the latest packet + 1 (a one-entry cache) */
};

/*
 * A part of a staged analysis (analyze/stage.c) reads the stage's links,
 * which take every part's packets in frame order: lock() returns with the
 * links locked and brought up to the frame being fed, its own packet on a
 * link (`pending`, at `ipver`/`dst`/`point`) counted; unlock() lets them
 * go. The frame's packet on a link, and whether it turned the links on,
 * are left here for the stage.
 */
struct an_rp_share {
	void (*lock)(void *ctx);
	void (*unlock)(void *ctx);
	void *ctx;
	bool pending, turned_on;
	uint8_t ipver, point;
	uint8_t dst[16];
};

/* What the RP reaction needs of the whole analysis. */
struct an_rp_ctx {
	uint64_t window_ns; /* --rate-window */
	uint64_t paused_ts; /* the latest frame time while a PFC/PAUSE pause ran (0: none) */
	bool links_on;      /* a CE mark or a CNP came: the links are followed (a part: always) */
	bool apart; /* several vantage points: flows follow their home's frames (an_xport) */
	struct an_rp_links own, *lk; /* lk: &own, or the stage's (share) */
	struct an_rp_share *share;   /* a part's; NULL otherwise */
};

/* The drops measured, in percent: the first AN_RP_EXACT exactly, then 1-point bins. */
#define AN_RP_EXACT   32
#define AN_RP_BIN_MIN (-200)
#define AN_RP_BINS    301 /* -200 .. 100; a rise of more than 3x in the lowest */
struct an_rp_drops {
	float exact[AN_RP_EXACT];
	uint32_t bin[AN_RP_BINS];
};

/* The RP reaction of a flow to the CNPs that throttle it: allocated at the first one. */
struct an_rp {
	uint64_t cnp_ts;   /* the latest CNP (f->rp_phase says which part is under way) */
	uint32_t windows;  /* windows after it so far */
	uint32_t after_n;  /* packets after it so far */
	bool dipped, back; /* the rate fell below 90% of the rate before; came back */
	bool full_before;  /* its link was full through the window before it */
	double before_bps, min_bps;
	uint64_t before_start; /* the first packet of the window before the CNP */
	uint64_t fifth_ts;     /* the packet 4 gaps after the CNP (0: not yet) */
	uint64_t probe_need;   /* too few packets: the window the part before the CNP needs */
	uint64_t link_packets, own_packets; /* at the CNP: its link's packets, the flow's */
	uint32_t link;                      /* its link + 1 (0: none) */
	/* CNPs by what became of them: cnps is their sum */
	uint64_t cnps, measured, few, cnp_in_window, gap_in_window, resend_in_window,
	    pause_in_window, idle_before, idle_after, full_link;
	uint64_t recovered,
	    interrupted;          /* back to 90% of the rate before; the next CNP came first */
	uint64_t need_ns, need_n; /* the longest window the rescuable CNPs need, and how many */
	double drop_sum, drop_max, drop_min;
	struct an_rp_drops *drops; /* allocated at the first measured CNP */
	struct an_hist *recover;   /* CNP -> back to the rate before */
	struct an_hist *cut_delay; /* CNP -> the first packet of the first window below 90% */
	uint64_t cut_ns;           /* the CNP under way's, counted if it is measured (0: none) */
};

void an_rp_ctx_init(struct an_rp_ctx *c, uint64_t window_ns);
void an_rp_ctx_free(struct an_rp_ctx *c);
void an_rp_free(struct an_rp *rp);
/*
 * A CNP throttling f at ts: measure the sending rate before it and start the
 * after windows. point: the vantage point the flow is followed at (0
 * without). A window with a PSN gap or a resend of the flow (its an_xport's
 * gap_ts, resend_ts) or a pause (c->paused_ts) in it is not measured.
 */
void an_rp_cnp(struct an_rp_ctx *c, struct an_flow *f, uint64_t ts, unsigned point);
void an_rp_tick(struct an_rp_ctx *c, struct an_flow *f, uint64_t ts);
/* A packet on a link (c->links_on), at the flow's vantage point. */
void an_rp_link_packet(struct an_rp_ctx *c, const struct an_flow *f, uint64_t ts, uint32_t len,
                       unsigned point);
/* A packet of `len` bytes toward dst at point at ts on links l (a staged analysis' links take them in frame order). */
void an_rp_links_packet(struct an_rp_links *l, uint8_t ipver, const uint8_t *dst, unsigned point,
                        uint64_t ts, uint32_t len);

/* A CE mark or a CNP came: the links toward the receivers are followed from the next packet on. */
static inline void an_rp_links_on(struct an_rp_ctx *c)
{
	c->links_on = true;
	if (c->share)
		c->share->turned_on = true;
}
/* End of input: a window still open ends (with too few packets, or measured). */
void an_rp_finish(struct an_rp_ctx *c, struct an_flow *f);
/* Why no CNP of the flow gave a rate drop (its largest share of CNPs not measured). */
const char *an_rp_null_reason(const struct an_rp *rp);
/* The drop of nearest rank q (0..1) among the measured ones, in percent (rp->measured > 0). */
double an_rp_drop_quantile(const struct an_rp *rp, double q);

/* The --rate-window that holds `need_ns`: rounded up to 1, 2 or 5 times a power of ten (ns). */
uint64_t an_rp_nice_window(uint64_t need_ns);

/* Which side of the bottleneck a flow's capture point is on, and how that was decided. */
enum an_rp_side {
	AN_RP_SIDE_UNKNOWN = 0,
	AN_RP_SIDE_SENDER,   /* its packets unmarked here while CNPs come back */
	AN_RP_SIDE_RECEIVER, /* after the marking point, the link toward the receiver not full */
	AN_RP_SIDE_FULL,     /* after the bottleneck: a full link hid the sender's pacing */
};
enum an_rp_side an_rp_side(const struct an_rp_ctx *c, const struct an_flow *f);
/* "sender", "receiver" or NULL (unknown), as the JSON says it. */
const char *an_rp_side_name(enum an_rp_side s);
/* How the side was decided, in words. */
const char *an_rp_side_how(enum an_rp_side s);

/* A gap this many times the one before it (per byte): the sender had nothing to send. */
#define AN_RP_OWN_IDLE_RATIO 16u

/*
 * A gap of gap_ns, AN_RP_OWN_IDLE_RATIO times the one before it: before the
 * flow's first CNP, an idle gap of its own (f->rp_idle keeps the shortest).
 */
void an_rp_own_idle(struct an_flow *f, uint32_t gap_ns);

/*
 * A packet of f at ts, `len` bytes on the wire, the flow's previous one
 * followed at `prev` (0: none), before f->packets counts it: the gap, its
 * link, and the reaction under way.
 */
static inline void an_rp_packet(struct an_rp_ctx *c, struct an_flow *f, uint64_t ts, uint32_t len,
                                unsigned point, uint64_t prev)
{
	unsigned h = f->rp_head, p = (h + AN_RP_GAPS - 1) % AN_RP_GAPS;
	uint64_t dt = prev && ts > prev ? ts - prev : 0;
	f->rp_dt[h] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
	f->rp_len[h] = f->rp_last_len;
	f->rp_last_len = (uint16_t)(len > UINT16_MAX ? UINT16_MAX : len);
	f->rp_head = (uint8_t)((h + 1) % AN_RP_GAPS);
	/* per byte, this gap against the one before it (both over the packet before each) */
	if (f->rp_dt[p] && (uint64_t)f->rp_dt[h] * f->rp_len[p] >
	                       AN_RP_OWN_IDLE_RATIO * (uint64_t)f->rp_dt[p] * f->rp_len[h])
		an_rp_own_idle(f, f->rp_dt[h]);
	if (c->links_on)
		an_rp_link_packet(c, f, ts, len, point);
	if (f->rp_phase)
		an_rp_tick(c, f, ts);
}

#endif

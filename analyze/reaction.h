/* DCQCN reactions seen on the wire: the NP's delay from CE mark to CNP, the RP's rate around a CNP. */
#ifndef RT_ANALYZE_REACTION_H
#define RT_ANALYZE_REACTION_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flow.h"
#include "analyze/hist.h"
#include "analyze/ring.h"

/*
 * NP reaction (analyze/reaction.c): the newest CE-marked data packets of a
 * flow, and what the CNPs that throttle it tell about the notification point.
 */
#define AN_NP_RING     64 /* CE marks kept (the newest): the reach back from a CNP */
#define AN_NP_GAPS     32 /* gaps between CNPs under sustained marking kept (the newest) */
#define AN_NP_SUB      16 /* lag bins per octave */
#define AN_NP_BINS     (AN_NP_SUB + 28 * AN_NP_SUB) /* lags below 2^32 ns */
#define AN_PENDING_LOG 256                          /* events logged per flow until it is paired */

/* Times of events logged until a flow is paired (their frames once notes ask), grown geometrically. */
struct an_tlog {
	uint64_t *ts, *frame;
	uint32_t n, cap;
};

/* The NP history of a paired data flow: its CE marks within reach and the CNPs' votes. */
struct an_np_hist {
	struct an_sring ce_ts; /* CE mark number n (from 0) at slot n */
	struct an_sring
	    ce_frame;       /* their frame numbers, kept once per-frame notes ask (v NULL before) */
	uint64_t ce_at_cnp; /* marks seen at the previous CNP */
	uint64_t trig,
	    trig_ts; /* 1 + number of the latest mark a CNP answered (0 = none), its time */
	uint64_t first_answer;   /* number of the first mark a CNP answered */
	uint64_t answered_slots; /* bit n % AN_NP_RING: CE mark n was answered */
	uint64_t last_lag;       /* the latest CNP's reaction */
	/* votes: CNP - CE lags of every mark within reach of each CNP, bins 0 .. nbins - 1 (the rest
	 * none); allocated at the first CNP, grown to the highest bin voted for */
	uint16_t *votes;
	uint32_t nbins, peak; /* peak: bin with the most votes per ns */
	struct an_sring
	    gaps; /* gaps between CNPs with two marks or more between them (the newest) */
};

/* The NP side of a flow: allocated at its first CE mark or CNP. */
struct an_np {
	uint64_t ce_data;        /* CE-marked data packets (CNPs aside) */
	uint64_t cnp_without_ce; /* CNPs with no mark of the flow within reach */
	uint64_t first_cnp_ts, last_cnp_ts;
	uint64_t answered, rate_limited; /* marks a CNP answered; marks the limiter held back */
	/* marks after the last answered one within the span a limiter could have: held back or
	 * unanswered, the capture cannot tell (the limiter's interval was not learned) */
	uint64_t unsure;
	uint64_t min_cnp_gap; /* the shortest time between two CNPs (0: fewer than two) */
	uint32_t cnp_pending; /* carrier: CNPs it took, waiting for the pairing to say whose */
	/* until paired: the data flow's marks, the carrier's CNPs (an_np_settle replays them) */
	struct an_tlog ce_log, cnp_log;
	struct an_hist *reaction; /* the NP's delay per CNP */
	struct an_np_hist *h;     /* paired: the history, at the first mark */
};

/* The NP side of f, allocated at first use (NULL when out of memory). */
struct an_np *an_np_of(struct an_flow *f);
void an_np_free(struct an_np *np);
/* A CE-marked data packet of a paired flow (frame: its number for notes, 0 = none). */
void an_np_ce(struct an_np *np, uint64_t ts, uint64_t frame);
/* ... of a flow not paired yet: logged for an_np_settle (the first AN_PENDING_LOG). */
void an_np_log_ce(struct an_np *np, uint64_t ts, uint64_t frame);
/* A CNP its carrier took before any data flow was named: logged likewise. */
void an_np_log_cnp(struct an_np *np, uint64_t ts);
/* A CNP throttling the flow at `ts`: its reaction sample; returns the answered mark's frame or 0. */
uint64_t an_np_cnp(struct an_np *np, uint64_t ts);
/*
 * The data flow (its NP side `data`) and the CNP carrier (`carrier`, may be
 * NULL) are paired: replay the marks and CNPs they logged in time order;
 * the logs are freed.
 */
void an_np_settle(struct an_np *data, struct an_np *carrier);
/*
 * End of input: CE marks after the last answered one. With the limiter's interval
 * learned, those within it of that mark were held back; without, those within the
 * shortest spacing of two CNPs (a limiter cannot be longer; after a single CNP, any
 * time) may have been held back or left unanswered: `unsure`.
 */
void an_np_finish(struct an_np *np);
/* The learned CNP interval; false when the CNPs show no rate limiting. */
bool an_np_interval(const struct an_np *np, uint64_t *ns);
/* CE marks (CNPs aside) no CNP answered and no limiter held back (nor may have: unsure aside). */
uint64_t an_np_unanswered(const struct an_np *np);

/* The RP reaction of a flow to the CNPs that throttle it: allocated at the first one. */
struct an_rp {
	uint64_t cnp_ts;   /* the latest CNP (f->rp_phase says which part is under way) */
	uint32_t windows;  /* windows after it so far */
	bool dipped, back; /* the rate fell below 90% of the rate before; came back */
	double before_bps, min_bps;
	uint64_t cnps, measured, few, cnp_in_window, recovered, interrupted;
	double drop_sum, drop_max;
	struct an_hist *recover; /* CNP -> back to the rate before */
};

void an_rp_free(struct an_rp *rp);
/* A CNP throttling f at ts: measure the sending rate before it and start the after windows. */
void an_rp_cnp(struct an_flow *f, uint64_t ts, uint64_t window_ns);
void an_rp_tick(struct an_flow *f, uint64_t ts, uint64_t window_ns);
/* End of input: a window still open is one with too few packets. */
void an_rp_finish(struct an_flow *f);
/* Why no CNP of the flow gave a rate drop. */
const char *an_rp_null_reason(const struct an_rp *rp);

/*
 * A packet of f at ts, `len` bytes on the wire, before f->last_ts and f->packets count it:
 * the gap since the flow's previous packet, and the reaction under way.
 */
static inline void an_rp_packet(struct an_flow *f, uint64_t ts, uint32_t len, uint64_t window_ns)
{
	unsigned h = f->rp_head;
	uint64_t dt = f->packets && ts > f->last_ts ? ts - f->last_ts : 0;
	f->rp_dt[h] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
	f->rp_len[h] = f->rp_last_len;
	f->rp_last_len = (uint16_t)(len > UINT16_MAX ? UINT16_MAX : len);
	f->rp_head = (uint8_t)((h + 1) % AN_RP_GAPS);
	if (f->rp_phase)
		an_rp_tick(f, ts, window_ns);
}

#endif

/* DCQCN reactions seen on the wire: the NP's delay from CE mark to CNP (here), the RP's rate around a CNP (analyze/rp.h). */
#ifndef RT_ANALYZE_REACTION_H
#define RT_ANALYZE_REACTION_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flow.h"
#include "analyze/hist.h"
#include "analyze/ring.h"
#include "analyze/rp.h"

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
	uint64_t first_ce_ts, last_ce_ts; /* the first and the latest CE-marked data packet */
	uint64_t answered, rate_limited;  /* marks a CNP answered; marks the limiter held back */
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
/*
 * A CNP throttling the flow at `ts`: its reaction sample; returns the answered mark's frame or
 * 0, and sets *lag_ns (when not NULL) to the time from that mark to the CNP (0: none answered).
 */
uint64_t an_np_cnp(struct an_np *np, uint64_t ts, uint64_t *lag_ns);
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

#endif

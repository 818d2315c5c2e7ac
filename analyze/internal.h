/* The analyzer made of its parts, each owned by its own file; for analyze.c's dispatch and the sinks that read it. */
#ifndef RT_ANALYZE_INTERNAL_H
#define RT_ANALYZE_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/buckets.h"
#include "analyze/cm.h"
#include "analyze/dedup.h"
#include "analyze/ecn.h"
#include "analyze/episodes.h"
#include "analyze/facts.h"
#include "analyze/flows.h"
#include "analyze/tallies.h"
#include "analyze/flowsel.h"
#include "analyze/macs.h"
#include "analyze/pairing.h"
#include "analyze/partial_collect.h"
#include "analyze/pfc.h"
#include "analyze/rp.h"
#include "analyze/side.h"
#include "analyze/select.h"
#include "analyze/totals.h"
#include "analyze/transport.h"
#include "analyze/types.h"
#include "analyze/vantage.h"

/* The sinks and the first failure of one of them. */
struct an_sinks {
	struct rt_an_sink s[RT_AN_SINKS_MAX];
	bool failed[RT_AN_SINKS_MAX];
	unsigned n;
	int err;                     /* the first failure (negative errno), 0 = none */
	char errbuf[RT_ERRBUF_SIZE]; /* its message */
};

struct an_results;
/* Free a results view (analyze/results_arena.c); NULL: nothing. */
void an_results_free(struct an_results *res);

#define AN_KEY_CHUNK 4096u /* flow keys a chunk of rt_analyzer.stage_keys holds */

struct rt_analyzer {
	struct rt_analyzer_opts o;
	struct an_select sel; /* o.flow, o.conversation, o.kinds */
	struct an_flowtab ft;
	struct an_pairing pair;
	struct an_totals tot;
	struct rt_an_counts
	    iv_start; /* the totals when the interval started (rt_analyzer_interval) */
	uint64_t first_ts, last_ts, now;
	/* the record being fed: its frame number (rt_analyzer_feed_frame; else frames fed so far + 1) */
	uint64_t frame;
	/*
	 * A part of a staged analysis (analyze/stage.c): its time, time order,
	 * pauses and episodes come from the stage (it sets `now`,
	 * pair.disordered, part_paused and part_run_end before each record, and
	 * reads `copied` after), which also tallies the frames, handles
	 * PFC/PAUSE, makes the episodes from ep.log and follows the links toward
	 * the receivers (rpx.share).
	 */
	bool part;
	bool part_paused;      /* a part's: a PFC/PAUSE pause ran at the record (an_paused) */
	uint64_t part_run_end; /* a part's: the latest end of a pause then (an_paused_since) */
	bool copied;           /* the record fed last was a copy of a packet counted before */
	/*
	 * a staged analysis' flow keys by id while its parts hold the flows
	 * (rt_analyzer_flow_key): stage_keys[id / AN_KEY_CHUNK][id %
	 * AN_KEY_CHUNK], in chunks that never move, the count published last
	 * (release): the stage's output thread reads them while more come
	 */
	struct rt_an_flow_key *const *stage_keys;
	_Atomic uint32_t nstage_keys;
	/* a replay of partial results (rt_analyzer_replay): the view reported, the flows' keys (stage_keys) */
	const struct rt_results *replay_view;
	struct rt_an_flow_key *replay_keys, **replay_key_chunks;
	struct rt_an_note *
	    note; /* rt_analyzer_feed_note's note for the record being fed, NULL in the other feeds */
	struct an_transport tr;
	struct an_ecn ecn;
	struct an_rp_ctx rpx; /* the RP reaction: its windows, pauses, the links toward receivers */
	struct an_pfc pfc;    /* a part's holds none: part_paused, part_run_end */
	struct an_episodes ep;
	struct an_cm cm;
	struct an_buckets bk;
	struct an_side side;
	struct an_dups dups;
	struct an_tallies tally;
	struct an_vantage vp;
	struct an_macs macs;   /* the MACs of RoCE and PFC frames, their points and IPs */
	struct an_facts facts; /* rare per-flow facts: CNP priorities, stalls during pauses */
	struct an_pp pk;       /* a partial's packets (o.partial) */
	uint64_t
	    stall_min_ns; /* silences during a pause kept from this long: half --storm-threshold */
	struct an_results *res; /* the results view, once built (rt_analyzer_results()) */
	struct an_sinks sinks;
	volatile sig_atomic_t stop;       /* rt_analyzer_interrupt() */
	char input_error[RT_ERRBUF_SIZE]; /* rt_analyzer_input_error(), "" when none */
};

/* Sink i failed with rc and msg: it takes nothing more; the first failure is the analyzer's (analyze/outputs.c). */
void an_sink_failed(struct rt_analyzer *an, unsigned i, int rc, const char *msg);
/* Bucket b to sink i, failed or not: its failure (negative errno, errbuf filled) or 0. */
int an_sink_bucket(const struct rt_analyzer *an, unsigned i, const struct rt_an_bucket *b,
                   char *errbuf);
/* The buckets' way out (an->bk.deliver; ctx: the analyzer): every sink that takes them and has not failed. */
int an_sinks_deliver(void *ctx, const struct rt_an_bucket *b);

/* End the buckets before `ts` (a frame's time, or a live source's idle clock); pauses fill theirs. */
void an_advance(struct rt_analyzer *an, uint64_t ts);

/*
 * A frame of time `ts` and `wirelen` bytes counted at the clock an->now
 * (the highest time so far), as one analyzer and a staged analysis'
 * global parts count it: the buckets before it end, a frame older than the
 * current bucket is counted late in it (not in a part: its stage counts
 * those), its totals, the pauses that expired by then.
 */
static inline void an_frame_clock(struct rt_analyzer *an, uint64_t ts, uint32_t wirelen)
{
	an_advance(an, an->now);
	if (!an->part && an->bk.len && ts < an->bk.cur && an->bk.cur != UINT64_MAX)
		an->tally.late_bucket++; /* counted in the bucket after its own */
	an->tot.c.packets++;
	an->tot.c.bytes += wirelen;
	if (an->pfc.active && an->now >= an->pfc.next_expiry)
		an_pfc_advance(&an->pfc, an->now);
}

/* A PFC/PAUSE pause runs at the record being fed (a part: as the stage saw it). */
static inline bool an_paused(const struct rt_analyzer *an)
{
	return an->part ? an->part_paused : an->pfc.active > 0;
}

/* A pause ran after `since`, up to the record being fed. */
static inline bool an_paused_since(const struct rt_analyzer *an, uint64_t since)
{
	return an->part ? an->part_paused || an->part_run_end > since
	                : an_pfc_paused_since(&an->pfc, since);
}

#endif

/* Buckets of time for the sinks: what each flow and everything counted per bucket, from snapshots of the totals. */
#ifndef RT_ANALYZE_BUCKETS_H
#define RT_ANALYZE_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/flows.h"
#include "analyze/pfc.h"
#include "analyze/totals.h"

/*
 * Nothing is counted per bucket on the way: a bucket's counts are the
 * totals (the flows', the analyzer's, PFC's) at its end less the totals at
 * the end of the bucket before. A flow that changes goes on the bucket's
 * list (an_bk_mark) so its row is written; its snapshot is taken then.
 */

/* A side-file event joined into the buckets (analyze/side.c). */
enum an_series_kind {
	AN_SER_RATE,            /* the traffic source's rate for a flow (v: Mb/s) */
	AN_SER_CNP,             /* a CNP the traffic source handled */
	AN_SER_NIC_CNP_SENT,    /* NIC counters: CNPs sent since the device's previous sample */
	AN_SER_NIC_CNP_HANDLED, /* ... CNPs handled */
	AN_SER_NIC_PAUSE,       /* ... pause frames */
};
struct an_series {
	uint64_t ts;
	uint32_t flow; /* flow index, or AN_NONE */
	uint32_t seq;  /* file order, for equal timestamps */
	uint8_t kind;  /* enum an_series_kind */
	double v;
};

/* One flow's totals at its previous row, and its side-file state. */
struct an_bk_flow {
	uint64_t packets, bytes, ce, cnp, nak, retransmitted, rtt_n, rtt_sum;
	double rate;      /* the source's rate now */
	uint64_t src_cnp; /* CNPs the source handled in this bucket */
	bool rate_known;
};

struct an_buckets {
	uint64_t len; /* bucket length; 0 = no buckets */
	uint64_t cur; /* start of the current bucket, UINT64_MAX before the first */
	const struct an_flowtab *ft;
	const struct an_totals *tot;
	const struct an_pfc *pfc;
	/* flows with something in the current bucket (an_flow.flags AN_FLOW_TL_DIRTY), by index */
	uint32_t *dirty;
	uint32_t ndirty, cap_dirty;
	struct an_bk_flow *at; /* by flow index */
	uint32_t cap_at;
	struct rt_an_delta all_at; /* the totals at the previous bucket's end */
	uint64_t xoff_at[RT_AN_PFC_CLASSES], paused_at[RT_AN_PFC_CLASSES];
	uint64_t frames_at; /* frames read by the current bucket's start */
	struct rt_an_flow_row *rows;
	uint32_t cap_rows;
	uint32_t *ids;    /* scratch: dirty flows' ids, sorted when few among many */
	uint64_t *idbits; /* scratch: dirty flows' ids marked, a bit each (all 0 between buckets) */
	uint32_t cap_bits; /* its words */
	/* side-file events, sorted by time, and where the next one is */
	struct an_series *series;
	size_t nseries, cap_series, series_next;
	bool srclog, counters; /* side files joined (loaded with buckets) */
	double nic[3];         /* this bucket: NIC counter deltas (AN_SER_NIC_*) */
	uint64_t src_cnp_all;  /* this bucket: CNPs the source handled, all flows */
	uint64_t fill;         /* buckets written with no frame in them, a pause running */
	/* where the buckets go */
	int (*deliver)(void *ctx, const struct rt_an_bucket *b);
	void *ctx;
	/*
	 * A staged analysis' (analyze/stage.c): bucket t's rows come from its
	 * parts (its counts added to the totals first), not from the flows
	 * here; NULL: from the flows.
	 */
	uint32_t (*take_rows)(void *ctx, uint64_t t, const struct rt_an_flow_row **rows);
	void *take_ctx;
	/*
	 * A staged analysis' part: where the rows of the bucket being closed
	 * are written (room for n; NULL: out of memory), so that deliver()
	 * finds them where they are kept, uncopied; NULL: in `rows` here.
	 */
	struct rt_an_flow_row *(*row_room)(void *ctx, uint32_t n);
};

void an_bk_init(struct an_buckets *bk, const struct an_flowtab *ft, const struct an_totals *tot,
                const struct an_pfc *pfc);
void an_bk_free(struct an_buckets *bk);
/* Start cutting buckets of len ns, handed to deliver(ctx, bucket). */
void an_bk_start(struct an_buckets *bk, uint64_t len,
                 int (*deliver)(void *ctx, const struct rt_an_bucket *b), void *ctx);

/* Put flow f (index fi) on the current bucket's list (buckets on, the flow changed). */
void an_bk_mark_slow(struct an_buckets *bk, struct an_flow *f, uint32_t fi);
static inline void an_bk_mark(struct an_buckets *bk, struct an_flow *f, uint32_t fi)
{
	if (bk->len && !(f->flags & AN_FLOW_TL_DIRTY))
		an_bk_mark_slow(bk, f, fi);
}

/*
 * A frame at ts: the bucket it falls in, when later than the current one
 * (*b set, true: the caller ends buckets up to it with an_bk_close); false
 * while ts is in the current bucket. The first frame opens the first bucket.
 */
static inline bool an_bk_passed(struct an_buckets *bk, uint64_t ts, uint64_t *b)
{
	/* most frames fall in the current bucket: no division for them */
	if (!bk->len || (ts >= bk->cur && ts - bk->cur < bk->len && bk->cur != UINT64_MAX))
		return false;
	uint64_t s = ts - ts % bk->len;
	if (bk->cur == UINT64_MAX) {
		bk->cur = s;
		bk->frames_at = bk->tot->c.packets;
		return false;
	}
	*b = s;
	return s > bk->cur;
}

/*
 * End the current bucket (hand it over unless nothing happened in it) and
 * open the next: `to` when nothing keeps the buckets in between (a pause,
 * `paused`, fills each; side-file events land in theirs). Returns the
 * deliver() failure, or 0.
 */
int an_bk_close(struct an_buckets *bk, uint64_t to, bool paused);
/* Buckets a pause running until `until` would fill from the current one up to `to`. */
uint64_t an_bk_fill_ahead(const struct an_buckets *bk, uint64_t to, uint64_t until);

/* A side-file event (analyze/side.c); -ENOMEM. Sorted by an_bk_sort_series() once a file is read. */
int an_bk_series_add(struct an_buckets *bk, uint64_t ts, uint32_t flow, enum an_series_kind kind,
                     double v);
void an_bk_sort_series(struct an_buckets *bk);

#endif

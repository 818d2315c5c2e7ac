/* What the staged analysis' files share (analyze/stage.c, stage_parts.c, stage_buckets.c, stage_links.c, stage_out.c): its batches, parts and state. */
#ifndef RT_ANALYZE_STAGE_INTERNAL_H
#define RT_ANALYZE_STAGE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/internal.h"
#include "analyze/stage.h"
#include "capture/frame_bytes.h"
#include "capture/pump.h"

#define STAGE_BATCH     4096u /* frames a batch holds */
#define STAGE_PARTS_MAX 64u
#define STAGE_STAGER_THREADS                                                                       \
	4u /* threads from which one of its own stages and merges the batches */
#define STAGE_PARTS_PER_THREAD 4u  /* parts, for the threads to share the work out evenly */
#define STAGE_MOVE_AFTER       32u /* batches a part stays with a thread before it may move again */
#define STAGE_RING_BYTES       (32u << 20) /* the frames' bytes in the ring, about */
#define STAGE_BATCH_BYTES_MIN  (256u << 10)
#define STAGE_RELEASE_BYTES    (2u << 20) /* a held mapping's pages released this many at a time */
#define STAGE_MAP_AHEAD        (4u << 20) /* and mapped this far ahead of the reading */
#define LINK_CHUNK             256u /* a part's links of a batch are kept in chunks of this many */
#define STAGE_AHEAD            4u   /* a part's frames asked for ahead of the one it feeds */
/* the flow keys' chunks: every id of 32 bits (the table of chunks made at once: they never move) */
#define STAGE_KEY_CHUNKS ((size_t)UINT32_MAX / AN_KEY_CHUNK + 1)
#define FLAG_DISORDERED  1u /* a frame so far was older than the one before it */
#define FLAG_PFC         2u /* PFC or PAUSE: the stage handles it (decoded again) */
#define FLAG_PAUSED      4u /* a pause ran at it (before or after it, for a PFC/PAUSE frame) */

_Static_assert(RT_PUMP_BATCH <= STAGE_BATCH, "a batch of the pump fits in a stage's batch");

/* The buckets a part closed (while going through a batch, or at its end): counts and rows of its flows. */
struct bucket_entry {
	uint64_t t;
	uint64_t ce, cnp, nak, retransmitted; /* its `all` counts the stage's totals do not keep */
	uint32_t row0, nrows;                 /* its rows in the log's rows */
};
struct bucket_log {
	struct bucket_entry *e;
	uint32_t n, cap;
	struct rt_an_flow_row *rows; /* flow ids the part's */
	uint32_t nrows, caprows;
	bool nomem;
};

/* A part's packet on a link toward a receiver, in its log of a batch. */
struct link_entry {
	uint16_t slot; /* its frame's */
	uint8_t ipver, point;
	uint8_t dst[16];
};

/*
 * What one part writes while going through a batch, a cache line apart
 * from the other parts' (each frame it feeds writes here: sharing a line
 * with another part would hand the line back and forth at every frame).
 */
struct part_out {
	_Alignas(64) atomic_uint through; /* the slots it went through (release) */
	/*
	 * its frames' packets on a link, in slot order, in chunks that never
	 * move; how many (release: the links read them as it goes); the first
	 * slot that turned the links on (a CE mark, a CNP) + 1, 0 for none
	 */
	struct link_entry *links[STAGE_BATCH / LINK_CHUNK];
	atomic_uint nlinks, links_on;
	bool links_nomem;
	bool any_copy; /* a frame of it was a copy of a packet counted before */
	uint64_t
	    copies[STAGE_BATCH / 64]; /* which (by slot; read once it went through the batch) */
	struct an_ep_log log;         /* what its episodes are made of, by slot */
	struct bucket_log bk;         /* the buckets it closed */
};

/* A frame in a batch and what staging hands its part with it: one place, few cache lines. */
struct slot {
	struct rt_frame f;  /* data: an offset into `bytes` until the batch is staged */
	uint64_t now;       /* the clock: the highest time so far */
	uint64_t run_end;   /* the latest end of a pause */
	uint64_t paused_ts; /* the latest frame time a pause ran at, up to it */
	uint8_t flags;      /* staging's: FLAG_DISORDERED, FLAG_PFC, FLAG_PAUSED */
};

struct batch {
	struct slot s[STAGE_BATCH];
	struct rt_frame_bytes bytes; /* the frames' bytes, copied (those not in the held mapping) */
	size_t mapped;               /* the bytes of its frames in the held mapping */
	uintptr_t mapped_end;        /* where its last frame there ends (0: none there) */
	uint8_t part[STAGE_BATCH];
	uint16_t order[STAGE_BATCH];         /* the slots by part, each part's in slot order */
	uint16_t start[STAGE_PARTS_MAX + 1]; /* part k's slots: order[start[k] .. start[k + 1]) */
	uint64_t frame0;                     /* the frame number of f[0] */
	unsigned n;
	struct part_out *out; /* [parts] */
	atomic_uint pending;  /* parts still to go through it */
};

struct part { /* each on cache lines of its own: a part writes its own at every frame */
	_Alignas(64) struct rt_an_stage *st;
	unsigned idx;
	struct rt_analyzer *an;
	/* under the stage's mu: the batch it goes through next, the frames of its there it went through */
	uint64_t next;
	unsigned j;
	bool held; /* a thread goes through its batch now */
	unsigned
	    home; /* the thread that goes through its batches (the reading thread 0, worker w w + 1) */
	uint64_t moved; /* its batch when it last moved to another thread */
	uint32_t *gid;  /* its flow ids -> the stage's (one analyzer's numbering) */
	uint32_t ngid, capgid;
	struct bucket_log *bk_out; /* where its buckets go now */
	struct rt_record rec;      /* the frame being fed, decoded */
	uint64_t cur;              /* its number (0: none, the end) */
	uint64_t ts;               /* its time */
	uint32_t len;              /* its length on the wire */
	struct an_rp_share share;  /* the stage's links, for its RP reaction */
};

/* A thread that goes through the parts' batches. */
struct worker {
	struct rt_an_stage *st;
	pthread_t th;
	unsigned home;   /* its parts: those whose home it is */
	uint64_t cpu_ns; /* its CPU time, when it ended */
};

struct rt_an_stage {
	struct rt_analyzer *an;
	unsigned nparts, nb;
	struct batch *b;
	struct part *p;
	struct worker *w;
	unsigned nworkers, started; /* workers: to start, running */
	/*
	 * batches (numbers; mod nb the place): [merged, staged) with the parts,
	 * [staged, filled) handed over by the reading thread, `filled` the one
	 * being filled
	 */
	uint64_t filled, staged, merged;
	struct batch *fill; /* the one being filled (batch_at(filled)) */
	/* the staging thread (stager_on), when the batches are not staged on the reading thread */
	pthread_t stager;
	bool stager_on, ended; /* ended: the reading thread handed its last batch over */
	/* a part through a batch takes the links as far as it can (with a staging thread) */
	bool parts_take_links;
	uint64_t stager_cpu_ns;       /* its CPU time, when it ended */
	struct stage_out *out;        /* the output thread, or NULL */
	uint64_t out_cpu_ns;          /* its CPU time, when it ended */
	_Atomic int status;           /* the analyzer's status as of the last batch made global */
	_Atomic uint64_t nflows_seen; /* flows numbered as of the last batch made global */
	/* the reading thread's, written at every frame: a cache line of its own */
	_Alignas(64) uint64_t frames; /* frames handed over */
	/*
	 * staging's, written at every frame (the staging thread's, or with fewer
	 * than STAGE_STAGER_THREADS threads the reading thread's)
	 */
	_Alignas(64) uint64_t now,
	    prev_ts; /* the clock (the highest time so far), the time before */
	bool disordered;
	uint32_t
	    *mark; /* by flow id (the stage's): the last episode that counted it (number + 1) */
	/* by flow id (the stage's): keys[id / AN_KEY_CHUNK][id % AN_KEY_CHUNK] (STAGE_KEY_CHUNKS) */
	struct rt_an_flow_key **keys;
	uint8_t *selected; /* by flow id (the stage's): selected when numbered */
	uint32_t nflows, capmark;
	/* the buckets the parts closed that the analyzer's buckets take now: a batch's, or the end's */
	struct part_out *bks, *end; /* bks: a batch's parts' or end's; end: their last buckets */
	uint32_t bk_at[STAGE_PARTS_MAX]; /* the next entry of each */
	struct rt_an_flow_row *rows;     /* a bucket's rows, the parts' merged */
	uint32_t caprows;
	uint64_t *idbits; /* the ids of a bucket's rows (rank_rows: all 0 between buckets) */
	uint32_t *idrank; /* by word of idbits: the ids before it */
	uint32_t capbits; /* words of both */
	bool nomem;
	uint8_t part_of[AN_SHARDS];           /* the part of each shard of host pairs */
	struct rt_dissect_opts decode, light; /* the parts' decoding; staging's (addresses) */
	struct rt_record scratch;             /* staging's record */
	struct an_pfc pfc;                    /* staging's PFC/PAUSE state, for each frame's part */
	uint64_t paused_ts; /* the latest frame time a pause ran at (an_rp_ctx's) */
	/* the links toward the receivers (an->rpx's): every part's packets on them in frame order */
	pthread_mutex_t links_mu;
	uint64_t links_at;  /* frames they took in */
	uint64_t links_seq; /* the batch of the next frame they take, and its slot */
	unsigned links_slot;
	uint64_t links_fed; /* a frame whose own packet they took ahead of its turn (0: none) */
	uint32_t link_at[STAGE_PARTS_MAX]; /* in the batch they take: each part's next link entry */
	/* and as each part was when last read: its slots gone through, links, links_on (0: read it) */
	uint32_t took_through[STAGE_PARTS_MAX], took_links[STAGE_PARTS_MAX],
	    took_on[STAGE_PARTS_MAX];
	uint64_t reader_cpu0; /* the reading thread's CPU time at the start */
	bool times;           /* ROCETRACE_THREAD_TIMES: the threads' CPU times kept */
	/* the CPU time the reading and staging threads spent on parts' batches (with `times`) */
	uint64_t reader_help_ns, stager_help_ns;
	size_t batch_bytes; /* a batch is handed over once its frames' bytes reach this */
	/*
	 * the held mapping (rt_an_stage_in_place; NULL: none); where the
	 * batches made global end in it (release: staging), and the last batch
	 * handed over (the reading thread); its pages released from its start,
	 * and mapped up to map_ahead (under map_mu, a worker's)
	 */
	const uint8_t *map;
	size_t map_len, page;
	_Atomic uintptr_t map_done, map_read;
	_Atomic size_t map_released,
	    map_ahead; /* (read without the lock to see if there is work) */
	pthread_mutex_t map_mu;
	pthread_mutex_t mu;
	/* work: a batch for the parts; done: a batch for the stager (handed over, or every part
	 * went through it); freed: a batch made global, its place free for the reading thread */
	pthread_cond_t work, done, freed;
	bool quit;
};

static inline struct batch *batch_at(const struct rt_an_stage *st, uint64_t seq)
{
	return &st->b[seq % st->nb];
}

/* ---- the links toward the receivers, shared by the parts (analyze/stage_links.c) ---- */

/*
 * Take the frames up to number `upto` in their order, as far as their
 * parts went through them: false when one has not yet. Under links_mu.
 */
bool an_stage_links_take(struct rt_an_stage *st, uint64_t upto);
/* A part's an_rp_share lock and unlock (ctx: its struct part). */
void an_stage_links_lock(void *ctx);
void an_stage_links_unlock(void *ctx);
/* A part's packet on a link, that of slot `slot`, logged for the links (false when out of memory: the stage fails). */
bool an_stage_link_add(struct part_out *o, const struct an_rp_share *s, unsigned slot);

/* ---- the parts and the threads that go through them (analyze/stage_parts.c) ---- */

/*
 * A part has a batch to go through (handed over, or let go with one):
 * every thread that waits is woken, its own thread (the reading one
 * waits for `done` or `freed`, a worker for `work`) among them, for
 * the others may not take it yet. Under mu.
 */
void an_stage_wake_all(struct rt_an_stage *st);
/*
 * A thread that would wait (for a batch to be made global, for room in
 * the ring) goes through a part's batch instead when one is there to take
 * (its own, `home`: the reading thread's 0; UINT_MAX: any); else it waits
 * on `cond`. Under mu (let go while it goes through one, the CPU time spent
 * there added to *spent with st->times); the caller checks again what it
 * waits for.
 */
void an_stage_help_or_wait(struct rt_an_stage *st, pthread_cond_t *cond, unsigned home,
                           uint64_t *spent);
/* A worker's thread (arg: its struct worker): the parts' batches, its own first, until the stage ends. */
void *an_stage_worker(void *arg);
/*
 * The held mapping tended by a worker between batches, where the reading
 * and staging threads, the busiest, do not pay for it: its pages before
 * the batches made global (but the page the last one ends in) released
 * once STAGE_RELEASE_BYTES of them are, and those up to STAGE_MAP_AHEAD
 * past the last batch handed over mapped (the reading thread then finds
 * them there). Nothing when another thread does it now.
 */
void an_stage_tend_map(struct rt_an_stage *st);
/*
 * A part no thread holds whose next frame is numbered up to `upto`, fed
 * its frames as far as that: what a part waiting for the frames before its
 * own does meanwhile (the part it waits for may have no thread). False when
 * there was none.
 */
bool an_stage_help(struct rt_an_stage *st, uint64_t upto);

/* ---- the output thread (analyze/stage_out.c) ---- */

/*
 * The analyzer's buckets go to its sinks on a thread of their own from now
 * on, in order, staging (its thread or the reading one) only making them
 * (the sinks read nothing of the analyzer but the flows' keys, which never
 * move). Buckets off, or the thread not started: they go as before.
 */
void an_stage_out_start(struct rt_an_stage *st);
/*
 * Every bucket handed over delivered, the thread ended, the sinks'
 * failures the analyzer's; the buckets go straight to the sinks again.
 * Nothing to do without the thread.
 */
void an_stage_out_stop(struct rt_an_stage *st);

/* ---- the buckets the parts close (analyze/stage_buckets.c) ---- */

void an_stage_bucket_log_clear(struct bucket_log *l);
void an_stage_bucket_log_free(struct bucket_log *l);
/* A part's sink of buckets: its counts and rows, kept for the stage (on the part's thread; ctx: its struct part). */
int an_stage_part_bucket(void *ctx, const struct rt_an_bucket *b);
/* A part's room for the n rows of the bucket it closes, after its log's last (its buckets' row_room). */
struct rt_an_flow_row *an_stage_part_rows(void *ctx, uint32_t n);
/* The analyzer's buckets take the parts' from these logs ([parts]) from now on. */
void an_stage_take_buckets(struct rt_an_stage *st, struct part_out *logs);
/*
 * Bucket t of the analyzer (its take_rows; ctx: the stage): the parts'
 * counts of it added to the totals, their rows merged in id order (ids the
 * stage's) into *rows. Returns how many rows.
 */
uint32_t an_stage_rows(void *ctx, uint64_t t, const struct rt_an_flow_row **rows);

#endif

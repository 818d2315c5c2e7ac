/* Duplicate RoCE packets: the same packet seen twice (two capture points, mirrored twice, overlapping files) counts once. */
#ifndef RT_ANALYZE_DEDUP_H
#define RT_ANALYZE_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flows.h"

#define AN_DUP_HOPS    2            /* capture points remembered per packet */
#define AN_DUP_SPAN_NS 100000000ull /* copies at another capture point: within 100 ms */
#define AN_DUP_MIN     (1u << 8)    /* packets a shard remembers at first (8 KiB)... */
#define AN_DUP_MAX     (1u << 18) /* ... and at most (8 MiB: 512 MiB if all 64 shards were that busy) */
#define AN_DUP_WAYS    8u         /* packets a set holds: four cache lines */
/*
 * One packet seen lately, with the frames of it each capture point saw
 * (identical packets, CNPs for one, share an entry). 32 bytes: two share a
 * cache line, a set.
 */
struct an_dup_entry {
	uint64_t fp;                /* fingerprint; 0 = empty */
	uint64_t ts;                /* its latest frame's time */
	uint32_t frame;             /* the frame counted last, low 32 bits */
	uint16_t hop[AN_DUP_HOPS];  /* capture points that saw it (hashed) */
	uint16_t seen[AN_DUP_HOPS]; /* frames each saw, less what both saw */
	uint8_t nhops;
	uint8_t
	    ecn; /* the codepoint counted for the frame counted last (3 once a copy was CE-marked) */
	int8_t point; /* the vantage point of the frame counted last (-1: none known) */
};
_Static_assert(sizeof(struct an_dup_entry) == 32, "two entries a cache line");
/*
 * An eight-way set-associative table of the packets seen lately, per shard of
 * host pairs (an_pair_shard()): what happens in one shard depends on its
 * host pairs' packets only, so an analysis split by host pair
 * (analyze/stage.c) keeps the same tables.
 */
struct an_dup_shard {
	struct an_dup_entry
	    *e; /* AN_DUP_WAYS * nsets entries, 256-byte aligned; NULL until its first packet */
	uint32_t nsets; /* power of 2 */
	bool points;    /* a copy at another capture point was found: copies may come 100 ms late */
	bool same_point_seen; /* a packet other than a CNP was copied at the same point */
	uint64_t other_interface, same_interface; /* copies found */
	uint64_t evicted; /* packets pushed out while a copy of them could still come */
	uint64_t inserts, rate_inserts,
	    rate_ts; /* packets entered; at the last size check, and its time */
};
struct an_dups {
	struct an_dup_shard *s; /* AN_SHARDS of them; NULL: detection off */
	bool
	    several; /* several files are read: the table is sized for copies 100 ms late from the start */
	uint64_t window_ns;
	bool
	    nomem; /* a shard's table could not be made: its copies counted as packets (an error) */
};
/* The shards' counts summed. */
struct an_dup_totals {
	uint64_t other_interface, same_interface, evicted;
};
void an_dup_totals(const struct an_dups *d, struct an_dup_totals *t);
/* What a copy is a copy of. */
struct an_dup_hit {
	uint64_t frame; /* the first copy's frame number */
	uint64_t ts;    /* the time of the packet's frame before this one (at any point) */
	uint8_t ecn;    /* the codepoint it was counted with */
	int point;      /* the vantage point it was counted at (-1: none known) */
};
/*
 * window_ns 0 turns detection off. several: the frames come from several
 * files, maybe several vantage points: the table is sized from the start to
 * keep packets 100 ms, as once a copy came from another capture point
 * (else a copy from a point whose clock is behind may find its packet
 * pushed out before that first copy came). 0 or -1 when out of memory.
 */
int an_dup_init(struct an_dups *d, uint64_t window_ns, bool several);
void an_dup_free(struct an_dups *d);
/*
 * Merge another part's tables (analyze/README.md, "Split and merge"): a
 * shard only src used is taken over, one both used keeps dst's table with
 * the counts summed (nothing to do when either is off).
 */
void an_dup_merge(struct an_dups *dst, struct an_dups *src);
/* What identifies `rec` (RoCE with a BTH) as a packet; never 0. */
uint64_t an_dup_fingerprint(const struct rt_record *rec);
/*
 * The first entry of the set of fingerprint fp in a table of nsets sets:
 * the fingerprint's bits folded again by a multiply of another constant
 * (its low bits alone, or a multiply by the constant that made it, put
 * packets that differ in their PSN only into too few sets).
 */
static inline uint64_t an_dup_set(uint64_t fp, uint32_t nsets)
{
	uint64_t h = (fp ^ fp >> 33) * 0xff51afd7ed558ccdull;
	return ((h ^ h >> 33) & (nsets - 1)) * AN_DUP_WAYS;
}
/* Ask for the set the packet of fingerprint fp lives in, so that its load overlaps other work. */
static inline void an_dup_prefetch(const struct an_dups *d, unsigned shard, uint64_t fp)
{
	const struct an_dup_shard *s = &d->s[shard];
	if (s->e) {
		const struct an_dup_entry *set = &s->e[an_dup_set(fp, s->nsets)];
		for (unsigned k = 0; k < AN_DUP_WAYS; k += 2) /* two entries a cache line */
			__builtin_prefetch(set + k, 1);
	}
}
/* The flows, and the key and hash of a record's flow (computed once per record). */
struct an_dup_flow {
	struct an_flowtab *ft;
	const struct rt_an_flow_key *key;
	uint32_t hash;
	int point; /* the record's vantage point (-1: none known) */
};
/*
 * True when `rec` (RoCE with a BTH, fingerprint fp, its flow's key and
 * hash in *fl; its host pair's shard), frame number `frame` at `now`, is a copy of a packet
 * already counted; fills *hit. The flows say whether a repeat can be a
 * resend.
 */
bool an_dup_check(struct an_dups *d, unsigned shard, const struct an_dup_flow *fl,
                  const struct rt_record *rec, uint64_t fp, uint64_t now, uint64_t frame,
                  struct an_dup_hit *hit);

#endif

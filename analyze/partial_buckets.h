/* A partial's time buckets (section BUCK): collected from the analyzer's sink, encoded, checked and decoded one at a time. */
#ifndef RT_ANALYZE_PARTIAL_BUCKETS_H
#define RT_ANALYZE_PARTIAL_BUCKETS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/partial_codec.h"

/* The running state of a walk over buckets: what a bucket's record is read against. */
struct an_pbk_walk {
	uint64_t len;              /* bucket length */
	bool source_log, counters; /* the side-file columns */
	uint32_t nflows;           /* reading: rows name flows below it */
	bool any;                  /* a bucket came: `last` holds its index (t_ns / len) */
	uint64_t last;
	struct rt_an_flow_row *rows; /* reading: the rows of the bucket read */
	uint32_t cap;
};

/* Buckets of a partial decoded one at a time, in time order. */
struct an_pbk_iter {
	struct pc c;
	struct an_pbk_walk w;
	uint64_t left; /* buckets not read yet */
};

/* An iterator over b, whose rows name flows below nflows. */
void an_pbk_iter_init(struct an_pbk_iter *it, const struct rt_partial_buckets *b, uint32_t nflows);
/*
 * The next bucket into *out (its rows the iterator's until the next call):
 * 1, 0 at the end, or a negative errno (it->c.why says what is wrong).
 */
int an_pbk_next(struct an_pbk_iter *it, struct rt_an_bucket *out);
void an_pbk_iter_free(struct an_pbk_iter *it);

/* The buckets a sink collected (rt_partial_bucket_sink): what rt_partial_take keeps. */
struct an_pbk;
/* They move into a new rt_partial_buckets (NULL: out of memory); the collector keeps nothing. */
struct rt_partial_buckets *an_pbk_take(struct an_pbk *k);

/* Frees b and its records; NULL: nothing. */
void rt_partial_buckets_free(struct rt_partial_buckets *b);

#endif

/* A fan-out by capture point: each point's records to an analyzer of its own, as if its capture were read alone. */
#ifndef RT_ANALYZE_FANOUT_H
#define RT_ANALYZE_FANOUT_H

#include <stdint.h>

#include "analyze/types.h"

/*
 * The records of capture point p (rt_record.point, set by the frame pump)
 * go to point p's analyzer, in stream order, and every record's time to
 * the others' (rt_analyzer_tick): their buckets end when the whole
 * stream's do, so the points' buckets come out together. Each counts what
 * its point saw, as an analysis of that point's capture alone would
 * (`timeline --by-vantage`). Points from RT_AN_VANTAGE_MAX on, and records
 * of no point, go to none (their times still pass). The caller owns the
 * fan-out; it knows the analyzer only by its public calls.
 */
struct rt_an_fanout;

/* The sink of point `point`'s analyzer, asked for when its first record comes. 0 or a negative errno. */
typedef int (*rt_an_fanout_sink_fn)(void *ctx, unsigned point, struct rt_an_sink *out,
                                    char *errbuf);

/*
 * A fan-out whose analyzers take `opts` (copied; the vantage-point analysis
 * off: each sees one point) and a sink from make_sink(ctx, ...). Returns 0
 * or -ENOMEM with errbuf filled.
 */
int rt_an_fanout_new(struct rt_an_fanout **out, const struct rt_analyzer_opts *opts,
                     rt_an_fanout_sink_fn make_sink, void *ctx, char *errbuf);
/* One record: to its point's analyzer (made now when it is the point's first); the others learn its time. */
void rt_an_fanout_feed(struct rt_an_fanout *fo, const struct rt_record *rec);
/* Time passes without a record. */
void rt_an_fanout_tick(struct rt_an_fanout *fo, uint64_t now_ns);
/*
 * The first failure so far: making a point's analyzer or its sink, or a
 * sink of one (0, or a negative errno with errbuf filled when not NULL).
 */
int rt_an_fanout_status(const struct rt_an_fanout *fo, char *errbuf);
/* End of input: each point's analyzer finishes (its sink ends), in point order. 0 or the first failure. */
int rt_an_fanout_finish(struct rt_an_fanout *fo, char *errbuf);
/* Frees the fan-out, its analyzers and their sinks. */
void rt_an_fanout_free(struct rt_an_fanout *fo);

#endif

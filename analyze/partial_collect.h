/* What an analyzer keeps for a partial while it is fed: the CE-marked and sampled RoCE packets (analyze/partial_collect.c). */
#ifndef RT_ANALYZE_PARTIAL_COLLECT_H
#define RT_ANALYZE_PARTIAL_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/partial.h"
#include "analyze/types.h"

struct an_pbk;

/* The packets kept so far (rt_analyzer_opts.partial), in the order fed. */
struct an_pp {
	bool on;
	bool nomem;    /* a packet could not be kept: rt_partial_take fails */
	uint32_t k, m; /* the trajectory sample: k in m */
	uint64_t n, cap;
	struct rt_partial_packet *v;
	uint64_t *frame; /* each one's frame number (a staged analysis' parts merge by it) */
	/* the sink collecting the time buckets (rt_partial_bucket_sink; the analyzer's sinks own it), or NULL */
	struct an_pbk *bk;
};

/* Collecting as the options ask (off without opts->partial: no memory, no work). */
void an_pp_init(struct an_pp *pp, const struct rt_analyzer_opts *o);
void an_pp_free(struct an_pp *pp);

struct rt_analyzer;
/*
 * A RoCE frame with a BTH fed to `an` (its flow's key and hash k, h; its
 * fingerprint fp): kept when CE-marked or sampled. A copy of a packet
 * counted before (copy; counted_ecn: the codepoint it was counted with) is
 * kept only when it made the packet CE.
 */
void an_pp_frame(struct rt_analyzer *an, const struct rt_record *rec,
                 const struct rt_an_flow_key *k, uint32_t h, uint64_t fp, bool copy,
                 uint8_t counted_ecn);

/*
 * src's packets into dst (analyze/merge.c): the flow ids given anew
 * (map_dst, map_src: old id -> new id), the two in frame order. src is
 * left empty. 0 or -ENOMEM.
 */
int an_pp_merge(struct an_pp *dst, struct an_pp *src, const uint32_t *map_dst,
                const uint32_t *map_src);

#endif

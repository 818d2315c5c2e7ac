/* Partial results: one vantage point's analysis, written where its capture is and merged with the other points' elsewhere (docs/PARTIAL.md). */
#ifndef RT_ANALYZE_PARTIAL_H
#define RT_ANALYZE_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/results.h"

/*
 * A partial is what `analyze --partial OUT.rtpart FILE...` writes on a
 * host: the results view of that host's capture analyzed alone (one vantage
 * point), plus the packets a merge across points needs to know by their
 * identity: every CE-marked RoCE packet, and a trajectory sample of all
 * RoCE packets (fingerprint hash mod m < k, the same packets at every
 * point). `analyze A.rtpart B.rtpart ...` merges them into one view with
 * each partial a vantage point (analyze/README.md, "Across vantage points").
 *
 * The file format (docs/PARTIAL.md) is versioned: RT_PARTIAL_VERSION is
 * the major version this build writes and reads.
 */
#define RT_PARTIAL_VERSION 1
#define RT_PARTIAL_MAGIC   "RTPART\r\n" /* 8 bytes at offset 0 */
/*
 * The trajectory sample a partial keeps without --vantage-sample: 1 in 64
 * (1e8 packets give about 1.6e6 sampled ones: tens of MB; docs/PARTIAL.md).
 */
#define RT_PARTIAL_SAMPLE_K 1
#define RT_PARTIAL_SAMPLE_M 64

/* What a packet of a partial is there for (rt_partial_packet.flags). */
enum rt_partial_packet_flag {
	RT_PP_CE = 1u << 0,      /* CE-marked at this point */
	RT_PP_SAMPLED = 1u << 1, /* in the trajectory sample (hash of fp mod m < k) */
	/* a CNP: a partial that keeps every CNP flags them, and the merged episodes then count
	 * a CNP seen at two points once (analyze/README.md, "Merging partials") */
	RT_PP_CNP = 1u << 2,
};

/* One RoCE packet (with a BTH) as this point saw it. */
struct rt_partial_packet {
	uint64_t fp;      /* its fingerprint: the same at every point (an_dup_fingerprint) */
	uint64_t ts_ns;   /* its time, in this point's clock */
	uint32_t flow;    /* its flow's id in the view (r->flows), RT_AN_NONE: none kept */
	uint8_t flags;    /* enum rt_partial_packet_flag */
	uint8_t ecn, ttl; /* IP ECN codepoint (0..3) and TTL / hop limit here */
	uint8_t ipver;    /* 4 or 6 */
	uint8_t src[16], dst[16]; /* IP addresses (IPv4 in the first 4 bytes, zero padded) */
};

struct an_results;

/*
 * The point's time buckets (section BUCK, docs/PARTIAL.md): what its
 * analyzer handed a sink taking buckets of len_ns, kept encoded (the
 * bucket records of the section: about 12 bytes a flow's row) and decoded
 * one at a time (analyze/partial_buckets.h).
 */
struct rt_partial_buckets {
	uint64_t len_ns;           /* bucket length */
	bool source_log, counters; /* the side-file columns the buckets carry */
	uint64_t n;                /* buckets */
	uint8_t *data;             /* their records, in time order */
	size_t size;
};

/* One vantage point's partial results. */
struct rt_partial {
	char *point; /* the vantage point's name (the host's, by default) */
	unsigned nfiles;
	char **files;                /* the capture files it covers, as named where it was made */
	uint32_t sample_k, sample_m; /* the trajectory sample kept: k in m (m 1: every packet) */
	uint64_t npackets;
	struct rt_partial_packet *packets; /* in time order (this point's clock) */
	const struct rt_results *r;        /* the point analyzed alone */
	struct an_results *res;            /* owns r and what it points to */
	struct rt_partial_buckets
	    *buckets; /* its time buckets, NULL: none kept (an older writer) */
};

/*
 * Frees a partial and all it holds: point, each of files and the array,
 * the packets' array, the buckets, and res (an_results_free(): r and
 * what it points to; NULL: r is not the partial's). NULL: nothing.
 */
void rt_partial_free(struct rt_partial *p);

/*
 * Write p to `path` ("-": standard output) in the format of docs/PARTIAL.md.
 * 0, or a negative errno with errbuf filled.
 */
int rt_partial_write(const struct rt_partial *p, const char *path, char *errbuf);
/*
 * Read a partial from `path`, or from len bytes at buf: *out, owned by the
 * caller. A file of another major version, a truncated or inconsistent one
 * is refused (-EPROTO, -EINVAL; errbuf says what). 0 or a negative errno.
 */
int rt_partial_read(const char *path, struct rt_partial **out, char *errbuf);
int rt_partial_read_mem(const void *buf, size_t len, struct rt_partial **out, char *errbuf);
/* Whether `path` is a regular file that starts with RT_PARTIAL_MAGIC (a partial, not a capture); a pipe is never asked. */
bool rt_partial_is(const char *path);

struct rt_analyzer;
/*
 * Keep the time buckets of `an` (made with rt_analyzer_opts.partial) for
 * its partial: a sink taking buckets of bucket_ns is added to it (before
 * the first record), and rt_partial_take keeps what it was handed. 0 or a
 * negative errno with errbuf filled.
 */
int rt_partial_bucket_sink(struct rt_analyzer *an, uint64_t bucket_ns, char *errbuf);
/*
 * The partial of a finished analyzer that collected its packets
 * (rt_analyzer_opts.partial): its results view (taken from it: the
 * analyzer builds another if asked), its CE-marked and sampled packets and
 * its buckets when it kept them (rt_partial_bucket_sink), named `point`, covering files[0..nfiles-1]. 0 or a negative errno.
 */
int rt_partial_take(struct rt_analyzer *an, const char *point, const char *const *files,
                    unsigned nfiles, struct rt_partial **out, char *errbuf);

/*
 * Partials a merge takes at most, each a vantage point: paths are found
 * between the pairs of points that share flows, each pair's packets replayed
 * apart beyond RT_AN_VANTAGE_MAX points (analyze/README.md, "Merging
 * partials"); the bound keeps a merge's per-pair tables (n * n entries) small.
 */
#define RT_PARTIAL_MERGE_MAX 1024

/*
 * The partials p[0..n-1] (2 <= n <= RT_PARTIAL_MERGE_MAX), each a vantage
 * point, merged into one view (analyze/README.md, "Across vantage points"):
 * *out->r is what one analysis of all their captures reports, by the rules
 * and with the limits that section gives; out->point is NULL. The partials
 * are left as they were. vantage_window_ns: the window their sampled
 * packets are matched in (--vantage-window; 0: 10 ms). 0 or a negative errno with errbuf filled (-EINVAL:
 * they cannot be merged, such as two of one point or other settings).
 */
int rt_partials_merge(struct rt_partial *const *p, unsigned n, uint64_t vantage_window_ns,
                      struct rt_partial **out, char *errbuf);

/*
 * The merged buckets' length: `asked` (--bucket; 0: none) when a multiple
 * of every partial's, else refused naming them (-EINVAL); without it, the
 * first 1-2-5 length at least `want` that is a multiple of each (else the
 * least such multiple at least `want`). A partial without buckets is
 * refused. 0 or -EINVAL with errbuf filled.
 */
int rt_partials_bucket_len(struct rt_partial *const *p, unsigned n, uint64_t asked, uint64_t want,
                           uint64_t *len, char *errbuf);

struct rt_flowsel_set;
/*
 * The buckets of p[0..n-1] (each with its buckets, len_ns a multiple of
 * their lengths) merged by the rules of analyze/README.md ("Merging
 * partials") into buckets of len_ns, in time order, each handed to
 * deliver(ctx, b) (its failure, negative, stops them). r: their merged view
 * (rt_partials_merge; one partial: its own), whose flows the rows name;
 * a row is selected as `flow` picks it (NULL or empty: as its flow in r).
 * 0 or a negative errno with errbuf filled.
 */
int rt_partials_buckets(struct rt_partial *const *p, unsigned n, const struct rt_results *r,
                        uint64_t len_ns, const struct rt_flowsel_set *flow,
                        int (*deliver)(void *ctx, const struct rt_an_bucket *b), void *ctx,
                        char *errbuf);
/*
 * Partial results through an analyzer made with no capture (its sinks
 * added, rt_analyzer_opts.flow picking the rows when given): the merged
 * buckets of p[0..n-1] to its sinks (rt_partials_buckets, at the sinks'
 * length), then their end(); rt_analyzer_report() then hands them r.
 * Flow keys are r's (rt_analyzer_flow_key). 0 or a sink's failure.
 */
int rt_analyzer_replay(struct rt_analyzer *an, struct rt_partial *const *p, unsigned n,
                       const struct rt_results *r, char *errbuf);

#endif

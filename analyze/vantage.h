/* Vantage points: the same RoCE packet matched across capture places, their clock offsets, one-way delays, losses and CE marks between them. */
#ifndef RT_ANALYZE_VANTAGE_H
#define RT_ANALYZE_VANTAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/hist.h"
#include "analyze/types.h"

#define AN_VP_POINTS      RT_AN_VANTAGE_MAX
#define AN_VP_PAIRS       (AN_VP_POINTS * (AN_VP_POINTS - 1) / 2)
#define AN_VP_NONE        UINT64_MAX
#define AN_VP_MAX_ENTRIES (1u << 20) /* packets waiting for their window to close, at most */

/*
 * What one pair of points (i < j) saw of one class of packets (one
 * direction between two hosts). d = (time at j) - (time at i), each in its
 * own point's clock: for packets from i to j it is the delay plus the
 * offset of j's clock, from j to i the offset less the delay.
 */
/*
 * The packets one point saw and the other did not, by the time the first saw
 * them: judged at the end, when the delays (and so the clock offset) are
 * known. The first AN_VP_MISS_LOG exactly, the rest as a count and a span.
 */
#define AN_VP_MISS_LOG 65536u
struct an_vp_misses {
	uint64_t *t;
	uint32_t n, cap;
	uint64_t over, over_min, over_max;
};

struct an_vp_link {
	uint64_t matched;            /* packets seen at both */
	int64_t dmin, dmax;          /* of d */
	struct an_vp_misses miss[2]; /* seen at i only ([0]) or at j only ([1]) */
	uint64_t ce[2];              /* ECT at i and CE at j ([0]); ECT at j and CE at i ([1]) */
	uint64_t
	    ttl_lower[2]; /* a lower TTL at j ([0]) or at i ([1]): that one is after a router */
	int64_t ref;      /* its first d: the sketches hold d - ref */
	struct an_hist *pos, *neg; /* d - ref, >= 0 and < 0 (negated) */
};

/* One class: packets from one host to another, with its links per pair of points. */
struct an_vp_class {
	uint8_t ipver;
	uint8_t src[16], dst[16];
	struct an_vp_link *link[AN_VP_PAIRS];
};

/* One packet waiting until its window closes: the frame of it each point saw. */
struct an_vp_entry {
	uint64_t fp, t0; /* fingerprint (an_dup_fingerprint); the first frame's time */
	uint64_t
	    older; /* the live instance with this fingerprint before it (its seq), or AN_VP_NONE */
	uint32_t cls;
	uint8_t seen; /* bit per point */
	uint8_t ecn[AN_VP_POINTS], ttl[AN_VP_POINTS];
	uint64_t t[AN_VP_POINTS];
};

struct an_vp_point {
	bool seen;
	uint64_t first, last, frames; /* its frames' times, in its own clock */
};

/*
 * A packet the one point seen so far saw, kept for the window in case a
 * second point comes: what its entry would hold (IPv4 addresses here,
 * others in an_vantage.pre6 at the same index).
 */
struct an_vp_pre {
	uint64_t fp, ts;
	uint8_t src4[4], dst4[4];
	uint8_t ipver, ecn, ttl;
};

/* The vantage-point analysis; `on` false: nothing is done per frame. */
struct an_vantage {
	bool on;
	/*
	 * Until a second point is seen (`matching` false) no entry is made:
	 * the packets of the window wait in a ring (pre, seqs [phead, ptail)),
	 * replayed into the entries when that point comes.
	 */
	bool matching;
	int only;   /* the one point seen so far, or -1 */
	bool alone; /* no other point can come (rt_analyzer_one_point()): no packet waits */
	struct an_vp_pre *pre;
	uint8_t (
	    *pre6)[32]; /* source and destination of non-IPv4 packets, or NULL while none came */
	uint64_t phead, ptail;
	uint32_t pcap; /* ring size, power of 2 (0: none yet) */
	uint64_t window_ns;
	uint32_t sample_k, sample_m; /* trajectory sampling (an_vp_sample): m 1, all packets */
	struct an_vp_point pt[AN_VP_POINTS];
	/* packets in their window: a ring by seq, and a hash from fingerprint to the newest instance's seq */
	struct an_vp_entry *e;
	uint64_t head, tail; /* live seqs are [head, tail) */
	uint32_t cap;        /* ring size, power of 2 */
	struct {
		uint64_t fp, seq;
	} * h;
	uint32_t hcap; /* 2 * cap */
	/* classes by host pair: open addressing to index + 1 */
	struct an_vp_class *cls;
	uint32_t ncls, capcls;
	uint32_t *cidx;
	uint32_t ccap;
	uint64_t frames_unknown; /* frames whose point is unknown or beyond AN_VP_POINTS */
	uint64_t
	    forgotten_early; /* packets pushed out before their window closed (AN_VP_MAX_ENTRIES) */
	bool nomem;          /* something could not be allocated: the figures miss what it held */
	/* the vantage points as the caller described them (rt_analyzer_vantage_points) */
	struct rt_an_vantage *vp;
	unsigned nvp;
};

/* Why packets seen upstream were not judged lost or not (an_vp_path.not_judged). */
#define AN_VP_NOT_JUDGED                                                                           \
	"the downstream point was not capturing when they would have passed it (its first or "     \
	"last frame, by the delays and clock offset between the points)"

/* One path between two vantage points (from upstream to downstream), as the report gives it. */
struct an_vp_path {
	unsigned from, to;
	uint32_t sample_k, sample_m; /* the packets matched: those trajectory sampling kept */
	uint64_t matched, lost, ce_marked;
	/* packets seen upstream whose passing downstream was judged (matched + lost), and those
	 * that could not be: the downstream point was not capturing when they would have passed */
	uint64_t judged, not_judged;
	bool offset_known;
	int64_t offset_ns;              /* to's clock less from's */
	const char *offset_null_reason; /* when not known */
	bool delay_known;
	bool
	    delay_includes_offset; /* the offset could not be measured: delays are raw time differences */
	int64_t delay_min, delay_median, delay_p99;
	const char *delay_null_reason;
};

/* A pair of points ordered both ways gives at most two paths. */
#define AN_VP_PATHS_MAX (2 * AN_VP_PAIRS)

/* The paths between the described points, and which of them each class of packets is on. */
struct an_vp_result {
	unsigned npaths;
	struct an_vp_path path[AN_VP_PATHS_MAX];
	int path_of[AN_VP_PAIRS]
	           [2]; /* pair of points i < j, from i ([0]) or from j ([1]) -> path, or -1 */
	int8_t *way
	    [AN_VP_PAIRS]; /* per pair: each class's way (0: from i, 1: from j, -1: on neither), or NULL */
	uint64_t *lost[AN_VP_PAIRS]; /* per pair: each class's packets lost on its way, or NULL */
};

/* The part, on (records carry their capture point: rt_record.point) or off. */
void an_vp_init(struct an_vantage *v, bool on, uint64_t window_ns);
void an_vp_free(struct an_vantage *v);
/*
 * Trajectory sampling: match only the packets whose fingerprint hashes below
 * k in m (1 <= k <= m; m 1: all), before the first frame.
 */
void an_vp_sample(struct an_vantage *v, uint32_t k, uint32_t m);
/*
 * Whether trajectory sampling at k in m (m 0 or 1: every packet) keeps the
 * packet of fingerprint fp: a hash of what every point sees alike, so that
 * every point keeps the same packets.
 */
bool an_vp_fp_sampled(uint32_t k, uint32_t m, uint64_t fp);
/*
 * One frame at stream time `now`: fp is its fingerprint when it is RoCE
 * with a BTH (else 0); copy: the duplicate detection found it a copy of a
 * packet counted already. Its point is rec->point (one from AN_VP_POINTS
 * on, or none, is unknown).
 */
void an_vp_frame(struct an_vantage *v, const struct rt_record *rec, uint64_t fp, bool copy,
                 uint64_t now);
/* End of input: every packet still waiting is settled (its misses judged with the others). */
void an_vp_finish(struct an_vantage *v);
/*
 * Whether src's matches merge into dst's (both finished: no packet in its
 * window): NULL, or why not. They merge when no host pair's packets were
 * matched by both (an analysis split by host pair) and both sampled alike.
 */
const char *an_vp_merge_refused(const struct an_vantage *dst, const struct an_vantage *src);
/*
 * src's classes (host pairs one way, with their links) moved into dst, the
 * points' frames and spans joined: the state one analyzer of both inputs
 * reaches (an_vp_merge_refused() said yes). 0, or -ENOMEM.
 */
int an_vp_merge(struct an_vantage *dst, struct an_vantage *src);
/* The vantage points' descriptions (copied). 0 or -ENOMEM. */
int an_vp_describe(struct an_vantage *v, const struct rt_an_vantage *vp, unsigned n);
/* The paths between the described points into *r (an_vp_result_free() frees it). 0, or -ENOMEM. */
int an_vp_compute(const struct an_vantage *v, struct an_vp_result *r);
void an_vp_result_free(struct an_vp_result *r);
/*
 * The paths (indexes into r->path, up to AN_VP_PAIRS into out) the packets
 * from host src to host dst were seen on, from their upstream point to the
 * downstream one, and in lost (when not NULL) how many of those packets each
 * path lost; returns how many paths.
 */
unsigned an_vp_flow_paths(const struct an_vantage *v, const struct an_vp_result *r, uint8_t ipver,
                          const uint8_t *src, const uint8_t *dst, unsigned *out, uint64_t *lost);
/* Point j's clock less point i's, as a path between them measured it: false when none did. */
bool an_vp_clock_offset(const struct an_vp_result *r, unsigned i, unsigned j, int64_t *offset);

/* Offset of j's clock over i's, NTP's way, from the smallest delay each way (exposed for tests). */
int64_t an_vp_offset(int64_t fwd_dmin, int64_t rev_dmax);

/* Inside vantage.c and vantage_paths.c: no class. */
#define AN_VP_CLS_NONE UINT32_MAX

/* Index of the pair of points i < j. */
static inline unsigned an_vp_pair_of(unsigned i, unsigned j)
{
	return i * (2 * AN_VP_POINTS - i - 1) / 2 + (j - i - 1);
}

/* The class of packets from src to dst (one direction between two hosts), or AN_VP_CLS_NONE. */
uint32_t an_vp_find_class(const struct an_vantage *v, uint8_t ipver, const uint8_t *src,
                          const uint8_t *dst);

#endif

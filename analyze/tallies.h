/* Tallies about the capture itself, counted frame by frame: what the warnings are made of. */
#ifndef RT_ANALYZE_TALLIES_H
#define RT_ANALYZE_TALLIES_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/types.h"
#include "dissect/dissect.h"

#define AN_HINT_PORTS  16 /* UDP ports probed for RoCEv2 */
#define AN_HINT_CHECKS 8  /* datagrams checked per port */
struct an_port_hint {
	uint16_t port;
	uint32_t checked,
	    valid; /* datagrams sampled; of them, RoCEv2 (rt_record.other_port_rocev2) */
	uint64_t datagrams;
};
/*
 * Time order: a frame older than the previous frame of its own vantage point
 * is disorder within that point (ts_back, the biggest step ts_back_max; PFC
 * and PAUSE frames among them pfc_back); older than the stream's previous
 * frame only, it is the expected interleaving of merged points
 * (ts_back_across). Whether disorder hurts a figure (analyze/warnings.c):
 * the flows' own packets out of order (flow_back, in flows_back flows: set
 * where flows are followed), frames counted in a later timeline bucket than
 * their time (late_bucket), the NP delays and pauses against the steps.
 */
#define AN_TALLY_POINTS (RT_AN_VANTAGE_MAX + 1) /* the vantage points, and none known */
struct an_tallies {
	uint64_t prev_ts;                  /* the previous frame's time */
	uint64_t prev_at[AN_TALLY_POINTS]; /* ... of each point (index point + 1; 0: none yet) */
	uint64_t ts_back, ts_back_max, pfc_back, ts_back_across;
	uint64_t flow_back, flow_back_max, flows_back, late_bucket;
	uint64_t cut;         /* frames cut by the snap length (caplen < wire length) */
	uint64_t headers_cut; /* ... in a header, not only in the payload or ICRC */
	uint64_t icrc_cut;    /* RoCE frames cut after their headers: the ICRC is not checked */
	uint64_t wire_short;  /* records whose wire length was below their captured bytes */
	uint64_t data_ip,
	    data_not_ect; /* RoCE packets with an IP header but CNPs; Not-ECT among them */
	struct an_port_hint ports[AN_HINT_PORTS];
	unsigned nports;
	bool drops_known; /* from the capture file (rt_analyzer_capture_drops) */
	uint64_t if_dropped, os_dropped;
};

/* A UDP datagram to another port: sampled for RoCEv2 (rt_record.other_port_rocev2: `rocev2`). */
void an_tally_port(struct an_tallies *fd, uint16_t port, bool rocev2);

/*
 * Merge another part's tallies (analyze/README.md, "Split and merge"): the
 * counts summed, the largest step back kept, the port samples of a port
 * summed (ports new to dst taken while there is room), capture drops
 * summed.
 */
void an_tally_merge(struct an_tallies *dst, const struct an_tallies *src);

/*
 * The time order: a frame at ts at vantage point `point` (-1: none known);
 * `pause`: a PFC or PAUSE frame; `first`: the first frame.
 */
static inline void an_tally_order(struct an_tallies *fd, uint64_t ts, bool first, int point,
                                  bool pause)
{
	uint64_t *prev = &fd->prev_at[point < 0 || point >= RT_AN_VANTAGE_MAX ? 0 : point + 1];
	if (*prev && ts < *prev) {
		fd->ts_back++;
		if (*prev - ts > fd->ts_back_max)
			fd->ts_back_max = *prev - ts;
		fd->pfc_back += pause;
	} else if (ts < fd->prev_ts && !first) {
		fd->ts_back_across++;
	}
	*prev = ts ? ts : 1;
	fd->prev_ts = ts;
}

/* What a frame's tally needs of it alone (snap length, ECN); true: a datagram to another port to sample. */
static inline bool an_tally_counts(struct an_tallies *fd, const struct rt_record *rec)
{
	fd->wire_short += (rec->events & RT_EV_WIRE_SHORT) != 0;
	if (rec->caplen < rec->wirelen) {
		fd->cut++;
		uint64_t cut = rec->events & RT_EV_TRUNCATION_MASK;
		fd->headers_cut += (cut & ~RT_EV_ICRC_TRUNCATED) != 0;
		fd->icrc_cut += cut == RT_EV_ICRC_TRUNCATED;
	}
	if (rec->kind == RT_KIND_ROCE && (rec->layers & (RT_L_IPV4 | RT_L_IPV6))) {
		fd->data_ip++;
		fd->data_not_ect += (rec->ecn & 3) == 0;
		return false;
	}
	return rec->kind == RT_KIND_OTHER && (rec->layers & RT_L_UDP) && !(rec->layers & RT_L_GRE);
}

/*
 * Tally one frame for the warnings (before duplicates are set aside), at vantage point
 * `point` (-1: none known); `first`: the first frame.
 */
static inline void an_tally_frame(struct an_tallies *fd, const struct rt_record *rec, bool first,
                                  int point)
{
	an_tally_order(fd, rec->ts_ns, first, point,
	               rec->kind == RT_KIND_PFC || rec->kind == RT_KIND_PAUSE);
	if (an_tally_counts(fd, rec))
		an_tally_port(fd, rec->udp_dport, rec->other_port_rocev2);
}

#endif

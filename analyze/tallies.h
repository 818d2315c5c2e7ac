/* Tallies about the capture itself, counted frame by frame: what the warnings are made of. */
#ifndef RT_ANALYZE_TALLIES_H
#define RT_ANALYZE_TALLIES_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"

#define AN_HINT_PORTS  16 /* UDP ports probed for RoCEv2 */
#define AN_HINT_CHECKS 8  /* datagrams checked per port */
struct an_port_hint {
	uint16_t port;
	uint32_t checked,
	    valid; /* datagrams sampled; of them, RoCEv2 (rt_record.other_port_rocev2) */
	uint64_t datagrams;
};
struct an_tallies {
	uint64_t prev_ts; /* the previous frame's time */
	uint64_t ts_back,
	    ts_back_max;      /* times a frame was older than the one before; the biggest step */
	uint64_t cut;         /* frames cut by the snap length (caplen < wire length) */
	uint64_t headers_cut; /* ... in a header, not only in the payload or ICRC */
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

/* The time order: a frame at ts (`first`: the first frame). */
static inline void an_tally_order(struct an_tallies *fd, uint64_t ts, bool first)
{
	if (ts < fd->prev_ts && !first) {
		fd->ts_back++;
		if (fd->prev_ts - ts > fd->ts_back_max)
			fd->ts_back_max = fd->prev_ts - ts;
	}
	fd->prev_ts = ts;
}

/* What a frame's tally needs of it alone (snap length, ECN); true: a datagram to another port to sample. */
static inline bool an_tally_counts(struct an_tallies *fd, const struct rt_record *rec)
{
	if (rec->caplen < rec->wirelen) {
		fd->cut++;
		fd->headers_cut +=
		    (rec->events & RT_EV_TRUNCATION_MASK & ~RT_EV_ICRC_TRUNCATED) != 0;
	}
	if (rec->kind == RT_KIND_ROCE && (rec->layers & (RT_L_IPV4 | RT_L_IPV6))) {
		fd->data_ip++;
		fd->data_not_ect += (rec->ecn & 3) == 0;
		return false;
	}
	return rec->kind == RT_KIND_OTHER && (rec->layers & RT_L_UDP) && !(rec->layers & RT_L_GRE);
}

/* Tally one frame for the warnings (before duplicates are set aside); `first`: the first frame. */
static inline void an_tally_frame(struct an_tallies *fd, const struct rt_record *rec, bool first)
{
	an_tally_order(fd, rec->ts_ns, first);
	if (an_tally_counts(fd, rec))
		an_tally_port(fd, rec->udp_dport, rec->other_port_rocev2);
}

#endif

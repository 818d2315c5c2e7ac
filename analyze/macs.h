/* The MACs RoCE and PFC frames came from and went to: at which vantage points, and the IP behind each. */
#ifndef RT_ANALYZE_MACS_H
#define RT_ANALYZE_MACS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dissect/dissect.h"

#define AN_MACS_MAX 4096 /* MACs kept; the others are counted in `beyond` */
/*
 * The MACs a part of a staged analysis (analyze/stage.c), and a merge,
 * hold: enough that the merge keeps the first AN_MACS_MAX of the whole
 * capture (about 64 MiB each at most).
 */
#define AN_MACS_HELD (1u << 20)

/* One MAC: where it was seen, and the IP its RoCE frames carried (from it or to it). */
struct an_mac {
	uint8_t mac[6];
	uint8_t points;     /* bit p: seen at vantage point p (0..7), as source or destination */
	uint8_t src_points; /* ... as the source of a frame */
	uint8_t ipver;      /* 4 or 6 of ip; 0: no RoCE frame with an IP header */
	uint8_t ip[16];     /* the first IP (IPv4 in the first 4 bytes) */
	bool several;       /* RoCE frames of other IPs too: a router or switch, not a host */
	uint64_t frames;
	uint64_t first;    /* where it was first seen: frame number * 2, + 1 as a destination */
	uint64_t ip_first; /* where ip was first seen with it, the same way (0: no ip) */
};

struct an_macs {
	struct an_mac *e;
	/*
	 * The table is e[0..n); e[n..all) the MACs a merge put past AN_MACS_MAX
	 * (their frames counted in `beyond`), held for the next merge.
	 */
	uint32_t n, all, cap;
	uint32_t *tab; /* open addressing: index into e[0..all), or UINT32_MAX */
	uint32_t mask;
	uint32_t last[2]; /* the entries the latest frame named (source, destination) */
	uint64_t beyond;  /* frames of MACs not in the table (past its AN_MACS_MAX, AN_MACS_HELD) */
};

void an_macs_free(struct an_macs *m);
/* The slow path of an_macs_see(): the entry looked up or added, then updated. */
void an_macs_add(struct an_macs *m, unsigned which, const uint8_t mac[6], int point, uint8_t ipver,
                 const uint8_t *ip, uint64_t frame, bool part);

/*
 * Merge another analyzer's MAC table (analyze/README.md, "Split and
 * merge"): a MAC of both has its frames summed, its points united, the IP
 * first seen with it, and is a router's (several) when either saw several
 * IPs or their IPs differ. The table then lists its MACs in the order they
 * were first seen, the first AN_MACS_MAX: the later ones' frames count in
 * `beyond` (they stay held, for the next merge).
 */
void an_macs_merge(struct an_macs *dst, const struct an_macs *src);
/*
 * A frame's MAC (`which` 0: its source, 1: its destination) at `point` (-1:
 * unknown), with ip (NULL: none), in frame number `frame`; in a part of a
 * staged analysis, which holds AN_MACS_HELD MACs, not AN_MACS_MAX.
 */
static inline void an_macs_see(struct an_macs *m, unsigned which, const uint8_t mac[6], int point,
                               uint8_t ipver, const uint8_t *ip, uint64_t frame, bool part)
{
	uint32_t i = m->last[which];
	if (i < m->n) {
		struct an_mac *e = &m->e[i];
		unsigned len = ipver == 4 ? 4 : 16;
		uint8_t seen = which ? e->points : e->src_points;
		if (!memcmp(e->mac, mac, 6) && (point < 0 || (seen >> point) & 1) &&
		    (!ip || e->several || (e->ipver == ipver && !memcmp(e->ip, ip, len)))) {
			e->frames++;
			return;
		}
	}
	an_macs_add(m, which, mac, point, ipver, ip, frame, part);
}

#endif

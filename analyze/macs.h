/* The MACs RoCE and PFC frames came from and went to: at which vantage points, and the IP behind each. */
#ifndef RT_ANALYZE_MACS_H
#define RT_ANALYZE_MACS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dissect/dissect.h"

#define AN_MACS_MAX 4096 /* MACs kept; the others are counted in `beyond` */

/* One MAC: where it was seen, and the IP its RoCE frames carried (from it or to it). */
struct an_mac {
	uint8_t mac[6];
	uint8_t points;     /* bit p: seen at vantage point p (0..7), as source or destination */
	uint8_t src_points; /* ... as the source of a frame */
	uint8_t ipver;      /* 4 or 6 of ip; 0: no RoCE frame with an IP header */
	uint8_t ip[16];     /* the first IP (IPv4 in the first 4 bytes) */
	bool several;       /* RoCE frames of other IPs too: a router or switch, not a host */
	uint64_t frames;
};

struct an_macs {
	struct an_mac *e;
	uint32_t n, cap;
	uint32_t *tab; /* open addressing: index into e, or UINT32_MAX */
	uint32_t mask;
	uint32_t last[2]; /* the entries the latest frame named (source, destination) */
	uint64_t beyond;  /* frames of MACs past AN_MACS_MAX */
};

void an_macs_free(struct an_macs *m);
/* The slow path of an_macs_see(): the entry looked up or added, then updated. */
void an_macs_add(struct an_macs *m, unsigned which, const uint8_t mac[6], int point, uint8_t ipver,
                 const uint8_t *ip);

/* A frame's MAC (`which` 0: its source, 1: its destination) at `point` (-1: unknown), with ip (NULL: none). */
static inline void an_macs_see(struct an_macs *m, unsigned which, const uint8_t mac[6], int point,
                               uint8_t ipver, const uint8_t *ip)
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
	an_macs_add(m, which, mac, point, ipver, ip);
}

#endif

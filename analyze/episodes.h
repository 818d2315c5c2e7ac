/* Congestion episodes: intervals where CE marks, CNPs and pauses follow each other closely, with throughput around them. */
#ifndef RT_ANALYZE_EPISODES_H
#define RT_ANALYZE_EPISODES_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/flow.h"
#include "analyze/ring.h"

/* What happened (an_ep_event). */
enum an_ep_kind {
	AN_EP_CE = 1,    /* a CE-marked packet */
	AN_EP_CNP,       /* a CNP */
	AN_EP_XOFF,      /* a PFC/PAUSE class started pausing */
	AN_EP_PAUSE_END, /* ... stopped */
};

#define AN_EP_FLOWS 16 /* flow ids listed per episode */
struct an_episode {
	uint64_t start, end;
	uint64_t ce, cnp, paused_ns, pfc_xoff, flows;
	uint64_t bytes_before, bytes_during, bytes_after;
	uint64_t peak_ce_slot;
	uint32_t flow_ids[AN_EP_FLOWS];
	uint64_t flow_ts[AN_EP_FLOWS]; /* when each listed flow was first counted */
	/* made by a merge (an_ep_merge): the bytes around it and its CE peak are unknown */
	bool merged;
};

/*
 * A part of a staged analysis (analyze/stage.c) keeps no episodes: it logs
 * what they are made of, for the stage that makes them in frame order: the
 * flows it numbers (an_ep_log_flow) and its events, each with the slot of
 * the record being fed.
 */
/* entries that are no event (else an enum an_ep_kind): a flow numbered, a datagram to another UDP port */
enum { AN_EP_LOG_FLOW = 0, AN_EP_LOG_PORT = 0x80 };
struct an_ep_log_entry {
	uint64_t ts;
	uint32_t slot, id; /* id: the flow's (the part's numbering), AN_NONE: no flow */
	uint8_t what;
};
struct an_ep_log {
	struct an_ep_log_entry *e;
	uint32_t n, cap;
	struct rt_an_flow_key
	    *keys; /* of the flows numbered (an AN_EP_LOG_FLOW entry's ts: its index) */
	uint32_t nkeys, capkeys;
	uint32_t slot; /* the record being fed */
	bool nomem;    /* an entry could not be kept */
};

#define AN_GSLOTS 16 /* byte history: slots of gap/8 */
struct an_episodes {
	uint64_t gap_ns;
	uint64_t slot_w,
	    slot_start;          /* slot width (gap/8, at least 1); where the newest slot starts */
	struct an_episode *list; /* closed ones */
	uint32_t n, cap;
	bool open;
	struct an_episode cur;
	uint64_t bytes_total, bytes_at_end, ce_slot, slot, last_bytes;
	struct an_sring slots; /* bytes per slot of gap/8 (a slot's number: time / width) */
	uint64_t slot_bytes[AN_GSLOTS];
	struct an_ep_log
	    *log; /* a part's: events are logged, not made into episodes (NULL: made) */
};

void an_ep_init(struct an_episodes *ep, uint64_t gap_ns);
void an_ep_free(struct an_episodes *ep);
void an_ep_packet_slow(struct an_episodes *ep, uint64_t ts, uint32_t bytes, bool paused);
/* A frame of `bytes` at ts (copies aside); `paused`: a PFC/PAUSE class is paused (no episode ends). */
static inline void an_ep_packet(struct an_episodes *ep, uint64_t ts, uint32_t bytes, bool paused)
{
	/* most frames fall in the newest slot with no episode open: a sum, no division */
	if (ts - ep->slot_start < ep->slot_w && ep->slots.next && !ep->open) {
		ep->slot_bytes[(ep->slots.next - 1) & (AN_GSLOTS - 1)] += bytes;
		ep->last_bytes = bytes;
		return;
	}
	an_ep_packet_slow(ep, ts, bytes, paused);
}
/* Something an episode is made of at ts, of flow f (NULL: none); logged when ep->log is set. */
void an_ep_event(struct an_episodes *ep, uint64_t ts, struct an_flow *f, enum an_ep_kind what,
                 bool paused);
/* The same of the flow numbered id (AN_NONE: none) whose last counting episode (number + 1) is *mark. */
void an_ep_event_id(struct an_episodes *ep, uint64_t ts, uint32_t id, uint32_t *mark,
                    enum an_ep_kind what, bool paused);
void an_ep_log_add(struct an_ep_log *log, uint64_t ts, uint32_t id, uint8_t what);
/* A datagram to another UDP port to sample (an_tally_port): port and rocev2 in the entry's id. */
static inline void an_ep_log_port(struct an_episodes *ep, uint16_t port, bool rocev2)
{
	an_ep_log_add(ep->log, 0, port | (uint32_t)rocev2 << 16, AN_EP_LOG_PORT);
}
void an_ep_log_key(struct an_ep_log *log, uint32_t id, const struct rt_an_flow_key *key);
/* The flow of `key` got id `id` (logged when ep->log is set). */
static inline void an_ep_log_flow(struct an_episodes *ep, uint32_t id,
                                  const struct rt_an_flow_key *key)
{
	if (ep->log)
		an_ep_log_key(ep->log, id, key);
}
/* `ns` of pause accounted, the pause running at least until `until`. */
void an_ep_paused(struct an_episodes *ep, uint64_t until, uint64_t ns);
void an_ep_finish(struct an_episodes *ep);
/*
 * Merge finished episodes of another part into dst (analyze/README.md,
 * "Split and merge"): the flow ids of each renumbered through map_dst and
 * map_src (old id -> new id), the episodes of both chained where one starts
 * within the gap of the end of the one before (the chains one pass over
 * all the events makes), their counts summed and flows listed by the time
 * each was first counted; each is `merged`. 0 or -ENOMEM (dst unchanged).
 */
int an_ep_merge(struct an_episodes *dst, const struct an_episodes *src, const uint32_t *map_dst,
                const uint32_t *map_src);
/* Width of the slots the CE peak rate is counted in. */
uint64_t an_ep_slot_ns(const struct an_episodes *ep);

#endif

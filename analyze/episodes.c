/* Congestion episodes: contiguous intervals of CE marks, CNPs and PFC/PAUSE pauses, with throughput around them. */
#include "analyze/episodes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void an_ep_init(struct an_episodes *ep, uint64_t gap_ns)
{
	memset(ep, 0, sizeof(*ep));
	ep->gap_ns = gap_ns;
	ep->slot_w = gap_ns / 8 ? gap_ns / 8 : 1;
	an_sring_init_fixed(&ep->slots, ep->slot_bytes, AN_GSLOTS);
}

void an_ep_free(struct an_episodes *ep)
{
	free(ep->list);
	ep->list = NULL;
}

uint64_t an_ep_slot_ns(const struct an_episodes *ep)
{
	return ep->slot_w;
}

static void ep_close(struct an_episodes *ep)
{
	struct an_episode *c = &ep->cur;
	if (ep->ce_slot > c->peak_ce_slot)
		c->peak_ce_slot = ep->ce_slot;
	c->bytes_during = ep->bytes_at_end;
	c->bytes_after = ep->bytes_total - ep->bytes_at_end;
	ep->open = false;
	if (ep->n == ep->cap) {
		uint32_t ncap = ep->cap ? ep->cap * 2 : 16;
		struct an_episode *ne = realloc(ep->list, ncap * sizeof(*ne));
		if (!ne)
			return;
		ep->list = ne;
		ep->cap = ncap;
	}
	ep->list[ep->n++] = *c;
}

void an_ep_packet_slow(struct an_episodes *ep, uint64_t ts, uint32_t bytes, bool paused)
{
	uint64_t w = ep->slot_w, s;
	if (ep->slots.next && ts - ep->slot_start < w) {
		s = ep->slots.next - 1;
	} else {
		s = ts / w;
		if (s >= ep->slots.next) {
			an_sring_advance(&ep->slots, s);
			ep->slot_start = s * w;
		}
	}
	if (an_sring_held(&ep->slots, s))
		*an_sring_at(&ep->slots, s) += bytes;
	if (ep->open && !paused && ts > ep->cur.end + ep->gap_ns)
		ep_close(ep);
	if (ep->open) {
		if (s != ep->slot) {
			if (ep->ce_slot > ep->cur.peak_ce_slot)
				ep->cur.peak_ce_slot = ep->ce_slot;
			ep->ce_slot = 0;
			ep->slot = s;
		}
		ep->bytes_total += bytes;
	}
	ep->last_bytes = bytes;
}

void an_ep_log_add(struct an_ep_log *log, uint64_t ts, uint32_t id, uint8_t what)
{
	if (log->n == log->cap) {
		uint32_t ncap = log->cap ? log->cap * 2 : 256;
		struct an_ep_log_entry *ne = realloc(log->e, (size_t)ncap * sizeof(*ne));
		if (!ne) {
			log->nomem = true;
			return;
		}
		log->e = ne;
		log->cap = ncap;
	}
	log->e[log->n++] =
	    (struct an_ep_log_entry){.ts = ts, .slot = log->slot, .id = id, .what = what};
}

void an_ep_log_key(struct an_ep_log *log, uint32_t id, const struct rt_an_flow_key *key)
{
	if (log->nkeys == log->capkeys) {
		uint32_t ncap = log->capkeys ? log->capkeys * 2 : 64;
		struct rt_an_flow_key *nk = realloc(log->keys, (size_t)ncap * sizeof(*nk));
		if (!nk) {
			log->nomem = true;
			return;
		}
		log->keys = nk;
		log->capkeys = ncap;
	}
	log->keys[log->nkeys] = *key;
	an_ep_log_add(log, log->nkeys++, id, AN_EP_LOG_FLOW);
}

void an_ep_event(struct an_episodes *ep, uint64_t ts, struct an_flow *f, enum an_ep_kind what,
                 bool paused)
{
	if (ep->log)
		an_ep_log_add(ep->log, ts, f ? f->id : AN_NONE, (uint8_t)what);
	else
		an_ep_event_id(ep, ts, f ? f->id : AN_NONE, f ? &f->ep_mark : NULL, what, paused);
}

void an_ep_event_id(struct an_episodes *ep, uint64_t ts, uint32_t id, uint32_t *mark,
                    enum an_ep_kind what, bool paused)
{
	if (ep->open && !paused && ts > ep->cur.end + ep->gap_ns)
		ep_close(ep);
	if (!ep->open) {
		uint64_t w = ep->slot_w, s = ts / w, before = 0;
		for (uint64_t k = s >= 8 ? s - 8 : 0; k < s; k++)
			if (an_sring_held(&ep->slots, k))
				before += *an_sring_at(&ep->slots, k);
		memset(&ep->cur, 0, sizeof(ep->cur));
		ep->cur.start = ts;
		ep->cur.end = ts;
		ep->cur.bytes_before = before;
		ep->bytes_total = ep->last_bytes;
		ep->bytes_at_end = 0;
		ep->slot = s;
		ep->ce_slot = 0;
		ep->open = true;
	}
	struct an_episode *c = &ep->cur;
	if (ts > c->end)
		c->end = ts;
	ep->bytes_at_end = ep->bytes_total;
	switch (what) {
	case AN_EP_CE:
		c->ce++;
		if (ts / ep->slot_w == ep->slot)
			ep->ce_slot++;
		break;
	case AN_EP_CNP:
		c->cnp++;
		break;
	case AN_EP_XOFF:
		c->pfc_xoff++;
		break;
	case AN_EP_PAUSE_END:
		break;
	}
	if (id != AN_NONE && mark && *mark != ep->n + 1) {
		*mark = ep->n + 1;
		if (c->flows < AN_EP_FLOWS) {
			c->flow_ids[c->flows] = id;
			c->flow_ts[c->flows] = ts;
		}
		c->flows++;
	}
}

void an_ep_paused(struct an_episodes *ep, uint64_t until, uint64_t ns)
{
	if (!ep->open)
		return;
	ep->cur.paused_ns += ns;
	if (until > ep->cur.end)
		ep->cur.end = until;
}

void an_ep_finish(struct an_episodes *ep)
{
	if (ep->open)
		ep_close(ep);
}

/* The listed flows of b joined to a's by the time each was first counted (a's first on a tie). */
static void join_flows(struct an_episode *a, const struct an_episode *b)
{
	uint32_t ids[AN_EP_FLOWS];
	uint64_t ts[AN_EP_FLOWS];
	unsigned na = a->flows < AN_EP_FLOWS ? (unsigned)a->flows : AN_EP_FLOWS;
	unsigned nb = b->flows < AN_EP_FLOWS ? (unsigned)b->flows : AN_EP_FLOWS;
	unsigned i = 0, j = 0, k = 0;
	uint64_t flows = a->flows + b->flows;
	while (k < AN_EP_FLOWS && (i < na || j < nb)) {
		bool take_b = j < nb && (i == na || b->flow_ts[j] < a->flow_ts[i]);
		uint32_t id = take_b ? b->flow_ids[j] : a->flow_ids[i];
		uint64_t t = take_b ? b->flow_ts[j++] : a->flow_ts[i++];
		bool again = false; /* one flow in two parts of one analyzer: counted once */
		for (unsigned m = 0; m < k && !again; m++)
			again = ids[m] == id;
		if (again) {
			flows--;
			continue;
		}
		ids[k] = id;
		ts[k++] = t;
	}
	memcpy(a->flow_ids, ids, k * sizeof(ids[0]));
	memcpy(a->flow_ts, ts, k * sizeof(ts[0]));
	a->flows = flows;
}

/* Episode b (starting within the gap of a's end) joined to a. */
static void join_episode(struct an_episode *a, const struct an_episode *b)
{
	if (b->end > a->end)
		a->end = b->end;
	a->ce += b->ce;
	a->cnp += b->cnp;
	a->paused_ns += b->paused_ns;
	a->pfc_xoff += b->pfc_xoff;
	a->bytes_before += b->bytes_before;
	a->bytes_during += b->bytes_during;
	a->bytes_after += b->bytes_after;
	if (b->peak_ce_slot > a->peak_ce_slot)
		a->peak_ce_slot = b->peak_ce_slot;
	join_flows(a, b);
}

static void renumber(struct an_episode *e, const uint32_t *map)
{
	for (unsigned i = 0; map && i < e->flows && i < AN_EP_FLOWS; i++)
		e->flow_ids[i] = map[e->flow_ids[i]];
}

int an_ep_merge(struct an_episodes *dst, const struct an_episodes *src, const uint32_t *map_dst,
                const uint32_t *map_src)
{
	uint32_t n = dst->n + src->n, i = 0, j = 0, k = 0;
	struct an_episode *out = malloc((size_t)(n ? n : 1) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (i < dst->n || j < src->n) {
		bool take_src =
		    j < src->n && (i == dst->n || src->list[j].start < dst->list[i].start);
		struct an_episode e = take_src ? src->list[j++] : dst->list[i++];
		renumber(&e, take_src ? map_src : map_dst);
		e.merged = true;
		if (k && e.start <= out[k - 1].end + dst->gap_ns)
			join_episode(&out[k - 1], &e);
		else
			out[k++] = e;
	}
	free(dst->list);
	dst->list = out;
	dst->n = k;
	dst->cap = n ? n : 1;
	return 0;
}

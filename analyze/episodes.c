/* Congestion episodes: contiguous intervals of CE marks, CNPs and PFC/PAUSE pauses, with throughput around them. */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"

#define AN_GSLOTS 16 /* global byte history: 16 slots of gap/8 */

static uint64_t gslot_width(const struct rt_analyzer *an)
{
	uint64_t w = an->o.episode_gap_ns / 8;
	return w ? w : 1;
}

static void ep_close(struct rt_analyzer *an)
{
	struct an_episode *c = &an->cur;
	if (an->ep_ce_slot > c->peak_ce_slot)
		c->peak_ce_slot = an->ep_ce_slot;
	c->bytes_during = an->ep_bytes_at_end;
	c->bytes_after = an->ep_bytes_total - an->ep_bytes_at_end;
	an->ep_open = false;
	if (an->neps == an->cap_eps) {
		uint32_t ncap = an->cap_eps ? an->cap_eps * 2 : 16;
		struct an_episode *ne = realloc(an->eps, ncap * sizeof(*ne));
		if (!ne)
			return;
		an->eps = ne;
		an->cap_eps = ncap;
	}
	an->eps[an->neps++] = *c;
}

void an_ep_packet(struct rt_analyzer *an, uint64_t ts, uint32_t bytes)
{
	uint64_t w = gslot_width(an), s;
	/* most packets fall in the newest slot: no division for them */
	if (an->gslot_cur && ts >= an->gslot_cur * w && ts - an->gslot_cur * w < w)
		s = an->gslot_cur;
	else
		s = ts / w;
	if (s > an->gslot_cur || !an->gslot_cur) {
		uint64_t n = s - an->gslot_cur;
		if (!an->gslot_cur || n >= AN_GSLOTS)
			memset(an->gslot_bytes, 0, sizeof(an->gslot_bytes));
		else
			for (uint64_t k = 1; k <= n; k++)
				an->gslot_bytes[(an->gslot_cur + k) % AN_GSLOTS] = 0;
		an->gslot_cur = s;
	}
	if (s + AN_GSLOTS > an->gslot_cur)
		an->gslot_bytes[s % AN_GSLOTS] += bytes;
	if (an->ep_open && !an->pfc_active && ts > an->cur.end + an->o.episode_gap_ns)
		ep_close(an);
	if (an->ep_open) {
		if (s != an->ep_slot) {
			if (an->ep_ce_slot > an->cur.peak_ce_slot)
				an->cur.peak_ce_slot = an->ep_ce_slot;
			an->ep_ce_slot = 0;
			an->ep_slot = s;
		}
		an->ep_bytes_total += bytes;
	}
	an->ep_last_bytes = bytes;
}

void an_ep_event(struct rt_analyzer *an, uint64_t ts, struct an_flow *f, int what)
{
	if (an->ep_open && !an->pfc_active && ts > an->cur.end + an->o.episode_gap_ns)
		ep_close(an);
	if (!an->ep_open) {
		uint64_t w = gslot_width(an), s = ts / w, before = 0;
		for (uint64_t k = s >= 8 ? s - 8 : 0; k < s; k++)
			if (k <= an->gslot_cur && k + AN_GSLOTS > an->gslot_cur)
				before += an->gslot_bytes[k % AN_GSLOTS];
		memset(&an->cur, 0, sizeof(an->cur));
		an->cur.start = ts;
		an->cur.end = ts;
		an->cur.bytes_before = before;
		an->ep_bytes_total = an->ep_last_bytes;
		an->ep_bytes_at_end = 0;
		an->ep_slot = s;
		an->ep_ce_slot = 0;
		an->ep_open = true;
	}
	struct an_episode *c = &an->cur;
	if (ts > c->end)
		c->end = ts;
	an->ep_bytes_at_end = an->ep_bytes_total;
	switch (what) {
	case AN_EV_CE:
		c->ce++;
		if (ts / gslot_width(an) == an->ep_slot)
			an->ep_ce_slot++;
		break;
	case AN_EV_CNP:
		c->cnp++;
		break;
	case AN_EV_XOFF:
		c->pfc_xoff++;
		break;
	default:
		break;
	}
	if (f && f->id != AN_NONE && f->ep_mark != an->neps + 1) {
		f->ep_mark = an->neps + 1;
		if (c->flows < sizeof(c->flow_ids) / sizeof(c->flow_ids[0]))
			c->flow_ids[c->flows] = f->id;
		c->flows++;
	}
}

void an_ep_paused(struct rt_analyzer *an, uint64_t until, uint64_t ns)
{
	if (!an->ep_open)
		return;
	an->cur.paused_ns += ns;
	if (until > an->cur.end)
		an->cur.end = until;
}

void an_ep_finish(struct rt_analyzer *an)
{
	if (an->ep_open)
		ep_close(an);
}

uint64_t an_ep_slot_ns(const struct rt_analyzer *an)
{
	return gslot_width(an);
}

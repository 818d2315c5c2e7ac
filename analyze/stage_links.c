/* The staged analysis' links toward the receivers: one table the parts share, taking every part's packets on a link in frame order. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/stage_internal.h"

/*
 * The links toward the receivers take the frames up to number `upto` in
 * their order, as far as their parts went through them: false when one has
 * not yet. The next frame is slot links_slot of batch links_seq, a batch
 * handed over (every frame up to `upto` is). Under links_mu.
 */
bool an_stage_links_take(struct rt_an_stage *st, uint64_t upto)
{
	struct an_rp_ctx *c = &st->an->rpx;
	struct batch *b = batch_at(st, st->links_seq);
	while (st->links_at < upto) {
		uint64_t n = st->links_at; /* frame n + 1 */
		unsigned i = st->links_slot, k = b->part[i];
		struct part_out *o = &b->out[k];
		/*
		 * how far the part went, read again only when a frame lies beyond it:
		 * a part writes its own at every frame, and reading it at every frame
		 * here would take the cache line from its core each time
		 */
		if (st->took_through[k] <= i) {
			st->took_through[k] =
			    atomic_load_explicit(&o->through, memory_order_acquire);
			if (st->took_through[k] <= i)
				return false;
			st->took_links[k] = atomic_load_explicit(&o->nlinks, memory_order_acquire);
			st->took_on[k] = atomic_load_explicit(&o->links_on, memory_order_relaxed);
		}
		uint32_t j = st->link_at[k];
		const struct link_entry *l =
		    j < st->took_links[k] ? &o->links[j / LINK_CHUNK][j % LINK_CHUNK] : NULL;
		if (l && l->slot == i) {
			st->link_at[k]++;
			if (c->links_on && st->links_fed != n + 1)
				an_rp_links_packet(c->lk, l->ipver, l->dst, l->point,
				                   b->s[i].f.ts_ns, b->s[i].f.wirelen);
		}
		if (st->took_on[k] == i + 1)
			c->links_on = true;
		st->links_at++;
		if (++st->links_slot ==
		    b->n) { /* on to the next batch before this one is used again */
			b = batch_at(st, ++st->links_seq);
			st->links_slot = 0;
			memset(st->link_at, 0, sizeof(st->link_at));
			memset(st->took_through, 0, sizeof(st->took_through));
		}
	}
	return true;
}

/*
 * A part's RP reaction reads the links: they take every frame before the
 * one it feeds (waiting for the parts behind it, the lock let go while it
 * waits: a part further back may need them first), then that frame's own
 * packet on a link. Returns with links_mu held.
 */
void an_stage_links_lock(void *ctx)
{
	struct part *p = ctx;
	struct rt_an_stage *st = p->st;
	uint64_t upto = p->cur ? p->cur - 1 : st->frames;
	for (unsigned tries = 0;; tries++) {
		pthread_mutex_lock(&st->links_mu);
		if (an_stage_links_take(st, upto))
			break;
		pthread_mutex_unlock(&st->links_mu);
		/* a part behind that no thread holds: this one feeds it; else a few turns given up,
		 * then short sleeps (a part behind may be waiting for a CPU) */
		if (an_stage_help(st, upto))
			tries = 0;
		else if (tries < 64)
			sched_yield();
		else
			nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
	}
	const struct an_rp_share *s = &p->share;
	if (p->cur && s->pending && st->links_fed != p->cur) {
		st->links_fed = p->cur;
		if (st->an->rpx.links_on)
			an_rp_links_packet(st->an->rpx.lk, s->ipver, s->dst, s->point, p->ts,
			                   p->len);
	}
}

void an_stage_links_unlock(void *ctx)
{
	struct part *p = ctx;
	pthread_mutex_unlock(&p->st->links_mu);
}

/* A part's packet on a link, logged for the links (false when out of memory: the stage fails). */
bool an_stage_link_add(struct part_out *o, const struct an_rp_share *s, unsigned slot)
{
	unsigned n = atomic_load_explicit(&o->nlinks, memory_order_relaxed);
	struct link_entry **c = &o->links[n / LINK_CHUNK];
	if (!*c && !(*c = malloc(LINK_CHUNK * sizeof(**c)))) {
		o->links_nomem = true;
		return false;
	}
	struct link_entry *l = &(*c)[n % LINK_CHUNK];
	l->slot = (uint16_t)slot;
	l->ipver = s->ipver;
	l->point = s->point;
	memcpy(l->dst, s->dst, sizeof(l->dst));
	atomic_store_explicit(&o->nlinks, n + 1, memory_order_release);
	return true;
}

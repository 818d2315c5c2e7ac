/* The staged analysis' parts and the threads that go through them: a part's batch fed, a part taken by a thread (its own first, moved only to even the work out), the workers, the help of a thread that would wait. */
#include <limits.h>
#include <pthread.h>

#include "analyze/stage_internal.h"
#include "common/filemap.h"
#include "common/clock.h"

/*
 * Part p's frames of its next batch b, from where it stopped, those
 * numbered up to `upto`, fed to its analyzer; true once it went through
 * the batch.
 */
static bool part_run(struct part *p, struct batch *b, uint64_t upto)
{
	struct rt_analyzer *an = p->an;
	struct part_out *out = &b->out[p->idx];
	struct an_ep_log *log = &out->log;
	an->ep.log = log;
	p->bk_out = &out->bk;
	unsigned end = b->start[p->idx + 1], j = b->start[p->idx] + p->j;
	for (; j < end && b->frame0 + b->order[j] <= upto; j++) {
		unsigned i = b->order[j];
		/*
		 * The frames come from another core (reading, staging): each slot asked
		 * for 2 * STAGE_AHEAD frames ahead, its bytes (their address in the
		 * slot, by then at hand) STAGE_AHEAD ahead.
		 */
		if (j + 2 * STAGE_AHEAD < end) {
			const struct slot *a = &b->s[b->order[j + 2 * STAGE_AHEAD]];
			__builtin_prefetch(a);
			__builtin_prefetch((const char *)a + 64);
		}
		if (j + STAGE_AHEAD < end) {
			const uint8_t *d = b->s[b->order[j + STAGE_AHEAD]].f.data;
			__builtin_prefetch(d);
			__builtin_prefetch(d + 64);
		}
		an->now = b->s[i].now;
		an->pair.disordered |= (b->s[i].flags & FLAG_DISORDERED) != 0;
		an->part_paused = (b->s[i].flags & FLAG_PAUSED) != 0;
		an->part_run_end = b->s[i].run_end;
		an->rpx.paused_ts = b->s[i].paused_ts;
		log->slot = i;
		p->cur = b->frame0 + i;
		p->ts = b->s[i].f.ts_ns;
		p->len = b->s[i].f.wirelen;
		p->share.pending = p->share.turned_on = false;
		rt_dissect(&p->st->decode, &b->s[i].f, &p->rec);
		p->rec.point = 0; /* one capture point */
		rt_analyzer_feed_frame(an, &p->rec, p->cur);
		if (an->copied) {
			out->copies[i / 64] |= 1ull << (i % 64);
			out->any_copy = true;
		}
		if (p->share.pending)
			an_stage_link_add(out, &p->share, i);
		if (p->share.turned_on &&
		    !atomic_load_explicit(&out->links_on, memory_order_relaxed))
			atomic_store_explicit(&out->links_on, i + 1, memory_order_relaxed);
		atomic_store_explicit(&out->through, i + 1, memory_order_release);
	}
	p->j = j - b->start[p->idx];
	if (j < end)
		return false;
	atomic_store_explicit(&out->through, b->n, memory_order_release);
	/*
	 * with a staging thread, the links take what every part went through
	 * here when free (else the next part, the stage): the staging thread
	 * would hand out half as many frames a second (30 M/s against 63 M/s
	 * at --threads 4) taking them all; the reading thread takes them all,
	 * for it waited, idle, for a part that took them (0.08 to 0.1 s of a
	 * 0.8 s run at --threads 2)
	 */
	if (p->st->parts_take_links && pthread_mutex_trylock(&p->st->links_mu) == 0) {
		an_stage_links_take(p->st, b->frame0 - 1 + b->n);
		pthread_mutex_unlock(&p->st->links_mu);
	}
	/* the buckets the batch's last frame ends: the stage closes them with this batch */
	if (b->n && an->bk.len) {
		an->now = b->s[b->n - 1].now;
		an_advance(an, an->now);
	}
	return true;
}

/* The number of part p's next frame to feed (in batch p->next, handed over); UINT64_MAX when it has none left there. */
static uint64_t part_next_frame(const struct rt_an_stage *st, const struct part *p)
{
	const struct batch *b = batch_at(st, p->next);
	unsigned j = b->start[p->idx] + p->j;
	return j < b->start[p->idx + 1] ? b->frame0 + b->order[j] : UINT64_MAX;
}

/*
 * A part no thread holds with a batch handed over to go through, taken
 * (held), the one furthest behind: one of the thread's own (`home`), else
 * one that has not moved for STAGE_MOVE_AFTER batches, made the thread's
 * own (a part that moves to another core takes its flows' cache lines
 * along: dear, so the parts move only to even the threads' work out).
 * With home UINT_MAX (the staging thread, a part waiting in the links),
 * any part, for now, and with `upto` set only one whose next frame is
 * numbered up to it. NULL when none. Under mu.
 */
static struct part *claim(struct rt_an_stage *st, uint64_t upto, unsigned home)
{
	struct part *own = NULL, *other = NULL;
	for (unsigned k = 0; k < st->nparts; k++) {
		struct part *p = &st->p[k];
		if (p->held || p->next >= st->staged ||
		    (upto != UINT64_MAX && part_next_frame(st, p) > upto))
			continue;
		struct part **best = p->home == home || home == UINT_MAX ? &own : &other;
		if (!*best || p->next < (*best)->next)
			*best = p;
	}
	if (!own && other && other->next >= other->moved + STAGE_MOVE_AFTER) {
		own = other;
		own->home = home;
		own->moved = own->next;
	}
	if (own)
		own->held = true;
	return own;
}

void an_stage_wake_all(struct rt_an_stage *st)
{
	pthread_cond_broadcast(&st->work);
	pthread_cond_broadcast(&st->done);
	pthread_cond_broadcast(&st->freed);
}

/*
 * Part p (held) fed its next batch as far as `upto`, then let go: once
 * through the batch, on to the next one, and the batch one part fewer to
 * wait for.
 */
static void run_part(struct rt_an_stage *st, struct part *p, uint64_t upto)
{
	struct batch *b = batch_at(st, p->next);
	bool through = part_run(p, b, upto);
	pthread_mutex_lock(&st->mu);
	p->held = false;
	if (through) {
		p->next++;
		p->j = 0;
		if (atomic_fetch_sub(&b->pending, 1) ==
		    1) /* (read without mu, waited for with it) */
			pthread_cond_broadcast(&st->done);
	}
	if (p->next < st->staged)
		an_stage_wake_all(st);
	pthread_mutex_unlock(&st->mu);
}

void an_stage_help_or_wait(struct rt_an_stage *st, pthread_cond_t *cond, unsigned home,
                           uint64_t *spent)
{
	struct part *p = claim(st, UINT64_MAX, home);
	if (!p) {
		pthread_cond_wait(cond, &st->mu);
		return;
	}
	pthread_mutex_unlock(&st->mu);
	/* with ROCETRACE_THREAD_TIMES, the CPU time it spends there (its own work is the rest) */
	uint64_t t0 = st->times ? rt_clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
	run_part(st, p, UINT64_MAX);
	if (st->times)
		*spent += rt_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	pthread_mutex_lock(&st->mu);
}

bool an_stage_help(struct rt_an_stage *st, uint64_t upto)
{
	pthread_mutex_lock(&st->mu);
	struct part *p = claim(st, upto, UINT_MAX);
	pthread_mutex_unlock(&st->mu);
	if (p)
		run_part(st, p, upto);
	return p != NULL;
}

/*
 * What is due of the held mapping, by the counters as they are: pages to
 * release (those up to `upto`, STAGE_RELEASE_BYTES of them at least),
 * pages to map (up to `ahead`, as many or the file's end).
 */
static void map_due(const struct rt_an_stage *st, size_t upto, size_t ahead, bool *release,
                    bool *map)
{
	size_t released = atomic_load_explicit(&st->map_released, memory_order_relaxed);
	size_t mapped = atomic_load_explicit(&st->map_ahead, memory_order_relaxed);
	*release = upto >= released + STAGE_RELEASE_BYTES;
	*map = ahead > mapped && (ahead >= mapped + STAGE_RELEASE_BYTES || ahead == st->map_len);
}

void an_stage_tend_map(struct rt_an_stage *st)
{
	uintptr_t read = atomic_load_explicit(&st->map_read, memory_order_acquire);
	if (!read)
		return; /* (no held mapping, or nothing handed over yet) */
	uintptr_t done = atomic_load_explicit(&st->map_done, memory_order_acquire);
	size_t upto = done ? (done - (uintptr_t)st->map) / st->page * st->page : 0;
	size_t at = (read - (uintptr_t)st->map) / st->page * st->page;
	size_t ahead = at + STAGE_MAP_AHEAD < st->map_len ? at + STAGE_MAP_AHEAD : st->map_len;
	bool release, map;
	map_due(st, upto, ahead, &release, &map);
	if ((!release && !map) || pthread_mutex_trylock(&st->map_mu) != 0)
		return;
	map_due(st, upto, ahead, &release, &map); /* (again: another worker may have done it) */
	if (release) {
		rt_map_release(st->map,
		               atomic_load_explicit(&st->map_released, memory_order_relaxed), upto);
		atomic_store_explicit(&st->map_released, upto, memory_order_relaxed);
	}
	if (map) {
		size_t mapped = atomic_load_explicit(&st->map_ahead, memory_order_relaxed);
		size_t from = mapped > at ? mapped : at;
		rt_map_range(st->map, from, ahead - from);
		atomic_store_explicit(&st->map_ahead, ahead, memory_order_relaxed);
	}
	pthread_mutex_unlock(&st->map_mu);
}

void *an_stage_worker(void *arg)
{
	struct worker *w = arg;
	struct rt_an_stage *st = w->st;
	pthread_mutex_lock(&st->mu);
	for (;;) {
		struct part *p = claim(st, UINT64_MAX, w->home);
		if (p) {
			pthread_mutex_unlock(&st->mu);
			run_part(st, p, UINT64_MAX);
			an_stage_tend_map(st);
			pthread_mutex_lock(&st->mu);
		} else if (st->quit) {
			break; /* the stage ends: drained, or freed without its results */
		} else {
			pthread_cond_wait(&st->work, &st->mu);
		}
	}
	pthread_mutex_unlock(&st->mu);
	w->cpu_ns = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

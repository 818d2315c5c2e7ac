/* The analysis of one capture split among threads by host pair: parts fed in batches, the global parts in frame order, merged at the end. */
#include "analyze/stage.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/stage_internal.h"
#include "common/clock.h"

/* Whether `len` bytes at `data` lie in the held mapping (a copied frame's data is an offset: never). */
static inline bool in_map(const struct rt_an_stage *st, const uint8_t *data, uint32_t len)
{
	uintptr_t off = (uintptr_t)data - (uintptr_t)st->map;
	return off < st->map_len && len <= st->map_len - off;
}

bool rt_an_stage_fits(const struct rt_analyzer *an)
{
	return an->vp.alone && !an->side.counters_loaded && !an->side.srclog_loaded &&
	       !an->o.max_flows && !an->tot.c.packets;
}

/* Room for the stage's flow ids up to n (a key's chunk made when its first flow comes). */
static bool mark_room(struct rt_an_stage *st, uint32_t n)
{
	uint32_t last = n - 1;
	if (!st->keys[last / AN_KEY_CHUNK] &&
	    !(st->keys[last / AN_KEY_CHUNK] = malloc(AN_KEY_CHUNK * sizeof(**st->keys))))
		return false;
	if (n <= st->capmark)
		return true;
	uint32_t ncap = st->capmark ? st->capmark * 2 : 1024;
	uint32_t *nm = realloc(st->mark, (size_t)ncap * sizeof(*nm));
	if (nm)
		st->mark = nm;
	uint8_t *ns = nm ? realloc(st->selected, ncap) : NULL;
	if (!ns)
		return false;
	memset(nm + st->capmark, 0, (size_t)(ncap - st->capmark) * sizeof(*nm));
	st->selected = ns;
	st->capmark = ncap;
	return true;
}

/* A part numbered the flow of record `rec`: the stage numbers it too, next in frame order. */
static void number_flow(struct rt_an_stage *st, struct part *p, uint32_t id,
                        const struct rt_an_flow_key *key)
{
	if (id != p->ngid) { /* an entry was lost (out of memory) */
		st->nomem = true;
		return;
	}
	if (p->ngid == p->capgid) {
		uint32_t ncap = p->capgid ? p->capgid * 2 : 1024;
		uint32_t *ng = realloc(p->gid, (size_t)ncap * sizeof(*ng));
		if (!ng) {
			st->nomem = true;
			return;
		}
		p->gid = ng;
		p->capgid = ncap;
	}
	if (!mark_room(st, st->nflows + 1)) {
		st->nomem = true;
		return;
	}
	struct an_flow f = {.key = *key, .id = st->nflows};
	an_select_flow(&st->an->sel, &f); /* as one analyzer selects it when it numbers it */
	st->keys[st->nflows / AN_KEY_CHUNK][st->nflows % AN_KEY_CHUNK] = *key;
	st->selected[st->nflows] = (f.flags & AN_FLOW_SELECTED) != 0;
	p->gid[p->ngid++] = st->nflows++;
	/* the key first, then its count: the output thread may read them now */
	atomic_store_explicit(&st->an->nstage_keys, st->nflows, memory_order_release);
}

/* The events a part logged for slot i (from *at on), made into the episodes. */
static void slot_events(struct rt_an_stage *st, struct part *p, const struct an_ep_log *log,
                        uint32_t *at, unsigned i)
{
	struct rt_analyzer *an = st->an;
	for (; *at < log->n && log->e[*at].slot == i; (*at)++) {
		const struct an_ep_log_entry *e = &log->e[*at];
		if (e->what == AN_EP_LOG_FLOW) {
			if (e->ts < log->nkeys)
				number_flow(st, p, e->id, &log->keys[e->ts]);
			else
				st->nomem = true;
			continue;
		}
		if (e->what == AN_EP_LOG_PORT) {
			an_tally_port(&an->tally, (uint16_t)e->id, e->id >> 16);
			continue;
		}
		uint32_t id = e->id < p->ngid ? p->gid[e->id] : AN_NONE;
		an_ep_event_id(&an->ep, e->ts, id, id != AN_NONE ? &st->mark[id] : NULL,
		               (enum an_ep_kind)e->what, an->pfc.active > 0);
	}
}

/* The global parts of a batch every part went through, in frame order (as rt_analyzer_feed does them). */
static void global_batch(struct rt_an_stage *st, struct batch *b)
{
	struct rt_analyzer *an = st->an;
	uint32_t at[STAGE_PARTS_MAX] = {0};
	for (unsigned k = 0; k < st->nparts; k++)
		st->nomem |= b->out[k].log.nomem || b->out[k].bk.nomem || b->out[k].links_nomem;
	pthread_mutex_lock(&st->links_mu); /* every part went through it: no wait */
	an_stage_links_take(st, b->frame0 - 1 + b->n);
	pthread_mutex_unlock(&st->links_mu);
	an_stage_take_buckets(st, b->out);
	for (unsigned i = 0; i < b->n; i++) {
		const struct rt_frame *fr = &b->s[i].f;
		uint64_t now = b->s[i].now;
		unsigned k = b->part[i];
		const struct part_out *o = &b->out[k];
		bool copy = o->any_copy && (o->copies[i / 64] >> (i % 64) & 1);
		an->now = now;
		an_frame_clock(an, fr->ts_ns, fr->wirelen);
		if (copy) {
			an->tot.copies++;
			an->tot.copy_bytes += fr->wirelen;
		}
		an_tally_order(&an->tally, fr->ts_ns, b->frame0 + i == 1, an->vp.on ? 0 : -1,
		               (b->s[i].flags & FLAG_PFC) != 0);
		if (!copy)
			an_ep_packet(&an->ep, now, fr->wirelen, an->pfc.active > 0);
		slot_events(st, &st->p[k], &b->out[k].log, &at[k], i);
		if (b->s[i].flags & FLAG_PFC) {
			rt_dissect(&st->decode, fr, &st->scratch);
			an_pfc_frame(&an->pfc, &st->scratch, now, an->vp.on ? 0 : -1, NULL);
		}
	}
	for (unsigned k = 0; k < st->nparts; k++) {
		struct part_out *o = &b->out[k];
		o->log.n = o->log.nkeys = 0;
		o->log.nomem = false;
		atomic_store_explicit(&o->nlinks, 0, memory_order_relaxed);
		atomic_store_explicit(&o->links_on, 0, memory_order_relaxed);
		o->links_nomem = false;
		if (o->any_copy)
			memset(o->copies, 0, sizeof(o->copies));
		o->any_copy = false;
		an_stage_bucket_log_clear(&o->bk);
	}
	b->n = 0;
	b->bytes.len = 0;
}

/*
 * Batch b made global: the held mapping is done with up to where its last
 * frame there ends (its pages released by a worker: an_stage_tend_map).
 */
static void mapped_done(struct rt_an_stage *st, struct batch *b)
{
	if (b->mapped_end)
		atomic_store_explicit(&st->map_done, b->mapped_end, memory_order_release);
	b->mapped = 0;
	b->mapped_end = 0;
}

/* The oldest batch in flight, once every part went through it, made global; its place made free. */
static void merge_oldest(struct rt_an_stage *st)
{
	struct batch *b = batch_at(st, st->merged);
	if (atomic_load(&b->pending)) {
		pthread_mutex_lock(&st->mu);
		while (atomic_load(&b->pending))
			an_stage_help_or_wait(st, &st->done, 0, &st->reader_help_ns);
		pthread_mutex_unlock(&st->mu);
	}
	global_batch(st, b);
	mapped_done(st, b);
	atomic_store_explicit(&st->status, rt_analyzer_status(st->an, NULL), memory_order_relaxed);
	atomic_store_explicit(&st->nflows_seen, st->nflows, memory_order_relaxed);
	pthread_mutex_lock(&st->mu);
	st->merged++;
	pthread_cond_signal(&st->freed);
	pthread_mutex_unlock(&st->mu);
}

/* Batches every part went through, made global. */
static void merge_done(struct rt_an_stage *st)
{
	while (st->merged < st->staged && !atomic_load(&batch_at(st, st->merged)->pending))
		merge_oldest(st);
}

/*
 * What a batch's frames carry to their parts, in frame order: the clock and
 * the time order, the part (the shard of the host pair: the addresses at
 * their place in a common frame, else decoded, the addresses only; frames
 * without IP come whole, PFC/PAUSE among them), the pauses as one analyzer
 * has them at each frame (for the RP windows and the stalls).
 */
static void stage_slots(struct rt_an_stage *st, struct batch *b)
{
	for (unsigned i = 0; i < b->n; i++) {
		struct slot *sl = &b->s[i];
		if (!in_map(st, sl->f.data, sl->f.caplen)) /* (else where it lies) */
			sl->f.data = rt_frame_bytes_at(&b->bytes, &sl->f);
		uint64_t ts = sl->f.ts_ns;
		if (b->frame0 + i > 1 && ts < st->prev_ts)
			st->disordered = true;
		st->prev_ts = ts;
		if (ts > st->now)
			st->now = ts;
		sl->now = st->now;
		uint8_t ipver;
		bool pfc = false;
		const uint8_t *src = rt_dissect_addresses(&sl->f, &ipver);
		if (src) {
			b->part[i] =
			    st->part_of[an_pair_shard_of(ipver, src, src + (ipver == 4 ? 4 : 16))];
		} else {
			rt_dissect(&st->light, &sl->f, &st->scratch);
			b->part[i] = st->part_of[an_pair_shard(&st->scratch)];
			pfc = st->scratch.kind == RT_KIND_PFC || st->scratch.kind == RT_KIND_PAUSE;
		}
		if (st->pfc.active && st->now >= st->pfc.next_expiry)
			an_pfc_advance(&st->pfc, st->now);
		bool paused = st->pfc.active > 0;
		if (pfc) {
			an_pfc_frame(&st->pfc, &st->scratch, st->now, st->an->vp.on ? 0 : -1, NULL);
			paused |= st->pfc.active > 0;
		}
		sl->run_end = st->pfc.last_run_end;
		if (paused)
			st->paused_ts = st->now;
		sl->paused_ts = st->paused_ts;
		sl->flags = (st->disordered ? FLAG_DISORDERED : 0) | (pfc ? FLAG_PFC : 0) |
		            (paused ? FLAG_PAUSED : 0);
	}
}

/* The next batch handed over by the reading thread, staged and given to the parts. */
static void publish(struct rt_an_stage *st)
{
	struct batch *b = batch_at(st, st->staged);
	stage_slots(st, b);
	uint16_t at[STAGE_PARTS_MAX + 1] = {0};
	for (unsigned i = 0; i < b->n; i++)
		at[b->part[i] + 1]++;
	for (unsigned k = 0; k < st->nparts; k++)
		at[k + 1] = (uint16_t)(at[k + 1] + at[k]);
	memcpy(b->start, at, sizeof(at));
	for (unsigned i = 0; i < b->n; i++)
		b->order[at[b->part[i]]++] = (uint16_t)i;
	for (unsigned k = 0; k < st->nparts; k++)
		atomic_store_explicit(&b->out[k].through, 0, memory_order_relaxed);
	atomic_store(&b->pending, st->nparts);
	pthread_mutex_lock(&st->mu);
	/* once the stage ends (quit), the parts are through with the batches they have: no more */
	if (!st->quit) {
		st->staged++;
		an_stage_wake_all(st);
	}
	pthread_mutex_unlock(&st->mu);
}

/*
 * The staging thread (with STAGE_STAGER_THREADS threads or more): it stages the
 * batches the reading thread hands over and makes them global once the
 * parts went through them, so that the reading thread only reads.
 */
static void *stager_thread(void *arg)
{
	struct rt_an_stage *st = arg;
	pthread_mutex_lock(&st->mu);
	for (;;) {
		if (st->quit ||
		    (st->ended && st->merged == st->staged && st->staged == st->filled)) {
			break; /* (quit: a batch staged after it stays with this thread, never twice) */
		} else if (st->merged < st->staged &&
		           !atomic_load(&batch_at(st, st->merged)->pending)) {
			pthread_mutex_unlock(&st->mu);
			merge_done(st);
		} else if (st->staged < st->filled) {
			pthread_mutex_unlock(&st->mu);
			publish(st);
		} else {
			an_stage_help_or_wait(st, &st->done, UINT_MAX, &st->stager_help_ns);
			continue;
		}
		pthread_mutex_lock(&st->mu);
	}
	pthread_mutex_unlock(&st->mu);
	st->stager_cpu_ns = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* The batch being filled is handed over; the next is made free. */
static void hand_over(struct rt_an_stage *st)
{
	if (st->fill->mapped_end) /* (the workers map the held mapping ahead of it) */
		atomic_store_explicit(&st->map_read, st->fill->mapped_end, memory_order_release);
	pthread_mutex_lock(&st->mu);
	st->fill = batch_at(st, ++st->filled);
	if (st->stager_on) {
		pthread_cond_signal(&st->done);
		while (st->filled - st->merged == st->nb)
			an_stage_help_or_wait(st, &st->freed, 0, &st->reader_help_ns);
		pthread_mutex_unlock(&st->mu);
		return;
	}
	pthread_mutex_unlock(&st->mu);
	publish(st);
	merge_done(st);
	if (st->filled - st->merged == st->nb)
		merge_oldest(st);
}

int rt_an_stage_frame(struct rt_an_stage *st, const struct rt_frame *frame)
{
	struct batch *b = st->fill;
	struct rt_frame *f = &b->s[b->n].f;
	if (in_map(st, frame->data, frame->caplen)) {
		*f = *frame;
		b->mapped += frame->caplen;
		b->mapped_end = (uintptr_t)frame->data + frame->caplen;
	} else if (rt_frame_bytes_add(&b->bytes, frame, f) < 0) {
		return -ENOMEM;
	}
	if (!b->n)
		b->frame0 = st->frames + 1;
	st->frames++;
	if (++b->n == STAGE_BATCH || b->bytes.len + b->mapped >= st->batch_bytes)
		hand_over(st);
	return 0;
}

void rt_an_stage_in_place(struct rt_an_stage *st, const uint8_t *base, size_t len)
{
	st->page = (size_t)sysconf(_SC_PAGESIZE);
	st->map_len = len;
	st->map = base;
}

int rt_an_stage_status(const struct rt_an_stage *st)
{
	return atomic_load_explicit(&st->status, memory_order_relaxed);
}

uint64_t rt_an_stage_flows(const struct rt_an_stage *st)
{
	return atomic_load_explicit(&st->nflows_seen, memory_order_relaxed);
}

/* The parts' outputs of a batch, each on cache lines of its own; NULL when out of memory. */
static struct part_out *part_outs_new(unsigned n)
{
	struct part_out *o = aligned_alloc(_Alignof(struct part_out), n * sizeof(*o));
	if (o)
		memset(o, 0, n * sizeof(*o));
	return o;
}

static void part_outs_free(struct part_out *o, unsigned n)
{
	for (unsigned k = 0; o && k < n; k++) {
		free(o[k].log.e);
		free(o[k].log.keys);
		for (unsigned c = 0; c < STAGE_BATCH / LINK_CHUNK; c++)
			free(o[k].links[c]);
		an_stage_bucket_log_free(&o[k].bk);
	}
	free(o);
}

/* End the threads (after the batches in flight). */
static void stop_threads(struct rt_an_stage *st)
{
	pthread_mutex_lock(&st->mu);
	st->quit = true;
	pthread_cond_broadcast(&st->work);
	pthread_cond_broadcast(&st->done);
	pthread_mutex_unlock(&st->mu);
	if (st->stager_on)
		pthread_join(st->stager, NULL);
	st->stager_on = false;
	an_stage_out_stop(st);
	for (unsigned k = 0; k < st->started; k++)
		pthread_join(st->w[k].th, NULL);
	st->started = 0;
}

void rt_an_stage_free(struct rt_an_stage *st)
{
	if (!st)
		return;
	stop_threads(st);
	for (unsigned k = 0; k < st->nparts; k++) {
		rt_analyzer_free(st->p[k].an);
		free(st->p[k].gid);
	}
	for (unsigned i = 0; st->b && i < st->nb; i++) {
		part_outs_free(st->b[i].out, st->nparts);
		free(st->b[i].bytes.data);
	}
	part_outs_free(st->end, st->nparts);
	free(st->rows);
	free(st->idbits);
	free(st->idrank);
	for (size_t c = 0; st->keys && c < STAGE_KEY_CHUNKS && st->keys[c]; c++)
		free(st->keys[c]);
	free(st->keys);
	free(st->selected);
	st->an->stage_keys = NULL;
	st->an->nstage_keys = 0;
	st->an->bk.take_rows = NULL;
	free(st->b);
	free(st->p);
	free(st->w);
	free(st->mark);
	an_pfc_free(&st->pfc);
	pthread_cond_destroy(&st->work);
	pthread_cond_destroy(&st->done);
	pthread_cond_destroy(&st->freed);
	pthread_mutex_destroy(&st->mu);
	pthread_mutex_destroy(&st->links_mu);
	pthread_mutex_destroy(&st->map_mu);
	free(st);
}

int rt_an_stage_start(struct rt_an_stage **out, struct rt_analyzer *an, unsigned threads,
                      unsigned parts, char *errbuf)
{
	struct rt_an_stage *st = calloc(1, sizeof(*st));
	if (!st)
		return rt_errorf(errbuf, ENOMEM, "analysis threads");
	st->an = an;
	st->reader_cpu0 = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	st->times = getenv("ROCETRACE_THREAD_TIMES") != NULL;
	threads =
	    threads < STAGE_PARTS_MAX ? threads : STAGE_PARTS_MAX; /* (a part each, at most) */
	if (!parts)
		parts = STAGE_PARTS_PER_THREAD * threads;
	st->nparts = parts < STAGE_PARTS_MAX ? parts : STAGE_PARTS_MAX;
	st->nworkers = threads > 1 ? threads - 1 : 1;
	for (unsigned k = 0; k < AN_SHARDS; k++)
		st->part_of[k] = (uint8_t)(k % st->nparts);
	rt_dissect_opts_init(&st->decode);
	st->decode.udp_port = an->o.udp_port;
	st->light = st->decode;
	st->light.addresses_only = true;
	/*
	 * two batches a thread and two more: room to run ahead while a thread
	 * waits for a CPU, few enough that a batch is still in the caches when
	 * it is made global (a ring of 16 at least, as it was, took 5% to 8%
	 * more CPU at --threads 2 to 4, docs/PERFORMANCE.md)
	 */
	st->nb = 2 * threads + 2;
	/* the ring's frames in STAGE_RING_BYTES (a batch of big frames holds fewer than STAGE_BATCH) */
	st->batch_bytes = STAGE_RING_BYTES / st->nb < STAGE_BATCH_BYTES_MIN
	                      ? STAGE_BATCH_BYTES_MIN
	                      : STAGE_RING_BYTES / st->nb;
	an_pfc_init(&st->pfc, an->o.link_speed_bps, an->o.storm_ns, NULL);
	pthread_mutex_init(&st->mu, NULL);
	pthread_mutex_init(&st->links_mu, NULL);
	pthread_mutex_init(&st->map_mu, NULL);
	pthread_cond_init(&st->work, NULL);
	pthread_cond_init(&st->done, NULL);
	pthread_cond_init(&st->freed, NULL);
	st->b = calloc(st->nb, sizeof(*st->b));
	if ((st->keys = calloc(STAGE_KEY_CHUNKS, sizeof(*st->keys))))
		an->stage_keys = st->keys;
	if ((st->p = aligned_alloc(_Alignof(struct part), st->nparts * sizeof(*st->p))))
		memset(st->p, 0, st->nparts * sizeof(*st->p));
	st->w = calloc(st->nworkers, sizeof(*st->w));
	st->fill = st->b;
	bool ok = st->b && st->p && st->w && st->keys;
	for (unsigned i = 0; ok && i < st->nb; i++)
		ok = (st->b[i].out = part_outs_new(st->nparts)) != NULL;
	ok = ok && (st->end = part_outs_new(st->nparts));
	for (unsigned k = 0; ok && k < st->nparts; k++) {
		struct part *p = &st->p[k];
		*p = (struct part){.st = st, .idx = k, .home = k % (st->nworkers + 1)};
		ok = (p->an = rt_analyzer_new(&an->o, errbuf)) != NULL;
		if (ok) {
			p->an->part = true;
			p->an->vp.alone = an->vp.alone;
			p->share = (struct an_rp_share){
			    .lock = an_stage_links_lock, .unlock = an_stage_links_unlock, .ctx = p};
			p->an->rpx.share = &p->share;
			p->an->rpx.lk = &an->rpx.own; /* the stage's, in frame order */
			p->an->rpx.links_on = true;   /* every packet on a link goes to the stage */
			if (an->bk.len) {
				an_bk_start(&p->an->bk, an->bk.len, an_stage_part_bucket, p);
				p->an->bk.row_room = an_stage_part_rows; /* (no copy of them) */
			}
		}
	}
	st->parts_take_links = threads >= STAGE_STAGER_THREADS;
	while (ok && st->started < st->nworkers) {
		st->w[st->started].st = st;
		st->w[st->started].home = st->started + 1; /* (the reading thread's: 0) */
		ok = pthread_create(&st->w[st->started].th, NULL, an_stage_worker,
		                    &st->w[st->started]) == 0;
		st->started += ok;
	}
	if (ok && threads >= STAGE_STAGER_THREADS) {
		an_stage_out_start(st);
		ok = st->stager_on = pthread_create(&st->stager, NULL, stager_thread, st) == 0;
	}
	if (!ok) {
		rt_an_stage_free(st);
		return rt_errorf(errbuf, ENOMEM, "analysis threads");
	}
	an->bk.take_rows = an_stage_rows;
	an->bk.take_ctx = st;
	*out = st;
	return 0;
}

/* What a part's flow holds that one analyzer learns from the whole: its episodes, its selection. */
static void settle_flows(struct rt_an_stage *st)
{
	struct rt_analyzer *an = st->an;
	for (uint32_t id = 0; id < an->ft.next_id; id++) {
		struct an_flow *f = an_flow_by_id(&an->ft, id);
		f->ep_mark = id < st->nflows ? st->mark[id] : 0;
		f->flags &= (uint16_t) ~(AN_FLOW_SELECTED | AN_FLOW_CONVERSATION);
		an_select_flow(&an->sel, f);
	}
	an_select_finish(&an->sel, &an->ft);
}

/*
 * ROCETRACE_THREAD_TIMES set (docs/PERFORMANCE.md): each thread's CPU time
 * on stderr, the reading and staging threads' own (the parts' batches they
 * went through apart) as the frames they can hand out a second.
 */
static void print_thread_times(const struct rt_an_stage *st)
{
	double all = (double)(rt_clock_ns(CLOCK_THREAD_CPUTIME_ID) - st->reader_cpu0) / 1e9;
	double help = (double)st->reader_help_ns / 1e9, reader = all - help;
	fprintf(stderr,
	        "rocetrace: thread times: reading %.3f s CPU of its own for %llu frames (%.2f M "
	        "frames/s handed out), %.3f s on the parts' batches; workers",
	        reader, (unsigned long long)st->frames,
	        reader > 0 ? (double)st->frames / reader / 1e6 : 0.0, help);
	for (unsigned k = 0; k < st->nworkers; k++)
		fprintf(stderr, " %.3f", (double)st->w[k].cpu_ns / 1e9);
	fprintf(stderr, " s");
	if (st->stager_cpu_ns) {
		double shelp = (double)st->stager_help_ns / 1e9;
		double stager = (double)st->stager_cpu_ns / 1e9 - shelp;
		fprintf(stderr, "; staging %.3f s (%.2f M frames/s), %.3f s on the parts' batches",
		        stager, stager > 0 ? (double)st->frames / stager / 1e6 : 0.0, shelp);
	}
	if (st->out_cpu_ns)
		fprintf(stderr, "; output %.3f s", (double)st->out_cpu_ns / 1e9);
	fprintf(stderr, "\n");
}

void rt_an_stage_drain(struct rt_an_stage *st)
{
	bool last = batch_at(st, st->filled)->n > 0;
	if (st->stager_on) {
		pthread_mutex_lock(&st->mu);
		st->filled += last;
		st->ended = true;
		pthread_cond_broadcast(&st->done);
		pthread_mutex_unlock(&st->mu);
		pthread_join(st->stager, NULL);
		st->stager_on = false;
	} else {
		st->filled += last;
		if (last)
			publish(st);
		while (st->merged < st->staged)
			merge_oldest(st);
	}
	an_stage_out_stop(st); /* every bucket made is delivered */
}

int rt_an_stage_finish(struct rt_an_stage *st, char *errbuf)
{
	struct rt_analyzer *an = st->an;
	rt_an_stage_drain(st);
	stop_threads(st);
	if (st->times)
		print_thread_times(st);
	int rc = 0;
	for (unsigned k = 0; k < st->nparts; k++) {
		char eb[RT_ERRBUF_SIZE];
		if (an->stop)
			rt_analyzer_interrupt(st->p[k].an);
		st->p[k].an->ep.log = NULL;
		st->p[k].bk_out = &st->end[k].bk; /* their last buckets */
		st->p[k].cur = 0;                 /* the links: every frame */
		/* what its RP windows still open and its pairing read at the end: the whole stream's */
		st->p[k].an->rpx.paused_ts = st->paused_ts;
		st->p[k].an->pair.disordered |= st->disordered;
		int prc = rt_analyzer_finish(st->p[k].an, eb);
		if (prc == -EINTR)
			rc = -EINTR;
		/* a part out of memory (its duplicates' tables, its buckets): the analysis fails */
		st->nomem |= (prc < 0 && prc != -EINTR) || st->end[k].bk.nomem;
	}
	an_stage_take_buckets(st, st->end);
	int frc = rt_analyzer_finish(an, errbuf);
	/* the parts count every frame: the totals kept for the buckets go */
	memset(&an->tot, 0, sizeof(an->tot));
	for (unsigned k = 0; k < st->nparts && !st->nomem; k++)
		st->nomem = rt_analyzer_merge(an, st->p[k].an, errbuf) < 0;
	if (st->nomem) {
		rt_an_stage_free(st);
		return rt_errorf(errbuf, ENOMEM, "the analysis' threads");
	}
	settle_flows(st);
	rt_an_stage_free(st);
	return frc  ? frc
	       : rc ? rt_errmsg(errbuf, EINTR, "interrupted at the end of the capture")
	            : 0;
}

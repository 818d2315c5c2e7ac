/* The analysis of one capture split among threads by host pair: parts fed in batches, the global parts in frame order, merged at the end. */
#include "analyze/stage.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "capture/pump.h"

#define STAGE_BATCH     1024u /* records a batch holds */
#define STAGE_PARTS_MAX 64u
#define FLAG_DISORDERED 1u /* a frame so far was older than the one before it */
#define FLAG_COPY       2u /* the part found it a copy of a packet counted before */

_Static_assert(RT_PUMP_BATCH <= STAGE_BATCH, "a batch of the pump fits in a stage's batch");

struct batch {
	struct rt_record rec[STAGE_BATCH];
	uint64_t now[STAGE_BATCH]; /* the clock at each record: the highest time so far */
	uint8_t part[STAGE_BATCH];
	uint8_t flags[STAGE_BATCH];
	uint64_t frame0; /* the frame number of rec[0] */
	unsigned n;
	struct an_ep_log *logs; /* [parts]: what each part's episodes are made of, by slot */
	atomic_uint pending;    /* parts still to go through it */
};

struct part {
	struct rt_an_stage *st;
	unsigned idx;
	struct rt_analyzer *an;
	pthread_t th;
	uint32_t *gid; /* its flow ids -> the stage's (one analyzer's numbering) */
	uint32_t ngid, capgid;
};

struct rt_an_stage {
	struct rt_analyzer *an;
	unsigned nparts, nb;
	struct batch *b;
	struct part *p;
	unsigned started; /* threads running */
	/* batches: [merged, filled) in flight, `filled` the one being filled (numbers; mod nb the slot) */
	uint64_t filled, merged;
	uint64_t frames, now, prev_ts;
	bool disordered;
	uint32_t *mark; /* by flow id (the stage's): the last episode that counted it (number + 1) */
	uint32_t nflows, capmark;
	bool nomem;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool quit;
};

bool rt_an_stage_fits(const struct rt_analyzer *an)
{
	return an->vp.alone && !an->bk.len && !an->o.max_flows && !an->tot.c.packets;
}

static struct batch *batch_at(const struct rt_an_stage *st, uint64_t seq)
{
	return &st->b[seq % st->nb];
}

/* One part's records of a batch, fed to its analyzer. */
static void part_batch(struct part *p, struct batch *b)
{
	struct rt_analyzer *an = p->an;
	struct an_ep_log *log = &b->logs[p->idx];
	an->ep.log = log;
	for (unsigned i = 0; i < b->n; i++) {
		if (b->part[i] != p->idx)
			continue;
		an->now = b->now[i];
		an->pair.disordered |= (b->flags[i] & FLAG_DISORDERED) != 0;
		log->slot = i;
		rt_analyzer_feed_frame(an, &b->rec[i], b->frame0 + i);
		if (an->copied)
			b->flags[i] |= FLAG_COPY;
	}
}

static void *part_thread(void *arg)
{
	struct part *p = arg;
	struct rt_an_stage *st = p->st;
	for (uint64_t next = 0;; next++) {
		pthread_mutex_lock(&st->mu);
		while (next == st->filled && !st->quit)
			pthread_cond_wait(&st->work, &st->mu);
		bool end = next == st->filled;
		pthread_mutex_unlock(&st->mu);
		if (end)
			return NULL;
		struct batch *b = batch_at(st, next);
		part_batch(p, b);
		if (atomic_fetch_sub(&b->pending, 1) == 1) {
			pthread_mutex_lock(&st->mu);
			pthread_cond_broadcast(&st->done);
			pthread_mutex_unlock(&st->mu);
		}
	}
}

/* Room for the stage's flow ids up to n. */
static bool mark_room(struct rt_an_stage *st, uint32_t n)
{
	if (n <= st->capmark)
		return true;
	uint32_t ncap = st->capmark ? st->capmark * 2 : 1024;
	uint32_t *nm = realloc(st->mark, (size_t)ncap * sizeof(*nm));
	if (!nm)
		return false;
	memset(nm + st->capmark, 0, (size_t)(ncap - st->capmark) * sizeof(*nm));
	st->mark = nm;
	st->capmark = ncap;
	return true;
}

/* A part numbered a flow: the stage numbers it too, next in frame order. */
static void number_flow(struct rt_an_stage *st, struct part *p, uint32_t id)
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
	p->gid[p->ngid++] = st->nflows++;
}

/* The events a part logged for slot i (from *at on), made into the episodes. */
static void slot_events(struct rt_an_stage *st, struct part *p, const struct an_ep_log *log,
                        uint32_t *at, unsigned i)
{
	struct rt_analyzer *an = st->an;
	for (; *at < log->n && log->e[*at].slot == i; (*at)++) {
		const struct an_ep_log_entry *e = &log->e[*at];
		if (e->what == AN_EP_LOG_FLOW) {
			number_flow(st, p, e->id);
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
		st->nomem |= b->logs[k].nomem;
	for (unsigned i = 0; i < b->n; i++) {
		const struct rt_record *rec = &b->rec[i];
		uint64_t now = b->now[i];
		unsigned k = b->part[i];
		bool copy = b->flags[i] & FLAG_COPY;
		if (an->pfc.active && now >= an->pfc.next_expiry)
			an_pfc_advance(&an->pfc, now);
		an_tally_frame(&an->tally, rec, b->frame0 + i == 1);
		if (!copy)
			an_ep_packet(&an->ep, now, rec->wirelen, an->pfc.active > 0);
		slot_events(st, &st->p[k], &b->logs[k], &at[k], i);
		if (!copy && (rec->kind == RT_KIND_PFC || rec->kind == RT_KIND_PAUSE))
			an_pfc_frame(&an->pfc, rec, now, NULL);
	}
	for (unsigned k = 0; k < st->nparts; k++) {
		b->logs[k].n = 0;
		b->logs[k].nomem = false;
	}
	b->n = 0;
}

/* The oldest batch in flight, once every part went through it, made global. */
static void merge_oldest(struct rt_an_stage *st)
{
	struct batch *b = batch_at(st, st->merged);
	if (atomic_load(&b->pending)) {
		pthread_mutex_lock(&st->mu);
		while (atomic_load(&b->pending))
			pthread_cond_wait(&st->done, &st->mu);
		pthread_mutex_unlock(&st->mu);
	}
	global_batch(st, b);
	st->merged++;
}

/* The batch being filled goes to the parts; the next is made free. */
static void publish(struct rt_an_stage *st)
{
	struct batch *b = batch_at(st, st->filled);
	atomic_store(&b->pending, st->nparts);
	pthread_mutex_lock(&st->mu);
	st->filled++;
	pthread_cond_broadcast(&st->work);
	pthread_mutex_unlock(&st->mu);
	while (st->merged < st->filled && !atomic_load(&batch_at(st, st->merged)->pending))
		merge_oldest(st);
	if (st->filled - st->merged == st->nb)
		merge_oldest(st);
}

struct rt_record *rt_an_stage_room(struct rt_an_stage *st, unsigned n)
{
	struct batch *b = batch_at(st, st->filled);
	if (b->n + n > STAGE_BATCH) {
		publish(st);
		b = batch_at(st, st->filled);
	}
	return &b->rec[b->n];
}

void rt_an_stage_commit(struct rt_an_stage *st)
{
	struct batch *b = batch_at(st, st->filled);
	unsigned i = b->n;
	uint64_t ts = b->rec[i].ts_ns;
	if (st->frames && ts < st->prev_ts)
		st->disordered = true;
	st->prev_ts = ts;
	if (ts > st->now)
		st->now = ts;
	if (!i)
		b->frame0 = st->frames + 1;
	b->now[i] = st->now;
	b->part[i] = (uint8_t)(an_pair_shard(&b->rec[i]) % st->nparts);
	b->flags[i] = st->disordered ? FLAG_DISORDERED : 0;
	st->frames++;
	if (++b->n == STAGE_BATCH)
		publish(st);
}

uint64_t rt_an_stage_flows(const struct rt_an_stage *st)
{
	return st->nflows;
}

/* End the threads (after the batches in flight). */
static void stop_threads(struct rt_an_stage *st)
{
	pthread_mutex_lock(&st->mu);
	st->quit = true;
	pthread_cond_broadcast(&st->work);
	pthread_mutex_unlock(&st->mu);
	for (unsigned k = 0; k < st->started; k++)
		pthread_join(st->p[k].th, NULL);
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
		for (unsigned k = 0; st->b[i].logs && k < st->nparts; k++)
			free(st->b[i].logs[k].e);
		free(st->b[i].logs);
	}
	free(st->b);
	free(st->p);
	free(st->mark);
	pthread_cond_destroy(&st->work);
	pthread_cond_destroy(&st->done);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

int rt_an_stage_start(struct rt_an_stage **out, struct rt_analyzer *an, unsigned parts,
                      char *errbuf)
{
	struct rt_an_stage *st = calloc(1, sizeof(*st));
	if (!st)
		return rt_errorf(errbuf, ENOMEM, "analysis threads");
	st->an = an;
	st->nparts = parts < STAGE_PARTS_MAX ? parts : STAGE_PARTS_MAX;
	st->nb = 2 * st->nparts + 2;
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->work, NULL);
	pthread_cond_init(&st->done, NULL);
	st->b = calloc(st->nb, sizeof(*st->b));
	st->p = calloc(st->nparts, sizeof(*st->p));
	bool ok = st->b && st->p;
	for (unsigned i = 0; ok && i < st->nb; i++)
		ok = (st->b[i].logs = calloc(st->nparts, sizeof(*st->b[i].logs))) != NULL;
	for (unsigned k = 0; ok && k < st->nparts; k++) {
		struct part *p = &st->p[k];
		*p = (struct part){.st = st, .idx = k};
		ok = (p->an = rt_analyzer_new(&an->o, errbuf)) != NULL;
		if (ok) {
			p->an->part = true;
			p->an->vp.alone = an->vp.alone;
		}
	}
	while (ok && st->started < st->nparts) {
		ok = pthread_create(&st->p[st->started].th, NULL, part_thread,
		                    &st->p[st->started]) == 0;
		st->started += ok;
	}
	if (!ok) {
		rt_an_stage_free(st);
		return rt_errorf(errbuf, ENOMEM, "analysis threads");
	}
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
		const struct rt_an_flow_key *k = &f->key;
		if (rt_flowsel_match(&an->sel, id, k->ipver, k->src, k->dst, k->dest_qp))
			f->flags |= AN_FLOW_SELECTED;
		else
			f->flags &= (uint8_t)~AN_FLOW_SELECTED;
	}
}

int rt_an_stage_finish(struct rt_an_stage *st, char *errbuf)
{
	struct rt_analyzer *an = st->an;
	if (batch_at(st, st->filled)->n)
		publish(st);
	while (st->merged < st->filled)
		merge_oldest(st);
	stop_threads(st);
	int rc = 0;
	for (unsigned k = 0; k < st->nparts; k++) {
		char eb[RT_ERRBUF_SIZE];
		if (an->stop)
			rt_analyzer_interrupt(st->p[k].an);
		st->p[k].an->ep.log = NULL;
		if (rt_analyzer_finish(st->p[k].an, eb) == -EINTR)
			rc = -EINTR;
	}
	int frc = rt_analyzer_finish(an, errbuf);
	for (unsigned k = 0; k < st->nparts && !st->nomem; k++)
		st->nomem = rt_analyzer_merge(an, st->p[k].an, errbuf) < 0;
	if (st->nomem) {
		rt_an_stage_free(st);
		return rt_errorf(errbuf, ENOMEM, "the analysis' threads");
	}
	settle_flows(st);
	rt_an_stage_free(st);
	return frc ? frc : rc ? rt_errmsg(errbuf, EINTR, "interrupted at the end of the capture") : 0;
}

/* The staged analysis' output thread: the analyzer's buckets go to the sinks in order on a thread of their own, so that staging only makes them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stage_internal.h"
#include "common/clock.h"

#define OUT_SLOTS 4u /* buckets handed over and not yet through the sinks, at most */

/* A bucket handed over, with its own copy of the rows. */
struct out_slot {
	struct rt_an_bucket b;
	struct rt_an_flow_row *rows;
	uint32_t cap;
};

/* A sink's failure on the output thread, told to the analyzer on the thread that stages. */
struct out_failure {
	int rc; /* 0: none */
	char msg[RT_ERRBUF_SIZE];
	bool told;
};

struct stage_out {
	struct rt_an_stage *st;
	struct rt_analyzer *an;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t more, room; /* more: a bucket handed over, or the end; room: one delivered */
	struct out_slot s[OUT_SLOTS];
	uint64_t put, taken; /* buckets handed over, delivered */
	bool end;            /* no more come */
	bool broken; /* a copy could not be made: the sinks failed, nothing more is delivered */
	bool failed[RT_AN_SINKS_MAX];             /* the output thread's: sinks that take no more */
	struct out_failure fail[RT_AN_SINKS_MAX]; /* under mu */
	int (*deliver)(void *ctx, const struct rt_an_bucket *b); /* the buckets' way before */
	void *ctx;
	uint64_t cpu_ns; /* the thread's CPU time, when it ended */
};

/* Bucket b to every sink that has not failed (on the output thread). */
static void deliver_one(struct stage_out *o, const struct rt_an_bucket *b)
{
	for (unsigned i = 0; i < o->an->sinks.n; i++) {
		char eb[RT_ERRBUF_SIZE];
		int rc;
		if (o->failed[i] || (rc = an_sink_bucket(o->an, i, b, eb)) >= 0)
			continue;
		o->failed[i] = true;
		pthread_mutex_lock(&o->mu);
		o->fail[i].rc = rc;
		snprintf(o->fail[i].msg, sizeof(o->fail[i].msg), "%s", eb);
		pthread_mutex_unlock(&o->mu);
	}
}

static void *out_thread(void *arg)
{
	struct stage_out *o = arg;
	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (o->taken == o->put && !o->end)
			pthread_cond_wait(&o->more, &o->mu);
		if (o->taken == o->put)
			break;
		const struct out_slot *s = &o->s[o->taken % OUT_SLOTS];
		bool broken = o->broken;
		pthread_mutex_unlock(&o->mu);
		if (!broken)
			deliver_one(o, &s->b);
		pthread_mutex_lock(&o->mu);
		o->taken++;
		pthread_cond_signal(&o->room);
	}
	pthread_mutex_unlock(&o->mu);
	o->cpu_ns = rt_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* The sinks' failures the output thread met, the analyzer's now (its status stops the reading). Under mu. */
static void tell_failures(struct stage_out *o)
{
	for (unsigned i = 0; i < o->an->sinks.n; i++) {
		struct out_failure *f = &o->fail[i];
		if (f->rc && !f->told) {
			an_sink_failed(o->an, i, f->rc, f->msg);
			f->told = true;
		}
	}
}

/*
 * Slot s holds bucket b's rows: the rows the stage merged taken (the stage
 * gets the slot's room for the next bucket's), others copied. False when out
 * of memory.
 */
static bool slot_rows(struct stage_out *o, struct out_slot *s, const struct rt_an_bucket *b)
{
	struct rt_an_stage *st = o->st;
	if (!b->nrows)
		return true;
	if (b->rows == st->rows) {
		struct rt_an_flow_row *rows = s->rows;
		uint32_t cap = s->cap;
		s->rows = st->rows;
		s->cap = st->caprows;
		st->rows = rows;
		st->caprows = cap;
		return true;
	}
	if (b->nrows > s->cap) {
		struct rt_an_flow_row *nr = realloc(s->rows, (size_t)b->nrows * sizeof(*nr));
		if (!nr)
			return false;
		s->rows = nr;
		s->cap = b->nrows;
	}
	memcpy(s->rows, b->rows, (size_t)b->nrows * sizeof(*b->rows));
	return true;
}

/* The analyzer's bucket b handed to the output thread (its an->bk.deliver; on the thread that stages). */
static int out_put(void *ctx, const struct rt_an_bucket *b)
{
	struct stage_out *o = ctx;
	pthread_mutex_lock(&o->mu);
	tell_failures(o);
	while (o->put - o->taken == OUT_SLOTS)
		pthread_cond_wait(&o->room, &o->mu);
	pthread_mutex_unlock(&o->mu);
	struct out_slot *s = &o->s[o->put % OUT_SLOTS]; /* delivered: the thread is done with it */
	if (!slot_rows(o, s, b)) {
		pthread_mutex_lock(&o->mu);
		o->broken = true;
		pthread_mutex_unlock(&o->mu);
		for (unsigned i = 0; i < o->an->sinks.n; i++)
			if (!o->an->sinks.failed[i])
				an_sink_failed(o->an, i, -ENOMEM,
				               "out of memory: the buckets' rows");
		return 0;
	}
	s->b = *b;
	s->b.rows = s->rows;
	pthread_mutex_lock(&o->mu);
	o->put++;
	pthread_cond_signal(&o->more);
	pthread_mutex_unlock(&o->mu);
	return 0;
}

void an_stage_out_start(struct rt_an_stage *st)
{
	struct rt_analyzer *an = st->an;
	bool apart = false;
	for (unsigned i = 0; i < an->sinks.n; i++)
		apart |= an->sinks.s[i].bucket && an->sinks.s[i].bucket_apart;
	if (!apart || !an->bk.len || an->bk.deliver != an_sinks_deliver)
		return;
	struct stage_out *o = calloc(1, sizeof(*o));
	if (!o)
		return; /* the buckets go to the sinks on the thread that stages */
	o->st = st;
	o->an = an;
	o->deliver = an->bk.deliver;
	o->ctx = an->bk.ctx;
	memcpy(o->failed, an->sinks.failed, sizeof(o->failed));
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->more, NULL);
	pthread_cond_init(&o->room, NULL);
	if (pthread_create(&o->th, NULL, out_thread, o) != 0) {
		pthread_cond_destroy(&o->more);
		pthread_cond_destroy(&o->room);
		pthread_mutex_destroy(&o->mu);
		free(o);
		return;
	}
	an->bk.deliver = out_put;
	an->bk.ctx = o;
	st->out = o;
}

void an_stage_out_stop(struct rt_an_stage *st)
{
	struct stage_out *o = st->out;
	if (!o)
		return;
	pthread_mutex_lock(&o->mu);
	o->end = true;
	pthread_cond_signal(&o->more);
	pthread_mutex_unlock(&o->mu);
	pthread_join(o->th, NULL);
	tell_failures(o);
	st->an->bk.deliver = o->deliver;
	st->an->bk.ctx = o->ctx;
	st->out_cpu_ns = o->cpu_ns;
	for (unsigned i = 0; i < OUT_SLOTS; i++)
		free(o->s[i].rows);
	pthread_cond_destroy(&o->more);
	pthread_cond_destroy(&o->room);
	pthread_mutex_destroy(&o->mu);
	free(o);
	st->out = NULL;
}

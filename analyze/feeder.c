/* The feeder thread: batches of records from the frame pump, fed to the analyzer (and a fan-out) in order on a second CPU. */
#include "analyze/feeder.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FEED_BATCH   RT_AN_FEEDER_BATCH
#define FEED_BATCHES 16u /* batches in the ring: how far the producer may run ahead */

struct batch {
	uint32_t n;
	struct rt_record rec[FEED_BATCH];
};

struct rt_an_feeder {
	struct rt_analyzer *an;
	struct rt_an_fanout *fanout; /* or NULL */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, drained; /* a batch is ready for the thread; one was fed */
	/* batches [head, tail) are full and waiting (numbers, mod FEED_BATCHES the slot); under lock */
	uint64_t head, tail;
	bool done; /* under lock: no more batches will come */
	atomic_int status;
	atomic_uint_fast64_t flows;
	struct batch *b; /* FEED_BATCHES of them */
};

static void *run(void *arg)
{
	struct rt_an_feeder *fd = arg;
	for (;;) {
		pthread_mutex_lock(&fd->lock);
		while (fd->head == fd->tail && !fd->done)
			pthread_cond_wait(&fd->filled, &fd->lock);
		if (fd->head == fd->tail) {
			pthread_mutex_unlock(&fd->lock);
			return NULL;
		}
		const struct batch *b = &fd->b[fd->head % FEED_BATCHES];
		pthread_mutex_unlock(&fd->lock);
		if (fd->fanout) {
			for (uint32_t i = 0; i < b->n; i++) {
				rt_analyzer_feed(fd->an, &b->rec[i]);
				rt_an_fanout_feed(fd->fanout, &b->rec[i]);
			}
		} else {
			for (uint32_t i = 0; i < b->n; i++)
				rt_analyzer_feed(fd->an, &b->rec[i]);
		}
		int status = rt_analyzer_status(fd->an, NULL);
		if (!status && fd->fanout)
			status = rt_an_fanout_status(fd->fanout, NULL);
		atomic_store_explicit(&fd->status, status, memory_order_relaxed);
		atomic_store_explicit(&fd->flows, rt_analyzer_flow_count(fd->an),
		                      memory_order_relaxed);
		pthread_mutex_lock(&fd->lock);
		fd->head++;
		pthread_cond_signal(&fd->drained);
		pthread_mutex_unlock(&fd->lock);
	}
}

int rt_an_feeder_start(struct rt_an_feeder **out, struct rt_analyzer *an,
                       struct rt_an_fanout *fanout, char *errbuf)
{
	struct rt_an_feeder *fd = calloc(1, sizeof(*fd));
	int err = ENOMEM;
	if (fd)
		fd->b = malloc(FEED_BATCHES * sizeof(*fd->b));
	if (!fd || !fd->b)
		goto fail;
	fd->an = an;
	fd->fanout = fanout;
	atomic_init(&fd->status, 0);
	atomic_init(&fd->flows, rt_analyzer_flow_count(an));
	fd->b[0].n = 0;
	if ((err = pthread_mutex_init(&fd->lock, NULL)) != 0)
		goto fail;
	if ((err = pthread_cond_init(&fd->filled, NULL)) != 0)
		goto fail_lock;
	if ((err = pthread_cond_init(&fd->drained, NULL)) != 0)
		goto fail_filled;
	/* signals go to the producer's thread, whose reads they must cut short: the feeder blocks them all */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&fd->thread, NULL, run, fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0)
		goto fail_drained;
	*out = fd;
	return 0;
fail_drained:
	pthread_cond_destroy(&fd->drained);
fail_filled:
	pthread_cond_destroy(&fd->filled);
fail_lock:
	pthread_mutex_destroy(&fd->lock);
fail:
	if (fd)
		free(fd->b);
	free(fd);
	return rt_errorf(errbuf, err, "analyzer thread");
}

/* The batch being filled is full (or the end came): hand it over, and wait for room for the next. */
static void hand_over(struct rt_an_feeder *fd)
{
	pthread_mutex_lock(&fd->lock);
	fd->tail++;
	pthread_cond_signal(&fd->filled);
	while (fd->tail - fd->head == FEED_BATCHES)
		pthread_cond_wait(&fd->drained, &fd->lock);
	pthread_mutex_unlock(&fd->lock);
	fd->b[fd->tail % FEED_BATCHES].n = 0;
}

struct rt_record *rt_an_feeder_room(struct rt_an_feeder *fd, unsigned n)
{
	struct batch *b = &fd->b[fd->tail % FEED_BATCHES];
	if (b->n && FEED_BATCH - b->n < n) {
		hand_over(fd);
		b = &fd->b[fd->tail % FEED_BATCHES];
	}
	return &b->rec[b->n];
}

void rt_an_feeder_commit(struct rt_an_feeder *fd)
{
	struct batch *b = &fd->b[fd->tail % FEED_BATCHES];
	if (++b->n == FEED_BATCH)
		hand_over(fd);
}

int rt_an_feeder_status(const struct rt_an_feeder *fd)
{
	return atomic_load_explicit(&fd->status, memory_order_relaxed);
}

uint64_t rt_an_feeder_flows(const struct rt_an_feeder *fd)
{
	return atomic_load_explicit(&fd->flows, memory_order_relaxed);
}

void rt_an_feeder_stop(struct rt_an_feeder *fd)
{
	if (fd->b[fd->tail % FEED_BATCHES].n)
		hand_over(fd);
	pthread_mutex_lock(&fd->lock);
	fd->done = true;
	pthread_cond_signal(&fd->filled);
	pthread_mutex_unlock(&fd->lock);
	pthread_join(fd->thread, NULL);
	pthread_cond_destroy(&fd->drained);
	pthread_cond_destroy(&fd->filled);
	pthread_mutex_destroy(&fd->lock);
	free(fd->b);
	free(fd);
}

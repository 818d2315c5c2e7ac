/* Unit tests of the senders' shared run loop, driven through a fake backend's ops table. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/clock.h"
#include "traffic/gen.h"
#include "traffic/internal.h"
#include "traffic/perf.h"

/* A backend that completes one message per step, up to `per_run` a run, and counts the calls. */
struct fake {
	struct rt_gen_sender snd;
	uint64_t per_run;  /* messages a run completes (UINT64_MAX: until stopped) */
	uint64_t drain_ns; /* what stop gives the messages in flight; UINT64_MAX: no limit */
	bool never_finish; /* after stop, the last message never completes */
	bool burst; /* the run's messages all complete in its first step; it runs to its time */
	unsigned stop_after; /* steps before *cfg->stop is set (0: never) */
	volatile sig_atomic_t *stop_flag;
	uint32_t sizes[32]; /* run_begin's sizes */
	uint32_t size;      /* of the run */
	unsigned runs, starts, stops, receives, steps, intervals, waits, finishes;
	bool header;            /* run_begin was asked for the interval header */
	uint64_t completed, t0; /* this run; finish's t0 */
	uint64_t total;         /* run_end's counts, all runs */
	char order[64];         /* the calls' first letters, outside the loop */
	size_t norder;
};

static void note(struct fake *f, char c)
{
	if (f->norder + 1 < sizeof(f->order))
		f->order[f->norder++] = c;
}

static void f_start(void *b, uint64_t now)
{
	struct fake *f = b;
	(void)now;
	f->starts++;
	note(f, 's');
}

static void f_run_begin(void *b, uint32_t size, bool intervals, uint64_t now)
{
	struct fake *f = b;
	(void)now;
	f->sizes[f->runs++ % 32] = size;
	f->size = size;
	f->header = intervals;
	f->completed = 0;
	note(f, 'r');
}

static uint64_t f_stop(void *b, uint64_t now)
{
	struct fake *f = b;
	f->stops++;
	return f->drain_ns == UINT64_MAX ? UINT64_MAX : now + f->drain_ns;
}

static void f_receive(void *b, struct rt_perf_run *res)
{
	struct fake *f = b;
	(void)res;
	f->receives++;
}

static uint64_t f_run_payload(const void *b)
{
	const struct fake *f = b;
	return f->completed * f->size;
}

static int f_step(void *b, uint64_t now, bool stopping, struct rt_perf_run *res, bool *done,
                  char *errbuf)
{
	struct fake *f = b;
	(void)errbuf;
	f->steps++;
	if (f->stop_after && f->steps == f->stop_after)
		*f->stop_flag = 1;
	if (f->burst) {
		f->completed = f->per_run;
		res->t_last = now; /* as if the last message took all this time */
	} else if (!stopping && f->completed < f->per_run) {
		f->completed++;
		res->t_last = now;
	}
	*done = stopping ? !f->never_finish : !f->burst && f->completed >= f->per_run;
	return 0;
}

static void f_interval(void *b, double t, double dt, uint64_t now)
{
	struct fake *f = b;
	(void)now;
	assert_true(t >= dt && dt >= 0);
	f->intervals++;
}

static bool f_interval_left(const void *b, uint64_t now, uint64_t last_iv, uint64_t iv_ns)
{
	(void)b;
	(void)iv_ns;
	return now > last_iv;
}

static void f_wait(void *b, uint64_t now, uint64_t due)
{
	struct fake *f = b;
	assert_true(due > now);
	f->waits++;
}

static uint64_t f_run_end(void *b)
{
	struct fake *f = b;
	f->total += f->completed;
	note(f, 'e');
	return f->completed;
}

static void f_finish(void *b, uint64_t t0)
{
	struct fake *f = b;
	f->finishes++;
	f->t0 = t0;
	note(f, 'f');
}

static const struct rt_gen_send_ops fake_ops = {
    .start = f_start,
    .run_begin = f_run_begin,
    .stop = f_stop,
    .receive = f_receive,
    .run_payload = f_run_payload,
    .step = f_step,
    .interval = f_interval,
    .interval_left = f_interval_left,
    .wait = f_wait,
    .run_end = f_run_end,
    .finish = f_finish,
};

static struct rt_gen_config cfg;
static struct fake fk;
static volatile sig_atomic_t stop_flag;
static char *report_text;
static size_t report_len;

static int setup(void **state)
{
	(void)state;
	rt_gen_config_default(&cfg);
	cfg.stop = &stop_flag;
	stop_flag = 0;
	memset(&fk, 0, sizeof(fk));
	fk.stop_flag = &stop_flag;
	fk.drain_ns = UINT64_MAX;
	FILE *rep = open_memstream(&report_text, &report_len);
	assert_non_null(rep);
	fk.snd =
	    (struct rt_gen_sender){.ops = &fake_ops, .backend = &fk, .cfg = &cfg, .report = rep};
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fclose(fk.snd.report);
	free(report_text);
	free(fk.snd.lat);
	return 0;
}

/* The report so far. */
static const char *report(void)
{
	fflush(fk.snd.report);
	return report_text;
}

/* The runs of the configuration, which succeed. */
static void run_ok(void)
{
	char err[RT_ERRBUF_SIZE] = "";
	int rc = rt_gen_send_runs(&fk.snd, err);
	if (rc)
		fail_msg("%d: %s", rc, err);
}

/* -a -n N: a sweep of N messages per size, which the fake completes one a step. */
static void sweep_of(uint64_t n)
{
	cfg.sweep = true;
	cfg.iters = n;
	cfg.duration_s = 0;
	cfg.msg_size = RT_PERF_SWEEP_MAX;
	fk.per_run = n;
}

/* -n 5: one run of 5 messages, begun, stepped to its end, counted in the table; start and finish around it. */
static void test_count(void **state)
{
	(void)state;
	cfg.iters = 5;
	cfg.duration_s = 0;
	cfg.msg_size = 4096;
	fk.per_run = 5;
	run_ok();
	assert_string_equal(fk.order, "sref");
	assert_int_equal(fk.runs, 1);
	assert_int_equal(fk.sizes[0], 4096);
	assert_true(fk.header); /* neither a sweep nor latency: interval lines */
	assert_int_equal(fk.steps, 5);
	assert_int_equal(fk.receives, 5);
	assert_int_equal(fk.waits, 4); /* not after the last step */
	assert_int_equal(fk.stops, 0);
	assert_true(fk.t0 > 0);
	const char *row = strstr(report(), "\n 4096 ");
	assert_non_null(row);
	unsigned long long it = 0;
	assert_int_equal(sscanf(row, " %*u %llu", &it), 1);
	assert_int_equal(it, 5);
}

/* -a: every size from 2 to 2^23, one run each, a row each; no interval lines. */
static void test_sweep(void **state)
{
	(void)state;
	sweep_of(2);
	run_ok();
	assert_int_equal(fk.runs, 23);
	for (unsigned k = 0; k < 23; k++)
		assert_int_equal(fk.sizes[k], 2u << k);
	assert_false(fk.header);
	assert_int_equal(fk.intervals, 0);
	assert_int_equal(fk.total, 46);
	assert_int_equal(fk.finishes, 1);
	assert_non_null(strstr(report(), "\n 8388608    2 "));
}

/* Ctrl-C in the third run of a sweep: that run stops and drains, no later size runs, finish still comes. */
static void test_interrupted(void **state)
{
	(void)state;
	sweep_of(4);
	fk.stop_after = 2 * 4 + 2; /* runs 1 and 2 take 4 steps each; the 2nd of run 3 sets it */
	run_ok();
	assert_int_equal(fk.runs, 3);
	assert_int_equal(fk.stops, 1);
	assert_int_equal(fk.total, 4 + 4 + 2);
	assert_int_equal(fk.finishes, 1);
}

/* A backend whose messages in flight never complete after the stop: the loop gives up at the deadline. */
static void test_drain_deadline(void **state)
{
	(void)state;
	cfg.duration_s = 0.002;
	fk.per_run = UINT64_MAX;
	fk.never_finish = true;
	fk.drain_ns = 5000000;
	char err[RT_ERRBUF_SIZE] = "";
	assert_int_equal(rt_gen_send_runs(&fk.snd, err), -ETIMEDOUT);
	assert_non_null(strstr(err, "gave up waiting for the last acknowledgements"));
	assert_int_equal(fk.stops, 1);
	assert_int_equal(fk.finishes, 0);
}

/* A run by time with interval lines each 10 ms and a last partial one. */
static void test_intervals(void **state)
{
	(void)state;
	cfg.duration_s = 0.055;
	cfg.interval_s = 0.01;
	fk.per_run = UINT64_MAX;
	uint64_t t0 = rt_mono_ns();
	run_ok();
	uint64_t took = rt_mono_ns() - t0;
	assert_int_equal(fk.stops, 1);
	/* one per 10 ms (however late the loop wakes, never two for one), and the last part */
	if (fk.intervals < 2 || fk.intervals > took / 10000000u + 1)
		fail_msg("%u interval lines in %llu ns", fk.intervals, (unsigned long long)took);
}

/*
 * The peak is the best 10 ms slice: every message of a 200 ms run completes
 * at once, so the first slice's rate is about 20 times the run's average.
 */
static void test_peak(void **state)
{
	(void)state;
	cfg.duration_s = 0.2;
	cfg.msg_size = 4096;
	fk.burst = true;
	fk.per_run = 1000;
	run_ok();
	const char *row = strstr(report(), "\n 4096       1000 ");
	assert_non_null(row);
	double peak = 0, avg = 0;
	assert_int_equal(sscanf(row, " %*u %*u %lf %lf", &peak, &avg), 2);
	assert_true(avg > 0);
	if (!(peak > 1.5 * avg))
		fail_msg("%s", report());
}

/* gen lat: the loop never sleeps (a wake-up would be measured). */
static void test_latency_polls(void **state)
{
	(void)state;
	cfg.latency = true;
	cfg.qps = 1;
	cfg.qdepth = 1;
	cfg.iters = 20;
	cfg.duration_s = 0;
	fk.per_run = 20;
	run_ok();
	assert_non_null(fk.snd.lat);
	assert_int_equal(fk.waits, 0);
	assert_false(fk.header);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_count, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sweep, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_interrupted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drain_deadline, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_intervals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_peak, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_latency_polls, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

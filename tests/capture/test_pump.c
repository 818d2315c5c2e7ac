/* Unit tests of the frame pump: every frame handed over once, stops, failures, signals, idle ticks,
 * stats. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/pump.h"
#include "common/clock.h"

/* A 60-byte PAUSE frame: dissected, it says so. */
static const uint8_t pause_frame[60] = {0x01, 0x80, 0xc2, 0,    0,    1,    2,    0,    0,
                                        0,    0,    1,    0x88, 0x08, 0x00, 0x01, 0x12, 0x34};

/* The fake source: `total` frames, in batches of up to 3, with an idle read before every batch. */
static struct {
	int total, delivered, reads, idle_reads;
	int fail_at;   /* the read that would start at frame fail_at (1-based) fails; 0: never */
	bool breaks;   /* breakloop() was called */
	bool idle_now; /* the next read finds nothing */
	bool holdable; /* hold() holds (the frames' bytes: pause_frame) */
	int holds;     /* hold() calls */
} fake;

static int fake_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	(void)src;
	fake.reads++;
	if (fake.idle_now) {
		fake.idle_now = false;
		fake.idle_reads++;
		return -EAGAIN;
	}
	fake.idle_now = true;
	if (fake.fail_at && fake.delivered + 1 >= fake.fail_at)
		return rt_errmsg(errbuf, EIO, "fake: read error");
	int n = 0;
	while (n < max && n < 3 && fake.delivered < fake.total) {
		fake.delivered++;
		frames[n] = (struct rt_frame){.data = pause_frame,
		                              .caplen = sizeof(pause_frame),
		                              .wirelen = sizeof(pause_frame),
		                              .ts_ns = 1000u * (uint64_t)fake.delivered};
		n++;
	}
	return n;
}

static int fake_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	(void)src;
	(void)errbuf;
	st->received = (uint64_t)fake.delivered;
	st->dropped = 7;
	return 0;
}

static void fake_break(struct rt_source *src)
{
	(void)src;
	fake.breaks = true;
}

static int fake_hold(struct rt_source *src, const uint8_t **base, size_t *len)
{
	(void)src;
	fake.holds++;
	if (!fake.holdable)
		return -ENOTSUP;
	*base = pause_frame;
	*len = sizeof(pause_frame);
	return 0;
}

static const struct rt_source_ops fake_ops = {
    .kind = "fake",
    .next = fake_next,
    .stats = fake_stats,
    .breakloop = fake_break,
    .hold = fake_hold,
};

/* What the callbacks saw, and what they do. */
static struct {
	uint64_t frames, last_ts, last_seq, ticks, idle_ticks;
	int stop_after, fail_after,
	    signal_after; /* at that many frames: return 1, -EPIPE, raise SIGINT */
	bool stop_call;   /* call rt_pump_stop() instead of raising */
	bool all_pause;
	int hooked;
} seen;

static int take_frame(void *ctx, const struct rt_frame *f, const struct rt_record *rec,
                      char *errbuf)
{
	(void)ctx;
	seen.frames++;
	if (!rec || rec->kind != RT_KIND_PAUSE || rec->ts_ns != f->ts_ns)
		seen.all_pause = false;
	if (f->seq != seen.last_seq + 1)
		fail_msg("frame %llu after %llu", (unsigned long long)f->seq,
		         (unsigned long long)seen.last_seq);
	seen.last_seq = f->seq;
	seen.last_ts = f->ts_ns;
	if (seen.stop_after && seen.frames == (uint64_t)seen.stop_after)
		return 1;
	if (seen.fail_after && seen.frames == (uint64_t)seen.fail_after)
		return rt_errmsg(errbuf, EPIPE, "sink: broken pipe");
	if (seen.signal_after && seen.frames == (uint64_t)seen.signal_after) {
		if (seen.stop_call)
			rt_pump_stop();
		else
			raise(SIGINT);
	}
	return 0;
}

static int on_tick(void *ctx, uint64_t now, bool idle, char *errbuf)
{
	(void)ctx;
	(void)now;
	(void)errbuf;
	seen.ticks++;
	seen.idle_ticks += idle;
	return 0;
}

static void hook(int sig)
{
	seen.hooked = sig;
}

static struct rt_source src;
static struct rt_dissect_opts dopts;

/* Fresh fake source and callbacks. */
static void reset(void)
{
	memset(&fake, 0, sizeof(fake));
	memset(&seen, 0, sizeof(seen));
	memset(&src, 0, sizeof(src));
	src.ops = &fake_ops;
	src.linktype = RT_LINK_ETHERNET;
	seen.all_pause = true;
	rt_dissect_opts_init(&dopts);
}

static int setup(void **state)
{
	(void)state;
	reset();
	return rt_pump_catch_signals(hook);
}

static int teardown(void **state)
{
	(void)state;
	rt_pump_release_signals();
	return 0;
}

/* The test's one sink (take_frame), the fake source's ticks. */
static struct rt_pump_sink sink = {.frame = take_frame};

static struct rt_pump_config config(void)
{
	sink.frames_only = false;
	struct rt_pump_config c = {
	    .decode = &dopts, .sinks = &sink, .nsinks = 1, .on_tick = on_tick};
	return c;
}

static void test_every_frame_once(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	fake.total = 10;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_EOF);
	assert_int_equal(res.frames, 10);
	assert_int_equal(seen.frames, 10);
	assert_true(seen.all_pause);
	assert_true(seen.last_ts == 10000);
	/* every read is preceded by a tick; the one after an idle read says so */
	assert_int_equal(seen.ticks, fake.reads);
	assert_int_equal(seen.idle_ticks, fake.idle_reads);
	assert_true(fake.idle_reads > 0);
	assert_true(res.stats.received == 10 && res.stats.dropped == 7);
	assert_false(rt_pump_stopping());
}

/* A sink that takes no records gets none: nothing is decoded. */
static void test_undissected(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	fake.total = 4;
	sink.frames_only = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.frames, 4);
	assert_false(seen.all_pause); /* rec was NULL */
}

/* A sink's frames(): each batch in one call, in order, when it is the only sink and takes no records. */
static unsigned batches, in_place_calls, batches_at_in_place;
static const uint8_t *in_place_base;
static void take_in_place(void *ctx, const uint8_t *base, size_t len)
{
	(void)ctx;
	assert_int_equal(len, sizeof(pause_frame));
	in_place_calls++;
	batches_at_in_place = batches;
	in_place_base = base;
}

static int take_frames(void *ctx, const struct rt_frame *f, unsigned n, char *errbuf)
{
	batches++;
	for (unsigned i = 0; i < n; i++) {
		int rc = take_frame(ctx, &f[i], NULL, errbuf);
		if (rc)
			return rc;
	}
	return 0;
}

static void test_batches(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	fake.total = 23;
	sink.frames_only = true;
	sink.frames = take_frames;
	batches = 0;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_EOF);
	assert_int_equal(res.frames, 23);
	assert_int_equal(seen.frames, 23);
	assert_true(batches > 0 && batches < 23); /* the fake source hands out up to 3 a read */
	/* -c: the batch holds what is left of it */
	reset();
	fake.total = 100;
	c.max_frames = 7;
	batches = 0;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_STOPPED);
	assert_int_equal(res.frames, 7);
	assert_int_equal(seen.frames, 7);
	/* a stop or a failure part way through a batch: the whole batch counted */
	reset();
	fake.total = 100;
	c.max_frames = 0;
	seen.stop_after = 5;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_STOPPED);
	assert_int_equal(seen.frames, 5);
	assert_int_equal(res.frames, 6); /* batches of 3 */
	reset();
	fake.total = 100;
	seen.fail_after = 4;
	assert_true(rt_pump_run(&src, &c, &res, errbuf) < 0);
	assert_int_equal(res.end, RT_PUMP_FAILED);
	assert_non_null(strstr(errbuf, "broken pipe"));
	assert_int_equal(res.frames, 6);
	/* a sink that takes records: frame() for each */
	reset();
	c.max_frames = 0;
	sink.frames_only = false;
	batches = 0;
	fake.total = 6;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(seen.frames, 6);
	assert_int_equal(batches, 0);
	sink.frames = NULL;
}

/*
 * A sink of batches that takes frames in place is offered the source's
 * held bytes once, before its first batch; a source that cannot hold is
 * asked once and the sink told nothing; a sink that does not take them in
 * place has the source hold nothing.
 */
static void test_in_place(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	sink.frames_only = true;
	sink.frames = take_frames;
	sink.in_place = take_in_place;
	fake.total = 10;
	fake.holdable = true;
	batches = in_place_calls = 0;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(seen.frames, 10);
	assert_int_equal(fake.holds, 1);
	assert_int_equal(in_place_calls, 1);
	assert_int_equal(batches_at_in_place, 0);
	assert_ptr_equal(in_place_base, pause_frame);
	reset();
	fake.total = 10;
	batches = in_place_calls = 0;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(seen.frames, 10);
	assert_int_equal(fake.holds, 1);
	assert_int_equal(in_place_calls, 0);
	reset();
	sink.in_place = NULL;
	fake.total = 10;
	fake.holdable = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(fake.holds, 0);
	sink.frames = NULL;
}

static void test_stops(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	fake.total = 100;
	c.max_frames = 5;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_STOPPED);
	assert_int_equal(res.frames, 5);
	assert_int_equal(fake.delivered, 5); /* the source is asked for no more than -c leaves */
	c.max_frames = 0;
	seen.stop_after = 7;
	seen.last_seq = 0;
	seen.frames = 0;
	src.seq = 0;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_STOPPED);
	assert_int_equal(res.frames, 7);
}

static void test_failures(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE] = "";
	(void)state;

	fake.total = 100;
	fake.fail_at = 7;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), -EIO);
	assert_int_equal(res.end, RT_PUMP_FAILED);
	assert_true(res.read_failed);
	assert_int_equal(res.frames, 6); /* what came before the error was handed over */
	assert_string_equal(errbuf, "fake: read error");

	reset();
	fake.total = 100;
	seen.fail_after = 3;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), -EPIPE);
	assert_int_equal(res.end, RT_PUMP_FAILED);
	assert_false(res.read_failed);
	assert_int_equal(res.frames, 3);
	assert_string_equal(errbuf, "sink: broken pipe");
}

/* A signal ends the loop after the frame it came in, wakes the source, and reaches the hook. */
static void test_signal(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	fake.total = 100;
	seen.signal_after = 4;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_INTERRUPTED);
	assert_int_equal(res.signal, SIGINT);
	assert_int_equal(seen.hooked, SIGINT);
	assert_true(fake.breaks);
	assert_true(rt_pump_stopping());
	assert_true(res.frames >= 4 && res.frames <= 6); /* the rest of the batch is handed over */

	/* rt_pump_stop() does the same without a signal */
	reset();
	rt_pump_release_signals();
	assert_int_equal(rt_pump_catch_signals(hook), 0); /* a new catch clears the stop */
	assert_false(rt_pump_stopping());
	fake.total = 100;
	seen.signal_after = 2;
	seen.stop_call = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_INTERRUPTED);
	assert_int_equal(res.signal, 0);
	assert_int_equal(seen.hooked, 0);
	/* a stop asked before the run ends it before the first read */
	fake.reads = 0;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_INTERRUPTED);
	assert_int_equal(fake.reads, 0);
}

/*
 * A source that holds frames (libpcap block delivery): after the stop it
 * still has `held` batches from before it, then frames from after it;
 * -EINTR at read `eintr_at` after the stop (the stop's own wake-up or,
 * with `restop`, a second stop asked then).
 */
static struct {
	int held, after_stop_reads, eintr_at;
	bool restop, idle, tick_stopped;
	uint64_t stop_real;
} hold;

static int held_next(struct rt_source *s, struct rt_frame *frames, int max, char *errbuf)
{
	(void)s;
	(void)errbuf;
	uint64_t ts = rt_real_ns() - 1000000u; /* a frame from a millisecond ago */
	if (rt_pump_stopping() || hold.tick_stopped) {
		if (!hold.stop_real)
			hold.stop_real = rt_real_ns();
		if (++hold.after_stop_reads == hold.eintr_at) {
			if (hold.restop)
				rt_pump_stop();
			return -EINTR;
		}
		if (hold.idle)
			return -EAGAIN;
		if (hold.held > 0)
			hold.held--;
		else
			ts = rt_real_ns() + 1000000000u; /* after the stop */
	}
	int n = max < 3 ? max : 3;
	for (int i = 0; i < n; i++)
		frames[i] = (struct rt_frame){.data = pause_frame,
		                              .caplen = sizeof(pause_frame),
		                              .wirelen = sizeof(pause_frame),
		                              .ts_ns = ts};
	return n;
}

static const struct rt_source_ops held_ops = {
    .kind = "held",
    .next = held_next,
    .breakloop = fake_break,
};

/* A fresh holding source (and stop state): hold_ns, and what the test sets in `hold` after. */
static void held_source(uint64_t hold_ns)
{
	reset();
	rt_pump_release_signals();
	assert_int_equal(rt_pump_catch_signals(hook), 0);
	src.ops = &held_ops;
	src.hold_ns = hold_ns;
	memset(&hold, 0, sizeof(hold));
}

static void test_held_frames(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	/* after Ctrl-C: the 2 held batches, then the first batch from after the stop, and no more */
	held_source(10000000000ull); /* the drain ends by frames, long before */
	hold.held = 2;
	seen.signal_after = 5;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_INTERRUPTED);
	assert_int_equal(res.signal, SIGINT);
	assert_int_equal(res.frames, 6 + 2 * 3 + 3);
	assert_int_equal(hold.after_stop_reads, 3);

	/* the stop's own pending wake-up does not end the drain; a second stop does */
	held_source(10000000000ull);
	hold.held = 5;
	hold.eintr_at = 1;
	seen.signal_after = 3;
	seen.stop_call = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.frames, 3 + 5 * 3 + 3);
	held_source(10000000000ull);
	hold.held = 5;
	hold.eintr_at = 2;
	hold.restop = true;
	seen.signal_after = 3;
	seen.stop_call = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.frames, 3 + 3); /* one held batch, then the second stop */
	assert_int_equal(hold.after_stop_reads, 2);

	/* an idle source: the drain gives up after hold_ns */
	held_source(20000000u);
	hold.idle = true;
	seen.signal_after = 3;
	seen.stop_call = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.frames, 3);
	assert_true(rt_real_ns() - hold.stop_real >= 20000000u);

	/* without hold_ns nothing is read after the stop */
	held_source(0);
	hold.held = 2;
	seen.signal_after = 3;
	seen.stop_call = true;
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.frames, 3);
	assert_int_equal(hold.after_stop_reads, 0);
}

/* An on_tick stop (--duration) drains held frames too. */
static int stop_tick(void *ctx, uint64_t now, bool idle, char *errbuf)
{
	(void)ctx;
	(void)now;
	(void)idle;
	(void)errbuf;
	hold.tick_stopped = ++seen.ticks == 3;
	return hold.tick_stopped ? 1 : 0;
}

static void test_held_frames_tick_stop(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	(void)state;

	held_source(10000000000ull);
	c.on_tick = stop_tick;
	/* the tick's stop is not a stop request: the held frames are old, then come new ones */
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_STOPPED);
	assert_int_equal(res.frames, 2 * 3 + 3);
}

/* SIGHUP stops the pump as SIGTERM does; a SIGHUP ignored before (nohup) stays ignored. */
static void test_sighup(void **state)
{
	struct rt_pump_config c = config();
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	struct sigaction sa;
	(void)state;

	fake.total = 3;
	raise(SIGHUP);
	assert_true(rt_pump_stopping());
	assert_int_equal(seen.hooked, SIGHUP);
	assert_int_equal(rt_pump_run(&src, &c, &res, errbuf), 0);
	assert_int_equal(res.end, RT_PUMP_INTERRUPTED);
	assert_int_equal(res.signal, SIGHUP);

	rt_pump_release_signals();
	signal(SIGHUP, SIG_IGN);
	assert_int_equal(rt_pump_catch_signals(hook), 0);
	assert_int_equal(sigaction(SIGHUP, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_IGN);
	rt_pump_release_signals();
	signal(SIGHUP, SIG_DFL);
	assert_int_equal(rt_pump_catch_signals(hook), 0);
	assert_int_equal(sigaction(SIGHUP, NULL, &sa), 0);
	assert_true(sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL);
}

static void test_open_file(void **state)
{
	char path[] = "/tmp/rt-pump-XXXXXX";
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_source *s;
	/* a pcap header with link type 147 (a user DLT) and no frames */
	static const uint8_t hdr[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2,    0,    4, 0, 0,   0, 0, 0,
	                                0,    0,    0,    0,    0xff, 0xff, 0, 0, 147, 0, 0, 0};
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, hdr, sizeof(hdr)), sizeof(hdr));
	close(fd);
	struct rt_source_file_spec spec = {.path = path}, missing = {.path = "/nonexistent/x.pcap"};
	assert_int_equal(rt_pump_open_files(&s, &spec, 1, NULL, errbuf), -EPROTONOSUPPORT);
	assert_non_null(strstr(errbuf, "link type 147 is not supported"));
	assert_int_equal(rt_pump_open_files(&s, &missing, 1, NULL, errbuf), -ENOENT);
	assert_non_null(strstr(errbuf, "/nonexistent/x.pcap"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_every_frame_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_undissected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_in_place, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stops, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_signal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_held_frames, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_held_frames_tick_stop, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sighup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_open_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

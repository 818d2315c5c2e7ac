/* Unit tests of the flight recorder's ring: wrap, memory bound, time window, hold-off, event files read back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/files.h"
#include "capture/recorder.h"
#include "common/errbuf.h"

#define T0   1700000000000000000ull
#define MS   1000000ull
#define SEC  1000000000ull
#define LINK 1 /* Ethernet */

static char dir[] = "/tmp/rt-recorder-test-XXXXXX";

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Frame k: `len` bytes, its number in the first 8, then a pattern from it. */
static uint8_t bytes[2048];
static struct rt_frame frame(uint64_t k, uint32_t len, uint64_t ts)
{
	memcpy(bytes, &k, sizeof(k));
	for (uint32_t i = sizeof(k); i < len; i++)
		bytes[i] = (uint8_t)(k + i);
	return (struct rt_frame){.data = bytes, .caplen = len, .wirelen = len + 4, .ts_ns = ts};
}

/* The events closed, as on_closed saw them. */
static struct rt_recorder_event closed[8];
static unsigned nclosed;

static void on_closed(void *ctx, const struct rt_recorder_event *ev)
{
	(void)ctx;
	assert_true(nclosed < 8);
	closed[nclosed++] = *ev;
}

static uint64_t late; /* the next recorder's late_ns */

static struct rt_recorder *recorder(uint64_t span, size_t size, uint64_t post, uint64_t hold_off,
                                    unsigned max, const char *sub)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s/", dir, sub);
	struct rt_recorder_config cfg = {.span_ns = span,
	                                 .late_ns = late,
	                                 .bytes = size,
	                                 .post_ns = post,
	                                 .hold_off_ns = hold_off,
	                                 .max_events = max,
	                                 .dir = path,
	                                 .application = "test",
	                                 .if_name = "eth0",
	                                 .linktype = LINK,
	                                 .snaplen = 2048,
	                                 .on_closed = on_closed};
	struct rt_recorder *r;
	char errbuf[RT_ERRBUF_SIZE];
	nclosed = 0;
	if (rt_recorder_new(&r, &cfg, errbuf) < 0)
		fail_msg("%s", errbuf);
	return r;
}

static void push(struct rt_pump_sink *s, uint64_t k, uint32_t len, uint64_t ts)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_frame f = frame(k, len, ts);
	if (s->frame(s->ctx, &f, NULL, errbuf) != 0)
		fail_msg("frame %llu: %s", (unsigned long long)k, errbuf);
}

/* Read an event file back: each frame's number (its first 8 bytes) and time, its bytes checked. */
static size_t read_back(const char *path, uint64_t *nums, uint64_t *ts, size_t max)
{
	struct rt_source_file_spec spec = {.path = path};
	struct rt_source *src;
	struct rt_frame fr[64];
	char errbuf[RT_ERRBUF_SIZE];
	size_t n = 0;
	int got;
	if (rt_source_open_files(&src, &spec, 1, NULL, errbuf) < 0)
		fail_msg("%s", errbuf);
	while ((got = rt_source_next(src, fr, 64, errbuf)) > 0)
		for (int i = 0; i < got; i++) {
			assert_true(n < max);
			uint64_t k;
			memcpy(&k, fr[i].data, sizeof(k));
			for (uint32_t b = sizeof(k); b < fr[i].caplen; b++)
				assert_int_equal(fr[i].data[b], (uint8_t)(k + b));
			assert_int_equal(fr[i].wirelen, fr[i].caplen + 4);
			nums[n] = k;
			ts[n++] = fr[i].ts_ns;
		}
	assert_int_equal(got, 0);
	rt_source_close(src);
	return n;
}

static int fire(struct rt_recorder *r, uint64_t ts, enum rt_recorder_held *held,
                struct rt_recorder_event *ev)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_recorder_fire f = {
	    .ts_ns = ts, .trigger = "cnp", .code = "cnp", .figures = "a CNP (frame 7)"};
	int rc = rt_recorder_trigger(r, &f, held, ev, errbuf);
	if (rc < 0)
		fail_msg("%s", errbuf);
	return rc;
}

/* Far more frames than the ring holds: the newest kept, in order, never over its memory. */
static void test_wrap_and_bound(void **state)
{
	(void)state;
	struct rt_recorder *r = recorder(3600 * SEC, RT_RECORDER_MIN_BYTES, 0, 0, 0, "wrap");
	struct rt_pump_sink s;
	struct rt_recorder_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_recorder_sink(&s, r, errbuf), 0);
	uint64_t k = 0;
	for (; k < 20000; k++) { /* sizes 60..1513: wraps at every offset */
		push(&s, k, 60 + (uint32_t)(k * 37 % 1454), T0 + k * 1000);
		rt_recorder_stats(r, &st);
		assert_true(st.bytes_used <= st.bytes);
	}
	assert_int_equal(st.bytes, RT_RECORDER_MIN_BYTES);
	assert_true(st.frames > 1000 && st.frames < 20000);
	/* evicted only for room: less than two frames' room (the end's and the next's) stays free */
	assert_true(st.bytes_used + 2 * RT_RECORDER_FRAME_BYTES(1514) > st.bytes);
	enum rt_recorder_held held;
	struct rt_recorder_event ev;
	fire(r, T0 + (k - 1) * 1000, &held, &ev);
	assert_int_equal(held, RT_RECORDER_STARTED);
	assert_int_equal(rt_recorder_finish(r, errbuf), 0);
	static uint64_t nums[20000], ts[20000];
	size_t n = read_back(ev.path, nums, ts, 20000);
	assert_int_equal(n, st.frames);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(nums[i], k - n + i);
		assert_int_equal(ts[i], T0 + nums[i] * 1000);
	}
	assert_int_equal(nclosed, 1);
	assert_int_equal(closed[0].frames_before, n);
	assert_int_equal(closed[0].frames_after, 0);
	rt_recorder_free(r);
}

/* The ring's span before the trigger, --post after it; the file named and commented. */
static void test_time_window(void **state)
{
	(void)state;
	struct rt_recorder *r = recorder(1 * SEC, 8u << 20, 500 * MS, 0, 0, "window");
	struct rt_pump_sink s;
	char errbuf[RT_ERRBUF_SIZE];
	enum rt_recorder_held held;
	struct rt_recorder_event ev;
	rt_recorder_sink(&s, r, errbuf);
	for (uint64_t k = 0; k <= 500; k++) { /* 5 s, a frame every 10 ms */
		if (k == 300) {               /* the trigger at 3 s, before frame 300 comes */
			fire(r, T0 + 3 * SEC, &held, &ev);
			assert_int_equal(held, RT_RECORDER_STARTED);
			assert_int_equal(ev.number, 1);
			assert_int_equal(ev.frames_before, 100); /* 2.00 .. 2.99 s */
		}
		push(&s, k, 100, T0 + k * 10 * MS);
	}
	assert_int_equal(nclosed, 1); /* frame 351, past 3.5 s, closed it */
	assert_int_equal(closed[0].frames_before, 101);
	assert_int_equal(closed[0].frames_after, 50);
	assert_int_equal(closed[0].from_ns, T0 + 2 * SEC);
	assert_int_equal(closed[0].to_ns, T0 + 3500 * MS);
	static uint64_t nums[600], ts[600];
	size_t n = read_back(ev.path, nums, ts, 600);
	assert_int_equal(n, 151);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(nums[i], 200 + i);
	char want[600];
	snprintf(want, sizeof(want), "%s/window/event1-20231114T221323.000000000Z-cnp.pcapng", dir);
	assert_string_equal(ev.path, want);
	/* the comment: the trigger, its figures, its time */
	FILE *fp = fopen(ev.path, "rb");
	static char buf[1 << 16];
	size_t len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	static const char text[] =
	    "rocetrace flight recorder event 1: trigger cnp fired at 20231114T221323.000000000Z: "
	    "a CNP (frame 7).";
	assert_non_null(memmem(buf, len, text, sizeof(text) - 1));
	rt_recorder_free(r);
}

/*
 * An event told late (another host's, relayed): frames up to 400 ms past
 * its time came before it; the ring kept late_ns more than its span, so the
 * file still starts a whole span before the event.
 */
static void test_late_event(void **state)
{
	(void)state;
	late = 500 * MS;
	struct rt_recorder *r = recorder(1 * SEC, 8u << 20, 500 * MS, 0, 0, "late");
	late = 0;
	struct rt_pump_sink s;
	char errbuf[RT_ERRBUF_SIZE];
	enum rt_recorder_held held;
	struct rt_recorder_event ev;
	rt_recorder_sink(&s, r, errbuf);
	for (uint64_t k = 0; k <= 500; k++) { /* 5 s, a frame every 10 ms */
		if (k == 341) {               /* the event of 3 s, told at 3.4 s */
			fire(r, T0 + 3 * SEC, &held, &ev);
			assert_int_equal(held, RT_RECORDER_STARTED);
		}
		push(&s, k, 100, T0 + k * 10 * MS);
	}
	assert_int_equal(nclosed, 1);
	assert_int_equal(closed[0].from_ns, T0 + 2 * SEC);
	static uint64_t nums[600], ts[600];
	size_t n = read_back(ev.path, nums, ts, 600);
	assert_int_equal(n, 151); /* 2.00 .. 3.50 s */
	assert_int_equal(nums[0], 200);
	rt_recorder_free(r);
}

/* A trigger while a file is written, within --hold-off, or past --max-events starts none. */
static void test_hold_off_and_max(void **state)
{
	(void)state;
	struct rt_recorder *r = recorder(1 * SEC, 4u << 20, 200 * MS, 1 * SEC, 2, "hold");
	struct rt_pump_sink s;
	char errbuf[RT_ERRBUF_SIZE];
	enum rt_recorder_held held;
	struct rt_recorder_event ev;
	struct rt_recorder_stats st;
	rt_recorder_sink(&s, r, errbuf);
	static const struct {
		uint64_t at_ms;
		enum rt_recorder_held held;
	} fires[] = {
	    {1000, RT_RECORDER_STARTED},  {1100, RT_RECORDER_HOLD_OFF}, /* its file is open */
	    {1500, RT_RECORDER_HOLD_OFF},                               /* closed, held off */
	    {2000, RT_RECORDER_STARTED},  {3500, RT_RECORDER_MAX},
	};
	size_t next = 0;
	for (uint64_t k = 0; k <= 400; k++) {
		uint64_t ms = k * 10;
		if (next < 5 && ms == fires[next].at_ms) {
			fire(r, T0 + ms * MS, &held, &ev);
			assert_int_equal(held, fires[next].held);
			next++;
		}
		push(&s, k, 64, T0 + ms * MS);
	}
	rt_recorder_stats(r, &st);
	assert_int_equal(st.events, 2);
	assert_int_equal(st.held_off, 3);
	assert_int_equal(nclosed, 2);
	assert_int_equal(closed[1].number, 2);
	/* an idle source: the post window ends by the clock */
	rt_recorder_free(r);
	r = recorder(1 * SEC, 4u << 20, 200 * MS, 0, 0, "idle");
	rt_recorder_sink(&s, r, errbuf);
	push(&s, 1, 64, T0);
	fire(r, T0, &held, &ev);
	assert_int_equal(rt_recorder_tick(r, T0 + 100 * MS, errbuf), 0);
	assert_int_equal(nclosed, 0);
	assert_int_equal(rt_recorder_tick(r, T0 + 201 * MS, errbuf), 0);
	assert_int_equal(nclosed, 1);
	assert_int_equal(closed[0].frames_before, 1);
	rt_recorder_free(r);
}

/* A frame larger than the whole ring is counted, not kept; a folder that is a file is refused. */
static void test_limits(void **state)
{
	(void)state;
	struct rt_recorder *r = recorder(1 * SEC, 0, 0, 0, 0, "limits");
	struct rt_pump_sink s;
	struct rt_recorder_stats st;
	char errbuf[RT_ERRBUF_SIZE];
	rt_recorder_sink(&s, r, errbuf);
	static uint8_t big[RT_RECORDER_MIN_BYTES];
	struct rt_frame f = {
	    .data = big, .caplen = sizeof(big), .wirelen = sizeof(big), .ts_ns = T0};
	assert_int_equal(s.frame(s.ctx, &f, NULL, errbuf), 0);
	push(&s, 1, 64, T0 + 1);
	rt_recorder_stats(r, &st);
	assert_int_equal(st.too_big, 1);
	assert_int_equal(st.frames, 1);
	assert_int_equal(st.bytes, RT_RECORDER_MIN_BYTES); /* 0 asked: the smallest */
	rt_recorder_free(r);
	char path[512];
	snprintf(path, sizeof(path), "%s/plain", dir);
	FILE *fp = fopen(path, "w");
	fclose(fp);
	struct rt_recorder_config cfg = {
	    .span_ns = SEC, .dir = path, .if_name = "x", .linktype = LINK, .snaplen = 64};
	assert_int_equal(rt_recorder_new(&r, &cfg, errbuf), -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wrap_and_bound), cmocka_unit_test(test_time_window),
	    cmocka_unit_test(test_late_event),     cmocka_unit_test(test_hold_off_and_max),
	    cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

/* Unit tests of dissect's parallel lines sink: the serial sink's bytes at any thread count, and a chunk whose lines could not be made fails the output. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/sinks.h"

/* malloc() is wrapped at link time: while `fail_blocks` is set, no output block (RT_OUTBUF_SIZE bytes) is had. */
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
static bool fail_blocks;
void *__wrap_malloc(size_t size)
{
	if (fail_blocks && size == RT_OUTBUF_SIZE)
		return NULL;
	return __real_malloc(size);
}

#define NFRAMES 5000u /* more than two chunks */

/* A RoCEv2 SEND of frame i: Ethernet, IPv4, UDP 4791, BTH with PSN i. */
static void roce_frame(uint8_t *f, unsigned i)
{
	static const uint8_t head[] = {
	    2,    0,    0,    0,    0, 2,  2,    0,   0,  0,  0, 1, 0x08, 0x00,       /* Ethernet */
	    0x45, 0x02, 0,    60,   0, 0,  0x40, 0,   64, 17, 0, 0, 10,   0,    0, 1, /* IPv4 ... */
	    10,   0,    0,    2,                        /* ... to 10.0.0.2 */
	    0xc0, 0x00, 0x12, 0xb7, 0, 40, 0,    0,     /* UDP to 4791 */
	    0x04, 0x40, 0xff, 0xff, 0, 0,  0,    0x11}; /* BTH: SEND only, QP 0x11 */
	memset(f, 0, 74);
	memcpy(f, head, sizeof(head));
	f[sizeof(head) + 1] = (uint8_t)(i >> 16); /* PSN */
	f[sizeof(head) + 2] = (uint8_t)(i >> 8);
	f[sizeof(head) + 3] = (uint8_t)i;
}

/* The frames through `sink` in order (each decoded, as the pump hands them), ended; returns the output's sticky error. */
static int run_sink(struct rt_pump_sink *sink, struct rt_outbuf *o,
                    const struct rt_dissect_opts *decode)
{
	static uint8_t data[NFRAMES][74];
	char errbuf[RT_ERRBUF_SIZE];
	int rc = 0;
	for (unsigned i = 0; i < NFRAMES && rc == 0; i++) {
		roce_frame(data[i], i);
		struct rt_frame fr = {.data = data[i],
		                      .caplen = 74,
		                      .wirelen = 78,
		                      .ts_ns = 1000000000ull + i * 1000ull,
		                      .seq = i + 1};
		struct rt_record rec;
		rt_dissect(decode, &fr, &rec);
		rc = sink->frame(sink->ctx, &fr, &rec, errbuf);
	}
	struct rt_pump_result res = {0};
	if (rc == 0 && sink->end)
		sink->end(sink->ctx, &res, errbuf);
	if (sink->free)
		sink->free(sink->ctx);
	return rt_out_flush(o);
}

/* The lines a sink writes for the frames (threads 0: the serial JSON sink); *err: the output's error. */
static char *lines(unsigned threads, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *output = open_memstream(&buf, &len);
	assert_non_null(output);
	struct rt_outbuf *o = malloc(sizeof(*o));
	assert_non_null(o);
	rt_out_init(o, output);
	struct rt_pump_sink sink;
	struct rt_dissect_opts decode = {0};
	rt_dissect_opts_init(&decode);
	char errbuf[RT_ERRBUF_SIZE];
	if (threads)
		assert_int_equal(
		    rt_lines_sink_parallel(&sink, o, NULL, false, &decode, threads, errbuf), 0);
	else
		assert_int_equal(rt_json_sink(&sink, o, false, errbuf), 0);
	*err = run_sink(&sink, o, &decode);
	free(o);
	fclose(output);
	return buf;
}

static void test_same_lines(void **state)
{
	(void)state;
	int err;
	char *want = lines(0, &err);
	assert_int_equal(err, 0);
	assert_true(strlen(want) > NFRAMES * 50);
	for (unsigned t = 1; t <= 4; t++) {
		char *got = lines(t, &err);
		assert_int_equal(err, 0);
		assert_string_equal(got, want);
		free(got);
	}
	free(want);
}

/* Lines a thread could not make fail the output: no chunk goes out with stale or missing lines. */
static void test_chunk_failure_fails_output(void **state)
{
	(void)state;
	int err;
	fail_blocks = true;
	char *got = lines(2, &err);
	fail_blocks = false;
	assert_int_equal(err, ENOMEM);
	assert_string_equal(got, "");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_lines),
	    cmocka_unit_test(test_chunk_failure_fails_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

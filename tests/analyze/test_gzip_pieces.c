/*
 * Unit tests of the report's gzip in pieces (render/gzip_pieces.c): zlib
 * inflates it to the document, whatever its length against the pieces';
 * the bytes are the same at any number of threads and however the writes
 * come; it compresses about as well as one deflate stream.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "render/gzip_pieces.h"

#define LEVEL 6

/* A document like the report's: JSON-ish lines, numbers varying (the same for the same n). */
static unsigned char *document(size_t n)
{
	unsigned char *d = malloc(n ? n : 1);
	assert_non_null(d);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < n;) {
		char line[128];
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int k =
		    snprintf(line, sizeof(line), "{\"flow\":%llu,\"packets\":%llu,\"ce\":%u},\n",
		             (unsigned long long)(x % 20000), (unsigned long long)(x >> 40),
		             (unsigned)(x >> 60));
		size_t take = (size_t)k < n - i ? (size_t)k : n - i;
		memcpy(d + i, line, take);
		i += take;
	}
	return d;
}

/* The document written in writes of `step` bytes (0: one write) on `threads`; its gzip. */
static unsigned char *gzip_of(const unsigned char *d, size_t n, unsigned threads, size_t step,
                              size_t *outlen)
{
	struct rt_gzp *g = rt_gzp_new(LEVEL, threads);
	assert_non_null(g);
	FILE *fp = rt_gzp_file(g);
	assert_non_null(fp);
	for (size_t at = 0; at < n;) {
		size_t k = step && step < n - at ? step : n - at;
		assert_int_equal(fwrite(d + at, 1, k, fp), k);
		at += k;
	}
	unsigned char *out;
	assert_int_equal(rt_gzp_finish(g, &out, outlen), 0);
	rt_gzp_free(g);
	return out;
}

/* zlib inflates gz (one gzip member, nothing after it) to exactly the n bytes of d. */
static void inflates_to(const unsigned char *gz, size_t gzlen, const unsigned char *d, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
	unsigned char *back = malloc(n + 64);
	assert_non_null(back);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = back;
	z.avail_out = (uInt)(n + 64);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	assert_int_equal(z.total_out, n);
	assert_memory_equal(back, d, n);
	inflateEnd(&z);
	free(back);
}

/* One deflate stream of d (zlib's gzip wrapper, LEVEL): what the pieces are compared with. */
static size_t one_stream_len(const unsigned char *d, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, LEVEL, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, (uLong)n);
	unsigned char *out = malloc(cap);
	assert_non_null(out);
	z.next_in = (Bytef *)d;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t len = z.total_out;
	deflateEnd(&z);
	free(out);
	return len;
}

static void test_lengths(void **state)
{
	(void)state;
	const size_t lens[] = {0,
	                       1,
	                       (32u << 10) - 1,
	                       RT_GZP_PIECE - 1,
	                       RT_GZP_PIECE,
	                       RT_GZP_PIECE + 1,
	                       2 * RT_GZP_PIECE,
	                       3 * RT_GZP_PIECE + 12345};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = lens[i], len1, len;
		unsigned char *d = document(n);
		unsigned char *one = gzip_of(d, n, 1, 0, &len1);
		inflates_to(one, len1, d, n);
		/* the header zlib writes for this level: magic, deflate, no flags, no time, Unix */
		const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
		assert_memory_equal(one, head, sizeof(head));
		/* the same bytes on 2 and 5 threads, in one write, in odd writes, in 64 KiB writes */
		const unsigned threads[] = {2, 5, 5};
		const size_t steps[] = {0, 7777, 65536};
		for (size_t k = 0; k < 3; k++) {
			unsigned char *gz = gzip_of(d, n, threads[k], steps[k], &len);
			assert_int_equal(len, len1);
			assert_memory_equal(gz, one, len);
			free(gz);
		}
		/* primed with the window before it, a piece costs a few bytes more than one stream */
		size_t whole = one_stream_len(d, n);
		assert_true(len1 <= whole + whole / 100 + 16 * (n / RT_GZP_PIECE + 1));
		free(one);
		free(d);
	}
}

/* Freed without its end, pieces filled and threads running: no leak, no wait (sanitizers look). */
static void test_abandoned(void **state)
{
	(void)state;
	size_t n = 3 * RT_GZP_PIECE + 1;
	unsigned char *d = document(n);
	struct rt_gzp *g = rt_gzp_new(LEVEL, 3);
	assert_non_null(g);
	FILE *fp = rt_gzp_file(g);
	assert_non_null(fp);
	assert_int_equal(fwrite(d, 1, n, fp), n);
	rt_gzp_free(g);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lengths),
	    cmocka_unit_test(test_abandoned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

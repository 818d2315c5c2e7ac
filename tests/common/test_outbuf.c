/* Unit tests of common/outbuf.c: numbers, hex, JSON strings, addresses, 64 KiB buffering, kept blocks, errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "common/outbuf.h"

static struct rt_outbuf out;

/* What `emit` writes through an outbuf, as a string the caller frees. */
static char *render(void (*emit)(struct rt_outbuf *o, const void *arg), const void *arg)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);

	assert_non_null(fp);
	rt_out_init(&out, fp);
	emit(&out, arg);
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(fclose(fp), 0);
	return text;
}

struct dbl {
	double v;
	int decimals;
};

static void emit_double(struct rt_outbuf *o, const void *arg)
{
	const struct dbl *d = arg;

	rt_out_double(o, d->v, d->decimals);
}

static void assert_double(double v, int decimals, const char *want)
{
	struct dbl d = {v, decimals};
	char *got = render(emit_double, &d);

	assert_string_equal(got, want);
	free(got);
}

static void test_double_fixed(void **state)
{
	(void)state;
	assert_double(1.5, 3, "1.5");
	assert_double(2.0, 3, "2");
	assert_double(100.0, 0, "100");
	assert_double(0.1234567, 6, "0.123457");
	assert_double(-0.0, 3, "0");
	/* too small for the decimals, yet not 0: significant digits, never "0" or "-0" */
	assert_double(-0.0000001, 3, "-1e-07");
	assert_double(4.96e-10, 6, "4.96e-10");
	assert_double(0.0000004, 6, "4e-07");
	assert_double(-2.25, 1, "-2.2");
	assert_double(0.0 / 0.0, 3, "0");
	assert_double(1.0 / 0.0, 3, "0");
}

/* Values too long for the point form still print a number (exponent form), never nothing. */
static void test_double_huge(void **state)
{
	(void)state;
	assert_double(1e70, 1, "1e+70");
	assert_double(-1.5e300, 3, "-1.5e+300");
	assert_double(1e58, 6, "1e+58");
	/* the longest point form that fits stays in point form */
	assert_double(1e60, 0, "999999999999999949387135297074018866963645011013410073083904");
}

static void emit_ts(struct rt_outbuf *o, const void *arg)
{
	rt_out_ts(o, *(const uint64_t *)arg);
}

static void test_ts(void **state)
{
	static const uint64_t ts[] = {0, 1700000000000000001ull, UINT64_MAX};
	static const char *const want[] = {"0.000000000", "1700000000.000000001",
	                                   "18446744073.709551615"};

	(void)state;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		char *got = render(emit_ts, &ts[i]);

		assert_string_equal(got, want[i]);
		free(got);
	}
}

static void emit_u64(struct rt_outbuf *o, const void *arg)
{
	rt_out_u64(o, *(const uint64_t *)arg);
}

/* Decimals at every digit-count boundary and at random, against printf. */
static void test_u64_digits(void **state)
{
	uint64_t p = 1, x = 88172645463325252ull;
	char want[32];

	(void)state;
	for (int k = 0; k <= 20; k++) {
		uint64_t vals[3] = {p - 1, p, p + 1};
		for (int i = 0; i < 3; i++) {
			char *got = render(emit_u64, &vals[i]);
			snprintf(want, sizeof(want), "%llu", (unsigned long long)vals[i]);
			assert_string_equal(got, want);
			free(got);
		}
		p *= 10; /* wraps after 10^19: still a value to print */
	}
	for (int i = 0; i < 10000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x >> (x & 63);
		char *got = render(emit_u64, &v);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		assert_string_equal(got, want);
		free(got);
	}
}

struct hex {
	uint64_t v;
	int width;
};

static void emit_hex(struct rt_outbuf *o, const void *arg)
{
	const struct hex *h = arg;

	rt_out_hex(o, h->v, h->width);
}

static void test_hex(void **state)
{
	static const struct hex in[] = {{0, 1},        {0, 2},          {0x11, 6},
	                                {0xABCDEF, 2}, {UINT64_MAX, 1}, {5, 99}};
	static const char *const want[] = {
	    "0x0", "0x00", "0x000011", "0xabcdef", "0xffffffffffffffff", "0x0000000000000005"};

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *got = render(emit_hex, &in[i]);

		assert_string_equal(got, want[i]);
		free(got);
	}
}

/* ------------------------------------------------------------ JSON strings */

static void emit_json(struct rt_outbuf *o, const void *arg)
{
	rt_out_json_str(o, arg);
}

static void assert_json(const char *in, const char *want)
{
	char *got = render(emit_json, in);

	assert_string_equal(got, want);
	free(got);
}

/* RFC 8259: quote, backslash and control characters escaped; everything else as it is. */
static void test_json_escapes(void **state)
{
	(void)state;
	assert_json("", "\"\"");
	assert_json("plain text/ok", "\"plain text/ok\"");
	assert_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	assert_json("\"\\\"", "\"\\\"\\\\\\\"\"");
	assert_json("line\nnext\ttab\rcr", "\"line\\nnext\\ttab\\rcr\"");
	assert_json("\x01\x08\x0c\x1f", "\"\\u0001\\u0008\\u000c\\u001f\"");
	assert_json("\x7f~ ", "\"\x7f~ \""); /* DEL needs no escape */
}

/* Every single byte: escaped exactly when JSON says so; a lone byte >= 0x80 is no UTF-8. */
static void test_json_every_byte(void **state)
{
	(void)state;
	for (int c = 1; c < 256; c++) {
		char in[2] = {(char)c, 0}, want[16];

		if (c == '"' || c == '\\')
			snprintf(want, sizeof(want), "\"\\%c\"", c);
		else if (c == '\n')
			snprintf(want, sizeof(want), "\"\\n\"");
		else if (c == '\t')
			snprintf(want, sizeof(want), "\"\\t\"");
		else if (c == '\r')
			snprintf(want, sizeof(want), "\"\\r\"");
		else if (c < 0x20)
			snprintf(want, sizeof(want), "\"\\u%04x\"", c);
		else if (c >= 0x80)
			snprintf(want, sizeof(want), "\"\\ufffd\"");
		else
			snprintf(want, sizeof(want), "\"%c\"", c);
		assert_json(in, want);
	}
}

/* Well-formed UTF-8 passes through unchanged, whatever its length. */
static void test_json_utf8(void **state)
{
	static const char *const ok[] = {
	    "caf\xc3\xa9",              /* U+00E9 */
	    "\xc2\x80",                 /* U+0080, the smallest 2-byte form */
	    "\xdf\xbf",                 /* U+07FF */
	    "\xe0\xa0\x80",             /* U+0800, the smallest 3-byte form */
	    "\xe2\x82\xac 5",           /* U+20AC euro sign */
	    "\xed\x9f\xbf",             /* U+D7FF, just below the surrogates */
	    "\xee\x80\x80",             /* U+E000, just above them */
	    "\xef\xbf\xbf",             /* U+FFFF */
	    "\xf0\x90\x80\x80",         /* U+10000, the smallest 4-byte form */
	    "\xf0\x9f\x98\x80!",        /* U+1F600 */
	    "\xf4\x8f\xbf\xbf",         /* U+10FFFF, the largest code point */
	    "\xe6\x97\xa5\xe6\x9c\xac", /* two 3-byte characters in a row */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "\"%s\"", ok[i]);
		assert_json(ok[i], want);
	}
}

/* Bytes that start no well-formed sequence (RFC 3629) become U+FFFD, each one, so the output
 * stays valid JSON text; the bytes after them are read afresh. */
static void test_json_invalid_utf8(void **state)
{
	(void)state;
	assert_json("\xff", "\"\\ufffd\"");
	assert_json("a\x80z", "\"a\\ufffdz\"");                   /* lone continuation byte */
	assert_json("\xc3", "\"\\ufffd\"");                       /* cut at the end */
	assert_json("\xc3(", "\"\\ufffd(\"");                     /* cut by an ASCII byte */
	assert_json("\xc0\x80", "\"\\ufffd\\ufffd\"");            /* overlong NUL */
	assert_json("\xc1\xbf", "\"\\ufffd\\ufffd\"");            /* overlong 2-byte */
	assert_json("\xe0\x9f\xbf", "\"\\ufffd\\ufffd\\ufffd\""); /* overlong 3-byte */
	assert_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate U+D800 */
	assert_json("\xf0\x8f\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* overlong 4-byte */
	assert_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
	assert_json("\xf5\x80", "\"\\ufffd\\ufffd\"");
	assert_json("\xf0\x9f\x98", "\"\\ufffd\\ufffd\\ufffd\""); /* 4-byte form cut short */
	assert_json("\xe2\x82\"", "\"\\ufffd\\ufffd\\\"\""); /* cut by a quote, still escaped */
	assert_json("\xc3\xa9\xff\xc3\xa9", "\"\xc3\xa9\\ufffd\xc3\xa9\"");
}

/* ------------------------------------------------------------ addresses */

static void emit_ip(struct rt_outbuf *o, const void *arg)
{
	const uint8_t *a = arg;

	rt_out_ip(o, a[16], a);
}

/* rt_out_ip() and rt_ip_to_str() of an address (a[16] is the IP version) both give want. */
static void assert_ip(const uint8_t a[17], const char *want)
{
	char *got = render(emit_ip, a), buf[64];

	assert_string_equal(got, want);
	free(got);
	assert_string_equal(rt_ip_to_str(a[16], a, buf, sizeof(buf)), want);
}

static void test_ipv6_text(void **state)
{
	/* RFC 5952: lower case, no leading zeros, the longest run of zero groups (the first of
	 * equal ones, never a single group) as "::", IPv4-mapped addresses in dotted form */
	static const struct {
		const char *text;
		uint16_t g[8];
	} cases[] = {
	    {"::", {0, 0, 0, 0, 0, 0, 0, 0}},
	    {"::1", {0, 0, 0, 0, 0, 0, 0, 1}},
	    {"1::", {1, 0, 0, 0, 0, 0, 0, 0}},
	    {"fd00::2", {0xfd00, 0, 0, 0, 0, 0, 0, 2}},
	    {"2001:db8::1:0:0:1", {0x2001, 0xdb8, 0, 0, 1, 0, 0, 1}},
	    {"2001:0:0:1::1", {0x2001, 0, 0, 1, 0, 0, 0, 1}},
	    {"2001:db8:0:1:1:1:1:1", {0x2001, 0xdb8, 0, 1, 1, 1, 1, 1}},
	    {"2001:db8:aaaa:bbbb:cccc:dddd:eeee:1",
	     {0x2001, 0xdb8, 0xaaaa, 0xbbbb, 0xcccc, 0xdddd, 0xeeee, 1}},
	    {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	     {0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}},
	    {"::ffff:192.0.2.1", {0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201}},
	    {"fe80::1:2", {0xfe80, 0, 0, 0, 0, 0, 1, 2}},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t a[17];

		for (int j = 0; j < 8; j++) {
			a[2 * j] = (uint8_t)(cases[i].g[j] >> 8);
			a[2 * j + 1] = (uint8_t)cases[i].g[j];
		}
		a[16] = 6;
		assert_ip(a, cases[i].text);
	}
}

/* A small deterministic generator (xorshift64) for the address sweeps. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Many addresses, with zero groups in every place and run length, as inet_ntop() writes them. */
static void test_ip_sweep_inet_ntop(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		uint8_t a[17] = {0};
		char want[INET6_ADDRSTRLEN];
		uint64_t r = rng();
		bool v6 = i % 4 != 0;

		for (int j = 0; j < 16; j++) {
			uint64_t b = rng();
			/* about half the groups zero, some bytes 0x00/0xff, the rest random */
			a[j] = (uint8_t)((r >> (j / 2)) & 1 ? 0 : (b & 0x300) == 0x300 ? 0xff : b);
		}
		if (v6 && i % 16 == 1) { /* IPv4-mapped */
			memset(a, 0, 10);
			a[10] = a[11] = 0xff;
		}
		a[16] = v6 ? 6 : 4;
		assert_non_null(inet_ntop(v6 ? AF_INET6 : AF_INET, a, want, sizeof(want)));
		assert_ip(a, want);
	}
}

static void test_ipv4_text(void **state)
{
	static const uint8_t zero[17] = {0, 0, 0, 0, [16] = 4};
	static const uint8_t ones[17] = {255, 255, 255, 255, [16] = 4};
	static const uint8_t some[17] = {10, 0, 100, 9, [16] = 4};

	(void)state;
	assert_ip(zero, "0.0.0.0");
	assert_ip(ones, "255.255.255.255");
	assert_ip(some, "10.0.100.9");
}

/* ------------------------------------------------------------ the 64 KiB buffer */

#define BUF_SIZE ((size_t)RT_OUTBUF_SIZE)

/* A FILE whose writes land here, one call each (unbuffered), or fail with `fail_errno`. */
struct sink {
	char *data;
	size_t len, cap;
	size_t calls, biggest;
	int fail_errno;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *s = cookie;

	s->calls++;
	if (s->fail_errno) {
		errno = s->fail_errno;
		return -1;
	}
	if (s->len + size > s->cap) {
		s->cap = (s->len + size) * 2;
		s->data = realloc(s->data, s->cap);
		assert_non_null(s->data);
	}
	memcpy(s->data + s->len, buf, size);
	s->len += size;
	if (size > s->biggest)
		s->biggest = size;
	return (ssize_t)size;
}

static FILE *sink_open(struct sink *s)
{
	static const cookie_io_functions_t io = {.write = sink_write};
	FILE *fp;

	memset(s, 0, sizeof(*s));
	fp = fopencookie(s, "w", io);
	assert_non_null(fp);
	assert_int_equal(setvbuf(fp, NULL, _IONBF, 0), 0);
	return fp;
}

static void fill(struct rt_outbuf *o, size_t n, char c)
{
	static char block[4096];

	memset(block, c, sizeof(block));
	while (n) {
		size_t k = n < sizeof(block) ? n : sizeof(block);

		rt_out_write(o, block, k);
		n -= k;
	}
}

/* Exactly a full buffer stays buffered; the next byte sends the whole 64 KiB in one write. */
static void test_exact_fill(void **state)
{
	struct sink s;
	FILE *fp = sink_open(&s);

	(void)state;
	rt_out_init(&out, fp);
	fill(&out, BUF_SIZE, 'a');
	assert_int_equal(s.len, 0);
	rt_out_char(&out, 'b');
	assert_int_equal(s.len, BUF_SIZE);
	assert_int_equal(s.calls, 1);
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(s.len, BUF_SIZE + 1);
	assert_int_equal(s.data[BUF_SIZE - 1], 'a');
	assert_int_equal(s.data[BUF_SIZE], 'b');
	/* flushing an empty buffer writes nothing */
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(s.calls, 2);
	fclose(fp);
	free(s.data);
}

/* Every kind of write, with the buffer boundary falling at each byte of it. */
static void emit_mixture(struct rt_outbuf *o, const void *arg)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0xab, 0xcd, 0xef};
	static const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	char big[3000];

	(void)arg;
	rt_out_u64(o, UINT64_MAX);
	rt_out_char(o, ' ');
	rt_out_i64(o, INT64_MIN);
	rt_out_hex(o, 0xdeadbeefcafef00dull, 1);
	rt_out_json_str(o, "q\"\x01\xc3\xa9\xff\n");
	rt_out_ts(o, 1700000000123456789ull);
	rt_out_mac(o, mac);
	rt_out_ip(o, 6, v6);
	rt_out_double(o, 2.5, 3);
	rt_out_printf(o, "<%d:%s>", 42, "printf");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	rt_out_printf(o, "%s|", big); /* longer than the printf fast path */
	rt_out_str(o, "end");
}

static void test_straddling_writes(void **state)
{
	char *alone = render(emit_mixture, NULL);
	size_t n = strlen(alone);

	(void)state;
	for (size_t before = BUF_SIZE - n - 1; before <= BUF_SIZE + 1; before++) {
		struct sink s;
		FILE *fp = sink_open(&s);

		rt_out_init(&out, fp);
		fill(&out, before, '.');
		emit_mixture(&out, NULL);
		assert_int_equal(rt_out_flush(&out), 0);
		assert_int_equal(s.len, before + n);
		assert_true(s.biggest <= BUF_SIZE);
		for (size_t i = 0; i < before; i++)
			if (s.data[i] != '.')
				fail_msg("prefix byte %zu changed (boundary at %zu)", i, before);
		if (memcmp(s.data + before, alone, n) != 0)
			fail_msg("output differs when %zu bytes come before it", before);
		fclose(fp);
		free(s.data);
	}
	free(alone);
}

/* One write larger than the buffer arrives whole, in one piece (uncopied), after what was buffered before it. */
static void test_larger_than_buffer(void **state)
{
	size_t n = 3 * BUF_SIZE + 12345;
	char *big = malloc(n);
	struct sink s;
	FILE *fp = sink_open(&s);

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 23);
	rt_out_init(&out, fp);
	rt_out_char(&out, '<');
	rt_out_write(&out, big, n);
	rt_out_char(&out, '>');
	assert_int_equal(rt_out_flush(&out), 0);
	assert_int_equal(s.len, n + 2);
	assert_int_equal(s.data[0], '<');
	assert_memory_equal(s.data + 1, big, n);
	assert_int_equal(s.data[n + 1], '>');
	assert_int_equal(s.biggest, n);
	fclose(fp);
	free(s.data);
	free(big);
}

/* The first write error is kept: later flushes report it and write nothing more. */
static void test_sticky_error(void **state)
{
	struct sink s;
	FILE *fp = sink_open(&s);

	(void)state;
	rt_out_init(&out, fp);
	s.fail_errno = ENOSPC;
	rt_out_str(&out, "lost");
	assert_int_equal(rt_out_flush(&out), ENOSPC);
	assert_int_equal(out.error, ENOSPC);
	size_t calls = s.calls;
	s.fail_errno = 0; /* the file would take data again, but the stream is broken */
	fill(&out, 2 * BUF_SIZE + 7, 'z');
	rt_out_u64(&out, 123);
	assert_int_equal(rt_out_flush(&out), ENOSPC);
	assert_int_equal(s.calls, calls);
	assert_int_equal(s.len, 0);
	s.fail_errno = EIO;
	assert_int_equal(rt_out_flush(&out), ENOSPC);
	fclose(fp);
	free(s.data);
}

/* An error while a full buffer is flushed on the way is kept too. */
static void test_error_at_the_boundary(void **state)
{
	struct sink s;
	FILE *fp = sink_open(&s);

	(void)state;
	rt_out_init(&out, fp);
	fill(&out, BUF_SIZE, 'a');
	s.fail_errno = EPIPE;
	rt_out_char(&out, 'b'); /* flushes the full buffer, which fails */
	assert_int_equal(out.error, EPIPE);
	assert_int_equal(rt_out_flush(&out), EPIPE);
	assert_int_equal(s.len, 0);
	fclose(fp);
	free(s.data);
}

/* Some of everything kept in k: a fill of `before` bytes, the mixture, a write larger than a block. */
static void emit_kept(struct rt_outkept *k, size_t before, const char *big, size_t nbig)
{
	static struct rt_outbuf kept;

	rt_out_keep(&kept, k);
	fill(&kept, before, '.');
	emit_mixture(&kept, NULL);
	rt_out_write(&kept, big, nbig);
	emit_mixture(&kept, NULL);
	assert_int_equal(rt_out_flush(&kept), 0);
	for (size_t i = 0; i < k->n; i++)
		assert_true(k->block[i].len > 0 && k->block[i].len <= BUF_SIZE);
}

/* The bytes of `fp` (a file) from its start, and how many. */
static char *file_bytes(FILE *fp, size_t *len)
{
	long end = ftell(fp);
	char *data = malloc((size_t)end + 1);

	assert_true(end >= 0);
	assert_non_null(data);
	rewind(fp);
	assert_int_equal(fread(data, 1, (size_t)end, fp), (size_t)end);
	*len = (size_t)end;
	return data;
}

/*
 * Output kept in blocks and written later is the bytes written straight,
 * to a stream without a descriptor (a block a write) and to a file (the
 * blocks gathered); the same blocks serve again, for a shorter output.
 */
static void test_kept_same_bytes(void **state)
{
	struct rt_outkept k = {0};
	size_t nbig = 2 * BUF_SIZE + 77;
	char *big = malloc(nbig);

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < nbig; i++)
		big[i] = (char)('A' + i % 26);
	size_t rounds[] = {BUF_SIZE - 3, 10, 3 * BUF_SIZE + 1, 0};
	for (size_t r = 0; r < sizeof(rounds) / sizeof(rounds[0]); r++) {
		struct sink want, got;
		FILE *wfp = sink_open(&want), *gfp = sink_open(&got), *file = tmpfile();

		assert_non_null(file);
		rt_out_init(&out, wfp);
		fill(&out, rounds[r], '.');
		emit_mixture(&out, NULL);
		rt_out_write(&out, big, nbig);
		emit_mixture(&out, NULL);
		assert_int_equal(rt_out_flush(&out), 0);

		emit_kept(&k, rounds[r], big, nbig);
		rt_out_init(&out, gfp);
		rt_out_str(&out, "<"); /* what the output holds goes first */
		rt_out_write_kept(&out, &k);
		assert_int_equal(rt_out_flush(&out), 0);
		assert_int_equal(got.len, want.len + 1);
		assert_memory_equal(got.data + 1, want.data, want.len);
		assert_int_equal(got.calls, k.n + 1);

		rt_out_init(&out, file);
		rt_out_write_kept(&out, &k);
		assert_int_equal(rt_out_flush(&out), 0);
		size_t flen;
		char *fdata = file_bytes(file, &flen);
		assert_int_equal(flen, want.len);
		assert_memory_equal(fdata, want.data, want.len);
		free(fdata);
		fclose(file);
		fclose(wfp);
		fclose(gfp);
		free(want.data);
		free(got.data);
	}
	rt_out_kept_free(&k);
	free(big);
}

/* A descriptor that takes no more: the error is kept, as for any write. */
static void test_kept_write_error(void **state)
{
	struct rt_outkept k = {0};
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	if (!full)
		skip();
	emit_kept(&k, BUF_SIZE, "x", 1);
	rt_out_init(&out, full);
	rt_out_write_kept(&out, &k);
	assert_int_equal(out.error, ENOSPC);
	assert_int_equal(rt_out_flush(&out), ENOSPC);
	fclose(full);
	rt_out_kept_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_double_fixed),
	    cmocka_unit_test(test_double_huge),
	    cmocka_unit_test(test_ts),
	    cmocka_unit_test(test_u64_digits),
	    cmocka_unit_test(test_hex),
	    cmocka_unit_test(test_json_escapes),
	    cmocka_unit_test(test_json_every_byte),
	    cmocka_unit_test(test_json_utf8),
	    cmocka_unit_test(test_json_invalid_utf8),
	    cmocka_unit_test(test_ipv6_text),
	    cmocka_unit_test(test_ip_sweep_inet_ntop),
	    cmocka_unit_test(test_ipv4_text),
	    cmocka_unit_test(test_exact_fill),
	    cmocka_unit_test(test_straddling_writes),
	    cmocka_unit_test(test_larger_than_buffer),
	    cmocka_unit_test(test_sticky_error),
	    cmocka_unit_test(test_error_at_the_boundary),
	    cmocka_unit_test(test_kept_same_bytes),
	    cmocka_unit_test(test_kept_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

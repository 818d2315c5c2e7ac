/* The partial format's fields: each one written little-endian or read back within the bytes left (analyze/partial_codec.h). */
#include "analyze/partial_codec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pc_fail(struct pc *c, int err, const char *fmt, ...)
{
	if (!c->err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->why, sizeof(c->why), fmt, ap);
		va_end(ap);
		c->err = -err;
	}
	if (c->reading)
		c->at = c->end; /* nothing more is read */
	return -err;
}

void pc_check(struct pc *c, bool ok, const char *what)
{
	if (!ok)
		pc_fail(c, EPROTO, "bad %s in section %s", what, c->section);
}

bool pc_room(struct pc *c, size_t n)
{
	if (c->err)
		return false;
	if (c->cap - c->len >= n)
		return true;
	size_t cap = c->cap ? c->cap : 4096;
	while (cap - c->len < n)
		cap *= 2;
	uint8_t *buf = realloc(c->buf, cap);
	if (!buf) {
		pc_fail(c, ENOMEM, "out of memory");
		return false;
	}
	c->buf = buf;
	c->cap = cap;
	return true;
}

/* Reading: the next n bytes, or NULL (the walk failed: the input is cut short). */
static const uint8_t *take(struct pc *c, size_t n)
{
	if (c->err)
		return NULL;
	if ((size_t)(c->end - c->at) < n) {
		pc_fail(c, EPROTO, "truncated in section %s", c->section);
		return NULL;
	}
	const uint8_t *p = c->at;
	c->at += n;
	return p;
}

/* An unsigned integer of n bytes (1..8), little-endian. */
static void le(struct pc *c, uint64_t *v, unsigned n)
{
	if (!c->reading) {
		if (!pc_room(c, n))
			return;
		for (unsigned i = 0; i < n; i++)
			c->buf[c->len++] = (uint8_t)(*v >> (8 * i));
		return;
	}
	const uint8_t *p = take(c, n);
	*v = 0;
	for (unsigned i = 0; p && i < n; i++)
		*v |= (uint64_t)p[i] << (8 * i);
}

void pc_u8(struct pc *c, uint8_t *v)
{
	uint64_t x = *v;
	le(c, &x, 1);
	*v = (uint8_t)x;
}

void pc_u16(struct pc *c, uint16_t *v)
{
	uint64_t x = *v;
	le(c, &x, 2);
	*v = (uint16_t)x;
}

void pc_u32(struct pc *c, uint32_t *v)
{
	uint64_t x = *v;
	le(c, &x, 4);
	*v = (uint32_t)x;
}

void pc_u64(struct pc *c, uint64_t *v)
{
	le(c, v, 8);
}

void pc_i64(struct pc *c, int64_t *v)
{
	uint64_t x = (uint64_t)*v;
	le(c, &x, 8);
	*v = (int64_t)x;
}

void pc_f64(struct pc *c, double *v)
{
	uint64_t x;
	memcpy(&x, v, sizeof(x));
	le(c, &x, 8);
	memcpy(v, &x, sizeof(x));
}

void pc_bool(struct pc *c, bool *v)
{
	uint64_t x = *v;
	le(c, &x, 1);
	pc_check(c, x <= 1, "flag");
	*v = x == 1;
}

void pc_uint(struct pc *c, unsigned *v)
{
	uint64_t x = *v;
	le(c, &x, 4);
	*v = (unsigned)x;
}

void pc_bytes(struct pc *c, void *v, size_t n)
{
	if (!c->reading) {
		if (pc_room(c, n)) {
			memcpy(c->buf + c->len, v, n);
			c->len += n;
		}
		return;
	}
	const uint8_t *p = take(c, n);
	if (p)
		memcpy(v, p, n);
	else
		memset(v, 0, n);
}

void pc_u64s(struct pc *c, uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pc_u64(c, &v[i]);
}

void pc_varint(struct pc *c, uint64_t *v)
{
	if (!c->reading) {
		uint64_t x = *v;
		if (!pc_room(c, 10))
			return;
		do {
			c->buf[c->len++] = (uint8_t)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
			x >>= 7;
		} while (x);
		return;
	}
	uint64_t x = 0;
	*v = 0;
	for (unsigned i = 0;; i++) {
		const uint8_t *p = take(c, 1);
		if (!p)
			return;
		/* the 10th byte holds bit 63 only; a last byte 0 after others is not the fewest bytes */
		if ((i == 9 && *p > 1) || (i && *p == 0)) {
			pc_check(c, false, "number");
			return;
		}
		x |= (uint64_t)(*p & 0x7f) << (7 * i);
		if (!(*p & 0x80))
			break;
	}
	*v = x;
}

/* Reading: a string's bytes (NULL: no string, or the walk failed) and length, its NUL refused. */
static const uint8_t *string_in(struct pc *c, uint32_t *len, bool required, const char *what)
{
	pc_u32(c, len);
	if (c->err || *len == PC_NULL_STRING) {
		pc_check(c, !required || c->err, what);
		return NULL;
	}
	const uint8_t *p = take(c, *len);
	if (p && memchr(p, 0, *len))
		pc_check(c, false, what);
	return c->err ? NULL : p;
}

/* Writing: a string (NULL: PC_NULL_STRING). */
static void string_out(struct pc *c, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	uint32_t len = s ? (uint32_t)n : PC_NULL_STRING;
	if (s && n >= PC_NULL_STRING) {
		pc_fail(c, EINVAL, "a string of %zu bytes is too long for the format", n);
		return;
	}
	pc_u32(c, &len);
	if (s)
		pc_bytes(c, (void *)s, n);
}

void pc_str(struct pc *c, const char **s, bool required, const char *what)
{
	if (!c->reading) {
		string_out(c, *s);
		return;
	}
	uint32_t len = 0; /* read by pc_u32 before it is set */
	const uint8_t *p = string_in(c, &len, required, what);
	*s = NULL;
	if (!p)
		return;
	char *t = an_res_alloc(c->res, (size_t)len + 1);
	if (!t) {
		pc_fail(c, ENOMEM, "out of memory");
		return;
	}
	memcpy(t, p, len);
	*s = t;
}

void pc_text(struct pc *c, char *buf, size_t size, const char *what)
{
	if (!c->reading) {
		string_out(c, buf);
		return;
	}
	uint32_t len = 0; /* read by pc_u32 before it is set */
	const uint8_t *p = string_in(c, &len, true, what);
	buf[0] = 0;
	if (!p)
		return;
	if (len >= size) {
		pc_check(c, false, what);
		return;
	}
	memcpy(buf, p, len);
	buf[len] = 0;
}

void pc_pooled(struct pc *c, const char **s, char *pool, size_t *used, size_t cap)
{
	if (!c->reading) {
		string_out(c, *s);
		return;
	}
	uint32_t len = 0; /* read by pc_u32 before it is set */
	const uint8_t *p = string_in(c, &len, false, "evidence text");
	*s = NULL;
	if (!p)
		return;
	if (*used > cap || cap - *used < (size_t)len + 1) {
		pc_check(c, false, "evidence text");
		return;
	}
	memcpy(pool + *used, p, len);
	pool[*used + len] = 0;
	*s = pool + *used;
	*used += (size_t)len + 1;
}

void pc_count(struct pc *c, uint64_t *n, uint64_t max, size_t min_bytes, const char *what)
{
	pc_u64(c, n);
	if (c->reading && !c->err && (*n > max || *n > (uint64_t)(c->end - c->at) / min_bytes))
		pc_fail(c, EPROTO, "bad count of %s in section %s", what, c->section);
	if (c->err && c->reading)
		*n = 0;
}

void *pc_items(struct pc *c, const void *items, uint64_t n, size_t size)
{
	if (!c->reading)
		return (void *)items;
	if (c->err)
		return NULL;
	void *p = an_res_alloc(c->res, (n ? (size_t)n : 1) * size);
	if (!p)
		pc_fail(c, ENOMEM, "out of memory");
	return p;
}

void pc_open(struct pc *c, struct pc_mark *m)
{
	uint32_t len = 0;
	if (!c->reading) {
		m->off = c->len;
		pc_u32(c, &len); /* set by pc_close */
		return;
	}
	pc_u32(c, &len);
	m->end = c->end;
	if (!c->err && (size_t)(c->end - c->at) < len)
		pc_fail(c, EPROTO, "truncated in section %s", c->section);
	if (!c->err)
		c->end = c->at + len;
}

void pc_close(struct pc *c, struct pc_mark *m)
{
	if (!c->reading) {
		if (c->err)
			return;
		size_t len = c->len - m->off - 4;
		if (len > UINT32_MAX) {
			pc_fail(c, EINVAL, "a record of %zu bytes is too long for the format", len);
			return;
		}
		for (unsigned i = 0; i < 4; i++)
			c->buf[m->off + i] = (uint8_t)(len >> (8 * i));
		return;
	}
	if (c->err)
		return;
	c->at = c->end; /* the fields after those this version knows */
	c->end = m->end;
}

/*
 * The fewest bytes an item of a list takes in a file: its record's length
 * and the fields of a zeroed item, written (each field fixed-size, each
 * string NULL, each list inside it empty, each optional part absent: the
 * shortest record there is). So a count is refused before its items are
 * allocated when what is left could not hold them.
 */
static size_t item_min_bytes(pc_item_fn walk, size_t size, const struct rt_results *r)
{
	size_t min = 4;
	void *zero = calloc(1, size);
	struct pc w = {.reading = false};
	if (zero) {
		walk(&w, r, zero, 0);
		if (!w.err)
			min += w.len;
	}
	free(w.buf);
	free(zero);
	return min;
}

void *pc_list(struct pc *c, const void *items, uint64_t *n, size_t size, uint64_t max,
              const char *what, pc_item_fn walk, const struct rt_results *r)
{
	pc_count(c, n, max, c->reading ? item_min_bytes(walk, size, r) : 4, what);
	uint8_t *p = pc_items(c, items, *n, size);
	for (uint64_t i = 0; p && i < *n; i++) {
		struct pc_mark m = {0};
		pc_open(c, &m);
		walk(c, r, p + i * size, i);
		pc_close(c, &m);
	}
	return p;
}

/* Buffered output for every sink: raw bytes, numbers, escaped JSON strings, to a file descriptor. */
#ifndef RT_OUTBUF_H
#define RT_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RT_OUTBUF_SIZE (1u << 16)

/*
 * Output held in memory as the full buffers themselves (rt_out_keep), to be
 * written out later without another copy: lines made on one thread and
 * written in order by another.
 */
struct rt_outkept {
	struct rt_outblock {
		char *data; /* RT_OUTBUF_SIZE bytes, kept for the next use */
		size_t len; /* the bytes it holds (the first n blocks) */
	} * block;
	size_t n;      /* full (or last) blocks so far */
	size_t nblock; /* allocated */
};

struct rt_outbuf {
	FILE *fp;                /* where flushes go, unless kept */
	struct rt_outkept *kept; /* else where they go (rt_out_keep) */
	size_t len;              /* bytes waiting in buf */
	int error;               /* first write error (errno), sticky */
	char *buf; /* RT_OUTBUF_SIZE bytes: `own`, or the block of `kept` being filled */
	char own[RT_OUTBUF_SIZE];
};

void rt_out_init(struct rt_outbuf *o, FILE *fp);
/* Write what is buffered (kept: close the block being filled); returns 0 or the sticky errno. */
int rt_out_flush(struct rt_outbuf *o);

/* From now on o's output is kept in k (emptied first; its blocks are reused); an error is ENOMEM. */
void rt_out_keep(struct rt_outbuf *o, struct rt_outkept *k);
/* Write k's blocks to o (after what o holds), each as it is. */
void rt_out_write_kept(struct rt_outbuf *o, const struct rt_outkept *k);
void rt_out_kept_free(struct rt_outkept *k);

/* What the inline writers below call when the buffer is full or the value long. */
void rt_out_write_slow(struct rt_outbuf *o, const void *data, size_t len);
void rt_out_u64_slow(struct rt_outbuf *o, uint64_t v);

/*
 * The writers every record calls many times are inline: a copy into the
 * buffer after one bounds check (with a length known where they are
 * called, the copy is a few moves).
 */
static inline void rt_out_write(struct rt_outbuf *o, const void *data, size_t len)
{
	/* (the first test folds away where len is known) */
	if (len <= RT_OUTBUF_SIZE && o->len <= RT_OUTBUF_SIZE - len) {
		memcpy(o->buf + o->len, data, len);
		o->len += len;
	} else {
		rt_out_write_slow(o, data, len);
	}
}

static inline void rt_out_str(struct rt_outbuf *o, const char *s)
{
	rt_out_write(o, s, strlen(s));
}

static inline void rt_out_char(struct rt_outbuf *o, char c)
{
	if (o->len == RT_OUTBUF_SIZE)
		rt_out_flush(o);
	o->buf[o->len++] = c;
}

/* Decimal, no sign. */
static inline void rt_out_u64(struct rt_outbuf *o, uint64_t v)
{
	if (v < 10 && o->len < RT_OUTBUF_SIZE)
		o->buf[o->len++] = (char)('0' + v);
	else
		rt_out_u64_slow(o, v);
}

void rt_out_i64(struct rt_outbuf *o, int64_t v);
/* 0x-prefixed lower-case hex, at least `width` digits (zero-padded) */
void rt_out_hex(struct rt_outbuf *o, uint64_t v, int width);
/* printf-style, for the rare slow path */
void rt_out_printf(struct rt_outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal with quotes and escapes; bytes that are not UTF-8 become \ufffd. */
void rt_out_json_str(struct rt_outbuf *o, const char *s);
/* "SECONDS.NANOSECONDS" (9 digits) without quotes. */
void rt_out_ts(struct rt_outbuf *o, uint64_t ts_ns);
/* A finite double with up to `decimals` digits after the point (JSON-safe: NaN/inf print 0); with
 * decimals, one too small for them that is not 0 with as many significant digits (4.96e-10). */
void rt_out_double(struct rt_outbuf *o, double v, int decimals);
/* An IPv4 (version 4) or IPv6 address in its usual text form. */
void rt_out_ip(struct rt_outbuf *o, int version, const uint8_t addr[16]);
/* aa:bb:cc:dd:ee:ff */
void rt_out_mac(struct rt_outbuf *o, const uint8_t mac[6]);

/* Address text into a caller buffer of at least 46 bytes; returns buf. */
char *rt_ip_to_str(int version, const uint8_t addr[16], char *buf, size_t size);

#endif

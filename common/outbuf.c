/* Buffered output for every sink: raw bytes, numbers, escaped JSON strings, to a file descriptor. */
#include "common/outbuf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

void rt_out_init(struct rt_outbuf *o, FILE *fp)
{
	o->fp = fp;
	o->kept = NULL;
	o->len = 0;
	o->error = 0;
	o->buf = o->own;
}

/* len bytes to the stream, unless a write failed before: the first failure is kept. */
static void put(struct rt_outbuf *o, const void *data, size_t len)
{
	if (!len || o->error)
		return;
	/* glibc's fwrite() to an unbuffered stream reports a failed write as written:
	 * the stream's error flag is what tells */
	errno = 0;
	if (fwrite(data, 1, len, o->fp) != len || fflush(o->fp) != 0 || ferror(o->fp))
		o->error = errno ? errno : EIO;
}

/* o fills the kept block k->block[k->n] next (made when new); without memory, o fails (ENOMEM). */
static void kept_block(struct rt_outbuf *o, struct rt_outkept *k)
{
	if (k->n == k->nblock) {
		struct rt_outblock *block = realloc(k->block, (k->nblock + 1) * sizeof(*block));
		if (block)
			k->block = block;
		char *data = block ? malloc(RT_OUTBUF_SIZE) : NULL;
		if (!data) {
			o->error = ENOMEM;
			o->buf = o->own; /* written on, never out */
			return;
		}
		k->block[k->nblock++].data = data;
	}
	o->buf = k->block[k->n].data;
}

int rt_out_flush(struct rt_outbuf *o)
{
	if (!o->kept) {
		put(o, o->buf, o->len);
	} else if (o->len && !o->error) { /* the block stays as it is, the next one is filled */
		o->kept->block[o->kept->n++].len = o->len;
		kept_block(o, o->kept);
	}
	o->len = 0;
	return o->error;
}

void rt_out_keep(struct rt_outbuf *o, struct rt_outkept *k)
{
	o->fp = NULL;
	o->kept = k;
	o->len = 0;
	o->error = 0;
	k->n = 0;
	kept_block(o, k);
}

/* The blocks to o's file descriptor in as few writes as it takes (one where it takes them all). */
static void put_blocks(struct rt_outbuf *o, int fd, const struct rt_outkept *k)
{
	struct iovec iov[64];
	size_t i = 0, off = 0; /* the next byte: block i, offset off */
	while (i < k->n && !o->error) {
		int n = 0;
		for (size_t j = i; j < k->n && n < 64; j++, n++)
			iov[n] = (struct iovec){.iov_base = k->block[j].data + (j == i ? off : 0),
			                        .iov_len = k->block[j].len - (j == i ? off : 0)};
		ssize_t w = writev(fd, iov, n);
		if ((w < 0 && errno != EINTR) || w == 0) /* (0: nothing taken, never again) */
			o->error = w ? errno : EIO;
		for (size_t left = w > 0 ? (size_t)w : 0; left && i < k->n;) {
			size_t step = k->block[i].len - off < left ? k->block[i].len - off : left;
			left -= step;
			off += step;
			if (off == k->block[i].len) {
				i++;
				off = 0;
			}
		}
	}
}

void rt_out_write_kept(struct rt_outbuf *o, const struct rt_outkept *k)
{
	rt_out_flush(o);
	int fd = o->fp && !o->error ? fileno(o->fp) : -1;
	if (fd >= 0) {
		put_blocks(o, fd, k);
		return;
	}
	for (size_t i = 0; i < k->n; i++) /* a stream without a descriptor (a memory stream) */
		put(o, k->block[i].data, k->block[i].len);
}

void rt_out_kept_free(struct rt_outkept *k)
{
	for (size_t i = 0; i < k->nblock; i++)
		free(k->block[i].data);
	free(k->block);
	*k = (struct rt_outkept){0};
}

static inline void reserve(struct rt_outbuf *o, size_t n)
{
	if (o->len + n > RT_OUTBUF_SIZE)
		rt_out_flush(o);
}

void rt_out_write_slow(struct rt_outbuf *o, const void *data, size_t len)
{
	if (len >= RT_OUTBUF_SIZE &&
	    !o->kept) { /* a block as big as the buffer goes out as it is */
		rt_out_flush(o);
		put(o, data, len);
		return;
	}
	const char *p = data;
	while (len) {
		reserve(o, 1);
		size_t room = RT_OUTBUF_SIZE - o->len;
		size_t n = len < room ? len : room;
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		p += n;
		len -= n;
	}
}

/* "00" "01" ... "99": two digits per division. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* The decimal digits of v, written backwards ending at end; returns where they start. */
static char *digits(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

/* How many decimal digits v has. */
static size_t ndigits(uint64_t v)
{
	size_t n = 1;
	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

void rt_out_u64_slow(struct rt_outbuf *o, uint64_t v)
{
	size_t n = ndigits(v);
	if (n > RT_OUTBUF_SIZE - o->len)
		rt_out_flush(o);
	digits(o->buf + o->len + n, v);
	o->len += n;
}

void rt_out_i64(struct rt_outbuf *o, int64_t v)
{
	if (v < 0) {
		rt_out_char(o, '-');
		rt_out_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		rt_out_u64(o, (uint64_t)v);
	}
}

void rt_out_hex(struct rt_outbuf *o, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v || (n < width && n < 16));
	reserve(o, (size_t)n + 2);
	o->buf[o->len++] = '0';
	o->buf[o->len++] = 'x';
	while (n)
		o->buf[o->len++] = tmp[--n];
}

void rt_out_printf(struct rt_outbuf *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		char *big = NULL;
		va_start(ap, fmt);
		n = vasprintf(&big, fmt, ap);
		va_end(ap);
		if (n >= 0 && big)
			rt_out_write(o, big, (size_t)n);
		free(big);
		return;
	}
	rt_out_write(o, tmp, (size_t)n);
}

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. Stops at the first
 * byte that does not fit, so it never reads past a terminating NUL.
 */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xBF;

	if (c >= 0xC2 && c <= 0xDF)
		return (p[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
		if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80)
			return 0;
		return (p[3] & 0xC0) == 0x80 ? 4 : 0;
	}
	return 0;
}

void rt_out_json_str(struct rt_outbuf *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	rt_out_char(o, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if (c >= 0x80) {
			/* JSON text is UTF-8: a byte starting no well-formed sequence is U+FFFD */
			size_t n = utf8_len(p);
			if (n) {
				rt_out_write(o, p, n);
				p += n - 1;
			} else {
				rt_out_str(o, "\\ufffd");
			}
		} else if (c == '"' || c == '\\') {
			rt_out_char(o, '\\');
			rt_out_char(o, (char)c);
		} else if (c == '\n') {
			rt_out_str(o, "\\n");
		} else if (c == '\t') {
			rt_out_str(o, "\\t");
		} else if (c == '\r') {
			rt_out_str(o, "\\r");
		} else if (c < 0x20) {
			char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			rt_out_write(o, esc, sizeof(esc));
		} else {
			rt_out_char(o, (char)c);
		}
	}
	rt_out_char(o, '"');
}

void rt_out_ts(struct rt_outbuf *o, uint64_t ts_ns)
{
	/* SECONDS, the point, and 9 digits: the fraction as 1000000000 + frac, its leading 1 dropped */
	char tmp[32], *end = tmp + sizeof(tmp);
	char *frac = digits(end, 1000000000u + ts_ns % 1000000000u);
	frac[0] = '.';
	char *p = digits(frac, ts_ns / 1000000000u);
	rt_out_write(o, p, (size_t)(end - p));
}

void rt_out_double(struct rt_outbuf *o, double v, int decimals)
{
	if (!isfinite(v))
		v = 0.0;
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	bool fixed = n >= 0 && (size_t)n < sizeof(tmp);
	if (!fixed) /* too many digits for the point form: the exponent form is a JSON number too */
		n = snprintf(tmp, sizeof(tmp), "%.15g", v);
	if (n <= 0 || (size_t)n >= sizeof(tmp))
		return;
	/* trim trailing zeros after the point, keep at least one digit */
	if (fixed && memchr(tmp, '.', (size_t)n)) {
		while (n > 1 && tmp[n - 1] == '0')
			n--;
		if (tmp[n - 1] == '.')
			n--;
	}
	bool zero = n == 1 && tmp[0] == '0';
	if (n == 2 && tmp[0] == '-' && tmp[1] == '0')
		zero = true;
	if (zero && v != 0.0 && decimals > 0) /* too small for the decimals, not 0: its digits */
		n = snprintf(tmp, sizeof(tmp), "%.*g", decimals > 0 ? decimals : 1, v);
	if (zero && v == 0.0)
		rt_out_char(o, '0');
	else
		rt_out_write(o, tmp, (size_t)n);
}

char *rt_ip_to_str(int version, const uint8_t addr[16], char *buf, size_t size)
{
	if (!inet_ntop(version == 6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)size))
		snprintf(buf, size, "?");
	return buf;
}

void rt_out_ip(struct rt_outbuf *o, int version, const uint8_t addr[16])
{
	if (version == 4) {
		for (int i = 0; i < 4; i++) {
			if (i)
				rt_out_char(o, '.');
			rt_out_u64(o, addr[i]);
		}
		return;
	}
	char tmp[64];
	rt_out_str(o, rt_ip_to_str(version, addr, tmp, sizeof(tmp)));
}

void rt_out_mac(struct rt_outbuf *o, const uint8_t mac[6])
{
	static const char hex[] = "0123456789abcdef";
	char tmp[17];
	for (int i = 0; i < 6; i++) {
		tmp[i * 3] = hex[mac[i] >> 4];
		tmp[i * 3 + 1] = hex[mac[i] & 15];
		if (i < 5)
			tmp[i * 3 + 2] = ':';
	}
	rt_out_write(o, tmp, sizeof(tmp));
}

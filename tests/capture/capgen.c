/* Capture files generated from a description (pcap, pcapng, gzip members of chosen sizes) and checked against the frames written. */
#include "tests/capture/capgen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "capture/read_limits.h"

void cg_put(struct cg_bytes *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		size_t ncap = (b->len + n) * 2 + 64;
		uint8_t *np = realloc(b->p, ncap);
		if (!np)
			abort();
		b->p = np;
		b->cap = ncap;
	}
	if (v && n)
		memcpy(b->p + b->len, v, n);
	b->len += n;
}

void cg_bytes_free(struct cg_bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void put16(struct cg_file *f, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	if (f->be) {
		x[0] = (uint8_t)(v >> 8);
		x[1] = (uint8_t)v;
	}
	cg_put(&f->b, x, 2);
}

static void put32(struct cg_file *f, uint32_t v)
{
	put16(f, (uint16_t)(f->be ? v >> 16 : v));
	put16(f, (uint16_t)(f->be ? v : v >> 16));
}

static void put64(struct cg_file *f, uint64_t v)
{
	put32(f, (uint32_t)(f->be ? v >> 32 : v));
	put32(f, (uint32_t)(f->be ? v : v >> 32));
}

static void pad4(struct cg_file *f)
{
	static const uint8_t zeros[4];
	cg_put(&f->b, zeros, (4 - f->b.len % 4) % 4);
}

/* pcapng: a block's type and a length filled in by block_end() */
static size_t block_begin(struct cg_file *f, uint32_t type)
{
	size_t at = f->b.len;
	put32(f, type);
	put32(f, 0);
	return at;
}

static void block_end(struct cg_file *f, size_t at)
{
	pad4(f);
	uint32_t total = (uint32_t)(f->b.len - at + 4);
	put32(f, total);
	size_t end = f->b.len;
	f->b.len = at + 4;
	put32(f, total);
	f->b.len = end;
}

void cg_frame_bytes(uint32_t seed, uint8_t *out, size_t n)
{
	if (seed & 0x80000000u) {
		for (size_t k = 0; k < n; k++)
			out[k] = (uint8_t)(seed + k * 7 + k / 4096);
		return;
	}
	uint32_t x = seed * 2654435761u + 0x9E3779B9u; /* xorshift32, never 0 from here */
	if (!x)
		x = 1;
	for (size_t k = 0; k < n; k += 4) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		for (size_t i = 0; i < 4 && k + i < n; i++)
			out[k + i] = (uint8_t)(x >> (8 * i));
	}
}

void cg_pcap(struct cg_file *f, bool be, bool nano, int linktype, uint32_t snaplen)
{
	memset(f, 0, sizeof(*f));
	f->be = be;
	f->pcap_unit_ns = nano ? 1 : 1000;
	f->pcap_linktype = linktype;
	f->pcap_snaplen =
	    snaplen && snaplen <= RT_READ_PCAP_MAX_CAPLEN ? snaplen : RT_READ_PCAP_MAX_CAPLEN;
	put32(f, nano ? 0xA1B23C4Du : 0xA1B2C3D4u);
	put16(f, 2);
	put16(f, 4);
	put32(f, 0);
	put32(f, 0);
	put32(f, snaplen);
	put32(f, (uint32_t)linktype);
}

void cg_pcapng(struct cg_file *f, bool be)
{
	memset(f, 0, sizeof(*f));
	f->pcapng = true;
	f->be = be;
	size_t at = block_begin(f, 0x0A0D0D0Au);
	put32(f, 0x1A2B3C4Du);
	put16(f, 1);
	put16(f, 0);
	put64(f, UINT64_MAX);
	block_end(f, at);
}

static uint32_t idb(struct cg_file *f, int linktype, uint32_t snaplen, bool nano, const char *name,
                    size_t len)
{
	if (f->nifaces == CG_MAX_IFACES)
		abort();
	size_t at = block_begin(f, 1);
	put16(f, (uint16_t)linktype);
	put16(f, 0);
	put32(f, snaplen);
	if (name) {
		put16(f, 2); /* if_name */
		put16(f, (uint16_t)len);
		cg_put(&f->b, name, len);
		pad4(f);
	}
	if (nano) {
		put16(f, 9); /* if_tsresol */
		put16(f, 1);
		cg_put(&f->b, "\x09", 1);
		pad4(f);
	}
	put32(f, 0); /* opt_endofopt */
	block_end(f, at);
	f->ifaces[f->nifaces].linktype = linktype;
	f->ifaces[f->nifaces].unit_ns = nano ? 1 : 1000;
	return f->nifaces++;
}

uint32_t cg_idb(struct cg_file *f, int linktype, uint32_t snaplen, bool nano)
{
	return idb(f, linktype, snaplen, nano, NULL, 0);
}

uint32_t cg_idb_named(struct cg_file *f, int linktype, bool nano, const char *name, size_t len)
{
	return idb(f, linktype, 0, nano, name, len);
}

void cg_isb(struct cg_file *f, uint32_t iface, uint64_t start, uint64_t ifdrop, uint64_t osdrop)
{
	size_t at = block_begin(f, 5);
	put32(f, iface);
	put64(f, 0);
	static const uint16_t codes[] = {2, 5, 7}; /* isb_starttime, isb_ifdrop, isb_osdrop */
	uint64_t values[] = {start, ifdrop, osdrop};
	for (int i = 0; i < 3; i++) {
		put16(f, codes[i]);
		put16(f, 8);
		if (i == 0) { /* a timestamp: high and low halves */
			put32(f, (uint32_t)(start >> 32));
			put32(f, (uint32_t)start);
		} else {
			put64(f, values[i]);
		}
	}
	put32(f, 0);
	block_end(f, at);
}

size_t cg_epb_size(uint32_t caplen)
{
	return 32 + ((size_t)caplen + 3) / 4 * 4;
}

static void frame_data(struct cg_file *f, uint32_t caplen, uint32_t seed)
{
	size_t at = f->b.len;
	cg_put(&f->b, NULL, caplen);
	cg_frame_bytes(seed, f->b.p + at, caplen);
}

void cg_frame(struct cg_file *f, uint32_t iface, uint64_t ts_ns, uint32_t caplen, uint32_t wirelen,
              uint32_t seed)
{
	struct cg_frame fr = {.caplen = caplen, .wirelen = wirelen, .iface = iface, .seed = seed};
	if (f->pcapng) {
		if (iface >= f->nifaces)
			abort();
		uint64_t units = ts_ns / f->ifaces[iface].unit_ns;
		fr.ts_ns = units * f->ifaces[iface].unit_ns;
		fr.linktype = f->ifaces[iface].linktype;
		size_t at = block_begin(f, 6);
		put32(f, iface);
		put32(f, (uint32_t)(units >> 32));
		put32(f, (uint32_t)units);
		put32(f, caplen);
		put32(f, wirelen);
		frame_data(f, caplen, seed);
		block_end(f, at);
	} else {
		uint64_t s = ts_ns / 1000000000u, frac = ts_ns % 1000000000u / f->pcap_unit_ns;
		fr.ts_ns = s * 1000000000u + frac * f->pcap_unit_ns;
		fr.linktype = f->pcap_linktype;
		fr.caplen = caplen < f->pcap_snaplen ? caplen : f->pcap_snaplen;
		put32(f, (uint32_t)s);
		put32(f, (uint32_t)frac);
		put32(f, caplen);
		put32(f, wirelen);
		frame_data(f, caplen, seed);
	}
	if (f->nframes == f->cap_frames) {
		f->cap_frames = f->cap_frames ? f->cap_frames * 2 : 64;
		f->frames = realloc(f->frames, f->cap_frames * sizeof(*f->frames));
		if (!f->frames)
			abort();
	}
	f->frames[f->nframes++] = fr;
}

void cg_free(struct cg_file *f)
{
	cg_bytes_free(&f->b);
	free(f->frames);
	memset(f, 0, sizeof(*f));
}

/* ---- gzip ---- */

static void put_le32(struct cg_bytes *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	cg_put(b, x, 4);
}

/* One member: header (with a comment of `comment` bytes, its NUL included), raw deflate, trailer. */
static void gzip_member(struct cg_bytes *out, const uint8_t *in, size_t len, int level,
                        size_t comment)
{
	uint8_t head[10] = {0x1f, 0x8b, 8, comment ? 0x10 : 0, 0, 0, 0, 0, 0, 255};
	cg_put(out, head, sizeof(head));
	for (size_t i = 0; i + 1 < comment; i++)
		cg_put(out, "c", 1);
	if (comment)
		cg_put(out, "", 1);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t bound = deflateBound(&z, len);
	cg_put(out, NULL, bound);
	out->len -= bound;
	z.next_in = (uint8_t *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = out->p + out->len;
	z.avail_out = (uInt)bound;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	out->len += z.total_out;
	deflateEnd(&z);
	put_le32(out, (uint32_t)crc32(crc32(0, NULL, 0), in, (uInt)len));
	put_le32(out, (uint32_t)len);
}

void cg_gzip(struct cg_bytes *out, const uint8_t *in, size_t len, unsigned members, int level,
             size_t comment)
{
	if (!members)
		members = 1;
	for (unsigned m = 0; m < members; m++) {
		size_t from = len * m / members, to = len * (m + 1) / members;
		gzip_member(out, in + from, to - from, level, m == 0 ? comment : 0);
	}
}

size_t cg_gzip_size(const uint8_t *in, size_t len, unsigned members, int level)
{
	struct cg_bytes b = {0};
	cg_gzip(&b, in, len, members, level, 0);
	size_t n = b.len;
	cg_bytes_free(&b);
	return n;
}

/* ---- checking ---- */

__attribute__((format(printf, 3, 4))) static int differ(char *why, size_t size, const char *fmt,
                                                        ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

int cg_check(const struct cg_file *f, struct rt_pcapfile *r, char *why, size_t size)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_frame fr[16];
	uint8_t *want = NULL;
	size_t got = 0, want_cap = 0;
	int n, rc = 0;
	while (!rc && (n = rt_pcapfile_next(r, fr, 16, errbuf)) != 0) {
		if (n == -EINTR)
			continue;
		if (n < 0) {
			rc = differ(why, size, "after %zu frames: %s", got, errbuf);
			break;
		}
		for (int i = 0; i < n && !rc; i++, got++) {
			if (got >= f->nframes) {
				rc = differ(why, size, "frame %zu: more frames than written",
				            got + 1);
				break;
			}
			const struct cg_frame *w = &f->frames[got];
			if (fr[i].ts_ns != w->ts_ns || fr[i].caplen != w->caplen ||
			    fr[i].wirelen != w->wirelen || fr[i].linktype != w->linktype ||
			    fr[i].interface_id != w->iface || fr[i].seq != got + 1) {
				rc = differ(
				    why, size,
				    "frame %zu: ts %llu caplen %u wirelen %u link %d if %u "
				    "seq %llu, written ts %llu caplen %u wirelen %u link %d "
				    "if %u",
				    got + 1, (unsigned long long)fr[i].ts_ns, fr[i].caplen,
				    fr[i].wirelen, fr[i].linktype, fr[i].interface_id,
				    (unsigned long long)fr[i].seq, (unsigned long long)w->ts_ns,
				    w->caplen, w->wirelen, w->linktype, w->iface);
				break;
			}
			if (w->caplen > want_cap) {
				free(want);
				want_cap = w->caplen;
				if (!(want = malloc(want_cap)))
					abort();
			}
			cg_frame_bytes(w->seed, want, w->caplen);
			if (w->caplen && memcmp(fr[i].data, want, w->caplen))
				rc = differ(why, size, "frame %zu: other bytes", got + 1);
		}
	}
	free(want);
	if (!rc && got != f->nframes)
		rc = differ(why, size, "%zu frames of %zu written", got, f->nframes);
	return rc;
}

int cg_check_mem(const struct cg_file *f, const uint8_t *data, size_t len, size_t chunk, char *why,
                 size_t size)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *r;
	if (rt_pcapfile_open_mem(&r, data, len, chunk, "generated", errbuf) < 0)
		return differ(why, size, "open: %s", errbuf);
	int rc = cg_check(f, r, why, size);
	rt_pcapfile_close(r);
	return rc;
}

/* pcap and pcapng files built in memory for the reader's unit tests, gzip'd on demand, read back in every chunk size. */
#ifndef RT_TEST_CAPTURE_PCAPFILE_BUILD_H
#define RT_TEST_CAPTURE_PCAPFILE_BUILD_H

/* include after <cmocka.h>: the builders assert */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "capture/pcapfile.h"

/* ---- building files ---- */

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool be; /* write big-endian */
};

static inline void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static inline void u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static inline void u16(struct buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	if (b->be) {
		x[0] = (uint8_t)(v >> 8);
		x[1] = (uint8_t)v;
	}
	put(b, x, 2);
}

static inline void u32(struct buf *b, uint32_t v)
{
	if (b->be) {
		u16(b, (uint16_t)(v >> 16));
		u16(b, (uint16_t)v);
	} else {
		u16(b, (uint16_t)v);
		u16(b, (uint16_t)(v >> 16));
	}
}

static inline void u64(struct buf *b, uint64_t v)
{
	if (b->be) {
		u32(b, (uint32_t)(v >> 32));
		u32(b, (uint32_t)v);
	} else {
		u32(b, (uint32_t)v);
		u32(b, (uint32_t)(v >> 32));
	}
}

static inline void pad(struct buf *b)
{
	while (b->len % 4)
		u8(b, 0);
}

/* Frame bytes: k-th byte of frame `i` */
static inline uint8_t fbyte(unsigned i, unsigned k)
{
	return (uint8_t)(i * 31 + k * 7);
}

static inline void frame_bytes(struct buf *b, unsigned i, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		u8(b, fbyte(i, k));
}

static inline void pcap_header(struct buf *b, uint32_t magic, uint32_t snaplen, uint32_t linktype)
{
	u32(b, magic);
	u16(b, 2);
	u16(b, 4);
	u32(b, 0);
	u32(b, 0);
	u32(b, snaplen);
	u32(b, linktype);
}

static inline void pcap_rec(struct buf *b, uint32_t sec, uint32_t frac, uint32_t caplen,
                            uint32_t len, unsigned i)
{
	u32(b, sec);
	u32(b, frac);
	u32(b, caplen);
	u32(b, len);
	frame_bytes(b, i, caplen);
}

/* pcapng blocks: the caller writes the body between begin and end */
static inline size_t begin(struct buf *b, uint32_t type)
{
	size_t at = b->len;
	u32(b, type);
	u32(b, 0);
	return at;
}

static inline void end(struct buf *b, size_t at)
{
	pad(b);
	uint32_t total = (uint32_t)(b->len - at + 4);
	u32(b, total);
	size_t save = b->len;
	b->len = at + 4;
	u32(b, total);
	b->len = save;
}

static inline void shb(struct buf *b)
{
	size_t at = begin(b, 0x0A0D0D0A);
	u32(b, 0x1A2B3C4D);
	u16(b, 1);
	u16(b, 0);
	u64(b, UINT64_MAX);
	end(b, at);
}

/* tsresol < 0: no option; tsoffset != 0: if_tsoffset */
static inline void idb(struct buf *b, uint16_t linktype, uint32_t snaplen, int tsresol,
                       int64_t tsoffset)
{
	size_t at = begin(b, 1);
	u16(b, linktype);
	u16(b, 0);
	u32(b, snaplen);
	u16(b, 2); /* if_name, to skip */
	u16(b, 3);
	put(b, "eth", 3);
	pad(b);
	if (tsresol >= 0) {
		u16(b, 9);
		u16(b, 1);
		u8(b, (uint8_t)tsresol);
		pad(b);
	}
	if (tsoffset) {
		u16(b, 14);
		u16(b, 8);
		u64(b, (uint64_t)tsoffset);
	}
	u32(b, 0);
	end(b, at);
}

static inline void epb(struct buf *b, uint32_t iface, uint64_t ts, uint32_t caplen, uint32_t len,
                       unsigned i)
{
	size_t at = begin(b, 6);
	u32(b, iface);
	u32(b, (uint32_t)(ts >> 32));
	u32(b, (uint32_t)ts);
	u32(b, caplen);
	u32(b, len);
	frame_bytes(b, i, caplen);
	end(b, at);
}

static inline void isb(struct buf *b, uint32_t iface, uint64_t ifdrop, uint64_t osdrop)
{
	size_t at = begin(b, 5);
	u32(b, iface);
	u64(b, 0);
	u16(b, 4); /* isb_ifrecv */
	u16(b, 8);
	u64(b, 1000);
	if (ifdrop != UINT64_MAX) {
		u16(b, 5);
		u16(b, 8);
		u64(b, ifdrop);
	}
	if (osdrop != UINT64_MAX) {
		u16(b, 7);
		u16(b, 8);
		u64(b, osdrop);
	}
	u32(b, 0);
	end(b, at);
}

/* ---- reading ---- */

struct want {
	uint64_t ts_ns;
	uint32_t caplen, wirelen;
	int linktype;
	uint32_t interface_id;
	unsigned bytes_of; /* frame_bytes index */
	uint64_t seq;
};

static const size_t chunks[] = {0, 1, 3, 7, 64};

/* Read all of `b` in every chunk size; the frames must be `w`, then the end (or an error when `err`). */
static inline void expect(const struct buf *b, const struct want *w, size_t n, bool err)
{
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		char errbuf[RT_ERRBUF_SIZE] = "";
		struct rt_pcapfile *f;
		int orc = rt_pcapfile_open_mem(&f, b->p, b->len, chunks[c], "test", errbuf);
		if (orc)
			fail_msg("open (chunk %zu): %s", chunks[c], errbuf);
		struct rt_frame fr[4];
		size_t got = 0;
		int rc;
		while ((rc = rt_pcapfile_next(f, fr, 4, errbuf)) > 0) {
			for (int i = 0; i < rc; i++, got++) {
				assert_true(got < n);
				const struct want *x = &w[got];
				assert_int_equal(fr[i].ts_ns, x->ts_ns);
				assert_int_equal(fr[i].caplen, x->caplen);
				assert_int_equal(fr[i].wirelen, x->wirelen);
				assert_int_equal(fr[i].linktype, x->linktype);
				assert_int_equal(fr[i].interface_id, x->interface_id);
				assert_int_equal(fr[i].seq, x->seq ? x->seq : got + 1);
				for (uint32_t k = 0; k < fr[i].caplen; k++)
					assert_int_equal(fr[i].data[k], fbyte(x->bytes_of, k));
			}
		}
		assert_int_equal(got, n);
		if (err) {
			assert_true(rc < 0);
			assert_true(errbuf[0] != 0);
			/* the error stays */
			assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), rc);
		} else if (rc != 0) {
			fail_msg("chunk %zu: %s", chunks[c], errbuf);
		}
		rt_pcapfile_close(f);
	}
}

static inline int open_err(const struct buf *b, char *errbuf)
{
	struct rt_pcapfile *f = NULL;
	int rc = rt_pcapfile_open_mem(&f, b->p, b->len, 0, "test", errbuf);
	if (rc == 0)
		rt_pcapfile_close(f);
	return rc;
}

/* gzip `in` (one member, or the first half and the rest as two members) */
static inline struct buf gzip(const struct buf *in, bool two_members)
{
	struct buf out = {0};
	size_t parts[2][2] = {{0, in->len}, {in->len, in->len}};
	if (two_members) {
		parts[0][1] = in->len / 2;
		parts[1][0] = in->len / 2;
	}
	for (int m = 0; m < (two_members ? 2 : 1); m++) {
		z_stream z;
		memset(&z, 0, sizeof(z));
		assert_int_equal(
		    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
		size_t n = parts[m][1] - parts[m][0];
		uLong bound = deflateBound(&z, n);
		size_t at = out.len;
		out.cap = out.len + bound + 64;
		out.p = realloc(out.p, out.cap);
		z.next_in = in->p + parts[m][0];
		z.avail_in = (uInt)n;
		z.next_out = out.p + at;
		z.avail_out = (uInt)(out.cap - at);
		assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
		out.len = at + z.total_out;
		deflateEnd(&z);
	}
	return out;
}

#endif

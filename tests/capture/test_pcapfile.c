/* Unit tests of the native pcap/pcapng reader on hand-built files, and a cross-check against libpcap on real ones. */
#include <dirent.h>
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
#include <pcap/pcap.h>
#include <zlib.h>

#include "capture/pcapfile.h"

/* ---- building files ---- */

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool be; /* write big-endian */
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void u8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void u16(struct buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	if (b->be) {
		x[0] = (uint8_t)(v >> 8);
		x[1] = (uint8_t)v;
	}
	put(b, x, 2);
}

static void u32(struct buf *b, uint32_t v)
{
	if (b->be) {
		u16(b, (uint16_t)(v >> 16));
		u16(b, (uint16_t)v);
	} else {
		u16(b, (uint16_t)v);
		u16(b, (uint16_t)(v >> 16));
	}
}

static void u64(struct buf *b, uint64_t v)
{
	if (b->be) {
		u32(b, (uint32_t)(v >> 32));
		u32(b, (uint32_t)v);
	} else {
		u32(b, (uint32_t)v);
		u32(b, (uint32_t)(v >> 32));
	}
}

static void pad(struct buf *b)
{
	while (b->len % 4)
		u8(b, 0);
}

/* Frame bytes: k-th byte of frame `i` */
static uint8_t fbyte(unsigned i, unsigned k)
{
	return (uint8_t)(i * 31 + k * 7);
}

static void frame_bytes(struct buf *b, unsigned i, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		u8(b, fbyte(i, k));
}

static void pcap_header(struct buf *b, uint32_t magic, uint32_t snaplen, uint32_t linktype)
{
	u32(b, magic);
	u16(b, 2);
	u16(b, 4);
	u32(b, 0);
	u32(b, 0);
	u32(b, snaplen);
	u32(b, linktype);
}

static void pcap_rec(struct buf *b, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len, unsigned i)
{
	u32(b, sec);
	u32(b, frac);
	u32(b, caplen);
	u32(b, len);
	frame_bytes(b, i, caplen);
}

/* pcapng blocks: the caller writes the body between begin and end */
static size_t begin(struct buf *b, uint32_t type)
{
	size_t at = b->len;
	u32(b, type);
	u32(b, 0);
	return at;
}

static void end(struct buf *b, size_t at)
{
	pad(b);
	uint32_t total = (uint32_t)(b->len - at + 4);
	u32(b, total);
	size_t save = b->len;
	b->len = at + 4;
	u32(b, total);
	b->len = save;
}

static void shb(struct buf *b)
{
	size_t at = begin(b, 0x0A0D0D0A);
	u32(b, 0x1A2B3C4D);
	u16(b, 1);
	u16(b, 0);
	u64(b, UINT64_MAX);
	end(b, at);
}

/* tsresol < 0: no option; tsoffset != 0: if_tsoffset */
static void idb(struct buf *b, uint16_t linktype, uint32_t snaplen, int tsresol, int64_t tsoffset)
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

static void epb(struct buf *b, uint32_t iface, uint64_t ts, uint32_t caplen, uint32_t len, unsigned i)
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

static void isb(struct buf *b, uint32_t iface, uint64_t ifdrop, uint64_t osdrop)
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
static void expect(const struct buf *b, const struct want *w, size_t n, bool err)
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

static int open_err(const struct buf *b, char *errbuf)
{
	struct rt_pcapfile *f = NULL;
	int rc = rt_pcapfile_open_mem(&f, b->p, b->len, 0, "test", errbuf);
	if (rc == 0)
		rt_pcapfile_close(f);
	return rc;
}

/* gzip `in` (one member, or the first half and the rest as two members) */
static struct buf gzip(const struct buf *in, bool two_members)
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
		assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
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

/* ---- tests ---- */

static void test_pcap_micro_le(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	pcap_rec(&b, 1700000000, 123456, 60, 60, 0);
	pcap_rec(&b, 1700000001, 999999, 14, 1514, 1);
	pcap_rec(&b, 1700000002, 0, 0, 0, 2);
	struct want w[] = {
	    {1700000000123456000ull, 60, 60, 1, 0, 0, 0},
	    {1700000001999999000ull, 14, 1514, 1, 0, 1, 0},
	    {1700000002000000000ull, 0, 0, 1, 0, 2, 0},
	};
	expect(&b, w, 3, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	assert_int_equal(rt_pcapfile_info(f)->format, RT_PCAPFILE_PCAP);
	assert_int_equal(rt_pcapfile_info(f)->linktype, 1);
	assert_int_equal(rt_pcapfile_info(f)->snaplen, 65535);
	assert_false(rt_pcapfile_info(f)->gzip);
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_false(d.known);
	assert_int_equal(d.interfaces, 1);
	rt_pcapfile_close(f);
	free(b.p);
}

/* Big-endian nanosecond pcap with seconds at and after 2^31 (2038) and near 2^32 (2106). */
static void test_pcap_nano_be_y2038(void **state)
{
	(void)state;
	struct buf b = {.be = true};
	pcap_header(&b, 0xA1B23C4D, 0, 101);
	pcap_rec(&b, 0x80000000u, 5, 20, 20, 0);
	pcap_rec(&b, 0xFFFFFFFFu, 999999999, 40, 60, 1);
	struct want w[] = {
	    {0x80000000ull * 1000000000u + 5, 20, 20, 101, 0, 0, 0},
	    {0xFFFFFFFFull * 1000000000u + 999999999, 40, 60, 101, 0, 1, 0},
	};
	expect(&b, w, 2, false);
	free(b.p);
}

/* A frame longer than the snap length is cut to it (as libpcap does); one beyond 262144 bytes is an error. */
static void test_pcap_snaplen_and_limits(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 32, 1);
	pcap_rec(&b, 1, 0, 100, 100, 0);
	pcap_rec(&b, 2, 0, 10, 100, 1);
	u32(&b, 3); /* a record claiming 300000 captured bytes */
	u32(&b, 0);
	u32(&b, 300000);
	u32(&b, 300000);
	struct want w[] = {
	    {1000000000ull, 32, 100, 1, 0, 0, 0},
	    {2000000000ull, 10, 100, 1, 0, 1, 0},
	};
	expect(&b, w, 2, true);
	free(b.p);
}

/* A file cut inside a frame: the frames before it, then an error naming the frame. */
static void test_pcap_cut(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	pcap_rec(&b, 1, 0, 50, 50, 0);
	pcap_rec(&b, 2, 0, 50, 50, 1);
	b.len -= 7;
	struct want w[] = {{1000000000ull, 50, 50, 1, 0, 0, 0}};
	expect(&b, w, 1, true);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[4];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "cut.pcap", errbuf), 0);
	assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 1);
	assert_true(rt_pcapfile_next(f, fr, 4, errbuf) < 0);
	assert_non_null(strstr(errbuf, "cut.pcap: the file ends in the middle of frame 2"));
	rt_pcapfile_close(f);
	free(b.p);
}

static void test_not_a_capture(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct buf b = {0};
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "empty"));
	put(&b, "this is not a capture", 21);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "not a pcap or pcapng file"));
	b.len = 0;
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	b.len = 20;
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "header"));
	free(b.p);
}

/*
 * pcapng: two interfaces with different link types, timestamp resolutions and
 * offsets; EPB, SPB and the obsolete PB; an unknown block skipped; ISBs.
 */
static void test_pcapng_one_section(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	idb(&b, 1, 0, 9, 0);		 /* Ethernet, ns */
	size_t at = begin(&b, 0x00000BAD); /* a custom block: no frame, but frame 1 to Wireshark */
	u32(&b, 12345);
	frame_bytes(&b, 9, 9);
	end(&b, at);
	idb(&b, 101, 64, -1, -3600);	 /* raw IP, default us, offset -1 h */
	epb(&b, 0, 1700000000123456789ull, 60, 64, 0);
	epb(&b, 1, 1700000000123456ull, 64, 1500, 1);
	at = begin(&b, 3); /* SPB: interface 0, cut to what the block holds */
	u32(&b, 30);
	frame_bytes(&b, 2, 30);
	end(&b, at);
	at = begin(&b, 2); /* PB on interface 1 */
	u16(&b, 1);
	u16(&b, 0xFFFF);
	u32(&b, 0);
	u32(&b, 5);
	u32(&b, 8);
	u32(&b, 8);
	frame_bytes(&b, 3, 8);
	end(&b, at);
	isb(&b, 0, 7, 11);
	isb(&b, 1, 2, UINT64_MAX);
	struct want w[] = {
	    {1700000000123456789ull, 60, 64, 1, 0, 0, 2},
	    {1700000000123456000ull - 3600000000000ull, 64, 1500, 101, 1, 1, 3},
	    {0, 30, 30, 1, 0, 2, 4},
	    {5000ull - 3600000000000ull, 8, 8, 101, 1, 3, 5},
	};
	expect(&b, w, 4, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[8];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	assert_int_equal(rt_pcapfile_info(f)->format, RT_PCAPFILE_PCAPNG);
	assert_int_equal(rt_pcapfile_info(f)->linktype, 1);
	while (rt_pcapfile_next(f, fr, 8, errbuf) > 0)
		;
	assert_int_equal(rt_pcapfile_snaplen(f, 1), 64);
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_true(d.known);
	assert_int_equal(d.if_dropped, 9);
	assert_int_equal(d.os_dropped, 11);
	assert_int_equal(d.interfaces, 2);
	rt_pcapfile_close(f);
	free(b.p);
}

/*
 * Two sections in different byte orders: interface ids count on across
 * sections, binary and coarse decimal resolutions, and the last ISB of each
 * interface counts, summed over sections.
 */
static void test_pcapng_two_sections(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	idb(&b, 276, 0, 0x80 | 20, 0); /* SLL2, 2^-20 s */
	epb(&b, 0, (1700000000ull << 20) | (1u << 19), 20, 20, 0);
	isb(&b, 0, 100, 100); /* replaced by the next one */
	isb(&b, 0, 1, 2);
	isb(&b, 5, 1000, 1000); /* no such interface: ignored */
	b.be = true;
	shb(&b);
	idb(&b, 1, 0, 3, 0);  /* ms */
	idb(&b, 1, 0, 12, 0); /* ps */
	epb(&b, 1, 1700000000123456789ull, 14, 14, 1);
	epb(&b, 0, 1700000000123ull, 10, 10, 2);
	isb(&b, 1, 10, 20);
	b.be = false;
	struct want w[] = {
	    {1700000000500000000ull, 20, 20, 276, 0, 0, 0},
	    {1700000000123456ull, 14, 14, 1, 2, 1, 0},
	    {1700000000123000000ull, 10, 10, 1, 1, 2, 0},
	};
	expect(&b, w, 3, false);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	struct rt_frame fr[8];
	assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
	while (rt_pcapfile_next(f, fr, 8, errbuf) > 0)
		;
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(f, &d);
	assert_true(d.known);
	assert_int_equal(d.if_dropped, 11);
	assert_int_equal(d.os_dropped, 22);
	assert_int_equal(d.interfaces, 3);
	rt_pcapfile_close(f);
	free(b.p);
}

static void test_pcapng_errors(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct buf b = {0};
	/* a section with no interface */
	shb(&b);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "no interface description"));
	/* a packet before any interface */
	epb(&b, 0, 1, 4, 4, 0);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "no description"));
	/* a packet naming an interface not described; a block whose lengths differ; a cut block */
	const char *what[] = {"interface 3", "differ", "bad length", "middle of a block"};
	for (int k = 0; k < 4; k++) {
		b.len = 0;
		shb(&b);
		idb(&b, 1, 0, -1, 0);
		epb(&b, 0, 1, 4, 4, 0);
		size_t at = b.len;
		epb(&b, k == 0 ? 3 : 0, 1, 4, 4, 1);
		if (k == 1)
			b.p[b.len - 4] ^= 4;
		if (k == 2)
			b.p[at + 4] = 13;
		if (k == 3)
			b.len -= 5;
		struct want w[] = {{1000, 4, 4, 1, 0, 0, 0}};
		expect(&b, w, 1, true);
		struct rt_pcapfile *f;
		struct rt_frame fr[4];
		assert_int_equal(rt_pcapfile_open_mem(&f, b.p, b.len, 0, "t", errbuf), 0);
		assert_int_equal(rt_pcapfile_next(f, fr, 4, errbuf), 1);
		assert_true(rt_pcapfile_next(f, fr, 4, errbuf) < 0);
		assert_non_null(strstr(errbuf, what[k]));
		rt_pcapfile_close(f);
	}
	/* a resolution finer than 64 bits hold */
	b.len = 0;
	shb(&b);
	idb(&b, 1, 0, 20, 0);
	assert_true(open_err(&b, errbuf) < 0);
	assert_non_null(strstr(errbuf, "too fine"));
	free(b.p);
}

/* gzip'd files read as the plain ones, in one member or two; a cut gzip file is an error. */
static void test_gzip(void **state)
{
	(void)state;
	struct buf b = {0};
	pcap_header(&b, 0xA1B2C3D4, 65535, 1);
	struct want w[40];
	for (unsigned i = 0; i < 40; i++) {
		pcap_rec(&b, 1700000000 + i, i, 100 + i, 200, i);
		w[i] = (struct want){(1700000000ull + i) * 1000000000u + i * 1000u, 100 + i, 200, 1, 0, i, 0};
	}
	for (int two = 0; two < 2; two++) {
		struct buf z = gzip(&b, two);
		expect(&z, w, 40, false);
		char errbuf[RT_ERRBUF_SIZE];
		struct rt_pcapfile *f;
		assert_int_equal(rt_pcapfile_open_mem(&f, z.p, z.len, 0, "t.gz", errbuf), 0);
		assert_true(rt_pcapfile_info(f)->gzip);
		rt_pcapfile_close(f);
		/* bytes after the last member are ignored, as gzip -d does */
		put(&z, "\0\0\0\0", 4);
		expect(&z, w, 40, false);
		/* cut inside the compressed data: some frames, then an error */
		z.len -= 4 + 30;
		assert_int_equal(rt_pcapfile_open_mem(&f, z.p, z.len, 0, "t.gz", errbuf), 0);
		struct rt_frame fr[64];
		int rc, got = 0;
		while ((rc = rt_pcapfile_next(f, fr, 64, errbuf)) > 0)
			got += rc;
		assert_true(rc < 0);
		assert_true(got < 40);
		rt_pcapfile_close(f);
		free(z.p);
	}
	free(b.p);
}

/* A descriptor: the reader takes what each read(2) gives from a pipe. */
static void test_pipe(void **state)
{
	(void)state;
	struct buf b = {0};
	shb(&b);
	idb(&b, 1, 0, 9, 0);
	for (unsigned i = 0; i < 20; i++)
		epb(&b, 0, 1000 + i, 60, 60, i);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_true(b.len < 65536);
	assert_int_equal(write(fds[1], b.p, b.len), (ssize_t)b.len);
	close(fds[1]);
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *f;
	assert_int_equal(rt_pcapfile_open_fd(&f, fds[0], true, "pipe", errbuf), 0);
	struct rt_frame fr[7];
	int rc, got = 0;
	while ((rc = rt_pcapfile_next(f, fr, 7, errbuf)) > 0) {
		for (int i = 0; i < rc; i++)
			assert_int_equal(fr[i].ts_ns, 1000 + (unsigned)(got + i));
		got += rc;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(got, 20);
	rt_pcapfile_close(f);
	free(b.p);
}

/* ---- cross-check with libpcap ---- */

static char **dirs;
static int ndirs;

/* Every frame of `path` as libpcap reads it (nanosecond precision) against the native reader, plain and gzip'd. */
static void cross_check(const char *path)
{
	char perr[PCAP_ERRBUF_SIZE], errbuf[RT_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	assert_non_null(pc);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	struct buf raw = {0};
	uint8_t tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		put(&raw, tmp, n);
	fclose(fp);
	struct buf gz = gzip(&raw, false);
	struct rt_pcapfile *f[2];
	assert_int_equal(rt_pcapfile_open_mem(&f[0], raw.p, raw.len, 0, path, errbuf), 0);
	assert_int_equal(rt_pcapfile_open_mem(&f[1], gz.p, gz.len, 4096, path, errbuf), 0);
	int dlt = pcap_datalink(pc);
	int want_lt = dlt == DLT_RAW ? 101 : dlt;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t frames = 0;
	while (pcap_next_ex(pc, &h, &data) == 1) {
		frames++;
		for (int k = 0; k < 2; k++) {
			struct rt_frame fr;
			assert_int_equal(rt_pcapfile_next(f[k], &fr, 1, errbuf), 1);
			/* libpcap sign-extends the 32-bit seconds of classic pcap: read them unsigned */
			uint64_t sec = rt_pcapfile_info(f[k])->format == RT_PCAPFILE_PCAP ? (uint32_t)h->ts.tv_sec
											 : (uint64_t)h->ts.tv_sec;
			assert_int_equal(fr.ts_ns, sec * 1000000000u + (uint64_t)h->ts.tv_usec);
			assert_int_equal(fr.caplen, h->caplen);
			assert_int_equal(fr.wirelen, h->len);
			assert_int_equal(fr.linktype, want_lt);
			assert_int_equal(fr.seq, frames);
			assert_memory_equal(fr.data, data, h->caplen);
		}
	}
	for (int k = 0; k < 2; k++) {
		struct rt_frame fr;
		assert_int_equal(rt_pcapfile_next(f[k], &fr, 1, errbuf), 0);
		rt_pcapfile_close(f[k]);
	}
	assert_true(frames > 0);
	pcap_close(pc);
	free(raw.p);
	free(gz.p);
}

static void test_libpcap_cross_check(void **state)
{
	(void)state;
	unsigned files = 0;
	for (int d = 0; d < ndirs; d++) {
		DIR *dir = opendir(dirs[d]);
		assert_non_null(dir);
		struct dirent *de;
		while ((de = readdir(dir)) != NULL) {
			size_t l = strlen(de->d_name);
			if (!(l > 5 && !strcmp(de->d_name + l - 5, ".pcap")) &&
			    !(l > 7 && !strcmp(de->d_name + l - 7, ".pcapng")))
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
			cross_check(path);
			files++;
		}
		closedir(dir);
	}
	if (ndirs && !files)
		fail_msg("no capture files in the directories given");
	print_message("%u files read alike\n", files);
}

int main(int argc, char **argv)
{
	dirs = argv + 1;
	ndirs = argc - 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pcap_micro_le),
	    cmocka_unit_test(test_pcap_nano_be_y2038),
	    cmocka_unit_test(test_pcap_snaplen_and_limits),
	    cmocka_unit_test(test_pcap_cut),
	    cmocka_unit_test(test_not_a_capture),
	    cmocka_unit_test(test_pcapng_one_section),
	    cmocka_unit_test(test_pcapng_two_sections),
	    cmocka_unit_test(test_pcapng_errors),
	    cmocka_unit_test(test_gzip),
	    cmocka_unit_test(test_pipe),
	    cmocka_unit_test(test_libpcap_cross_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Structure-aware libFuzzer target of the capture file reader: the input describes a capture (sizes, counts, compression), tests/capture/capgen.c writes it, the reader must give back what was written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/pcapfile.h"
#include "capture/read_limits.h"
#include "common/satmath.h"
#include "tests/capture/capgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Frame bytes a description may make the capture hold: big inputs, bounded
 * (and less when read a few bytes at a time), so a run takes seconds.
 */
#define FRAME_BYTES_MAX   (24u << 20)
#define FRAME_BYTES_CHUNK (64u << 10) /* times the read size when reads are of 1 to 256 bytes */
#define GZIP_BIG          (2u << 20)  /* frame bytes past which gzip levels above 1 are 1 */
#define FRAMES_MAX        4096u
#define SIZES_MAX         8u

/*
 * The description, read in this order (bytes past its end read 0):
 *  flags (1): bit 0 pcapng, 1 big-endian, 2 ns timestamps, 3 gzip, 4 frame
 *             bytes that compress well, 5 ISBs, 6-7 read size (whole reads,
 *             1 + the next byte, 4093, 65536 bytes at a time)
 *  [read size (1) when bits 6-7 are 1]
 *  gzip (2): level (% 10), members (% 64 + 1), comment bytes (units of 4 KiB:
 *            moves the compressed sizes across the input buffer)
 *  interfaces (1): pcapng interfaces (% 4 + 1), link types chosen by its bits
 *  snap length (1): classic pcap's, from a table
 *  frames (2): how many (% (FRAMES_MAX + 1)), then the time step (1)
 *  sizes (1 + 2 each): their count (% SIZES_MAX + 1), then per size a class
 *            (a size near one of the reader's limits) and an offset from it
 *            (-128 to 127); frame i takes size i % count
 *  garbage (1): bytes after the last gzip member that cannot start one
 * Frames past FRAME_BYTES_MAX (FRAME_BYTES_CHUNK times the read size for
 * small reads) are left out; past GZIP_BIG bytes the gzip level is at most 1.
 *  drops (1 per interface, with bit 5): isb_ifdrop and isb_osdrop chosen from
 *            a table (UINT64_MAX: some writers' "not counted")
 */
struct desc {
	const uint8_t *p;
	size_t n, at;
};

static uint8_t d8(struct desc *d)
{
	return d->at < d->n ? d->p[d->at++] : 0;
}

static uint16_t d16(struct desc *d)
{
	uint16_t lo = d8(d);
	return (uint16_t)(lo | d8(d) << 8);
}

/* A frame size near one of the reader's buffers and limits, at most `max`. */
static uint32_t frame_size(struct desc *d, uint32_t max)
{
	static const uint32_t near[] = {
	    0,
	    60,
	    1500,
	    9000,
	    65536,
	    RT_READ_GZIP_IN_SIZE - 16,
	    RT_READ_GZIP_IN_SIZE - 32,
	    RT_READ_PCAP_MAX_CAPLEN,
	    RT_READ_BUF_SIZE - 16,
	    RT_READ_BUF_SIZE - 32,
	    2 * RT_READ_BUF_SIZE,
	    RT_READ_PCAPNG_MAX_BLOCK - 32,
	};
	uint32_t base = near[d8(d) % (sizeof(near) / sizeof(near[0]))];
	int64_t s = (int64_t)base + (int64_t)d8(d) - 128;
	return s < 0 ? 0 : s > max ? max : (uint32_t)s;
}

static const uint64_t drop_values[] = {0, 1, 7, 1ull << 32, 1ull << 63, UINT64_MAX - 1, UINT64_MAX};

/* Drops as the reader must sum them: UINT64_MAX is no count; sums stop at UINT64_MAX. */
static void add_drops(struct rt_pcapfile_drops *want, uint64_t ifd, uint64_t osd)
{
	if (ifd == UINT64_MAX && osd == UINT64_MAX)
		return;
	want->known = true;
	want->if_dropped = rt_sat_add_u64(want->if_dropped, ifd == UINT64_MAX ? 0 : ifd);
	want->os_dropped = rt_sat_add_u64(want->os_dropped, osd == UINT64_MAX ? 0 : osd);
}

/* The capture the description asks for into f; its drops into *want. Returns the read size. */
static size_t build(struct desc *d, struct cg_file *f, struct rt_pcapfile_drops *want, bool *gz,
                    int *level, unsigned *members, size_t *comment, size_t *garbage)
{
	uint8_t flags = d8(d);
	static const size_t reads[] = {0, 0, 4093, 65536};
	size_t chunk = (flags >> 6) == 1 ? 1u + d8(d) : reads[flags >> 6];
	*gz = flags & 8;
	*level = d8(d) % 10;
	*members = d8(d) % 64 + 1;
	*comment = (size_t)d8(d) * 4096;
	uint8_t ifs = d8(d), snap_i = d8(d);
	bool pcapng = flags & 1, be = flags & 2, nano = flags & 4;
	static const int links[] = {1, 101, 113, 276};
	static const uint32_t snaps[] = {0, 60, 65535, RT_READ_PCAP_MAX_CAPLEN, 100000000};
	uint32_t nifaces = pcapng ? ifs % 4u + 1 : 1, max;
	if (pcapng) {
		cg_pcapng(f, be);
		for (uint32_t i = 0; i < nifaces; i++)
			cg_idb(f, links[(ifs >> (2 + 2 * i)) & 3], 0, nano);
		max = RT_READ_PCAPNG_MAX_BLOCK - 32;
	} else {
		cg_pcap(f, be, nano, links[ifs & 3], snaps[snap_i % 5]);
		max = RT_READ_PCAP_MAX_CAPLEN;
	}
	uint32_t nframes = d16(d) % (FRAMES_MAX + 1), step = 1u + d8(d) * 1000u;
	uint32_t sizes[SIZES_MAX], nsizes = d8(d) % SIZES_MAX + 1;
	for (uint32_t i = 0; i < nsizes; i++)
		sizes[i] = frame_size(d, max);
	uint64_t bytes = 0, ts = 1700000000000000000ull;
	uint64_t budget = chunk && chunk <= 256 ? FRAME_BYTES_CHUNK * chunk : FRAME_BYTES_MAX;
	uint32_t pattern = flags & 16 ? 0x80000000u : 0;
	for (uint32_t i = 0; i < nframes; i++) {
		uint32_t caplen = sizes[i % nsizes];
		if ((bytes += caplen) > budget)
			break;
		cg_frame(f, i % nifaces, ts, caplen, caplen + (i & 1) * 4, pattern | i);
		ts += step;
	}
	if (bytes > GZIP_BIG && *level > 1)
		*level = 1;
	uint8_t g = d8(d);
	*garbage = *gz ? g : 0; /* after a plain capture any byte is a cut record */
	memset(want, 0, sizeof(*want));
	want->interfaces = nifaces;
	for (uint32_t i = 0; pcapng && (flags & 32) && i < nifaces; i++) {
		uint8_t v = d8(d);
		uint64_t ifd = drop_values[(v & 15) % 7], osd = drop_values[(v >> 4) % 7];
		cg_isb(f, i, 0, ifd, osd);
		add_drops(want, ifd, osd);
	}
	return chunk;
}

static void check(bool ok, const char *what, const char *why)
{
	if (!ok) {
		fprintf(stderr, "fuzz_capgen: %s: %s\n", what, why);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct desc d = {data, size, 0};
	struct cg_file f;
	struct rt_pcapfile_drops want;
	bool gz;
	int level;
	unsigned members;
	size_t comment, garbage;
	size_t chunk = build(&d, &f, &want, &gz, &level, &members, &comment, &garbage);
	struct cg_bytes z = {0};
	const struct cg_bytes *in = &f.b;
	if (gz) {
		cg_gzip(&z, f.b.p, f.b.len, members, level, comment);
		for (size_t i = 0; i < garbage; i++)
			cg_put(&z, i ? "g" : "\x20", 1); /* never gzip's 0x1f first */
		in = &z;
	}
	char why[512], errbuf[RT_ERRBUF_SIZE];
	struct rt_pcapfile *r;
	check(rt_pcapfile_open_mem(&r, in->p, in->len, chunk, "generated", errbuf) == 0, "open",
	      errbuf);
	check(cg_check(&f, r, why, sizeof(why)) == 0, "frames", why);
	struct rt_pcapfile_drops got;
	rt_pcapfile_drops(r, &got);
	check(got.known == want.known && got.if_dropped == want.if_dropped &&
	          got.os_dropped == want.os_dropped && got.interfaces == want.interfaces,
	      "drops", "the reader's sums differ from the ISBs written");
	rt_pcapfile_close(r);
	cg_bytes_free(&z);
	cg_free(&f);
	return 0;
}

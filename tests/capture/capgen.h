/* Capture files generated from a description, with the truth of what they hold: the reader's boundary tests and its structure-aware fuzz target. */
#ifndef RT_TEST_CAPGEN_H
#define RT_TEST_CAPGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/pcapfile.h"

/* Bytes that grow (abort() when out of memory: these build tests' and fuzzers' inputs); cg_put of NULL reserves n bytes. */
struct cg_bytes {
	uint8_t *p;
	size_t len, cap;
};
void cg_put(struct cg_bytes *b, const void *v, size_t n);
void cg_bytes_free(struct cg_bytes *b);

/* A frame as written: what the reader must hand back. */
struct cg_frame {
	uint64_t ts_ns;
	uint32_t caplen, wirelen;
	int linktype;
	uint32_t iface;
	uint32_t seed; /* its bytes are cg_frame_bytes(seed) */
};

#define CG_MAX_IFACES 16

/* A capture being written, and its truth. */
struct cg_file {
	struct cg_bytes b;
	bool pcapng, be;
	uint32_t pcap_unit_ns; /* classic pcap: ns per unit of the fraction (1000, or 1 for ns) */
	int pcap_linktype;
	uint32_t pcap_snaplen; /* classic pcap: frames are cut to it (as the reader cuts them) */
	uint32_t nifaces;
	struct {
		int linktype;
		uint64_t unit_ns; /* if_tsresol: 1000 (no option) or 1 */
	} ifaces[CG_MAX_IFACES];
	struct cg_frame *frames;
	size_t nframes, cap_frames;
};

/*
 * Frame bytes: a pseudo-random stream for `seed` (incompressible), or a
 * repeating pattern when seed has bit 31 set (compresses well).
 */
void cg_frame_bytes(uint32_t seed, uint8_t *out, size_t n);

/* A classic pcap file header (nano: nanosecond magic; be: big-endian). */
void cg_pcap(struct cg_file *f, bool be, bool nano, int linktype, uint32_t snaplen);
/* A pcapng section header; then cg_idb for each interface. */
void cg_pcapng(struct cg_file *f, bool be);
/* An interface description (nano: if_tsresol 9, else the default microseconds); its id. */
uint32_t cg_idb(struct cg_file *f, int linktype, uint32_t snaplen, bool nano);
/* The same with an if_name of `len` bytes of `name`. */
uint32_t cg_idb_named(struct cg_file *f, int linktype, bool nano, const char *name, size_t len);
/*
 * A frame of `caplen` bytes (a pcapng EPB on `iface`, else a pcap record),
 * its time cut to the interface's resolution.
 */
void cg_frame(struct cg_file *f, uint32_t iface, uint64_t ts_ns, uint32_t caplen, uint32_t wirelen,
              uint32_t seed);
/* An interface statistics block: isb_starttime (in the interface's units), isb_ifdrop, isb_osdrop. */
void cg_isb(struct cg_file *f, uint32_t iface, uint64_t start, uint64_t ifdrop, uint64_t osdrop);
/* The bytes of a pcapng EPB of `caplen` bytes (the record size of classic pcap is 16 + caplen). */
size_t cg_epb_size(uint32_t caplen);
void cg_free(struct cg_file *f);

/*
 * `in` gzip'd into `out` (appended) as `members` members (at least 1) cut
 * at even byte offsets, deflated at `level` (0-9). `comment` > 0 gives the
 * first member a comment of that many bytes (its NUL included): a file of
 * an exact size is cg_gzip_size() + comment bytes.
 */
void cg_gzip(struct cg_bytes *out, const uint8_t *in, size_t len, unsigned members, int level,
             size_t comment);
size_t cg_gzip_size(const uint8_t *in, size_t len, unsigned members, int level);

/*
 * Read `r` to its end and compare every frame with the truth. Returns 0,
 * or -1 with `why` saying what differs (or the reader's error).
 */
int cg_check(const struct cg_file *f, struct rt_pcapfile *r, char *why, size_t size);
/* cg_check() of `data` (f's bytes, or a compressed copy) read from memory `chunk` bytes at a time. */
int cg_check_mem(const struct cg_file *f, const uint8_t *data, size_t len, size_t chunk, char *why,
                 size_t size);

#endif

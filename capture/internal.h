/* Internals of capture/ (not for use outside it): source ops, verbs figures, the file reader. */
#ifndef RT_CAPTURE_INTERNAL_H
#define RT_CAPTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#include "capture/pcapfile.h"
#include "capture/read_limits.h"
#include "capture/source.h"
#include "rt_config.h"

extern const struct rt_source_ops rt_source_file_ops;
extern const struct rt_source_ops rt_source_pcap_ops;
#if RT_HAVE_IBVERBS
extern const struct rt_source_ops rt_source_verbs_ops;
#endif

/* The verbs sources' list(): every port of every RDMA device in sysfs (built with libibverbs or not). */
int rt_rdma_source_list(const struct rt_source_config *cfg, rt_source_list_fn fn, void *ctx,
                        char *errbuf);

/*
 * A capture file's place in a rotated set: the number its name ends with
 * (OUT.N as capture -C/-G writes it, NAME.pcapN / NAME.pcapngN / NAME.capN
 * as tcpdump -C/-W does; a final ".gz" ignored), or -1 for an unnumbered
 * name. `stem` gets the path without the number (and ".gz"): files of one
 * set share it ("run.pcapng", "run.pcapng.1" -> "run.pcapng").
 */
long rt_fileset_rotation(const char *path, char *stem, size_t size);
/* The name a vantage point takes from its first file: no folder, ".gz", number or capture extension ("h1/run.pcapng.2.gz" -> "run"; "-" -> "stdin"). */
void rt_fileset_point_name(const char *path, char *name, size_t size);

/* The verbs sniffer: receive ring entries when -B is not given, and the smallest accepted. */
#define RT_VERBS_DEFAULT_RING 4096u
#define RT_VERBS_MIN_RING     64u
/* Frames handed out per next() call at most (the caller's batch may be smaller). */
#define RT_VERBS_POLL_BATCH 64
/* Receive buffer size when the port's netdev MTU cannot be read (a 9000-byte MTU jumbo frame fits). */
#define RT_VERBS_DEFAULT_SLOT 9216u

/* Nanoseconds of a raw HCA clock delta at hca_core_clock kHz (no overflow for any delta). */
static inline uint64_t rt_verbs_cycles_to_ns(uint64_t cycles, uint64_t khz)
{
	uint64_t per_s = khz * 1000u;
	return cycles / per_s * 1000000000u + cycles % per_s * 1000000u / khz;
}

/* ---- the capture file reader (capture/pcapfile.h), across pcapfile*.c ---- */

#define RT_PCAP_MAGIC_US 0xA1B2C3D4u /* classic pcap, microseconds */
#define RT_PCAP_MAGIC_NS 0xA1B23C4Du /* classic pcap, nanoseconds */
#define RT_PCAPNG_SHB    0x0A0D0D0Au /* pcapng section header block: the file's first bytes */

/* One pcapng interface description (classic pcap has one, described by the file header). */
struct rt_pcapfile_iface {
	int linktype;
	uint32_t snaplen;
	uint8_t ts_kind, ts_shift; /* enum ts_kind of pcapfile_pcapng.c */
	uint64_t ts_factor;
	int64_t ts_offset_ns; /* if_tsoffset (seconds, signed) in ns */
	bool drops_known;
	uint64_t if_dropped, os_dropped; /* from the interface's latest ISB */
	uint64_t isb_start; /* its isb_starttime in the interface's units, 0 when absent */
	char name[RT_READ_IFNAME_SIZE]; /* if_name, cut to fit; "" when absent */
};

/* The reader (pcapfile.c opens, pcapfile_input.c fills the buffer, pcapfile_pcap*.c parse it). */
struct rt_pcapfile {
	char name[128];
	struct rt_pcapfile_info info;
	/* raw input: a descriptor, or memory taken `chunk` bytes at a time */
	int fd;
	bool own_fd, is_mem;
	const uint8_t *mem;
	size_t mem_len, mem_off, chunk;
	bool raw_eof;
	/* gzip: compressed bytes in zin, inflated into buf */
	z_stream z;
	bool z_ready;
	uint8_t z_state;   /* enum gz_state of pcapfile_input.c */
	uint8_t *zin;      /* RT_READ_GZIP_IN_SIZE bytes */
	uint64_t z_read;   /* compressed bytes read so far */
	uint64_t z_member; /* where the member being inflated starts in the file */
	struct gz_thread
	    *zt; /* a regular file's inflate on a thread of its own (pcapfile_input.c) */
	/* unread bytes are buf[pos, end) */
	uint8_t *buf;
	size_t cap, pos, end;
	/*
	 * A plain regular file is mapped (map, its map_len bytes) and buf
	 * points into it: frames are handed out where they lie, the pages
	 * behind the reading released (released: bytes from map's start),
	 * unless the mapping was handed to the caller (rt_pcapfile_hold:
	 * held, then never released nor unmapped here).
	 */
	uint8_t *map;
	size_t map_len, released;
	bool held;
	bool swapped;     /* the file (or section) is in the other byte order */
	uint32_t ts_mult; /* classic pcap: ns per fraction unit (1000 or 1) */
	uint32_t snaplen; /* classic pcap: frames are cut to this */
	struct rt_pcapfile_iface *ifaces;
	uint32_t nifaces, cap_ifaces;
	uint32_t section_base; /* first interface of the current pcapng section */
	uint64_t fingerprint;  /* hash of the interface descriptions (the classic pcap header) */
	uint64_t seq;          /* packet records read */
	int err;               /* a fatal error met after frames were handed out, reported next */
	char errmsg[RT_ERRBUF_SIZE];
};

/* A field of the file in its byte order. */
/* FNV-1a over len bytes, continuing from h: a file's fingerprint of its interface descriptions. */
static inline uint64_t rt_pcapfile_fnv1a(uint64_t h, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static inline uint16_t rt_pcapfile_rd16(const struct rt_pcapfile *f, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return f->swapped ? __builtin_bswap16(v) : v;
}

static inline uint32_t rt_pcapfile_rd32(const struct rt_pcapfile *f, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return f->swapped ? __builtin_bswap32(v) : v;
}

static inline uint64_t rt_pcapfile_rd64(const struct rt_pcapfile *f, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return f->swapped ? __builtin_bswap64(v) : v;
}

/* What parsing the record or block at pos gave. */
enum rt_pcapfile_rec {
	RT_PCAPFILE_REC_NONE = 0,  /* a block that holds no frame */
	RT_PCAPFILE_REC_FRAME = 1, /* a frame */
	RT_PCAPFILE_REC_NEED = 2,  /* not all there yet: *need bytes are */
};

/*
 * The input (pcapfile_input.c): its first bytes, which tell gzip'd input
 * (0; 1 when it holds fewer than 2 bytes, the byte read in buf; or -errno), then
 * more bytes into buf, and `need` bytes made available at pos.
 */
int rt_pcapfile_start(struct rt_pcapfile *f, char *errbuf);
ssize_t rt_pcapfile_refill(struct rt_pcapfile *f, size_t need, char *errbuf);
/* End the inflate thread (none: nothing). */
void rt_pcapfile_gz_stop(struct rt_pcapfile *f);
/* Unmap the file, or free the buffer. */
void rt_pcapfile_unmap(struct rt_pcapfile *f);
int rt_pcapfile_want(struct rt_pcapfile *f, size_t need, char *errbuf);

/* Classic pcap (pcapfile_pcap.c): the file header (magic as read, either byte order), then one
 * record at pos (avail bytes there): an enum rt_pcapfile_rec with *fr filled or *need set, or a
 * negative errno. */
int rt_pcapfile_open_pcap(struct rt_pcapfile *f, uint32_t magic, char *errbuf);
int rt_pcapfile_pcap_record(struct rt_pcapfile *f, struct rt_frame *fr, size_t avail, size_t *need,
                            char *errbuf);
/* pcapng (pcapfile_pcapng.c): the first section header and blocks up to the first interface
 * description, then one block at pos, likewise. */
int rt_pcapfile_open_pcapng(struct rt_pcapfile *f, char *errbuf);
int rt_pcapfile_ng_block(struct rt_pcapfile *f, struct rt_frame *fr, size_t avail, size_t *need,
                         char *errbuf);

#endif

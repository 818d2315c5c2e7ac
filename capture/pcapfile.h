/* Native reader of saved captures: classic pcap and pcapng, plain or gzip-compressed, from a file descriptor or memory. */
#ifndef RT_PCAPFILE_H
#define RT_PCAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/source.h"

enum rt_pcapfile_format {
	RT_PCAPFILE_PCAP = 0, /* classic pcap, micro- or nanosecond, either byte order */
	RT_PCAPFILE_PCAPNG,
};

/* What the file's header says. */
struct rt_pcapfile_info {
	enum rt_pcapfile_format format;
	bool gzip;        /* the bytes were gzip-compressed */
	int linktype;     /* pcap LINKTYPE_ of the first interface */
	uint32_t snaplen; /* snap length of the first interface (0 = none given) */
};

/* Capture drops the file records: pcapng interface statistics blocks (ISB). */
struct rt_pcapfile_drops {
	bool known; /* some ISB holds isb_ifdrop or isb_osdrop */
	uint64_t
	    if_dropped; /* isb_ifdrop of the last ISB of each interface, summed over interfaces and sections */
	uint64_t os_dropped; /* isb_osdrop, likewise */
	uint32_t interfaces; /* interfaces described (every section's IDBs; 1 for classic pcap) */
};

struct rt_pcapfile;

/*
 * Read the capture on `fd` (a file, pipe or terminal; closed by
 * rt_pcapfile_close() when `own_fd`). Reads the header (blocking until it
 * arrives); `name` is used in messages. Returns 0 or a negative errno with
 * errbuf filled.
 */
int rt_pcapfile_open_fd(struct rt_pcapfile **out, int fd, bool own_fd, const char *name,
                        char *errbuf);
/*
 * Read a capture held in memory (`data` stays valid until close), taking at
 * most `chunk` bytes at a time as a file read would (0 = any amount): tests
 * and fuzzers use small chunks to cut records at every byte.
 */
int rt_pcapfile_open_mem(struct rt_pcapfile **out, const void *data, size_t len, size_t chunk,
                         const char *name, char *errbuf);
const struct rt_pcapfile_info *rt_pcapfile_info(const struct rt_pcapfile *f);
/*
 * Up to `max` frames in file order into `frames` (data pointing into the
 * reader's buffer, valid until the next call or close; seq numbered from 1
 * over every packet record; linktype and interface_id set). Returns the
 * count, 0 at the end of the file, -EINTR when a read was interrupted by a
 * signal (call again), or another negative errno with errbuf filled (a file
 * cut in the middle of a record, a malformed record).
 */
int rt_pcapfile_next(struct rt_pcapfile *f, struct rt_frame *frames, int max, char *errbuf);
/* Snap length of interface `interface_id` (as in rt_frame), 0 when unknown. */
uint32_t rt_pcapfile_snaplen(const struct rt_pcapfile *f, uint32_t interface_id);
/* Drops recorded so far (ISBs usually come last: ask at the end). */
void rt_pcapfile_drops(const struct rt_pcapfile *f, struct rt_pcapfile_drops *out);
/* What the latest ISB of one interface (as in rt_frame.interface_id) recorded. */
struct rt_pcapfile_iface_drops {
	bool known; /* it holds isb_ifdrop or isb_osdrop */
	uint64_t if_dropped, os_dropped;
	/*
	 * Its isb_starttime in the interface's timestamp units (0: none). ISBs
	 * count from the capture's start, so files of one rotated capture
	 * share it and the last one holds the whole capture's drops.
	 */
	uint64_t start;
};
void rt_pcapfile_iface_drops(const struct rt_pcapfile *f, uint32_t interface_id,
                             struct rt_pcapfile_iface_drops *out);
/* The if_name of interface `interface_id` (as in rt_frame; cut at 63 bytes), "" when none is given. */
const char *rt_pcapfile_iface_name(const struct rt_pcapfile *f, uint32_t interface_id);
/* Interfaces described so far (every section's; 1 for classic pcap). */
uint32_t rt_pcapfile_interfaces(const struct rt_pcapfile *f);
/*
 * A hash of how the file describes its capture: the classic pcap header
 * (magic, version, snap length, link type), or the bytes of every pcapng
 * interface description before the first frame. Files of one rotated
 * capture share it.
 */
uint64_t rt_pcapfile_fingerprint(const struct rt_pcapfile *f);
/*
 * A plain file read where it lies in a mapping: the mapping becomes the
 * caller's (*base, *len: the whole file, private and read-only), so that
 * the frames handed out from it stay readable after they are used and
 * after the close. The reader releases none of its pages from now on (the
 * caller may: rt_map_release, the bytes read again from the file), no
 * longer maps them ahead of its reading (the caller may,
 * rt_map_range: else each page is mapped as the reading touches it)
 * and leaves the munmap() to the caller. 0, or -ENOTSUP when the file is
 * not mapped (gzip, a pipe, standard input, memory).
 */
int rt_pcapfile_hold(struct rt_pcapfile *f, const uint8_t **base, size_t *len);
void rt_pcapfile_close(struct rt_pcapfile *f);

#endif

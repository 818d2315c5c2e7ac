/* Capture file writers: pcapng (SHB, IDBs, EPBs, ISB) and classic nanosecond pcap. */
#ifndef RT_WRITER_H
#define RT_WRITER_H

#include <stdint.h>
#include <time.h>

#include "capture/source.h"

enum rt_write_format {
	RT_FORMAT_PCAPNG = 0,
	RT_FORMAT_PCAP_NS, /* classic pcap, magic 0xa1b23c4d (nanosecond timestamps) */
};

#define RT_WRITER_MAX_IFACES 256

struct rt_writer_config {
	enum rt_write_format format;
	/*
	 * Output path, "-" for standard output. With rotation the files are
	 * PATH, PATH.1, PATH.2, ...; a PATH holding '%' is an strftime() pattern
	 * expanded with the local time each file is opened at. A file that is
	 * a symbolic link is refused (ELOOP).
	 */
	const char *path;
	uint64_t rotate_seconds; /* -G: start a new file after this long (0 = never) */
	uint64_t rotate_bytes;   /* -C: start a new file before this size is passed (0 = never) */
	const char *application; /* written in the SHB (shb_userappl) */
	/* pcapng: the section's comment (opt_comment of the SHB; at most 65000 bytes), or NULL */
	const char *comment;
};

/* Interface statistics written in the ISB of each file (cumulative since the capture began). */
typedef void (*rt_writer_stats_fn)(void *ctx, int if_id, struct rt_source_stats *st);

struct rt_writer;

/* Create the first file. Returns 0 or a negative errno with errbuf set. */
int rt_writer_open(struct rt_writer **out, const struct rt_writer_config *cfg, char *errbuf);
/*
 * Describe one capture interface (pcapng IDB); returns its interface id
 * (>= 0) or a negative errno. Classic pcap holds one interface only. One
 * added after frames were written is described where it comes (and at the
 * start of each later file of a rotation).
 */
int rt_writer_add_interface(struct rt_writer *w, const char *name, int linktype, uint32_t snaplen,
                            enum rt_ts_source ts_source, char *errbuf);
/* Called when a file is finished, to fill its ISB (optional). */
void rt_writer_set_stats_fn(struct rt_writer *w, rt_writer_stats_fn fn, void *ctx);
/*
 * Append one frame: copied into a 1 MiB buffer (no system call and no
 * allocation per frame; the buffer is written out when full or flushed).
 * Rotates first when -G/-C ask for it.
 */
int rt_writer_write(struct rt_writer *w, int if_id, const struct rt_frame *f, char *errbuf);
/* Push buffered bytes to the file. */
int rt_writer_flush(struct rt_writer *w, char *errbuf);
/* Frames whose bytes reached a file so far, over all files (buffered frames are not counted). */
uint64_t rt_writer_count(const struct rt_writer *w);
/* Name of the file being written. */
const char *rt_writer_current_path(const struct rt_writer *w);
/*
 * Write the ISBs, flush and close the file; then only rt_writer_count()
 * and rt_writer_close() may be called. Returns 0 or a negative errno.
 */
int rt_writer_finish(struct rt_writer *w, char *errbuf);
/* rt_writer_finish() unless done, and free w. Returns 0 or a negative errno (w is freed anyway). */
int rt_writer_close(struct rt_writer *w, char *errbuf);

/* Name of a ts_source as written in the IDB comment ("hardware (NIC wall clock)", ...). */
const char *rt_ts_source_name(enum rt_ts_source ts);

#endif

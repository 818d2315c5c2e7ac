/* Capture sources behind one ops table (file, libpcap live, verbs sniffer) and the registry that picks one by name. */
#ifndef RT_SOURCE_H
#define RT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "dissect/dissect.h"

/* How a source timestamps frames (recorded in pcapng interface blocks). */
enum rt_ts_source {
	RT_TS_FILE = 0,     /* as stored in the file */
	RT_TS_SOFTWARE,     /* kernel or system clock */
	RT_TS_HW_WALLCLOCK, /* NIC completion time in wall-clock ns */
	RT_TS_HW_RAW,       /* NIC raw clock converted with the HCA core clock */
};

struct rt_source_config {
	uint32_t snaplen; /* 0 = full frames */
	uint32_t
	    buffer_count; /* -B: receive ring entries (verbs) or KiB of kernel buffer (pcap); 0 = default */
	const char *bpf; /* filter expression or NULL */
	int timeout_ms;  /* how long a live next() may wait before -EAGAIN; 0 = default (100 ms) */
	const char *sysfs_root; /* where class/infiniband and class/net live; NULL = "/sys" */
	bool immediate;         /* a person watches: deliver each frame at once, not in blocks */
};

struct rt_source_stats {
	uint64_t received; /* frames delivered */
	/*
	 * Frames lost before delivery: by the OS or the capture (kernel buffer,
	 * ring, error completions; a file: its pcapng ISBs' isb_osdrop)...
	 */
	uint64_t dropped;
	uint64_t if_dropped; /* ... and by the interface, where known (a file: isb_ifdrop) */
	uint64_t
	    ring_empty; /* verbs: times every receive buffer was in use (frames may have been lost) */
	/* the two drop counts are measured: always for live sources; a file: some ISB recorded them */
	bool drops_known;
};

struct rt_source;

/* A device a source can capture from, as rt_source_list() names it. */
struct rt_source_device {
	char name[80];  /* what -i takes: "mlx5_0:1", "eth0" */
	char desc[384]; /* one line about it: "link_layer Ethernet state ACTIVE netdev eth0" */
};

/* Called once per device rt_source_list() finds. */
typedef void (*rt_source_list_fn)(void *ctx, const struct rt_source_device *dev);

struct rt_source_ops {
	const char *kind; /* "file", "pcap", "verbs" */
	/* Does this source claim `name`? (first match in the registry wins) */
	bool (*is_ours)(const char *name, const struct rt_source_config *cfg);
	int (*open)(struct rt_source *src, const char *name, const struct rt_source_config *cfg,
	            char *errbuf);
	/*
	 * Up to `max` frames into `frames`. Returns the count (> 0), 0 at the
	 * end of input, -EAGAIN when a live source has nothing yet, -EINTR when
	 * rt_source_break() was called, or another negative errno with errbuf set.
	 */
	int (*next)(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf);
	int (*stats)(struct rt_source *src, struct rt_source_stats *st, char *errbuf);
	/* Ask a blocked next() to return -EINTR soon (async-signal-safe). */
	void (*breakloop)(struct rt_source *src);
	void (*close)(struct rt_source *src);
	/* The devices this source can open (NULL: it lists none); the count, or -errno with errbuf set. */
	int (*list)(const struct rt_source_config *cfg, rt_source_list_fn fn, void *ctx,
	            char *errbuf);
};

struct rt_source {
	const struct rt_source_ops *ops;
	char name[128];
	int linktype; /* enum rt_linktype (pcap LINKTYPE_) */
	uint32_t snaplen;
	enum rt_ts_source ts_source;
	void *priv;
	uint64_t seq; /* frames delivered, for sources that leave rt_frame.seq 0 */
	/*
	 * How long a frame may wait inside the source before next() can hand
	 * it over (libpcap block delivery: until the kernel retires the
	 * block); 0 when frames come at once. A stopping pump reads this much
	 * longer, so frames that arrived before the stop are not left behind.
	 */
	uint64_t hold_ns;
};

/*
 * Open the source that claims `name`: a file path or "-" (stdin) → file
 * reader; an RDMA device ("mlx5_0", "mlx5_0:2": listed in
 * SYSFS_ROOT/class/infiniband) → verbs sniffer (refused with a reason
 * where rocetrace was built without libibverbs); anything else → libpcap
 * live capture. Returns 0 or a negative errno with errbuf filled; *out is
 * set on success.
 */
int rt_source_open(struct rt_source **out, const char *name, const struct rt_source_config *cfg,
                   char *errbuf);
/*
 * The devices the sources of `kind` ("verbs": RDMA ports, "pcap": network
 * interfaces) can capture from, one call of fn each. Returns how many, or
 * a negative errno with errbuf filled.
 */
int rt_source_list(const char *kind, const struct rt_source_config *cfg, rt_source_list_fn fn,
                   void *ctx, char *errbuf);
/* True when sources of `kind` are built into this rocetrace ("verbs" needs libibverbs). */
bool rt_source_kind_built(const char *kind);

/* Open `name` as a saved capture (pcap/pcapng, "-" for stdin) whatever it looks like. */
int rt_source_open_file(struct rt_source **out, const char *path,
                        const struct rt_source_config *cfg, char *errbuf);

/* One file of a capture read from several, and the vantage point it was taken at. */
struct rt_source_file_spec {
	const char *path; /* pcap or pcapng, plain or gzip'd; "-" for standard input */
	const char *
	    vantage; /* its vantage point's name (--vantage NAME=FILE), or NULL: by the rule below */
};

/*
 * Read several saved captures as one stream in time order (a k-way merge:
 * each file is read in its own order, the next frame is the earliest of
 * the files' next frames; equal times keep file order). Memory grows with
 * the files read at the same time, never with frames.
 *
 * Vantage points. Files are grouped into vantage points, the places the
 * capture was taken at. A file with a `vantage` name belongs to that
 * point. The others are grouped by the rule:
 *  - files whose names number one rotated set (capture -C/-G's OUT, OUT.1,
 *    OUT.2; tcpdump -C/-W's trace.pcap, trace.pcap1; in one folder, a
 *    final .gz ignored: rt_fileset_rotation()) are one group; each other
 *    file is grouped with the files that describe their capture
 *    identically (the same pcapng interface descriptions, or the same
 *    classic pcap header: rt_pcapfile_fingerprint());
 *  - when the stream reaches a file's first frame, the file continues a
 *    vantage point of its group whose files have all ended before that
 *    frame (the one holding the file's predecessor in the set, else the
 *    one that ended last); when every such point is still being read
 *    (the captures overlap in time), it starts a vantage point of its own.
 * So a rotated set, given in any order, is one vantage point, and captures
 * of the same traffic from different places are several. A point takes
 * the name of its first file without folder, number and extension
 * (rt_fileset_point_name(); the path when two would share a name).
 *
 * Frames: interface_id is distinct for each (vantage point, interface of
 * its files): the first point keeps its files' interface numbers, the
 * others get new ones as they appear (rt_source_vantage_of() maps them
 * back); `file` is the index of the frame's file in `files`; seq is the
 * frame's position in the merged stream (a single file: its number in
 * the file, as Wireshark shows it), counting frames the filter skipped.
 * A file whose timestamps go backwards is read in its own order.
 *
 * Statistics: drops are those of each vantage point's files' pcapng
 * statistics blocks, per interface; a point's files that share an
 * isb_starttime (one rotated capture) count the last file's figures (each
 * one counts from the capture's start), others add up.
 *
 * Errors: a file that cannot be opened or read fails the open with one
 * line naming it; a file cut short is reported when the stream reaches
 * the cut, after the frames before it. The same file given twice is
 * refused.
 */
int rt_source_open_files(struct rt_source **out, const struct rt_source_file_spec *files, size_t n,
                         const struct rt_source_config *cfg, char *errbuf);

/*
 * True when `files` are one capture, taken by one capturing process with
 * one clock: a single file, the files of one rotated set by their names
 * (rt_fileset_rotation(): OUT, OUT.1, ...; trace.pcap, trace.pcap1, ...),
 * or files all given one vantage point's name. Known from the names alone,
 * before the files are opened. (Files grouped by their headers alone may
 * be captures of the same traffic at several places: not one capture.)
 */
bool rt_fileset_one_capture(const struct rt_source_file_spec *files, size_t n);

/* One file of a file source (rt_source_open_files(), or a single saved capture). */
struct rt_source_file_info {
	const char *path; /* as given; "-" is standard input */
	int vantage; /* its vantage point (rt_source_vantage_point()), -1 until the stream reaches it */
	int linktype;      /* its first interface's link type */
	uint32_t snaplen;  /* its first interface's snap length (0: none given) */
	bool gzip;         /* gzip-compressed */
	bool done;         /* read to its end */
	uint64_t frames;   /* its frames handed out so far (after the filter) */
	uint64_t first_ns; /* its first frame's timestamp (0 when it has none) */
	uint64_t last_ns;  /* the last one handed out (0: none yet) */
};

/*
 * How a frame's file describes the frame's interface: its if_name into
 * name ("" when none given; cut to size) and its snap length (0: none
 * given). Valid while the frame is (until the next rt_source_next()).
 * 0, or -ENOENT for a frame of a live source.
 */
int rt_source_frame_interface(const struct rt_source *src, const struct rt_frame *fr, char *name,
                              size_t size, uint32_t *snaplen);

/* Files of a file source (0 for live sources). */
unsigned rt_source_file_count(const struct rt_source *src);
/* File `i` into *out; 0, or -ENOENT when there is no such file. Pointers stay valid until close. */
int rt_source_file_info(const struct rt_source *src, unsigned i, struct rt_source_file_info *out);

/* A vantage point of a file source: where some of its files were captured. */
struct rt_vantage_point {
	const char *name;      /* the --vantage name, or taken from its first file */
	bool named;            /* named with rt_source_file_spec.vantage */
	unsigned nfiles;       /* its files so far ... */
	const unsigned *files; /* ... as rt_source_file_info() indexes, in the order read (time) */
	uint64_t frames;       /* frames of its files handed out so far (after the filter) */
};

/*
 * Vantage points known so far: the named ones from the open, the others
 * as the stream reaches their first file (all of them once it ended).
 * Point `i` into *out (valid until the next rt_source_next() or close);
 * 0, or -ENOENT when there is no such point.
 */
unsigned rt_source_vantage_count(const struct rt_source *src);
int rt_source_vantage_point(const struct rt_source *src, unsigned i, struct rt_vantage_point *out);
/* The vantage point of frames with this interface_id (as handed out), or -1 when none has it yet. */
int rt_source_vantage_of(const struct rt_source *src, uint32_t interface_id);

/*
 * Capture points: the places the analysis tells apart. A vantage point
 * whose frames come through one interface (one pcapng interface or classic
 * pcap; an SLL2 capture's frames all of one interface index) is one
 * capture point named as the vantage point. One whose files describe
 * several interfaces (a capture on two ports of a host, a switch mirror of
 * several ports) is a point per interface, and an SLL2 interface (Linux
 * `-i any`) whose frames name several interface indexes is a point per
 * index: the same packet seen on a veth and on its bridge is then two
 * sightings at two points, not one packet twice at one. Such a point is
 * named after the interface's if_name ("if N", the pcapng interface
 * number, when it has none or shares it) and "ifindex N": alone while
 * every point so far is of one unnamed vantage point ("eth0", "ifindex 3"), else after
 * its vantage point's name ("tor/eth0", "host1/ifindex 3"). The points
 * are numbered from 0: each named vantage point's first one from the open,
 * in the order the names were first given; the others as their first
 * frames come (at most 256 in all); unnamed vantage points without frames
 * follow them.
 */
unsigned rt_source_point_count(const struct rt_source *src);
/* Point `i` into *out (files: its vantage point's); 0 or -ENOENT. Valid until the next rt_source_next() or close. */
int rt_source_point(const struct rt_source *src, unsigned i, struct rt_vantage_point *out);
/*
 * The name of capture point `i` as the points counted so far give it, into
 * name (cut to size); 0 or -ENOENT. Safe on another thread than the one
 * reading, like rt_source_point_of().
 */
int rt_source_point_name(const struct rt_source *src, unsigned i, char *name, size_t size);
/*
 * The capture point of frames with this interface_id (as handed out) and
 * SLL2 interface index (0 for other link types), or -1 while none came.
 * Safe to call on another thread than the one reading (points are only
 * added, each one complete before it is counted).
 */
int rt_source_point_of(const struct rt_source *src, uint32_t interface_id, uint32_t sll_ifindex);
/*
 * True when the frames can only ever come from one capture point: one
 * classic pcap file (one interface) of a link type without interface
 * indexes. Known from the open on; safe on another thread than the one reading.
 */
bool rt_source_one_point(const struct rt_source *src);
/* Up to `max` frames (struct rt_frame, dissect/dissect.h); returns as ops->next does. */
int rt_source_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf);
int rt_source_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf);
void rt_source_break(struct rt_source *src);
void rt_source_close(struct rt_source *src);

#endif

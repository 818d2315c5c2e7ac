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
	/* Optional: rt_source_hold(). */
	int (*hold)(struct rt_source *src, const uint8_t **base, size_t *len);
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

/* Up to `max` frames (struct rt_frame, dissect/dissect.h); returns as ops->next does. */
int rt_source_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf);
/*
 * The bytes of the frames handed out from now on, where they lie in
 * [*base, *base + *len) (a private, read-only mapping of the one file
 * read), kept readable and unchanged until rt_source_close(), none of its
 * pages released or mapped ahead by the source: the caller may release
 * those it is done with (madvise MADV_DONTNEED: they are read again from
 * the file if touched) and map those ahead of the reading
 * (MADV_POPULATE_READ). Frames outside it (a file that grew while read)
 * are as ever: good until the next rt_source_next(). 0, or -ENOTSUP
 * (several files, a stream, gzip, a live source).
 */
int rt_source_hold(struct rt_source *src, const uint8_t **base, size_t *len);
int rt_source_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf);
void rt_source_break(struct rt_source *src);
void rt_source_close(struct rt_source *src);

#endif

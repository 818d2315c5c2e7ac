/* Internals of the file source (capture/source_file.c reads and merges, capture/source_vantage.c groups into vantage points). */
#ifndef RT_CAPTURE_SOURCE_FILES_H
#define RT_CAPTURE_SOURCE_FILES_H

#include <pcap/pcap.h>
#include <stdatomic.h>

#include "capture/files.h"
#include "capture/internal.h"

#define NO_ID UINT32_MAX
/* Capture points (interfaces, SLL2 interface indexes) the analysis tells apart, at most; frames of more are in none. */
#define MAX_POINTS 256

/* The filter compiled for one link type (BPF programs read link-layer offsets). */
struct filter {
	int linktype;
	struct bpf_program prog;
};

enum file_state { F_PENDING = 0, F_ACTIVE, F_DONE };

struct in_file {
	char *path;
	char *vantage;     /* the name given with it, or NULL */
	const char *shown; /* in messages: the path, or "stdin" */
	/*
	 * Open while read, and after the open: the first RT_READ_KEEP_OPEN
	 * files, and pipes, FIFOs and standard input, which cannot be read again
	 */
	struct rt_pcapfile *pf;
	bool once; /* not a regular file: its bytes can be read only once */
	struct rt_frame batch[RT_READ_FILE_BATCH];
	int nb, pos; /* frames in batch, the next one to hand out */
	enum file_state state;
	bool empty;     /* it holds no frame */
	int group;      /* files that may continue one another share it; -1 when named */
	long number;    /* its number in a rotated set (-1: none) */
	int pred;       /* the file numbered right before it in its set, or -1 */
	unsigned order; /* its rank in time order: the tie-break of equal timestamps */
	uint64_t fingerprint;
	int linktype;
	uint32_t snaplen;
	bool gzip;
	bool pcapng; /* else classic pcap: one interface */
	uint64_t first_ns, last_ns;
	uint64_t last_seq; /* the reader's number of the last frame handed out */
	uint64_t frames;
	int vp;
	struct rt_pcapfile_iface_drops *drops; /* per interface, taken at its end */
	uint32_t ndrops;
};

struct vpoint {
	char *name;
	bool named;
	int group;
	unsigned *files, nfiles, cap;
	unsigned reading; /* its files opened and not yet ended */
	uint64_t end_ns;  /* the last frame of its files that ended */
	uint32_t *map;    /* its files' interface numbers -> interface_id in the stream */
	uint32_t nmap;
};

/*
 * A capture point: one interface of a vantage point's files, and within an
 * SLL2 interface one interface index (capture/files.h has the rule).
 */
struct cpoint {
	/*
	 * Its frames came: the fields below are set (a named vantage point's
	 * first capture point is counted from the open, so the named points keep
	 * the order given, and bound at its first frame)
	 */
	_Atomic bool bound;
	uint32_t id;      /* interface_id in the stream */
	uint32_t ifindex; /* SLL2 interface index, 0 for other link types */
	int vp;           /* its vantage point of files ... */
	const char
	    *vp_name; /* ... its name (the string stays where it is as the array of points grows) */
	bool vp_named;
	uint32_t local;  /* its files' interface number */
	char ifname[64]; /* the interface's pcapng if_name, "" when none */
	char name
	    [320]; /* as the report names it (made again as points come, on the reading thread) */
	uint64_t frames;
};

struct files_priv {
	struct in_file *f;
	size_t n;
	unsigned
	    *pending; /* file indexes in time order; the ones before next_pending were reached */
	size_t next_pending;
	unsigned *heap; /* files being read, by their next frame */
	size_t nheap;
	struct vpoint *vp;
	unsigned nvp, capvp;
	int *owner; /* interface_id -> vantage point */
	uint32_t nowner;
	unsigned reading; /* files being read (reached, not ended) */
	uint64_t seq;     /* frames of the merged stream so far, filtered ones included */
	uint64_t received;
	char *bpf; /* the expression, compiled per link type as frames meet it */
	struct filter filters[RT_READ_MAX_FILTERS];
	int nfilters;
	/* written on the reading thread, read on any: entries before ncp are complete */
	struct cpoint cp[MAX_POINTS];
	_Atomic unsigned ncp;
	unsigned last_cp; /* the point of the latest frame: the next one's likely */
	/*
	 * of several files, the first that could be read no further (cut short,
	 * damaged): it ended there, the others were read on; the stream's
	 * failure once they end (0: none), and how many more did so
	 */
	int late_err;
	char late_msg[RT_ERRBUF_SIZE];
	unsigned late_more;
	/* the one file's mapping, held for the caller (files_hold): unmapped at the close */
	const uint8_t *held;
	size_t held_len;
};

/* A new vantage point of files (named: given with --vantage); NULL when out of memory. */
struct vpoint *rt_files_vp_add(struct files_priv *p, const char *name, bool named, int group);
/* The vantage point of file fi, as the stream reaches its first frame. 0 or -ENOMEM (errbuf set). */
int rt_files_assign_vantage(struct files_priv *p, unsigned fi, char *errbuf);
/* rt_files_global_id() for an interface not numbered yet. */
int rt_files_new_global_id(struct files_priv *p, int v, uint32_t local, uint32_t *out);
/* The stream's interface_id for interface `local` of a file of point v (0, or -ENOMEM). */
static inline int rt_files_global_id(struct files_priv *p, int v, uint32_t local, uint32_t *out)
{
	const struct vpoint *vp = &p->vp[v];
	if (local < vp->nmap && vp->map[local] != NO_ID) {
		*out = vp->map[local];
		return 0;
	}
	return rt_files_new_global_id(p, v, local, out);
}
/* The interface index of an SLL2 frame (protocol (2) | reserved (2) | interface index (4) | ...), 0 for others. */
static inline uint32_t rt_files_sll2_ifindex(const struct rt_frame *fr)
{
	if (fr->linktype != RT_LINK_LINUX_SLL2 || fr->caplen < 8)
		return 0;
	const uint8_t *d = fr->data + 4;
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}
/* rt_files_point_of_frame() for a frame not of the latest frame's point: found, or made. */
int rt_files_find_point(struct files_priv *p, const struct rt_frame *fr, uint32_t ifindex);
/* The capture point of a frame handed out (made at its first frame), or -1 past MAX_POINTS / out of memory. */
static inline int rt_files_point_of_frame(struct files_priv *p, const struct rt_frame *fr)
{
	uint32_t ifindex = rt_files_sll2_ifindex(fr);
	const struct cpoint *last = &p->cp[p->last_cp];
	/* (a named vantage point's first capture point waits unbound for its first frame) */
	if (p->last_cp < atomic_load_explicit(&p->ncp, memory_order_relaxed) &&
	    atomic_load_explicit(&last->bound, memory_order_relaxed) &&
	    last->id == fr->interface_id && last->ifindex == ifindex)
		return (int)p->last_cp;
	return rt_files_find_point(p, fr, ifindex);
}
int rt_files_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf);

#endif

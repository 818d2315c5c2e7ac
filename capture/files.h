/* Saved captures read as one stream: the files, the vantage points they group into and the capture points within those (file sources only). */
#ifndef RT_CAPTURE_FILES_H
#define RT_CAPTURE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/source.h"

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
 * others get new ones as they appear (rt_source_point_of() maps them
 * to capture points, each of one vantage point); `file` is the index of the frame's file in `files`; seq is the
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
	unsigned vantage;      /* the vantage point's number (rt_source_vantage_point()) */
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
/*
 * The points numbered for good so far: the named vantage points' first ones
 * and those whose frames came (point i below it keeps its number and its
 * vantage point); the others rt_source_point_count() counts follow, and move
 * up as such points come.
 */
unsigned rt_source_capture_points(const struct rt_source *src);
/*
 * Point `i` into *out (name: its own; vantage, named, files: its vantage
 * point's); 0 or -ENOENT. Valid until the next rt_source_next() or close.
 */
int rt_source_point(const struct rt_source *src, unsigned i, struct rt_vantage_point *out);
/*
 * The capture point of frames with this interface_id (as handed out) and
 * SLL2 interface index (0 for other link types), or -1 while none came.
 * Safe to call on another thread than the one reading (points are only
 * added, each one complete before it is counted).
 */
int rt_source_point_of(const struct rt_source *src, uint32_t interface_id, uint32_t sll_ifindex);
/*
 * True when the frames can only ever come from one capture point: one
 * classic pcap file (one interface), or several that --vantage names as one
 * point (a rotated set named so), of one link type without interface
 * indexes. Known from the open on; safe on another thread than the one reading.
 */
bool rt_source_one_point(const struct rt_source *src);

#endif

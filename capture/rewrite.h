/* A saved capture written again (capture -r FILE -w OUT): each frame under its file's interface, described as the file describes it. */
#ifndef RT_CAPTURE_REWRITE_H
#define RT_CAPTURE_REWRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/source.h"
#include "capture/writer.h"

/* What a file source's frames are written with (zero it, then set src, w and cut). */
struct rt_rewrite {
	struct rt_source *src; /* a file source (rt_source_open_file) */
	struct rt_writer *w;
	uint32_t cut; /* -s: frames are cut to this (0: as the file has them) */
	int *ifaces;  /* by the frames' interface_id: the writer's interface, -1 before */
	uint32_t n;
	bool described; /* an interface is (the first one gets the writer's id 0) */
};

/*
 * The writer's interface for frame `fr`: its file's interface, described at
 * the interface's first frame (link type, if_name, snap length cut to
 * `cut`), so a file mixing link types keeps each frame's. Returns it, or a
 * negative errno with errbuf set (classic pcap holds one interface).
 */
int rt_rewrite_iface(struct rt_rewrite *rw, const struct rt_frame *fr, char *errbuf);
/* At the end: a file without frames still has its first interface described. 0 or -errno. */
int rt_rewrite_finish(struct rt_rewrite *rw, char *errbuf);
void rt_rewrite_free(struct rt_rewrite *rw);

#endif

/* capture -r FILE -w OUT: the writer's interfaces made from the file's, as their first frames come. */
#include "capture/rewrite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/files.h"

/* Interface `id` of the file as the file describes it (unnamed: after the file). */
static int describe(struct rt_rewrite *rw, uint32_t id, int linktype, const char *ifname,
                    uint32_t snaplen, char *errbuf)
{
	char name[160];
	if (*ifname)
		snprintf(name, sizeof(name), "%s", ifname);
	else
		snprintf(name, sizeof(name), id ? "%.120s if %u" : "%.120s", rw->src->name, id);
	if (rw->cut && (!snaplen || rw->cut < snaplen))
		snaplen = rw->cut;
	rw->described = true;
	return rt_writer_add_interface(rw->w, name, linktype, snaplen, RT_TS_FILE, errbuf);
}

int rt_rewrite_iface(struct rt_rewrite *rw, const struct rt_frame *fr, char *errbuf)
{
	uint32_t id = fr->interface_id;
	if (id < rw->n && rw->ifaces[id] >= 0)
		return rw->ifaces[id];
	if (id >= rw->n) {
		uint32_t n = id + 1 > 2 * rw->n ? id + 1 : 2 * rw->n;
		int *m = realloc(rw->ifaces, n * sizeof(*m));
		if (!m)
			return rt_errorf(errbuf, ENOMEM, "-w");
		for (uint32_t k = rw->n; k < n; k++)
			m[k] = -1;
		rw->ifaces = m;
		rw->n = n;
	}
	char ifname[128] = "", why[RT_ERRBUF_SIZE];
	uint32_t snaplen = 0;
	rt_source_frame_interface(rw->src, fr, ifname, sizeof(ifname), &snaplen);
	int rc = describe(rw, id, fr->linktype, ifname, snaplen, why);
	if (rc < 0)
		return rt_errmsg(errbuf, -rc,
		                 "frame %llu is on interface %u (link type %d) of the file: %s",
		                 (unsigned long long)fr->seq, id, fr->linktype, why);
	return rw->ifaces[id] = rc;
}

int rt_rewrite_finish(struct rt_rewrite *rw, char *errbuf)
{
	int rc =
	    rw->described ? 0 : describe(rw, 0, rw->src->linktype, "", rw->src->snaplen, errbuf);
	return rc < 0 ? rc : 0;
}

void rt_rewrite_free(struct rt_rewrite *rw)
{
	free(rw->ifaces);
	rw->ifaces = NULL;
	rw->n = 0;
}

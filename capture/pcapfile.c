/* Native pcap/pcapng reader: format detection, opening, frames handed out from one buffer. */
#include "capture/pcapfile.h"
#include "capture/internal.h"
#include "common/satmath.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_AHEAD 4096u /* bytes ahead of the next frame asked for */

int rt_pcapfile_next(struct rt_pcapfile *f, struct rt_frame *frames, int max, char *errbuf)
{
	if (max < 1)
		return -EINVAL;
	if (f->err) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s", f->errmsg);
		return f->err;
	}
	bool ng = f->info.format == RT_PCAPFILE_PCAPNG;
	int n = 0;
	for (;;) {
		size_t avail = f->end - f->pos, need = 0;
		/*
		 * The bytes READ_AHEAD on are asked for now: the file's pages are
		 * in no cache and the processor's own prefetching stops at each
		 * page (dissect --count of the 10 M-frame bench file: 0.85-0.91 s,
		 * was 1.03-1.04 s). An address past the buffer is only a hint.
		 */
		__builtin_prefetch((const void *)((uintptr_t)(f->buf + f->pos) + READ_AHEAD));
		int rc = ng ? rt_pcapfile_ng_block(f, &frames[n], avail, &need, errbuf)
		            : rt_pcapfile_pcap_record(f, &frames[n], avail, &need, errbuf);
		if (rc == RT_PCAPFILE_REC_FRAME) {
			if (++n == max)
				return n;
			continue;
		}
		if (rc == RT_PCAPFILE_REC_NONE)
			continue;
		if (rc == RT_PCAPFILE_REC_NEED) {
			if (n)
				return n; /* the frames handed out point into the buffer: keep it */
			ssize_t got = rt_pcapfile_refill(f, need, errbuf);
			if (got > 0)
				continue;
			if (got == 0 && avail == 0)
				return 0;
			if (got == 0)
				rc =
				    ng ? rt_errorf(errbuf, 0,
				                   "%s: the file ends in the middle of a block "
				                   "(%zu of %zu bytes, after frame %llu)",
				                   f->name, avail, need, (unsigned long long)f->seq)
				       : rt_errorf(errbuf, 0,
				                   "%s: the file ends in the middle of frame %llu "
				                   "(%zu of %zu bytes)",
				                   f->name, (unsigned long long)f->seq + 1, avail,
				                   need);
			else if (got == -EINTR)
				return -EINTR;
			else
				rc = (int)got;
		}
		/* fatal: kept, so every later call reports it; frames read before it go first */
		f->err = rc;
		snprintf(f->errmsg, sizeof(f->errmsg), "%s", errbuf);
		return n ? n : rc;
	}
}

/* ---- opening ---- */

static int open_common(struct rt_pcapfile *f, char *errbuf)
{
	int rc = rt_pcapfile_start(f, errbuf);
	if (rc > 0)
		return rt_errorf(errbuf, 0, "%s: %s", f->name,
		                 f->end ? "too short to be a capture file" : "the file is empty");
	if (rc < 0)
		return rc;
	rc = rt_pcapfile_want(f, 4, errbuf);
	if (rc > 0 || rc == -EPROTO)
		return rt_errorf(errbuf, 0, "%s: too short to be a capture file", f->name);
	if (rc < 0)
		return rc;
	const uint8_t *h = f->buf + f->pos;
	uint32_t magic;
	memcpy(&magic, h, 4);
	if (magic == RT_PCAP_MAGIC_US || magic == RT_PCAP_MAGIC_NS ||
	    magic == __builtin_bswap32(RT_PCAP_MAGIC_US) ||
	    magic == __builtin_bswap32(RT_PCAP_MAGIC_NS))
		return rt_pcapfile_open_pcap(f, magic, errbuf);
	if (magic == RT_PCAPNG_SHB)
		return rt_pcapfile_open_pcapng(f, errbuf);
	return rt_errorf(errbuf, 0,
	                 "%s: not a pcap or pcapng file (it starts with %02x %02x %02x %02x)",
	                 f->name, h[0], h[1], h[2], h[3]);
}

static struct rt_pcapfile *alloc_reader(const char *name)
{
	struct rt_pcapfile *f = calloc(1, sizeof(*f));
	if (f) {
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->fd = -1;
		f->fingerprint = 0xcbf29ce484222325ull; /* FNV-1a's offset basis */
	}
	return f;
}

int rt_pcapfile_open_fd(struct rt_pcapfile **out, int fd, bool own_fd, const char *name,
                        char *errbuf)
{
	struct rt_pcapfile *f = alloc_reader(name);
	if (!f) {
		if (own_fd)
			close(fd);
		return rt_errorf(errbuf, ENOMEM, "%s", name);
	}
	f->fd = fd;
	f->own_fd = own_fd;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* fails harmlessly on pipes */
	int rc = open_common(f, errbuf);
	if (rc < 0) {
		rt_pcapfile_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

int rt_pcapfile_open_mem(struct rt_pcapfile **out, const void *data, size_t len, size_t chunk,
                         const char *name, char *errbuf)
{
	struct rt_pcapfile *f = alloc_reader(name);
	if (!f)
		return rt_errorf(errbuf, ENOMEM, "%s", name);
	f->is_mem = true;
	f->mem = data;
	f->mem_len = len;
	f->chunk = chunk;
	int rc = open_common(f, errbuf);
	if (rc < 0) {
		rt_pcapfile_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

const struct rt_pcapfile_info *rt_pcapfile_info(const struct rt_pcapfile *f)
{
	return &f->info;
}

uint32_t rt_pcapfile_snaplen(const struct rt_pcapfile *f, uint32_t interface_id)
{
	if (f->info.format == RT_PCAPFILE_PCAP)
		return f->snaplen;
	return interface_id < f->nifaces ? f->ifaces[interface_id].snaplen : 0;
}

void rt_pcapfile_drops(const struct rt_pcapfile *f, struct rt_pcapfile_drops *out)
{
	memset(out, 0, sizeof(*out));
	out->interfaces = f->nifaces;
	if (f->info.format != RT_PCAPFILE_PCAPNG)
		return;
	for (uint32_t i = 0; i < f->nifaces; i++) {
		const struct rt_pcapfile_iface *ifc = &f->ifaces[i];
		if (!ifc->drops_known)
			continue;
		out->known = true;
		out->if_dropped = rt_sat_add_u64(out->if_dropped, ifc->if_dropped);
		out->os_dropped = rt_sat_add_u64(out->os_dropped, ifc->os_dropped);
	}
}

void rt_pcapfile_iface_drops(const struct rt_pcapfile *f, uint32_t interface_id,
                             struct rt_pcapfile_iface_drops *out)
{
	memset(out, 0, sizeof(*out));
	if (f->info.format != RT_PCAPFILE_PCAPNG || interface_id >= f->nifaces)
		return;
	const struct rt_pcapfile_iface *ifc = &f->ifaces[interface_id];
	out->known = ifc->drops_known;
	out->if_dropped = ifc->if_dropped;
	out->os_dropped = ifc->os_dropped;
	out->start = ifc->isb_start;
}

uint32_t rt_pcapfile_interfaces(const struct rt_pcapfile *f)
{
	return f->nifaces;
}

const char *rt_pcapfile_iface_name(const struct rt_pcapfile *f, uint32_t interface_id)
{
	return f->ifaces && interface_id < f->nifaces ? f->ifaces[interface_id].name : "";
}

uint64_t rt_pcapfile_fingerprint(const struct rt_pcapfile *f)
{
	return f->fingerprint;
}

void rt_pcapfile_close(struct rt_pcapfile *f)
{
	if (!f)
		return;
	rt_pcapfile_gz_stop(f);
	if (f->z_ready)
		inflateEnd(&f->z);
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	free(f->zin);
	rt_pcapfile_unmap(f);
	free(f->ifaces);
	free(f);
}

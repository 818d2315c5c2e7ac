/* Reading a partial (docs/PARTIAL.md): untrusted bytes, every length bounded by what is left, the known sections in order. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/internal.h"
#include "analyze/partial_codec.h"

/* The sections this version knows, in the order of the file: the partial's, the view's, the buckets (there or not), the packets, the end. */
#define SECTION_PART    0
#define SECTION_BUCKETS (1 + pc_nview_sections)
#define SECTION_PACKETS (2 + pc_nview_sections)
#define SECTION_END     (3 + pc_nview_sections)

/* Known section `k`'s tag and name. */
static uint32_t section_tag(unsigned k, const char **name)
{
	if (k == SECTION_PART) {
		*name = "partial";
		return PC_TAG_PART;
	}
	if (k == SECTION_BUCKETS) {
		*name = "buckets";
		return PC_TAG_BUCK;
	}
	if (k == SECTION_PACKETS) {
		*name = "packets";
		return PC_TAG_PKTS;
	}
	if (k == SECTION_END) {
		*name = "end";
		return PC_TAG_END;
	}
	*name = pc_view_sections[k - 1].name;
	return pc_view_sections[k - 1].tag;
}

/* The known section of `tag`, or -1: one of a later version, skipped. */
static int section_of(uint32_t tag)
{
	const char *name;
	for (unsigned k = 0; k <= SECTION_END; k++)
		if (section_tag(k, &name) == tag)
			return (int)k;
	return -1;
}

/* The packets: their record size (this version's fields first), count and records. */
static void packets(struct pc *c, struct rt_partial *p)
{
	uint32_t size = 0;
	uint64_t n = 0;
	pc_u32(c, &size);
	pc_check(c, size >= PC_PACKET_SIZE, "packet record size");
	if (!c->err)
		pc_count(c, &n, SIZE_MAX / sizeof(*p->packets), size, "packets");
	if (c->err)
		return;
	p->packets = malloc((n ? n : 1) * sizeof(*p->packets));
	if (!p->packets) {
		pc_fail(c, ENOMEM, "out of memory");
		return;
	}
	const uint8_t *end = c->end;
	for (uint64_t i = 0; i < n && !c->err; i++) {
		c->end = c->at + size;
		pc_packet(c, &p->packets[i], p->r->nflows);
		c->at = c->end;
		c->end = end;
	}
	p->npackets = c->err ? 0 : n;
}

/* The point's name and files out of the view's arena into memory of their own (rt_partial_free()). */
static void own_names(struct pc *c, struct rt_partial *p)
{
	char *point = p->point, **files = p->files;
	unsigned n = p->nfiles;
	p->point = NULL;
	p->files = NULL;
	p->nfiles = 0;
	if (c->err)
		return;
	if (!(p->point = strdup(point)) || !(p->files = calloc(n ? n : 1, sizeof(*p->files)))) {
		pc_fail(c, ENOMEM, "out of memory");
		return;
	}
	for (; p->nfiles < n; p->nfiles++)
		if (!(p->files[p->nfiles] = strdup(files[p->nfiles]))) {
			pc_fail(c, ENOMEM, "out of memory");
			return;
		}
}

/* Known section k's content, c->at .. c->end. */
static void section(struct pc *c, unsigned k, struct rt_partial *p, struct an_results *res)
{
	if (k == SECTION_PART) {
		pc_part(c, p);
		own_names(c, p);
	} else if (k == SECTION_BUCKETS) {
		pc_buckets(c, p, p->r->nflows);
	} else if (k == SECTION_PACKETS) {
		packets(c, p);
	} else if (k < SECTION_BUCKETS) {
		pc_view_sections[k - 1].walk(c, &res->r);
	}
}

/* The sections after the header, each known one once and in order, until the end's. */
static void sections(struct pc *c, struct rt_partial *p, struct an_results *res)
{
	const uint8_t *file_end = c->end;
	unsigned next = SECTION_PART; /* the known section to come */
	while (!c->err) {
		const char *name;
		section_tag(next, &name);
		c->section = name;
		uint32_t tag = 0;
		uint64_t len = 0;
		pc_u32(c, &tag);
		pc_u64(c, &len);
		int k = section_of(tag);
		if (k >= 0)
			section_tag((unsigned)k, &c->section);
		if (c->err || len > (uint64_t)(file_end - c->at)) {
			pc_fail(c, EPROTO, "truncated in section %s", k >= 0 ? c->section : name);
			return;
		}
		if (k >= 0 && (unsigned)k == SECTION_PACKETS && next == SECTION_BUCKETS)
			next = SECTION_PACKETS; /* no buckets: a partial of an older writer */
		if (k >= 0 && (unsigned)k != next) {
			pc_fail(c, EPROTO, "section %s where section %s belongs", c->section, name);
			return;
		}
		c->end = c->at + len;
		if (k >= 0)
			section(c, (unsigned)k, p, res);
		c->at = c->end; /* what a later version added after the fields known here */
		c->end = file_end;
		if (k < 0 || c->err)
			continue;
		if ((unsigned)k == SECTION_END) {
			if (c->at != file_end)
				pc_fail(c, EPROTO, "bytes after the end section");
			return;
		}
		next++;
	}
}

/* A partial from len bytes at buf; messages begin with `name`. */
static int decode(const void *buf, size_t len, const char *name, struct rt_partial **out,
                  char *errbuf)
{
	const size_t magic_len = sizeof(RT_PARTIAL_MAGIC) - 1;
	*out = NULL;
	if (memcmp(buf, RT_PARTIAL_MAGIC, len < magic_len ? len : magic_len))
		return rt_errmsg(errbuf, EPROTO, "%s: not a rocetrace partial (no %s magic)", name,
		                 "RTPART");
	if (len < PC_HEADER_SIZE)
		return rt_errmsg(errbuf, EPROTO, "%s: truncated in its header", name);
	const uint8_t *v = (const uint8_t *)buf + magic_len;
	uint32_t version =
	    (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
	if (version != RT_PARTIAL_VERSION)
		return rt_errmsg(errbuf, EPROTO,
		                 "%s: partial format version %u; this rocetrace reads version %d",
		                 name, version, RT_PARTIAL_VERSION);
	struct rt_partial *p = calloc(1, sizeof(*p));
	struct an_results *res = calloc(1, sizeof(*res));
	if (!p || !res) {
		free(p);
		free(res);
		return rt_errmsg(errbuf, ENOMEM, "%s: out of memory", name);
	}
	p->res = res;
	p->r = &res->r;
	struct pc c = {.reading = true,
	               .at = (const uint8_t *)buf + PC_HEADER_SIZE,
	               .end = (const uint8_t *)buf + len,
	               .res = res};
	sections(&c, p, res);
	if (c.err) {
		rt_partial_free(p);
		return rt_errmsg(errbuf, -c.err, "%s: %s", name, c.why);
	}
	*out = p;
	return 0;
}

int rt_partial_read_mem(const void *buf, size_t len, struct rt_partial **out, char *errbuf)
{
	return decode(len ? buf : "", len, "partial", out, errbuf);
}

/* The whole of the file on fd that is not a regular one (a pipe): into *buf (malloc'd). */
static int slurp(int fd, uint8_t **buf, size_t *len)
{
	size_t cap = 1 << 16;
	*len = 0;
	if (!(*buf = malloc(cap)))
		return -ENOMEM;
	for (;;) {
		if (*len == cap) {
			uint8_t *b = realloc(*buf, cap *= 2);
			if (!b)
				return -ENOMEM;
			*buf = b;
		}
		ssize_t n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*len += (size_t)n;
	}
}

int rt_partial_read(const char *path, struct rt_partial **out, char *errbuf)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return rt_errorf(errbuf, e, "%s", path);
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		int e = errno;
		close(fd);
		if (map == MAP_FAILED)
			return rt_errorf(errbuf, e, "%s", path);
		int rc = decode(map, (size_t)st.st_size, path, out, errbuf);
		munmap(map, (size_t)st.st_size);
		return rc;
	}
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = slurp(fd, &buf, &len);
	close(fd);
	if (rc == 0)
		rc = decode(len ? buf : (const uint8_t *)"", len, path, out, errbuf);
	else
		rt_errorf(errbuf, -rc, "%s", path);
	free(buf);
	return rc;
}

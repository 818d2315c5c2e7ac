/* Writing a partial (docs/PARTIAL.md): the header, the sections of the view one by one, the packets streamed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/partial_codec.h"
#include "common/outfile.h"

/* Packets encoded before the bytes go to the file (about 1 MB). */
#define PACKETS_PER_FLUSH 16384

/* A failure to write: its errno in words. */
static int write_failed(struct pc *c)
{
	int e = errno ? errno : EIO;
	return pc_fail(c, e, "%s", strerror(e));
}

/* The bytes encoded so far to fp (c->err set when that fails). */
static void flush(struct pc *c, FILE *fp)
{
	if (!c->err && c->len && fwrite(c->buf, 1, c->len, fp) != c->len)
		write_failed(c);
	c->len = 0;
}

/* A section's head (its tag, its length to come): where its length goes. */
static size_t section_begin(struct pc *c, uint32_t tag, const char *name)
{
	c->section = name;
	pc_u32(c, &tag);
	size_t at = c->len;
	uint64_t len = 0;
	pc_u64(c, &len);
	return at;
}

static void section_end(struct pc *c, size_t at, FILE *fp)
{
	if (!c->err) {
		uint64_t len = c->len - at - 8;
		for (unsigned i = 0; i < 8; i++)
			c->buf[at + i] = (uint8_t)(len >> (8 * i));
	}
	flush(c, fp);
}

/* The packets: their record size and count, then each record, to fp a batch at a time. */
static void packets(struct pc *c, const struct rt_partial *p, FILE *fp)
{
	uint32_t tag = PC_TAG_PKTS, size = PC_PACKET_SIZE;
	uint64_t n = p->npackets, len = 4 + 8 + n * PC_PACKET_SIZE;
	c->section = "packets";
	pc_u32(c, &tag);
	pc_u64(c, &len);
	pc_u32(c, &size);
	pc_u64(c, &n);
	for (uint64_t i = 0; i < n && !c->err; i++) {
		struct rt_partial_packet pk = p->packets[i];
		pc_packet(c, &pk, p->r->nflows);
		if ((i + 1) % PACKETS_PER_FLUSH == 0)
			flush(c, fp);
	}
	flush(c, fp);
}

/* The whole file to fp; 0 or c->err. */
static int encode(struct pc *c, const struct rt_partial *p, FILE *fp)
{
	/* the walk reads through these pointers only: writing, it changes nothing */
	struct rt_partial *part = (struct rt_partial *)p;
	struct rt_results *r = (struct rt_results *)p->r;
	uint32_t version = RT_PARTIAL_VERSION;
	pc_bytes(c, RT_PARTIAL_MAGIC, sizeof(RT_PARTIAL_MAGIC) - 1);
	pc_u32(c, &version);
	size_t at = section_begin(c, PC_TAG_PART, "partial");
	pc_part(c, part);
	section_end(c, at, fp);
	for (unsigned k = 0; k < pc_nview_sections; k++) {
		at = section_begin(c, pc_view_sections[k].tag, pc_view_sections[k].name);
		pc_view_sections[k].walk(c, r);
		section_end(c, at, fp);
	}
	if (p->buckets) { /* before the packets (an older reader skips it) */
		at = section_begin(c, PC_TAG_BUCK, "buckets");
		pc_buckets(c, part, p->r->nflows);
		section_end(c, at, fp);
	}
	packets(c, p, fp);
	at = section_begin(c, PC_TAG_END, "end");
	section_end(c, at, fp);
	return c->err;
}

int rt_partial_write(const struct rt_partial *p, const char *path, char *errbuf)
{
	if (!p->r || !p->point)
		return rt_errmsg(errbuf, EINVAL,
		                 "%s: a partial needs its view and its point's name", path);
	/* a file is written under a temporary name and put in place whole (common/outfile.h) */
	struct rt_outfile of = {0};
	bool out = !strcmp(path, "-");
	int rc = out ? 0 : rt_outfile_open(&of, path, errbuf);
	if (rc < 0)
		return rc;
	FILE *fp = out ? stdout : of.fp;
	struct pc c = {.reading = false};
	rc = encode(&c, p, fp);
	free(c.buf);
	if (!rc && fflush(fp) != 0)
		rc = write_failed(&c);
	if (rc) {
		if (!out)
			rt_outfile_abort(&of); /* what the path named stays as it was */
		return rt_errmsg(errbuf, -rc, "%s: %s", path, c.why);
	}
	return out ? 0 : rt_outfile_commit(&of, errbuf);
}

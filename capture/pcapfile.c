/* Native pcap/pcapng reader: large reads into one buffer, frames handed out in place, gzip through zlib's inflate. */
#include "capture/pcapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define READ_SIZE (1u << 20)   /* bytes asked of read(2) (or inflate) at a time */
#define ZIN_SIZE (256u << 10)  /* compressed bytes read at a time */
#define GZ_HEADER_MIN 10u      /* bytes of the smallest gzip member header */
#define MAX_BLOCK (16u << 20)  /* largest pcapng block accepted */
#define MAX_CAPLEN 262144u     /* largest classic pcap frame accepted (libpcap's limit) */
#define MAX_IFACES (1u << 20)  /* interface descriptions accepted over all sections */

/*
 * Classic pcap (all fields in the writer's byte order):
 *  file header (24 bytes): magic (4) | version 2.4 (2+2) | thiszone (4) | sigfigs (4) |
 *                          snaplen (4) | link type (4; the low 26 bits)
 *  record header (16 bytes): seconds (4, unsigned) | micro- or nanoseconds (4) |
 *                            captured length (4) | original length (4), then the bytes
 */
#define PCAP_MAGIC_US 0xA1B2C3D4u
#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAP_FILE_HDR 24u
#define PCAP_REC_HDR 16u
#define PCAP_LINKTYPE_MASK 0x03FFFFFFu

/*
 * pcapng: blocks of  type (4) | total length (4) | body | total length (4),
 * lengths a multiple of 4, in the byte order of their section (set by the
 * section header's byte-order magic).
 */
#define NG_SHB 0x0A0D0D0Au
#define NG_IDB 0x00000001u
#define NG_PB 0x00000002u  /* obsolete packet block */
#define NG_SPB 0x00000003u /* simple packet block */
#define NG_ISB 0x00000005u
#define NG_EPB 0x00000006u
/* blocks that hold no frame of ours but that Wireshark shows as frames: numbered alike */
#define NG_JOURNAL 0x00000009u	    /* systemd journal export */
#define NG_SYSDIG_EVENT 0x00000204u
#define NG_SYSDIG_EVENT_V2 0x00000216u
#define NG_SYSDIG_EVENT_V2_LARGE 0x00000221u
#define NG_CUSTOM 0x00000BADu
#define NG_CUSTOM_NOCOPY 0x40000BADu
#define NG_BOM 0x1A2B3C4Du
#define NG_MIN_BLOCK 12u
#define OPT_END 0
#define IF_TSRESOL 9
#define IF_TSOFFSET 14
#define ISB_STARTTIME 2
#define ISB_IFDROP 5
#define ISB_OSDROP 7

/* How an interface's timestamp units become nanoseconds. */
enum ts_kind {
	TS_MUL, /* 10^-k seconds, k <= 9: times ts_factor */
	TS_DIV, /* 10^-k seconds, k > 9: divided by ts_factor */
	TS_BIN, /* 2^-ts_shift seconds */
};

/* Where inflate stands in a file of concatenated gzip members. */
enum gz_state {
	GZ_IN = 0,  /* inside a member (or its header) */
	GZ_DONE,    /* a member ended: reset before more input */
	GZ_NEXT,    /* reset for the next member, none of its data out yet */
	GZ_TRAILER, /* bytes after the last member that are not gzip: ignored */
};

struct iface {
	int linktype;
	uint32_t snaplen;
	uint8_t ts_kind, ts_shift;
	uint64_t ts_factor;
	uint64_t ts_offset_ns; /* if_tsoffset (seconds, signed) in ns, modulo 2^64 */
	bool drops_known;
	uint64_t if_dropped, os_dropped; /* from the interface's latest ISB */
	uint64_t isb_start;		 /* its isb_starttime in the interface's units, 0 when absent */
};

struct rt_pcapfile {
	char name[128];
	struct rt_pcapfile_info info;
	/* raw input: a descriptor, or memory taken `chunk` bytes at a time */
	int fd;
	bool own_fd, is_mem;
	const uint8_t *mem;
	size_t mem_len, mem_off, chunk;
	bool raw_eof;
	/* gzip: compressed bytes in zin, inflated into buf */
	z_stream z;
	bool z_ready;
	uint8_t z_state; /* enum gz_state */
	uint8_t *zin;
	/* unread bytes are buf[pos, end) */
	uint8_t *buf;
	size_t cap, pos, end;
	bool swapped; /* the file (or section) is in the other byte order */
	uint32_t ts_mult; /* classic pcap: ns per fraction unit (1000 or 1) */
	uint32_t snaplen; /* classic pcap: frames are cut to this */
	struct iface *ifaces;
	uint32_t nifaces, cap_ifaces;
	uint32_t section_base; /* first interface of the current pcapng section */
	uint64_t fingerprint;  /* hash of the interface descriptions (the classic pcap header) */
	uint64_t seq;	       /* packet records read */
	int err;	       /* a fatal error met after frames were handed out, reported next */
	char errmsg[RT_ERRBUF_SIZE];
};

static inline uint16_t rd16(const struct rt_pcapfile *f, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return f->swapped ? __builtin_bswap16(v) : v;
}

static inline uint32_t rd32(const struct rt_pcapfile *f, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return f->swapped ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd64(const struct rt_pcapfile *f, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return f->swapped ? __builtin_bswap64(v) : v;
}

static size_t pad4(size_t n)
{
	return (n + 3u) & ~(size_t)3u;
}

/* FNV-1a over len bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* ---- input ---- */

/* Raw bytes into dst: the count, 0 at the end, or a negative errno. */
static ssize_t raw_read(struct rt_pcapfile *f, uint8_t *dst, size_t len)
{
	if (f->raw_eof)
		return 0;
	if (f->is_mem) {
		size_t n = f->mem_len - f->mem_off;
		if (n > len)
			n = len;
		if (f->chunk && n > f->chunk)
			n = f->chunk;
		if (n)
			memcpy(dst, f->mem + f->mem_off, n);
		f->mem_off += n;
		if (!n)
			f->raw_eof = true;
		return (ssize_t)n;
	}
	ssize_t n = read(f->fd, dst, len);
	if (n < 0)
		return -errno;
	if (n == 0)
		f->raw_eof = true;
	return n;
}

/* Inflated bytes into dst: the count, 0 at the end of the last gzip member, or a negative errno. */
static ssize_t gz_read(struct rt_pcapfile *f, uint8_t *dst, size_t len, char *errbuf)
{
	for (;;) {
		if (f->z_state == GZ_TRAILER)
			return 0;
		if (f->z.avail_in == 0 && !f->raw_eof) {
			ssize_t n = raw_read(f, f->zin, ZIN_SIZE);
			if (n < 0)
				return n == -EINTR ? n : rt_errorf(errbuf, (int)-n, "%s: read", f->name);
			f->z.next_in = f->zin;
			f->z.avail_in = (uInt)n;
		}
		if (f->z_state == GZ_DONE) {
			/* concatenated members are one stream, as gzip -d reads them */
			if (f->z.avail_in == 0)
				return 0;
			inflateReset(&f->z);
			f->z_state = GZ_NEXT;
		}
		f->z.next_out = dst;
		f->z.avail_out = (uInt)len;
		int zr = inflate(&f->z, Z_NO_FLUSH);
		size_t got = len - f->z.avail_out;
		bool at_end = f->z.avail_in == 0 && f->raw_eof;
		if (f->z_state == GZ_NEXT && !got &&
		    (zr == Z_DATA_ERROR || (zr != Z_STREAM_END && at_end && f->z.total_in < GZ_HEADER_MIN))) {
			/* what follows the last member is not gzip (or too short to be): ignored, as gzip -d does */
			f->z_state = GZ_TRAILER;
			return 0;
		}
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return rt_errorf(errbuf, 0, "%s: bad gzip data: %s", f->name,
					 f->z.msg ? f->z.msg : zError(zr));
		if (zr == Z_STREAM_END)
			f->z_state = GZ_DONE;
		else if (got)
			f->z_state = GZ_IN;
		if (got)
			return (ssize_t)got;
		if (f->z_state == GZ_DONE)
			continue; /* another member may follow */
		if (at_end)
			return rt_errorf(errbuf, 0, "%s: the gzip data ends early (the file is cut)", f->name);
		if (zr == Z_BUF_ERROR && f->z.avail_in)
			return rt_errorf(errbuf, 0, "%s: bad gzip data: no progress", f->name);
	}
}

/*
 * Keep buf[pos, end), move it to the front and read more after it, first
 * making room for `need` bytes. Returns the bytes added, 0 at the end of the
 * input, or a negative errno (errbuf set, except for -EINTR).
 */
static ssize_t refill(struct rt_pcapfile *f, size_t need, char *errbuf)
{
	if (f->pos) {
		memmove(f->buf, f->buf + f->pos, f->end - f->pos);
		f->end -= f->pos;
		f->pos = 0;
	}
	if (need > f->cap) {
		size_t ncap = need + READ_SIZE;
		uint8_t *nb = realloc(f->buf, ncap);
		if (!nb)
			return rt_errorf(errbuf, ENOMEM, "%s", f->name);
		f->buf = nb;
		f->cap = ncap;
	}
	size_t room = f->cap - f->end;
	ssize_t n = f->info.gzip ? gz_read(f, f->buf + f->end, room, errbuf)
				 : raw_read(f, f->buf + f->end, room);
	if (n == -EINTR)
		return n;
	if (n < 0) {
		if (!f->info.gzip)
			rt_errorf(errbuf, (int)-n, "%s: read", f->name);
		return n;
	}
	f->end += (size_t)n;
	return n;
}

/* Make `need` bytes available at pos (blocking); 0, or 1 at a clean end before any of them, or -errno. */
static int want(struct rt_pcapfile *f, size_t need, char *errbuf)
{
	while (f->end - f->pos < need) {
		ssize_t n = refill(f, need, errbuf);
		if (n == -EINTR)
			continue; /* opening: nothing to hand back yet */
		if (n < 0)
			return (int)n;
		if (n == 0)
			return f->end == f->pos ? 1 : -EPROTO;
	}
	return 0;
}

/* ---- pcapng blocks ---- */

static struct iface *iface_add(struct rt_pcapfile *f, char *errbuf)
{
	if (f->nifaces == f->cap_ifaces) {
		if (f->nifaces >= MAX_IFACES) {
			rt_errorf(errbuf, 0, "%s: more than %u interface descriptions", f->name, MAX_IFACES);
			return NULL;
		}
		uint32_t ncap = f->cap_ifaces ? f->cap_ifaces * 2 : 4;
		struct iface *ni = realloc(f->ifaces, ncap * sizeof(*ni));
		if (!ni) {
			rt_errorf(errbuf, ENOMEM, "%s", f->name);
			return NULL;
		}
		f->ifaces = ni;
		f->cap_ifaces = ncap;
	}
	struct iface *ifc = &f->ifaces[f->nifaces++];
	memset(ifc, 0, sizeof(*ifc));
	return ifc;
}

/*
 * Interface description: link type (2) | reserved (2) | snap length (4) | options.
 * if_tsresol (1 byte): bit 7 clear = 10^-v s, set = 2^-(v & 0x7f) s; default 10^-6.
 * if_tsoffset (8 bytes): seconds added to every timestamp.
 */
static int ng_idb(struct rt_pcapfile *f, const uint8_t *b, size_t blen, char *errbuf)
{
	if (blen < 8)
		return rt_errorf(errbuf, 0, "%s: interface description block too short", f->name);
	struct iface *ifc = iface_add(f, errbuf);
	if (!ifc)
		return -ENOMEM;
	ifc->linktype = rd16(f, b);
	ifc->snaplen = rd32(f, b + 4);
	ifc->ts_kind = TS_MUL;
	ifc->ts_factor = 1000;
	for (size_t o = 8; o + 4 <= blen;) {
		uint16_t code = rd16(f, b + o), olen = rd16(f, b + o + 2);
		if (code == OPT_END)
			break;
		if (o + 4 + pad4(olen) > blen)
			return rt_errorf(errbuf, 0, "%s: an interface option runs past its block", f->name);
		const uint8_t *v = b + o + 4;
		if (code == IF_TSRESOL) {
			if (olen != 1)
				return rt_errorf(errbuf, 0, "%s: if_tsresol of %u bytes", f->name, olen);
			if (v[0] & 0x80) {
				if ((v[0] & 0x7f) > 63)
					return rt_errorf(errbuf, 0, "%s: if_tsresol 2^-%u is too fine", f->name,
							 v[0] & 0x7f);
				ifc->ts_kind = TS_BIN;
				ifc->ts_shift = v[0] & 0x7f;
			} else if (v[0] > 19) {
				return rt_errorf(errbuf, 0, "%s: if_tsresol 10^-%u is too fine", f->name, v[0]);
			} else {
				uint64_t p = 1;
				for (unsigned k = 0; k < (v[0] <= 9 ? 9u - v[0] : v[0] - 9u); k++)
					p *= 10;
				ifc->ts_kind = v[0] <= 9 ? TS_MUL : TS_DIV;
				ifc->ts_factor = p;
			}
		} else if (code == IF_TSOFFSET) {
			if (olen != 8)
				return rt_errorf(errbuf, 0, "%s: if_tsoffset of %u bytes", f->name, olen);
			ifc->ts_offset_ns = rd64(f, v) * 1000000000u;
		}
		o += 4 + pad4(olen);
	}
	return 0;
}

/* Interface statistics: interface id (4) | timestamp (8) | options (isb_ifdrop, isb_osdrop: 8 bytes). */
static void ng_isb(struct rt_pcapfile *f, const uint8_t *b, size_t blen)
{
	if (blen < 12)
		return;
	uint32_t id = rd32(f, b);
	if (id >= f->nifaces - f->section_base)
		return; /* names no interface of this section: nothing to attribute */
	struct iface *ifc = &f->ifaces[f->section_base + id];
	ifc->isb_start = 0;
	for (size_t o = 12; o + 4 <= blen;) {
		uint16_t code = rd16(f, b + o), olen = rd16(f, b + o + 2);
		if (code == OPT_END || o + 4 + pad4(olen) > blen)
			break;
		if (olen == 8 && code == ISB_STARTTIME) {
			/* a timestamp: high and low 32 bits, each in the section's byte order */
			ifc->isb_start = (uint64_t)rd32(f, b + o + 4) << 32 | rd32(f, b + o + 8);
		} else if (olen == 8 && (code == ISB_IFDROP || code == ISB_OSDROP)) {
			uint64_t v = rd64(f, b + o + 4);
			if (code == ISB_IFDROP)
				ifc->if_dropped = v;
			else
				ifc->os_dropped = v;
			ifc->drops_known = true;
		}
		o += 4 + pad4(olen);
	}
}

static inline uint64_t ng_ts(const struct iface *ifc, uint64_t t)
{
	uint64_t ns;
	if (ifc->ts_kind == TS_MUL) {
		ns = t * ifc->ts_factor;
	} else if (ifc->ts_kind == TS_DIV) {
		ns = t / ifc->ts_factor;
	} else {
		__extension__ typedef unsigned __int128 u128;
		ns = (uint64_t)(((u128)t * 1000000000u) >> ifc->ts_shift);
	}
	return ns + ifc->ts_offset_ns;
}

/* A section header at b (whole block of `total` bytes): its byte order is already set. */
static int ng_shb(struct rt_pcapfile *f, const uint8_t *b, size_t blen, char *errbuf)
{
	if (blen < 16)
		return rt_errorf(errbuf, 0, "%s: section header block too short", f->name);
	uint16_t major = rd16(f, b + 4);
	if (major != 1)
		return rt_errorf(errbuf, 0, "%s: pcapng version %u.%u is not supported", f->name, major,
				 rd16(f, b + 6));
	f->section_base = f->nifaces;
	return 0;
}

enum { REC_NONE = 0, REC_FRAME = 1, REC_NEED = 2 };

/*
 * One block at pos (avail bytes there): REC_FRAME with *fr filled,
 * REC_NONE for a block that holds no frame, REC_NEED with *need set when
 * the block is not all there yet, or a negative errno.
 */
static int ng_block(struct rt_pcapfile *f, struct rt_frame *fr, size_t avail, size_t *need,
		    char *errbuf)
{
	const uint8_t *p = f->buf + f->pos;
	if (avail < 8) {
		*need = 8;
		return REC_NEED;
	}
	uint32_t type;
	memcpy(&type, p, 4); /* the section header's type reads the same in both orders */
	if (type == NG_SHB) {
		if (avail < 12) {
			*need = 12;
			return REC_NEED;
		}
		uint32_t bom;
		memcpy(&bom, p + 8, 4);
		if (bom != NG_BOM && bom != __builtin_bswap32(NG_BOM))
			return rt_errorf(errbuf, 0, "%s: section header with a bad byte-order magic", f->name);
		f->swapped = bom != NG_BOM;
	} else {
		type = rd32(f, p);
	}
	uint32_t total = rd32(f, p + 4);
	if (total < NG_MIN_BLOCK || total % 4 || total > MAX_BLOCK)
		return rt_errorf(errbuf, 0, "%s: block of type 0x%x has a bad length %u (after frame %llu)",
				 f->name, type, total, (unsigned long long)f->seq);
	if (avail < total) {
		*need = total;
		return REC_NEED;
	}
	if (rd32(f, p + total - 4) != total)
		return rt_errorf(errbuf, 0, "%s: block of type 0x%x: lengths %u and %u differ (after frame %llu)",
				 f->name, type, total, rd32(f, p + total - 4), (unsigned long long)f->seq);
	const uint8_t *b = p + 8;
	size_t blen = total - NG_MIN_BLOCK;
	uint32_t nsec = f->nifaces - f->section_base; /* interfaces of this section */
	int rc = REC_NONE;
	if (type == NG_EPB || type == NG_PB) {
		/* EPB: interface (4) | timestamp high, low (4+4) | captured (4) | original (4) | data;
		 * PB: the same with a 2-byte interface and a 2-byte drop count */
		if (blen < 20)
			return rt_errorf(errbuf, 0, "%s: packet block too short (after frame %llu)", f->name,
					 (unsigned long long)f->seq);
		uint32_t id = type == NG_EPB ? rd32(f, b) : rd16(f, b);
		uint32_t caplen = rd32(f, b + 12);
		if (id >= nsec)
			return rt_errorf(errbuf, 0, "%s: frame %llu names interface %u, which has no description",
					 f->name, (unsigned long long)f->seq + 1, id);
		if (caplen > blen - 20)
			return rt_errorf(errbuf, 0, "%s: frame %llu: captured length %u runs past its block",
					 f->name, (unsigned long long)f->seq + 1, caplen);
		const struct iface *ifc = &f->ifaces[f->section_base + id];
		fr->data = b + 20;
		fr->caplen = caplen;
		fr->wirelen = rd32(f, b + 16);
		fr->ts_ns = ng_ts(ifc, (uint64_t)rd32(f, b + 4) << 32 | rd32(f, b + 8));
		fr->linktype = ifc->linktype;
		fr->interface_id = f->section_base + id;
		fr->seq = ++f->seq;
		rc = REC_FRAME;
	} else if (type == NG_SPB) {
		/* original length (4) | data, cut to the first interface's snap length; no timestamp */
		if (blen < 4 || nsec == 0)
			return rt_errorf(errbuf, 0, "%s: simple packet block %s (after frame %llu)", f->name,
					 blen < 4 ? "too short" : "before any interface description",
					 (unsigned long long)f->seq);
		const struct iface *ifc = &f->ifaces[f->section_base];
		uint32_t len = rd32(f, b), caplen = len;
		if (caplen > blen - 4)
			caplen = (uint32_t)(blen - 4);
		if (ifc->snaplen && caplen > ifc->snaplen)
			caplen = ifc->snaplen;
		fr->data = b + 4;
		fr->caplen = caplen;
		fr->wirelen = len;
		fr->ts_ns = 0;
		fr->linktype = ifc->linktype;
		fr->interface_id = f->section_base;
		fr->seq = ++f->seq;
		rc = REC_FRAME;
	} else if (type == NG_IDB) {
		rc = ng_idb(f, b, blen, errbuf);
		if (f->seq == 0) /* the descriptions before the first frame describe the capture */
			f->fingerprint = fnv1a(f->fingerprint, b, blen);
	} else if (type == NG_ISB) {
		ng_isb(f, b, blen);
	} else if (type == NG_SHB) {
		rc = ng_shb(f, b, blen, errbuf);
	} else if (type == NG_JOURNAL || type == NG_SYSDIG_EVENT || type == NG_SYSDIG_EVENT_V2 ||
		   type == NG_SYSDIG_EVENT_V2_LARGE || type == NG_CUSTOM || type == NG_CUSTOM_NOCOPY) {
		f->seq++; /* not a frame, but one in Wireshark's numbering: the frames after keep theirs */
	} /* any other block (name resolution, decryption secrets, ...) is skipped */
	if (rc < 0)
		return rc;
	f->pos += total;
	return rc;
}

/* One classic pcap record at pos: REC_FRAME, REC_NEED or a negative errno. */
static int pcap_record(struct rt_pcapfile *f, struct rt_frame *fr, size_t avail, size_t *need,
		       char *errbuf)
{
	const uint8_t *p = f->buf + f->pos;
	if (avail < PCAP_REC_HDR) {
		*need = PCAP_REC_HDR;
		return REC_NEED;
	}
	uint32_t caplen = rd32(f, p + 8);
	if (caplen > MAX_CAPLEN)
		return rt_errorf(errbuf, 0, "%s: frame %llu: captured length %u is more than %u",
				 f->name, (unsigned long long)f->seq + 1, caplen, MAX_CAPLEN);
	if (avail < PCAP_REC_HDR + (size_t)caplen) {
		*need = PCAP_REC_HDR + (size_t)caplen;
		return REC_NEED;
	}
	/* the seconds are unsigned: 2038 and after read right */
	fr->ts_ns = (uint64_t)rd32(f, p) * 1000000000u + (uint64_t)rd32(f, p + 4) * f->ts_mult;
	fr->data = p + PCAP_REC_HDR;
	fr->caplen = caplen < f->snaplen ? caplen : f->snaplen;
	fr->wirelen = rd32(f, p + 12);
	fr->linktype = f->info.linktype;
	fr->interface_id = 0;
	fr->seq = ++f->seq;
	f->pos += PCAP_REC_HDR + (size_t)caplen;
	return REC_FRAME;
}

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
		int rc = ng ? ng_block(f, &frames[n], avail, &need, errbuf)
			    : pcap_record(f, &frames[n], avail, &need, errbuf);
		if (rc == REC_FRAME) {
			if (++n == max)
				return n;
			continue;
		}
		if (rc == REC_NONE)
			continue;
		if (rc == REC_NEED) {
			if (n)
				return n; /* the frames handed out point into the buffer: keep it */
			ssize_t got = refill(f, need, errbuf);
			if (got > 0)
				continue;
			if (got == 0 && avail == 0)
				return 0;
			if (got == 0)
				rc = ng ? rt_errorf(errbuf, 0, "%s: the file ends in the middle of a block (%zu of %zu bytes, after frame %llu)",
						    f->name, avail, need, (unsigned long long)f->seq)
					: rt_errorf(errbuf, 0, "%s: the file ends in the middle of frame %llu (%zu of %zu bytes)",
						    f->name, (unsigned long long)f->seq + 1, avail, need);
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

static int open_pcap(struct rt_pcapfile *f, uint32_t magic, char *errbuf)
{
	int rc = want(f, PCAP_FILE_HDR, errbuf);
	if (rc)
		return rc > 0 || rc == -EPROTO ? rt_errorf(errbuf, 0, "%s: the pcap file header is cut short", f->name)
					       : rc;
	const uint8_t *h = f->buf + f->pos;
	f->swapped = magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS;
	uint32_t m = rd32(f, h);
	uint16_t major = rd16(f, h + 4);
	if (major < 2)
		return rt_errorf(errbuf, 0, "%s: pcap version %u is too old", f->name, major);
	f->ts_mult = m == PCAP_MAGIC_NS ? 1 : 1000;
	f->info.format = RT_PCAPFILE_PCAP;
	f->info.snaplen = rd32(f, h + 16);
	f->info.linktype = (int)(rd32(f, h + 20) & PCAP_LINKTYPE_MASK);
	/* as libpcap: no snap length, or an absurd one, means the largest frame */
	f->snaplen = f->info.snaplen && f->info.snaplen <= MAX_CAPLEN ? f->info.snaplen : MAX_CAPLEN;
	f->nifaces = 1;
	/* magic, version, snap length and link type (not thiszone and sigfigs) */
	f->fingerprint = fnv1a(fnv1a(f->fingerprint, h, 8), h + 16, 8);
	f->pos += PCAP_FILE_HDR;
	return 0;
}

/* The first section header, then blocks up to the first interface description. */
static int open_pcapng(struct rt_pcapfile *f, char *errbuf)
{
	f->info.format = RT_PCAPFILE_PCAPNG;
	while (f->nifaces == 0) {
		size_t need = 0;
		struct rt_frame fr; /* no frame can come before an interface: ng_block refuses it */
		int rc = ng_block(f, &fr, f->end - f->pos, &need, errbuf);
		if (rc < 0)
			return rc;
		if (rc != REC_NEED)
			continue;
		rc = want(f, need, errbuf);
		if (rc > 0)
			return rt_errorf(errbuf, 0, "%s: a pcapng file with no interface description", f->name);
		if (rc == -EPROTO)
			return rt_errorf(errbuf, 0, "%s: the file ends in the middle of a block", f->name);
		if (rc < 0)
			return rc;
	}
	f->info.linktype = f->ifaces[0].linktype;
	f->info.snaplen = f->ifaces[0].snaplen;
	return 0;
}

static int open_common(struct rt_pcapfile *f, char *errbuf)
{
	f->cap = READ_SIZE;
	f->buf = malloc(f->cap);
	if (!f->buf)
		return rt_errorf(errbuf, ENOMEM, "%s", f->name);
	int rc = want(f, 2, errbuf);
	if (rc > 0 || rc == -EPROTO)
		return rt_errorf(errbuf, 0, "%s: %s", f->name,
				 f->end ? "too short to be a capture file" : "the file is empty");
	if (rc < 0)
		return rc;
	if (f->buf[0] == 0x1f && f->buf[1] == 0x8b) {
		/* gzip: what was read is compressed input */
		f->zin = malloc(ZIN_SIZE);
		if (!f->zin)
			return rt_errorf(errbuf, ENOMEM, "%s", f->name);
		memcpy(f->zin, f->buf, f->end);
		f->z.next_in = f->zin;
		f->z.avail_in = (uInt)f->end;
		f->pos = f->end = 0;
		if (inflateInit2(&f->z, 16 + MAX_WBITS) != Z_OK)
			return rt_errorf(errbuf, ENOMEM, "%s: gzip", f->name);
		f->z_ready = true;
		f->info.gzip = true;
	}
	rc = want(f, 4, errbuf);
	if (rc > 0 || rc == -EPROTO)
		return rt_errorf(errbuf, 0, "%s: too short to be a capture file", f->name);
	if (rc < 0)
		return rc;
	const uint8_t *h = f->buf + f->pos;
	uint32_t magic;
	memcpy(&magic, h, 4);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS || magic == __builtin_bswap32(PCAP_MAGIC_US) ||
	    magic == __builtin_bswap32(PCAP_MAGIC_NS))
		return open_pcap(f, magic, errbuf);
	if (magic == NG_SHB)
		return open_pcapng(f, errbuf);
	return rt_errorf(errbuf, 0, "%s: not a pcap or pcapng file (it starts with %02x %02x %02x %02x)",
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

int rt_pcapfile_open_fd(struct rt_pcapfile **out, int fd, bool own_fd, const char *name, char *errbuf)
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
		const struct iface *ifc = &f->ifaces[i];
		if (!ifc->drops_known)
			continue;
		out->known = true;
		out->if_dropped += ifc->if_dropped;
		out->os_dropped += ifc->os_dropped;
	}
}

void rt_pcapfile_iface_drops(const struct rt_pcapfile *f, uint32_t interface_id,
			     struct rt_pcapfile_iface_drops *out)
{
	memset(out, 0, sizeof(*out));
	if (f->info.format != RT_PCAPFILE_PCAPNG || interface_id >= f->nifaces)
		return;
	const struct iface *ifc = &f->ifaces[interface_id];
	out->known = ifc->drops_known;
	out->if_dropped = ifc->if_dropped;
	out->os_dropped = ifc->os_dropped;
	out->start = ifc->isb_start;
}

uint32_t rt_pcapfile_interfaces(const struct rt_pcapfile *f)
{
	return f->nifaces;
}

uint64_t rt_pcapfile_fingerprint(const struct rt_pcapfile *f)
{
	return f->fingerprint;
}

void rt_pcapfile_close(struct rt_pcapfile *f)
{
	if (!f)
		return;
	if (f->z_ready)
		inflateEnd(&f->z);
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	free(f->zin);
	free(f->buf);
	free(f->ifaces);
	free(f);
}

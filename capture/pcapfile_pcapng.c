/* The capture file reader's pcapng blocks: sections, interfaces, statistics, packets. */
#include "capture/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * pcapng: blocks of  type (4) | total length (4) | body | total length (4),
 * lengths a multiple of 4, in the byte order of their section (set by the
 * section header's byte-order magic).
 */
#define NG_IDB 0x00000001u
#define NG_PB  0x00000002u /* obsolete packet block */
#define NG_SPB 0x00000003u /* simple packet block */
#define NG_ISB 0x00000005u
#define NG_EPB 0x00000006u
/* blocks that hold no frame of ours but that Wireshark shows as frames: numbered alike */
#define NG_JOURNAL               0x00000009u /* systemd journal export */
#define NG_SYSDIG_EVENT          0x00000204u
#define NG_SYSDIG_EVENT_V2       0x00000216u
#define NG_SYSDIG_EVENT_V2_LARGE 0x00000221u
#define NG_CUSTOM                0x00000BADu
#define NG_CUSTOM_NOCOPY         0x40000BADu
#define NG_BOM                   0x1A2B3C4Du
#define NG_MIN_BLOCK             12u
#define OPT_END                  0
#define IF_NAME                  2
#define IF_TSRESOL               9
#define IF_TSOFFSET              14
#define ISB_STARTTIME            2
#define ISB_IFDROP               5
#define ISB_OSDROP               7

/* How an interface's timestamp units become nanoseconds. */
enum ts_kind {
	TS_MUL, /* 10^-k seconds, k <= 9: times ts_factor */
	TS_DIV, /* 10^-k seconds, k > 9: divided by ts_factor */
	TS_BIN, /* 2^-ts_shift seconds */
};

static size_t pad4(size_t n)
{
	return (n + 3u) & ~(size_t)3u;
}

static struct rt_pcapfile_iface *iface_add(struct rt_pcapfile *f, char *errbuf)
{
	if (f->nifaces == f->cap_ifaces) {
		if (f->nifaces >= RT_READ_PCAPNG_MAX_IFACES) {
			rt_errorf(errbuf, 0, "%s: more than %u interface descriptions", f->name,
			          RT_READ_PCAPNG_MAX_IFACES);
			return NULL;
		}
		uint32_t ncap = f->cap_ifaces ? f->cap_ifaces * 2 : 4;
		struct rt_pcapfile_iface *ni = realloc(f->ifaces, ncap * sizeof(*ni));
		if (!ni) {
			rt_errorf(errbuf, ENOMEM, "%s", f->name);
			return NULL;
		}
		f->ifaces = ni;
		f->cap_ifaces = ncap;
	}
	struct rt_pcapfile_iface *ifc = &f->ifaces[f->nifaces++];
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
	struct rt_pcapfile_iface *ifc = iface_add(f, errbuf);
	if (!ifc)
		return -ENOMEM;
	ifc->linktype = rt_pcapfile_rd16(f, b);
	ifc->snaplen = rt_pcapfile_rd32(f, b + 4);
	ifc->ts_kind = TS_MUL;
	ifc->ts_factor = 1000;
	for (size_t o = 8; o + 4 <= blen;) {
		uint16_t code = rt_pcapfile_rd16(f, b + o), olen = rt_pcapfile_rd16(f, b + o + 2);
		if (code == OPT_END)
			break;
		if (o + 4 + pad4(olen) > blen)
			return rt_errorf(errbuf, 0, "%s: an interface option runs past its block",
			                 f->name);
		const uint8_t *v = b + o + 4;
		if (code == IF_NAME) {
			size_t n = olen < sizeof(ifc->name) - 1 ? olen : sizeof(ifc->name) - 1;
			memcpy(ifc->name, v, n);
			ifc->name[n] = '\0'; /* a name that holds a NUL ends there */
		} else if (code == IF_TSRESOL) {
			if (olen != 1)
				return rt_errorf(errbuf, 0, "%s: if_tsresol of %u bytes", f->name,
				                 olen);
			if (v[0] & 0x80) {
				if ((v[0] & 0x7f) > 63)
					return rt_errorf(errbuf, 0,
					                 "%s: if_tsresol 2^-%u is too fine",
					                 f->name, v[0] & 0x7f);
				ifc->ts_kind = TS_BIN;
				ifc->ts_shift = v[0] & 0x7f;
			} else if (v[0] > 19) {
				return rt_errorf(errbuf, 0, "%s: if_tsresol 10^-%u is too fine",
				                 f->name, v[0]);
			} else {
				uint64_t p = 1;
				for (unsigned k = 0; k < (v[0] <= 9 ? 9u - v[0] : v[0] - 9u); k++)
					p *= 10;
				ifc->ts_kind = v[0] <= 9 ? TS_MUL : TS_DIV;
				ifc->ts_factor = p;
			}
		} else if (code == IF_TSOFFSET) {
			if (olen != 8)
				return rt_errorf(errbuf, 0, "%s: if_tsoffset of %u bytes", f->name,
				                 olen);
			int64_t s = (int64_t)rt_pcapfile_rd64(f, v);
			if (s > INT64_MAX / 1000000000 || s < -(INT64_MAX / 1000000000))
				return rt_errorf(errbuf, 0,
				                 "%s: if_tsoffset of %lld s is out of range",
				                 f->name, (long long)s);
			ifc->ts_offset_ns = s * 1000000000;
		}
		o += 4 + pad4(olen);
	}
	return 0;
}

/* Interface statistics: interface id (4) | timestamp (8) | options (isb_ifdrop, isb_osdrop: 8
 * bytes). */
static void ng_isb(struct rt_pcapfile *f, const uint8_t *b, size_t blen)
{
	if (blen < 12)
		return;
	uint32_t id = rt_pcapfile_rd32(f, b);
	if (id >= f->nifaces - f->section_base)
		return; /* names no interface of this section: nothing to attribute */
	struct rt_pcapfile_iface *ifc = &f->ifaces[f->section_base + id];
	ifc->isb_start = 0;
	for (size_t o = 12; o + 4 <= blen;) {
		uint16_t code = rt_pcapfile_rd16(f, b + o), olen = rt_pcapfile_rd16(f, b + o + 2);
		if (code == OPT_END || o + 4 + pad4(olen) > blen)
			break;
		if (olen == 8 && code == ISB_STARTTIME) {
			/* a timestamp: high and low 32 bits, each in the section's byte order */
			ifc->isb_start = (uint64_t)rt_pcapfile_rd32(f, b + o + 4) << 32 |
			                 rt_pcapfile_rd32(f, b + o + 8);
		} else if (olen == 8 && (code == ISB_IFDROP || code == ISB_OSDROP)) {
			uint64_t v = rt_pcapfile_rd64(f, b + o + 4);
			if (v == UINT64_MAX) {
				/* what some writers put for "not counted": unknown, not a count */
				o += 4 + pad4(olen);
				continue;
			}
			if (code == ISB_IFDROP)
				ifc->if_dropped = v;
			else
				ifc->os_dropped = v;
			ifc->drops_known = true;
		}
		o += 4 + pad4(olen);
	}
}

/*
 * Timestamp t of interface ifc in ns since 1970 into *ns; false when that
 * does not fit 64 bits (after the year 2554, or before 1970 by if_tsoffset).
 */
static inline bool ng_ts(const struct rt_pcapfile_iface *ifc, uint64_t t, uint64_t *ns)
{
	__extension__ typedef unsigned __int128 u128;
	u128 v;
	if (ifc->ts_kind == TS_MUL)
		v = (u128)t * ifc->ts_factor;
	else if (ifc->ts_kind == TS_DIV)
		v = t / ifc->ts_factor;
	else
		v = ((u128)t * 1000000000u) >> ifc->ts_shift;
	if (ifc->ts_offset_ns < 0 && v < (u128) - (__int128)ifc->ts_offset_ns)
		return false;
	v = (u128)((__int128)v + ifc->ts_offset_ns);
	*ns = (uint64_t)v;
	return v <= UINT64_MAX;
}

/* A section header at b (whole block of `total` bytes): its byte order is already set. */
static int ng_shb(struct rt_pcapfile *f, const uint8_t *b, size_t blen, char *errbuf)
{
	if (blen < 16)
		return rt_errorf(errbuf, 0, "%s: section header block too short", f->name);
	uint16_t major = rt_pcapfile_rd16(f, b + 4);
	if (major != 1)
		return rt_errorf(errbuf, 0, "%s: pcapng version %u.%u is not supported", f->name,
		                 major, rt_pcapfile_rd16(f, b + 6));
	f->section_base = f->nifaces;
	return 0;
}

/*
 * One block at pos (avail bytes there): RT_PCAPFILE_REC_FRAME with *fr filled,
 * RT_PCAPFILE_REC_NONE for a block that holds no frame, RT_PCAPFILE_REC_NEED with *need set when
 * the block is not all there yet, or a negative errno.
 */
int rt_pcapfile_ng_block(struct rt_pcapfile *f, struct rt_frame *fr, size_t avail, size_t *need,
                         char *errbuf)
{
	const uint8_t *p = f->buf + f->pos;
	if (avail < 8) {
		*need = 8;
		return RT_PCAPFILE_REC_NEED;
	}
	uint32_t type;
	memcpy(&type, p, 4); /* the section header's type reads the same in both orders */
	if (type == RT_PCAPNG_SHB) {
		if (avail < 12) {
			*need = 12;
			return RT_PCAPFILE_REC_NEED;
		}
		uint32_t bom;
		memcpy(&bom, p + 8, 4);
		if (bom != NG_BOM && bom != __builtin_bswap32(NG_BOM))
			return rt_errorf(errbuf, 0,
			                 "%s: section header with a bad byte-order magic", f->name);
		f->swapped = bom != NG_BOM;
	} else {
		type = rt_pcapfile_rd32(f, p);
	}
	uint32_t total = rt_pcapfile_rd32(f, p + 4);
	if (total < NG_MIN_BLOCK || total % 4 || total > RT_READ_PCAPNG_MAX_BLOCK)
		return rt_errorf(errbuf, 0,
		                 "%s: block of type 0x%x has a bad length %u (after frame %llu)",
		                 f->name, type, total, (unsigned long long)f->seq);
	if (avail < total) {
		*need = total;
		return RT_PCAPFILE_REC_NEED;
	}
	if (rt_pcapfile_rd32(f, p + total - 4) != total)
		return rt_errorf(
		    errbuf, 0,
		    "%s: block of type 0x%x: lengths %u and %u differ (after frame %llu)", f->name,
		    type, total, rt_pcapfile_rd32(f, p + total - 4), (unsigned long long)f->seq);
	const uint8_t *b = p + 8;
	size_t blen = total - NG_MIN_BLOCK;
	uint32_t nsec = f->nifaces - f->section_base; /* interfaces of this section */
	int rc = RT_PCAPFILE_REC_NONE;
	if (type == NG_EPB || type == NG_PB) {
		/* EPB: interface (4) | timestamp high, low (4+4) | captured (4) | original (4) |
		 * data; PB: the same with a 2-byte interface and a 2-byte drop count */
		if (blen < 20)
			return rt_errorf(errbuf, 0, "%s: packet block too short (after frame %llu)",
			                 f->name, (unsigned long long)f->seq);
		uint32_t id = type == NG_EPB ? rt_pcapfile_rd32(f, b) : rt_pcapfile_rd16(f, b);
		uint32_t caplen = rt_pcapfile_rd32(f, b + 12);
		if (id >= nsec)
			return rt_errorf(
			    errbuf, 0,
			    "%s: frame %llu names interface %u, which has no description", f->name,
			    (unsigned long long)f->seq + 1, id);
		if (caplen > blen - 20)
			return rt_errorf(errbuf, 0,
			                 "%s: frame %llu: captured length %u runs past its block",
			                 f->name, (unsigned long long)f->seq + 1, caplen);
		const struct rt_pcapfile_iface *ifc = &f->ifaces[f->section_base + id];
		uint64_t ts =
		    (uint64_t)rt_pcapfile_rd32(f, b + 4) << 32 | rt_pcapfile_rd32(f, b + 8);
		if (!ng_ts(ifc, ts, &fr->ts_ns))
			return rt_errorf(errbuf, 0,
			                 "%s: frame %llu: timestamp %llu of interface %u is not in "
			                 "nanoseconds 0 to 2^64 since 1970 (its if_tsresol and "
			                 "if_tsoffset scale it past them)",
			                 f->name, (unsigned long long)f->seq + 1,
			                 (unsigned long long)ts, f->section_base + id);
		fr->data = b + 20;
		fr->caplen = caplen;
		fr->wirelen = rt_pcapfile_rd32(f, b + 16);
		fr->linktype = ifc->linktype;
		fr->interface_id = f->section_base + id;
		fr->seq = ++f->seq;
		rc = RT_PCAPFILE_REC_FRAME;
	} else if (type == NG_SPB) {
		/* original length (4) | data, cut to the first interface's snap length; no
		 * timestamp */
		if (blen < 4 || nsec == 0)
			return rt_errorf(
			    errbuf, 0, "%s: simple packet block %s (after frame %llu)", f->name,
			    blen < 4 ? "too short" : "before any interface description",
			    (unsigned long long)f->seq);
		const struct rt_pcapfile_iface *ifc = &f->ifaces[f->section_base];
		uint32_t len = rt_pcapfile_rd32(f, b), caplen = len;
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
		rc = RT_PCAPFILE_REC_FRAME;
	} else if (type == NG_IDB) {
		rc = ng_idb(f, b, blen, errbuf);
		if (f->seq == 0) /* the descriptions before the first frame describe the capture */
			f->fingerprint = rt_pcapfile_fnv1a(f->fingerprint, b, blen);
	} else if (type == NG_ISB) {
		ng_isb(f, b, blen);
	} else if (type == RT_PCAPNG_SHB) {
		rc = ng_shb(f, b, blen, errbuf);
	} else if (type == NG_JOURNAL || type == NG_SYSDIG_EVENT || type == NG_SYSDIG_EVENT_V2 ||
	           type == NG_SYSDIG_EVENT_V2_LARGE || type == NG_CUSTOM ||
	           type == NG_CUSTOM_NOCOPY) {
		f->seq++; /* not a frame, but one in Wireshark's numbering: the frames after keep
		             theirs */
	} /* any other block (name resolution, decryption secrets, ...) is skipped */
	if (rc < 0)
		return rc;
	f->pos += total;
	return rc;
}

/* The first section header, then blocks up to the first interface description. */
int rt_pcapfile_open_pcapng(struct rt_pcapfile *f, char *errbuf)
{
	f->info.format = RT_PCAPFILE_PCAPNG;
	while (f->nifaces == 0) {
		size_t need = 0;
		struct rt_frame fr; /* no frame can come before an interface: ng_block refuses it */
		int rc = rt_pcapfile_ng_block(f, &fr, f->end - f->pos, &need, errbuf);
		if (rc < 0)
			return rc;
		if (rc != RT_PCAPFILE_REC_NEED)
			continue;
		rc = rt_pcapfile_want(f, need, errbuf);
		if (rc > 0)
			return rt_errorf(
			    errbuf, 0, "%s: a pcapng file with no interface description", f->name);
		if (rc == -EPROTO)
			return rt_errorf(errbuf, 0, "%s: the file ends in the middle of a block",
			                 f->name);
		if (rc < 0)
			return rc;
	}
	f->info.linktype = f->ifaces[0].linktype;
	f->info.snaplen = f->ifaces[0].snaplen;
	return 0;
}

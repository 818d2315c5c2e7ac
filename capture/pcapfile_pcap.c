/* The capture file reader's classic pcap: the file header and the records. */
#include "capture/internal.h"

#include <errno.h>

/*
 * Classic pcap (all fields in the writer's byte order):
 *  file header (24 bytes): magic (4) | version 2.4 (2+2) | thiszone (4) | sigfigs (4) |
 *                          snaplen (4) | link type (4; the low 26 bits)
 *  record header (16 bytes): seconds (4, unsigned) | micro- or nanoseconds (4) |
 *                            captured length (4) | original length (4), then the bytes
 */
#define PCAP_FILE_HDR      24u
#define PCAP_REC_HDR       16u
#define PCAP_LINKTYPE_MASK 0x03FFFFFFu

int rt_pcapfile_open_pcap(struct rt_pcapfile *f, uint32_t magic, char *errbuf)
{
	int rc = rt_pcapfile_want(f, PCAP_FILE_HDR, errbuf);
	if (rc)
		return rc > 0 || rc == -EPROTO
		           ? rt_errorf(errbuf, 0, "%s: the pcap file header is cut short", f->name)
		           : rc;
	const uint8_t *h = f->buf + f->pos;
	f->swapped = magic != RT_PCAP_MAGIC_US && magic != RT_PCAP_MAGIC_NS;
	uint32_t m = rt_pcapfile_rd32(f, h);
	uint16_t major = rt_pcapfile_rd16(f, h + 4);
	if (major < 2)
		return rt_errorf(errbuf, 0, "%s: pcap version %u is too old", f->name, major);
	f->ts_mult = m == RT_PCAP_MAGIC_NS ? 1 : 1000;
	f->info.format = RT_PCAPFILE_PCAP;
	f->info.snaplen = rt_pcapfile_rd32(f, h + 16);
	f->info.linktype = (int)(rt_pcapfile_rd32(f, h + 20) & PCAP_LINKTYPE_MASK);
	/* as libpcap: no snap length, or an absurd one, means the largest frame */
	f->snaplen = f->info.snaplen && f->info.snaplen <= RT_READ_PCAP_MAX_CAPLEN
	                 ? f->info.snaplen
	                 : RT_READ_PCAP_MAX_CAPLEN;
	f->nifaces = 1;
	/* magic, version, snap length and link type (not thiszone and sigfigs) */
	f->fingerprint = rt_pcapfile_fnv1a(rt_pcapfile_fnv1a(f->fingerprint, h, 8), h + 16, 8);
	f->pos += PCAP_FILE_HDR;
	return 0;
}

/* One classic pcap record at pos: RT_PCAPFILE_REC_FRAME, RT_PCAPFILE_REC_NEED or a negative errno.
 */
int rt_pcapfile_pcap_record(struct rt_pcapfile *f, struct rt_frame *fr, size_t avail, size_t *need,
                            char *errbuf)
{
	const uint8_t *p = f->buf + f->pos;
	if (avail < PCAP_REC_HDR) {
		*need = PCAP_REC_HDR;
		return RT_PCAPFILE_REC_NEED;
	}
	uint32_t caplen = rt_pcapfile_rd32(f, p + 8);
	if (caplen > RT_READ_PCAP_MAX_CAPLEN)
		return rt_errorf(errbuf, 0, "%s: frame %llu: captured length %u is more than %u",
		                 f->name, (unsigned long long)f->seq + 1, caplen,
		                 RT_READ_PCAP_MAX_CAPLEN);
	if (avail < PCAP_REC_HDR + (size_t)caplen) {
		*need = PCAP_REC_HDR + (size_t)caplen;
		return RT_PCAPFILE_REC_NEED;
	}
	/* the seconds are unsigned: 2038 and after read right */
	uint32_t frac = rt_pcapfile_rd32(f, p + 4);
	if ((uint64_t)frac * f->ts_mult >= 1000000000u) /* no division for every frame */
		return rt_errorf(errbuf, 0,
		                 "%s: frame %llu: a fraction of a second of %u %s is not less than "
		                 "one second",
		                 f->name, (unsigned long long)f->seq + 1, frac,
		                 f->ts_mult == 1 ? "ns" : "us");
	fr->ts_ns = (uint64_t)rt_pcapfile_rd32(f, p) * 1000000000u + (uint64_t)frac * f->ts_mult;
	fr->data = p + PCAP_REC_HDR;
	fr->caplen = caplen < f->snaplen ? caplen : f->snaplen;
	fr->wirelen = rt_pcapfile_rd32(f, p + 12);
	fr->linktype = f->info.linktype;
	fr->interface_id = 0;
	fr->seq = ++f->seq;
	f->pos += PCAP_REC_HDR + (size_t)caplen;
	return RT_PCAPFILE_REC_FRAME;
}

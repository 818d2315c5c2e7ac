/* Capture file writers: pcapng blocks and nanosecond pcap records, buffered, rotating. */
#include "capture/writer.h"
#include "common/clock.h"
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WBUF_SIZE (1u << 20)

/* pcapng block types and options */
#define PCAPNG_SHB     0x0A0D0D0Au
#define PCAPNG_IDB     0x00000001u
#define PCAPNG_ISB     0x00000005u
#define PCAPNG_EPB     0x00000006u
#define PCAPNG_BOM     0x1A2B3C4Du
#define OPT_END        0
#define OPT_COMMENT    1
#define SHB_USERAPPL   4
#define IF_NAME        2
#define IF_DESCRIPTION 3
#define IF_TSRESOL     9
#define ISB_STARTTIME  2
#define ISB_ENDTIME    3
#define ISB_IFRECV     4
#define ISB_IFDROP     5
#define ISB_OSDROP     7
#define ISB_USRDELIV   8
#define ISB_OPTIONS    6 /* starttime, endtime, ifrecv, ifdrop, osdrop, usrdeliv: 8 bytes each */

#define PCAP_NS_MAGIC 0xA1B23C4Du

struct iface {
	char name[128];
	int linktype;
	uint32_t snaplen;
	enum rt_ts_source ts_source;
};

struct rt_writer {
	struct rt_writer_config cfg;
	char path_pattern[4096];
	char cur_path[4096 + 32]; /* the pattern expanded, plus ".N" */
	int fd;
	bool to_stdout;
	unsigned file_index;
	uint64_t file_bytes;     /* bytes in the current file, buffered included */
	uint64_t file_packets;   /* frames in the current file */
	uint64_t file_opened_ns; /* monotonic */
	uint64_t start_ns;       /* capture start (realtime), for isb_starttime */
	uint64_t count;          /* frames taken, for isb_usrdeliv */
	uint64_t on_disk;        /* frames whose bytes were all written to a file */
	uint64_t buf_frames;     /* frames whose bytes wait in buf, whole (see reserve()) */
	bool finished;           /* rt_writer_finish() closed the last file */
	struct iface ifaces[RT_WRITER_MAX_IFACES];
	int n_ifaces;
	bool header_done; /* SHB+IDBs (or the pcap header) of the current file written */
	rt_writer_stats_fn stats_fn;
	void *stats_ctx;
	int err; /* first write error (negative errno), sticky */
	char errmsg[RT_ERRBUF_SIZE];
	size_t len;
	uint8_t buf[WBUF_SIZE];
};

const char *rt_ts_source_name(enum rt_ts_source ts)
{
	switch (ts) {
	case RT_TS_FILE:
		return "as read from a capture file";
	case RT_TS_SOFTWARE:
		return "software (kernel or system clock)";
	case RT_TS_HW_WALLCLOCK:
		return "hardware (NIC completion wall clock)";
	case RT_TS_HW_RAW:
		return "hardware (NIC raw clock converted with the HCA core clock)";
	}
	return "unknown";
}

/* Write the buffer out; a failure is kept in w->err (sticky) with its message. */
static void drain(struct rt_writer *w)
{
	size_t off = 0;
	while (!w->err && off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			w->err = rt_errorf(w->errmsg, errno, "%s: write", w->cur_path);
		else
			off += (size_t)n;
	}
	/* frames of a failed write are not counted: some of their bytes may be missing */
	if (!w->err)
		w->on_disk += w->buf_frames;
	w->buf_frames = 0;
	w->len = 0;
}

/*
 * Room for one whole record of len bytes in the buffer (written out first
 * if it lacks room), so the buffer is only ever written out between
 * records; NULL after a write error.
 */
static uint8_t *reserve(struct rt_writer *w, size_t len)
{
	if (WBUF_SIZE - w->len < len)
		drain(w);
	if (w->err)
		return NULL;
	uint8_t *p = w->buf + w->len;
	w->len += len;
	w->file_bytes += len;
	return p;
}

/* Append bytes, draining the buffer when full. */
static void put(struct rt_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	w->file_bytes += len;
	while (len > 0 && !w->err) {
		if (w->len == WBUF_SIZE)
			drain(w);
		size_t n = WBUF_SIZE - w->len;
		if (n > len)
			n = len;
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		p += n;
		len -= n;
	}
}

static void put_u16(struct rt_writer *w, uint16_t v)
{
	put(w, &v, 2);
}

static void put_u32(struct rt_writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_u64(struct rt_writer *w, uint64_t v)
{
	put(w, &v, 8);
}

/* pcapng timestamps at if_tsresol 9: two 32-bit halves of the ns count, high first. */
static void put_ts(struct rt_writer *w, uint64_t ts_ns)
{
	put_u32(w, (uint32_t)(ts_ns >> 32));
	put_u32(w, (uint32_t)ts_ns);
}

static size_t pad4(size_t n)
{
	return (n + 3u) & ~(size_t)3u;
}

static size_t opt_size(size_t len)
{
	return 4 + pad4(len);
}

static void put_opt(struct rt_writer *w, uint16_t code, const void *val, size_t len)
{
	static const uint8_t zeros[4];
	put_u16(w, code);
	put_u16(w, (uint16_t)len);
	put(w, val, len);
	put(w, zeros, pad4(len) - len);
}

static void put_opt_str(struct rt_writer *w, uint16_t code, const char *s)
{
	put_opt(w, code, s, strlen(s));
}

static void put_opt_end(struct rt_writer *w)
{
	put_u32(w, 0);
}

/* Copy the sticky error to the caller's errbuf; returns it (0 when none). */
static int status(const struct rt_writer *w, char *errbuf)
{
	return w->err ? rt_errmsg(errbuf, -w->err, "%s", w->errmsg) : 0;
}

static void write_shb(struct rt_writer *w)
{
	const char *app = w->cfg.application ? w->cfg.application : "rocetrace";
	const char *comment = w->cfg.comment && *w->cfg.comment ? w->cfg.comment : NULL;
	uint32_t total = 28 + (uint32_t)opt_size(strlen(app)) + 4;
	if (comment)
		total += (uint32_t)opt_size(strlen(comment));
	put_u32(w, PCAPNG_SHB);
	put_u32(w, total);
	put_u32(w, PCAPNG_BOM);
	put_u16(w, 1);
	put_u16(w, 0);
	put_u64(w, UINT64_MAX); /* section length unknown */
	if (comment)
		put_opt_str(w, OPT_COMMENT, comment);
	put_opt_str(w, SHB_USERAPPL, app);
	put_opt_end(w);
	put_u32(w, total);
}

static void write_idb(struct rt_writer *w, const struct iface *ifc)
{
	char comment[160];
	static const uint8_t tsresol = 9;
	snprintf(comment, sizeof(comment), "timestamps: %s", rt_ts_source_name(ifc->ts_source));
	uint32_t total =
	    20 +
	    (uint32_t)(opt_size(strlen(ifc->name)) + opt_size(strlen(comment)) * 2 + opt_size(1)) +
	    4;
	put_u32(w, PCAPNG_IDB);
	put_u32(w, total);
	put_u16(w, (uint16_t)ifc->linktype);
	put_u16(w, 0);
	put_u32(w, ifc->snaplen);
	put_opt_str(w, IF_NAME, ifc->name);
	put_opt_str(w, IF_DESCRIPTION, comment);
	put_opt_str(w, OPT_COMMENT, comment);
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put_opt_end(w);
	put_u32(w, total);
}

static void write_pcap_header(struct rt_writer *w)
{
	const struct iface *ifc = &w->ifaces[0];
	put_u32(w, PCAP_NS_MAGIC);
	put_u16(w, 2);
	put_u16(w, 4);
	put_u32(w, 0); /* thiszone */
	put_u32(w, 0); /* sigfigs */
	put_u32(w, ifc->snaplen);
	put_u32(w, (uint32_t)ifc->linktype);
}

static int write_headers(struct rt_writer *w, char *errbuf)
{
	if (w->n_ifaces == 0)
		return rt_errorf(errbuf, EINVAL, "%s: no capture interface described", w->cur_path);
	if (w->cfg.format == RT_FORMAT_PCAP_NS) {
		write_pcap_header(w);
	} else {
		write_shb(w);
		for (int i = 0; i < w->n_ifaces; i++)
			write_idb(w, &w->ifaces[i]);
	}
	w->header_done = true;
	return status(w, errbuf);
}

static void write_isbs(struct rt_writer *w)
{
	uint64_t now = rt_real_ns();
	for (int i = 0; i < w->n_ifaces; i++) {
		struct rt_source_stats st = {0};
		w->stats_fn(w->stats_ctx, i, &st);
		uint64_t ifrecv = st.received + st.dropped;
		uint32_t start[2] = {(uint32_t)(w->start_ns >> 32), (uint32_t)w->start_ns};
		uint32_t end[2] = {(uint32_t)(now >> 32), (uint32_t)now};
		uint32_t total =
		    24 + (uint32_t)opt_size(8) * ISB_OPTIONS + 4; /* head, options, end, trailer */
		put_u32(w, PCAPNG_ISB);
		put_u32(w, total);
		put_u32(w, (uint32_t)i);
		put_ts(w, now);
		put_opt(w, ISB_STARTTIME, start, 8);
		put_opt(w, ISB_ENDTIME, end, 8);
		put_opt(w, ISB_IFRECV, &ifrecv, 8);
		/* the interface's own drops, then the kernel's, ring's or capture's */
		put_opt(w, ISB_IFDROP, &st.if_dropped, 8);
		put_opt(w, ISB_OSDROP, &st.dropped, 8);
		put_opt(w, ISB_USRDELIV, &w->count, 8);
		put_opt_end(w);
		put_u32(w, total);
	}
}

/* The name of file number w->file_index. */
static void next_path(struct rt_writer *w)
{
	if (strchr(w->path_pattern, '%')) {
		char name[4096];
		time_t t = time(NULL);
		struct tm tm;
		localtime_r(&t, &tm);
		/* The user's -w pattern is the format, by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		size_t n = strftime(name, sizeof(name), w->path_pattern, &tm);
#pragma GCC diagnostic pop
		if (n == 0)
			snprintf(name, sizeof(name), "%s", w->path_pattern);
		/* Two files in the same second would share a name: number the later one. */
		if (w->file_index > 0 && strncmp(name, w->cur_path, strlen(name)) == 0)
			snprintf(w->cur_path, sizeof(w->cur_path), "%s.%u", name, w->file_index);
		else
			snprintf(w->cur_path, sizeof(w->cur_path), "%s", name);
	} else if (w->file_index == 0) {
		snprintf(w->cur_path, sizeof(w->cur_path), "%s", w->path_pattern);
	} else {
		snprintf(w->cur_path, sizeof(w->cur_path), "%s.%u", w->path_pattern, w->file_index);
	}
}

static int open_file(struct rt_writer *w, char *errbuf)
{
	if (w->to_stdout) {
		w->fd = STDOUT_FILENO;
		snprintf(w->cur_path, sizeof(w->cur_path), "standard output");
	} else {
		next_path(w);
		int fd = rt_open_output(w->cur_path, errbuf);
		if (fd < 0) {
			/* no file to write to any more: every later call says why */
			w->err = fd;
			snprintf(w->errmsg, sizeof(w->errmsg), "%s", errbuf);
			return fd;
		}
		w->fd = fd;
	}
	w->file_opened_ns = rt_mono_ns();
	w->file_bytes = 0;
	w->file_packets = 0;
	w->header_done = false;
	return 0;
}

/* ISBs, flush, close. Keeps the first error but always closes. */
static int finish_file(struct rt_writer *w, char *errbuf)
{
	int rc = 0;
	if (w->fd < 0) /* a file that could not be opened */
		return status(w, errbuf);
	if (!w->header_done && w->n_ifaces > 0)
		rc = write_headers(w, errbuf);
	if (rc == 0 && w->cfg.format == RT_FORMAT_PCAPNG && w->stats_fn)
		write_isbs(w);
	drain(w);
	if (rc == 0)
		rc = status(w, errbuf);
	if (!w->to_stdout && w->fd >= 0 && close(w->fd) < 0 && rc == 0)
		rc = rt_errorf(errbuf, errno, "%s: close", w->cur_path);
	w->fd = -1;
	return rc;
}

int rt_writer_open(struct rt_writer **out, const struct rt_writer_config *cfg, char *errbuf)
{
	if (!cfg->path || !*cfg->path)
		return rt_errorf(errbuf, EINVAL, "no output file given");
	bool to_stdout = strcmp(cfg->path, "-") == 0;
	if (to_stdout && (cfg->rotate_bytes || cfg->rotate_seconds))
		return rt_errorf(errbuf, EINVAL,
		                 "cannot rotate files when writing to standard output");
	if (strlen(cfg->path) >= sizeof(((struct rt_writer *)0)->path_pattern) - 16)
		return rt_errorf(errbuf, ENAMETOOLONG, "%s", cfg->path);
	struct rt_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return rt_errorf(errbuf, ENOMEM, "%s", cfg->path);
	w->cfg = *cfg;
	snprintf(w->path_pattern, sizeof(w->path_pattern), "%s", cfg->path);
	w->cfg.path = w->path_pattern;
	w->to_stdout = to_stdout;
	w->start_ns = rt_real_ns();
	int rc = open_file(w, errbuf);
	if (rc < 0) {
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int rt_writer_add_interface(struct rt_writer *w, const char *name, int linktype, uint32_t snaplen,
                            enum rt_ts_source ts_source, char *errbuf)
{
	int max = w->cfg.format == RT_FORMAT_PCAP_NS ? 1 : RT_WRITER_MAX_IFACES;
	if (w->n_ifaces >= max)
		return rt_errorf(errbuf, ENOSPC, "%s: %s holds at most %d interface%s", w->cur_path,
		                 max == 1 ? "classic pcap" : "this writer", max,
		                 max == 1 ? "" : "s");
	if (linktype < 0 || linktype > 0xffff)
		return rt_errorf(errbuf, EINVAL, "%s: bad link type %d", name, linktype);
	struct iface *ifc = &w->ifaces[w->n_ifaces];
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	ifc->linktype = linktype;
	ifc->snaplen = snaplen ? snaplen : 262144;
	ifc->ts_source = ts_source;
	/* after the file's first frames: described where it comes, before its own frames */
	if (w->header_done)
		write_idb(w, ifc);
	return w->n_ifaces++;
}

void rt_writer_set_stats_fn(struct rt_writer *w, rt_writer_stats_fn fn, void *ctx)
{
	w->stats_fn = fn;
	w->stats_ctx = ctx;
}

static bool need_rotation(struct rt_writer *w, uint64_t record_len)
{
	if (w->file_packets == 0)
		return false;
	/* pcapng files end with one statistics block per interface: keep room for them */
	uint64_t isbs = w->cfg.format == RT_FORMAT_PCAPNG && w->stats_fn
	                    ? (uint64_t)w->n_ifaces * (28 + opt_size(8) * ISB_OPTIONS)
	                    : 0;
	if (w->cfg.rotate_bytes && w->file_bytes + record_len + isbs > w->cfg.rotate_bytes)
		return true;
	if (w->cfg.rotate_seconds) {
		uint64_t ns = rt_mono_ns() - w->file_opened_ns;
		if (ns >= (uint64_t)w->cfg.rotate_seconds * 1000000000u)
			return true;
	}
	return false;
}

int rt_writer_write(struct rt_writer *w, int if_id, const struct rt_frame *f, char *errbuf)
{
	if (if_id < 0 || if_id >= w->n_ifaces)
		return rt_errorf(errbuf, EINVAL, "%s: unknown interface %d", w->cur_path, if_id);
	uint32_t caplen = f->caplen;
	if (caplen > w->ifaces[if_id].snaplen)
		caplen = w->ifaces[if_id].snaplen;
	uint32_t wirelen = f->wirelen < caplen ? caplen : f->wirelen;
	bool ng = w->cfg.format == RT_FORMAT_PCAPNG;
	uint64_t reclen = ng ? 32 + pad4(caplen) : 16 + (uint64_t)caplen;
	int rc;
	if (need_rotation(w, reclen)) {
		rc = finish_file(w, errbuf);
		if (rc < 0)
			return rc;
		w->file_index++;
		rc = open_file(w, errbuf);
		if (rc < 0)
			return rc;
	}
	if (!w->header_done && (rc = write_headers(w, errbuf)) < 0)
		return rc;
	if (w->err)
		return status(w, errbuf);
	/* pcapng EPB: header, bytes, padding to 4, trailer; classic pcap: header, bytes */
	uint32_t total = (uint32_t)reclen, head[7];
	size_t head_len = ng ? 28 : 16, pad = ng ? pad4(caplen) - caplen : 0;
	if (ng) {
		head[0] = PCAPNG_EPB;
		head[1] = total;
		head[2] = (uint32_t)if_id;
		head[3] = (uint32_t)(f->ts_ns >> 32);
		head[4] = (uint32_t)f->ts_ns;
	} else {
		head[0] = (uint32_t)(f->ts_ns / 1000000000u);
		head[1] = (uint32_t)(f->ts_ns % 1000000000u);
	}
	head[head_len / 4 - 2] = caplen;
	head[head_len / 4 - 1] = wirelen;
	/* built in place: no call per field, and the buffer never splits a record */
	uint8_t *p = reclen <= WBUF_SIZE ? reserve(w, (size_t)reclen) : NULL;
	if (p) {
		memcpy(p, head, head_len);
		memcpy(p + head_len, f->data, caplen);
		memset(p + head_len + caplen, 0, pad);
		if (ng)
			memcpy(p + total - 4, &total, 4);
		w->buf_frames++;
	} else if (!w->err) {
		/* larger than the buffer (a snap length over 1 MiB): streamed through it */
		static const uint8_t zeros[4];
		put(w, head, head_len);
		put(w, f->data, caplen);
		put(w, zeros, pad);
		if (ng)
			put(w, &total, 4);
		drain(w);
		if (!w->err)
			w->on_disk++;
	}
	if (w->err)
		return status(w, errbuf);
	w->file_packets++;
	w->count++;
	return 0;
}

int rt_writer_flush(struct rt_writer *w, char *errbuf)
{
	if (!w->header_done && w->n_ifaces > 0) {
		int rc = write_headers(w, errbuf);
		if (rc < 0)
			return rc;
	}
	drain(w);
	return status(w, errbuf);
}

uint64_t rt_writer_count(const struct rt_writer *w)
{
	return w->on_disk;
}

const char *rt_writer_current_path(const struct rt_writer *w)
{
	return w->cur_path;
}

int rt_writer_finish(struct rt_writer *w, char *errbuf)
{
	if (w->finished)
		return status(w, errbuf);
	w->finished = true;
	return finish_file(w, errbuf);
}

int rt_writer_close(struct rt_writer *w, char *errbuf)
{
	if (!w)
		return 0;
	int rc = rt_writer_finish(w, errbuf);
	free(w);
	return rc;
}

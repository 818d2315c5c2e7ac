/* Live capture through libpcap: block delivery (immediate when a person watches), ns timestamps, kernel drop counts. */
#include "capture/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/*
 * Kernel capture buffer when -B is not given (KiB). Blocks pack frames
 * (8 MiB: 40 k header-only frames, 5 k of 1500 bytes); immediate mode
 * gives each frame a slot sized for the snap length, so it needs more.
 * The kernel clears the whole ring when the capture starts, which costs
 * CPU time (about 2 ms per MiB on a small VM).
 */
#define RT_PCAP_BLOCK_BUFFER_KIB     8192
#define RT_PCAP_IMMEDIATE_BUFFER_KIB 32768
/*
 * Block delivery: the kernel hands a block of the ring over when it is
 * full or this long after its first frame, so an idle-ish link still
 * delivers within two periods (the kernel's timer checks once a period).
 */
#define RT_PCAP_BLOCK_TIMEOUT_MS 20
/* Frames one next() copies out of the ring at most. */
#define RT_PCAP_BATCH 64

struct pcap_priv {
	pcap_t *pcap;
	uint64_t received;
	uint32_t ts_mult; /* 1 when libpcap gives nanoseconds, 1000 for microseconds */
	int fd;       /* the capture socket, polled with a timeout (the handle is non-blocking) */
	int break_fd; /* eventfd written by breakloop() to wake the poll */
	int timeout_ms;
	/* the batch being filled by the dispatch callback */
	struct rt_frame *frames;
	int count;
	/*
	 * libpcap gives a frame back to the kernel once its callback returns
	 * (a whole block with TPACKET_V3): next() copies each frame here, so
	 * the batch stays valid until the next call. RT_PCAP_BATCH x snaplen
	 * bytes, of which only what frames fill is ever touched.
	 */
	uint8_t *copy;
	size_t copy_used;
	size_t slot; /* the snap length: the most one frame takes */
};

static bool pcap_is_ours(const char *name, const struct rt_source_config *cfg)
{
	(void)name;
	(void)cfg;
	return true;
}

/* The pcap LINKTYPE_ of an open handle (libpcap reports DLT_ values, which differ for raw IP). */
static int pcap_linktype(pcap_t *pcap)
{
	int dlt = pcap_datalink(pcap);
	return dlt == DLT_RAW ? RT_LINK_RAW : dlt;
}

/* errno for a pcap_activate() failure */
static int activate_errno(int rc)
{
	switch (rc) {
	case PCAP_ERROR_PERM_DENIED:
	case PCAP_ERROR_PROMISC_PERM_DENIED:
		return EPERM;
	case PCAP_ERROR_NO_SUCH_DEVICE:
		return ENODEV;
	case PCAP_ERROR_IFACE_NOT_UP:
		return ENETDOWN;
	default:
		return EIO;
	}
}

/* Compile and install a BPF filter on the live handle (the kernel runs it). */
static int set_filter(pcap_t *pcap, const char *bpf, char *errbuf)
{
	struct bpf_program prog;
	if (!bpf || !*bpf)
		return 0;
	if (pcap_compile(pcap, &prog, bpf, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return rt_errorf(errbuf, 0, "bad filter '%s': %s", bpf, pcap_geterr(pcap));
	int rc = pcap_setfilter(pcap, &prog);
	pcap_freecode(&prog);
	if (rc < 0)
		return rt_errorf(errbuf, 0, "cannot set filter '%s': %s", bpf, pcap_geterr(pcap));
	return 0;
}

static int pcap_live_open(struct rt_source *src, const char *name,
                          const struct rt_source_config *cfg, char *errbuf)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pcap = pcap_create(name, perr);
	if (!pcap)
		return rt_errorf(errbuf, 0, "%s: %s", name, perr);
	pcap_set_snaplen(pcap, cfg->snaplen ? (int)cfg->snaplen : 262144);
	pcap_set_promisc(pcap, 1);
	/*
	 * Writing a file, frames come in blocks of the ring (TPACKET_V3),
	 * one wake-up per block rather than per frame; a person watching gets
	 * each frame at once (immediate mode: one wake-up each).
	 */
	pcap_set_immediate_mode(pcap, cfg->immediate);
	pcap_set_timeout(pcap, RT_PCAP_BLOCK_TIMEOUT_MS);
	/* libpcap's 2 MiB default holds too few frames for a burst (immediate mode: a few hundred) */
	uint32_t kib = cfg->buffer_count ? cfg->buffer_count
	               : cfg->immediate  ? RT_PCAP_IMMEDIATE_BUFFER_KIB
	                                 : RT_PCAP_BLOCK_BUFFER_KIB;
	if (kib > (1u << 20))
		kib = 1u << 20; /* 1 GiB: pcap_set_buffer_size() takes an int */
	pcap_set_buffer_size(pcap, (int)(kib * 1024u));
	/* Where the kernel cannot give nanoseconds this fails and timestamps stay in microseconds.
	 */
	pcap_set_tstamp_precision(pcap, PCAP_TSTAMP_PRECISION_NANO);
	int rc = pcap_activate(pcap);
	if (rc < 0) {
		int err = activate_errno(rc);
		const char *why = pcap_geterr(pcap);
		if (rc == PCAP_ERROR_NO_SUCH_DEVICE || !*why)
			why = pcap_statustostr(rc);
		rt_errorf(errbuf, 0, "%s: %s%s", name, why,
		          err == EPERM ? " (needs CAP_NET_RAW: run as root or grant the capability)"
		                       : "");
		pcap_close(pcap);
		return -err;
	}
	rc = set_filter(pcap, cfg->bpf, errbuf);
	if (rc < 0) {
		pcap_close(pcap);
		return rc;
	}
	/*
	 * Read non-blocking and wait in poll(), on the socket and an eventfd
	 * breakloop() writes: a signal or a stop ends the wait at once (in
	 * immediate mode libpcap's own wait has no timeout at all). The block
	 * timeout stays the kernel's, set when the ring was made. The socket
	 * is not inherited by a command run with -- CMD.
	 */
	int fd = pcap_get_selectable_fd(pcap);
	if (fd < 0 || pcap_setnonblock(pcap, 1, perr) < 0) {
		rt_errorf(errbuf, 0, "%s: cannot read without blocking: %s", name,
		          fd < 0 ? "no selectable descriptor" : perr);
		pcap_close(pcap);
		return -EIO;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		rc = rt_errorf(errbuf, errno, "%s: close-on-exec", name);
		pcap_close(pcap);
		return rc;
	}
	size_t slot = (size_t)pcap_snapshot(pcap);
	int break_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct pcap_priv *p = break_fd < 0 ? NULL : calloc(1, sizeof(*p));
	uint8_t *copy = p ? malloc(RT_PCAP_BATCH * slot) : NULL;
	if (!copy) {
		rc = rt_errorf(errbuf, break_fd < 0 ? errno : ENOMEM, "%s", name);
		free(p);
		if (break_fd >= 0)
			close(break_fd);
		pcap_close(pcap);
		return rc;
	}
	p->pcap = pcap;
	p->copy = copy;
	p->slot = slot;
	p->fd = fd;
	p->break_fd = break_fd;
	p->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 100;
	p->ts_mult = pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
	src->priv = p;
	src->linktype = pcap_linktype(pcap);
	src->snaplen = (uint32_t)slot;
	src->ts_source = RT_TS_SOFTWARE;
	/* what sits in a block not yet handed over (two timer periods), for the pump to drain at a stop */
	src->hold_ns = cfg->immediate ? 0 : 2 * RT_PCAP_BLOCK_TIMEOUT_MS * 1000000ull + 10000000u;
	return 0;
}

/* pcap_dispatch() callback: one frame copied out of the ring into the batch. */
static void take_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct pcap_priv *p = (struct pcap_priv *)user;
	struct rt_frame *f = &p->frames[p->count++];
	uint32_t caplen = h->caplen <= p->slot ? h->caplen : (uint32_t)p->slot;
	uint8_t *dst = p->copy + p->copy_used;

	memcpy(dst, data, caplen);
	p->copy_used += caplen;
	f->data = dst;
	f->caplen = caplen;
	f->wirelen = h->len;
	f->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * p->ts_mult;
	f->seq = 0; /* the kernel filter hides what it skips: numbered on delivery */
	f->linktype = 0;
	f->interface_id = 0;
}

/* What the ring holds, up to max frames: their count, or a negative errno. */
static int dispatch(struct rt_source *src, struct pcap_priv *p, struct rt_frame *frames, int max,
                    char *errbuf)
{
	p->frames = frames;
	p->count = 0;
	p->copy_used = 0;
	int rc = pcap_dispatch(p->pcap, max, take_frame, (u_char *)p);
	if (rc < 0 && rc != PCAP_ERROR_BREAK)
		return rt_errorf(errbuf, 0, "%s: %s", src->name, pcap_geterr(p->pcap));
	p->received += (uint64_t)p->count;
	return p->count;
}

static int pcap_live_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	struct pcap_priv *p = src->priv;
	if (max < 1)
		return -EINVAL;
	if (max > RT_PCAP_BATCH)
		max = RT_PCAP_BATCH;
	int n = dispatch(src, p, frames, max, errbuf);
	if (n != 0)
		return n;
	struct pollfd fds[2] = {{.fd = p->fd, .events = POLLIN},
	                        {.fd = p->break_fd, .events = POLLIN}};
	int ready = poll(fds, 2, p->timeout_ms);
	if (ready < 0 && errno != EINTR)
		return rt_errorf(errbuf, errno, "%s: poll", src->name);
	if (ready < 0 || fds[1].revents) {
		uint64_t v;
		if (read(p->break_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return rt_errorf(errbuf, errno, "%s: reading the wake-up descriptor",
			                 src->name);
		return -EINTR;
	}
	if (ready == 0)
		return -EAGAIN;
	n = dispatch(src, p, frames, max, errbuf);
	return n != 0 ? n : -EAGAIN;
}

static int pcap_live_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	struct pcap_priv *p = src->priv;
	struct pcap_stat ps;
	st->received = p->received;
	if (pcap_stats(p->pcap, &ps) < 0)
		return rt_errorf(errbuf, 0, "%s: %s", src->name, pcap_geterr(p->pcap));
	st->dropped = ps.ps_drop;
	st->if_dropped = ps.ps_ifdrop;
	st->drops_known = true;
	return 0;
}

/* Async-signal-safe: one write(2) to the eventfd. */
static void pcap_live_break(struct rt_source *src)
{
	struct pcap_priv *p = src->priv;
	uint64_t one = 1;
	ssize_t n = write(p->break_fd, &one, sizeof(one));
	(void)n; /* a full counter still wakes the poll */
}

/* Every network interface libpcap can open: its flags and description. */
static int pcap_live_list(const struct rt_source_config *cfg, rt_source_list_fn fn, void *ctx,
                          char *errbuf)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_if_t *all = NULL;
	int n = 0;

	(void)cfg;
	if (pcap_findalldevs(&all, perr) < 0)
		return rt_errmsg(errbuf, EIO, "%s", perr);
	for (pcap_if_t *d = all; d; d = d->next, n++) {
		struct rt_source_device dev;

		snprintf(dev.name, sizeof(dev.name), "%s", d->name);
		snprintf(dev.desc, sizeof(dev.desc), "%s%s%s%s%s%s",
		         d->flags & PCAP_IF_UP ? "up" : "down",
		         d->flags & PCAP_IF_RUNNING ? ",running" : "",
		         d->flags & PCAP_IF_LOOPBACK ? ",loopback" : "",
		         d->flags & PCAP_IF_WIRELESS ? ",wireless" : "", d->description ? "  " : "",
		         d->description ? d->description : "");
		fn(ctx, &dev);
	}
	pcap_freealldevs(all);
	return n;
}

static void pcap_live_close(struct rt_source *src)
{
	struct pcap_priv *p = src->priv;
	if (!p)
		return;
	pcap_close(p->pcap);
	close(p->break_fd);
	free(p->copy);
	free(p);
	src->priv = NULL;
}

const struct rt_source_ops rt_source_pcap_ops = {
    .kind = "pcap",
    .is_ours = pcap_is_ours,
    .open = pcap_live_open,
    .next = pcap_live_next,
    .stats = pcap_live_stats,
    .breakloop = pcap_live_break,
    .close = pcap_live_close,
    .list = pcap_live_list,
};

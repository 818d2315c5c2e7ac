/* Live capture through libpcap: immediate mode, ns timestamps, kernel drop counts. */
#include "capture/internal.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Kernel capture buffer when -B is not given (KiB). */
#define RT_PCAP_DEFAULT_BUFFER_KIB 32768

struct pcap_priv {
	pcap_t *pcap;
	uint64_t received;
	uint32_t ts_mult; /* 1 when libpcap gives nanoseconds, 1000 for microseconds */
	int fd;       /* the capture socket, polled with a timeout (the handle is non-blocking) */
	int break_fd; /* eventfd written by breakloop() to wake the poll */
	int timeout_ms;
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
	pcap_set_immediate_mode(pcap, 1);
	/*
	 * In immediate mode libpcap uses fixed-size ring slots sized for the
	 * snap length: its 2 MiB default holds too few frames for a burst.
	 */
	uint32_t kib = cfg->buffer_count ? cfg->buffer_count : RT_PCAP_DEFAULT_BUFFER_KIB;
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
	 * libpcap's own read timeout does not apply in immediate mode: read
	 * non-blocking and wait in poll(), which breakloop() can wake.
	 */
	int fd = pcap_get_selectable_fd(pcap);
	if (fd < 0 || pcap_setnonblock(pcap, 1, perr) < 0) {
		rt_errorf(errbuf, 0, "%s: cannot read without blocking: %s", name,
		          fd < 0 ? "no selectable descriptor" : perr);
		pcap_close(pcap);
		return -EIO;
	}
	int break_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct pcap_priv *p = break_fd < 0 ? NULL : calloc(1, sizeof(*p));
	if (!p) {
		rc = rt_errorf(errbuf, break_fd < 0 ? errno : ENOMEM, "%s", name);
		if (break_fd >= 0)
			close(break_fd);
		pcap_close(pcap);
		return rc;
	}
	p->pcap = pcap;
	p->fd = fd;
	p->break_fd = break_fd;
	p->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 100;
	p->ts_mult = pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO ? 1 : 1000;
	src->priv = p;
	src->linktype = pcap_linktype(pcap);
	src->snaplen = (uint32_t)pcap_snapshot(pcap);
	src->ts_source = RT_TS_SOFTWARE;
	return 0;
}

static int pcap_live_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	struct pcap_priv *p = src->priv;
	struct pcap_pkthdr *h;
	const u_char *data;
	if (max < 1)
		return -EINVAL;
	int rc = pcap_next_ex(p->pcap, &h, &data);
	if (rc == 0) {
		struct pollfd fds[2] = {{.fd = p->fd, .events = POLLIN},
		                        {.fd = p->break_fd, .events = POLLIN}};
		int n = poll(fds, 2, p->timeout_ms);
		if (n < 0 && errno != EINTR)
			return rt_errorf(errbuf, errno, "%s: poll", src->name);
		if (n < 0 || fds[1].revents) {
			uint64_t v;
			if (read(p->break_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				return rt_errorf(errbuf, errno,
				                 "%s: reading the wake-up descriptor", src->name);
			return -EINTR;
		}
		if (n == 0)
			return -EAGAIN;
		rc = pcap_next_ex(p->pcap, &h, &data);
	}
	if (rc == 1) {
		frames[0].data = data;
		frames[0].caplen = h->caplen;
		frames[0].wirelen = h->len;
		frames[0].ts_ns =
		    (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec * p->ts_mult;
		frames[0].seq = 0; /* the kernel filter hides what it skips: numbered on delivery */
		frames[0].linktype = 0;
		frames[0].interface_id = 0;
		p->received++;
		return 1;
	}
	if (rc == 0)
		return -EAGAIN;
	if (rc == PCAP_ERROR_BREAK)
		return -EINTR;
	return rt_errorf(errbuf, 0, "%s: %s", src->name, pcap_geterr(p->pcap));
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

/* Saved-capture source: pcap and pcapng (plain or gzip'd, "-" for stdin) through the native reader, BPF through libpcap. */
#include "capture/internal.h"
#include "capture/pcapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Link types one file may mix that get their own compiled filter; frames of more are an error. */
#define MAX_FILTERS 8

/* The filter compiled for one link type (BPF programs read link-layer offsets). */
struct filter {
	int linktype;
	struct bpf_program prog;
};

struct file_priv {
	struct rt_pcapfile *pf;
	uint64_t received;
	char *bpf; /* the expression, compiled per link type as frames meet it */
	struct filter filters[MAX_FILTERS];
	int nfilters;
};

static bool file_is_ours(const char *name, const struct rt_source_config *cfg)
{
	(void)cfg;
	struct stat st;
	if (strcmp(name, "-") == 0)
		return true;
	return stat(name, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode));
}

static void file_close(struct rt_source *src);

/* The filter for `linktype`, compiled at its first use; NULL with errbuf set when it does not compile. */
static const struct bpf_program *filter_for(struct file_priv *p, int linktype, char *errbuf)
{
	for (int i = 0; i < p->nfilters; i++)
		if (p->filters[i].linktype == linktype)
			return &p->filters[i].prog;
	if (p->nfilters == MAX_FILTERS) {
		rt_errorf(errbuf, 0, "-f: the file mixes more than %d link types", MAX_FILTERS);
		return NULL;
	}
	/* libpcap compiles for a DLT_ value; only raw IP's differs from its LINKTYPE_ */
	pcap_t *dead = pcap_open_dead(linktype == RT_LINK_RAW ? DLT_RAW : linktype, 262144);
	if (!dead) {
		rt_errorf(errbuf, ENOMEM, "-f");
		return NULL;
	}
	struct filter *fl = &p->filters[p->nfilters];
	if (pcap_compile(dead, &fl->prog, p->bpf, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		rt_errorf(errbuf, 0, "bad filter '%s' for link type %d: %s", p->bpf, linktype, pcap_geterr(dead));
		pcap_close(dead);
		return NULL;
	}
	pcap_close(dead);
	fl->linktype = linktype;
	p->nfilters++;
	return &fl->prog;
}

static int file_open(struct rt_source *src, const char *name, const struct rt_source_config *cfg,
		     char *errbuf)
{
	bool is_stdin = strcmp(name, "-") == 0;
	const char *shown = is_stdin ? "stdin" : name;
	struct file_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return rt_errorf(errbuf, ENOMEM, "%s", shown);
	int fd = is_stdin ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int rc = rt_errorf(errbuf, errno, "%s", shown);
		free(p);
		return rc;
	}
	int rc = rt_pcapfile_open_fd(&p->pf, fd, !is_stdin, shown, errbuf);
	if (rc < 0) {
		free(p);
		return rc;
	}
	src->priv = p;
	const struct rt_pcapfile_info *info = rt_pcapfile_info(p->pf);
	src->linktype = info->linktype;
	src->snaplen = info->snaplen;
	src->ts_source = RT_TS_FILE;
	if (cfg->bpf && *cfg->bpf) {
		/* compiled now for the first link type, so a bad expression fails at once */
		if (!(p->bpf = strdup(cfg->bpf))) {
			file_close(src);
			return rt_errorf(errbuf, ENOMEM, "%s", shown);
		}
		if (!filter_for(p, info->linktype, errbuf)) {
			file_close(src);
			return -EINVAL;
		}
	}
	return 0;
}

static int file_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	struct file_priv *p = src->priv;
	for (;;) {
		int n = rt_pcapfile_next(p->pf, frames, max, errbuf);
		if (n <= 0 || !p->bpf) {
			if (n > 0)
				p->received += (uint64_t)n;
			return n;
		}
		/* keep the frames the filter accepts; the others keep their numbers (seq) */
		int kept = 0;
		for (int i = 0; i < n; i++) {
			const struct bpf_program *prog = filter_for(p, frames[i].linktype, errbuf);
			if (!prog)
				return -EINVAL;
			struct pcap_pkthdr h = {.caplen = frames[i].caplen, .len = frames[i].wirelen};
			if (pcap_offline_filter(prog, &h, frames[i].data))
				frames[kept++] = frames[i];
		}
		if (kept) {
			p->received += (uint64_t)kept;
			return kept;
		}
	}
}

static int file_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	(void)errbuf;
	struct file_priv *p = src->priv;
	struct rt_pcapfile_drops d;
	rt_pcapfile_drops(p->pf, &d);
	st->received = p->received;
	st->drops_known = d.known;
	st->dropped = d.os_dropped;
	st->if_dropped = d.if_dropped;
	return 0;
}

static void file_close(struct rt_source *src)
{
	struct file_priv *p = src->priv;
	if (!p)
		return;
	for (int i = 0; i < p->nfilters; i++)
		pcap_freecode(&p->filters[i].prog);
	rt_pcapfile_close(p->pf); /* closes the file (never stdin) */
	free(p->bpf);
	free(p);
	src->priv = NULL;
}

const struct rt_source_ops rt_source_file_ops = {
	.kind = "file",
	.is_ours = file_is_ours,
	.open = file_open,
	.next = file_next,
	.stats = file_stats,
	.close = file_close,
};

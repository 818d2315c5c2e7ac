/* Saved-capture source: pcap and pcapng (micro or nanosecond) through libpcap, "-" for stdin. */
#include "capture/internal.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bytes read from the file at a time: stdio's default (4 KiB) costs a system call every few frames. */
#define FILE_READ_BUFFER (1u << 20)

struct file_priv {
	pcap_t *pcap;
	uint64_t received;
	uint64_t seq;		   /* frames read from the file, filtered or not */
	struct bpf_program filter; /* applied here, so skipped frames are still numbered */
	bool filtering;
	char *readbuf; /* stdio buffer of the FILE libpcap reads; freed after pcap_close() */
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

int rt_pcap_linktype(pcap_t *pcap)
{
	/* LINKTYPE_RAW (101) comes back as the platform's DLT_RAW */
	int dlt = pcap_datalink(pcap);
	return dlt == DLT_RAW ? RT_LINK_RAW : dlt;
}

static int file_open(struct rt_source *src, const char *name, const struct rt_source_config *cfg,
		     char *errbuf)
{
	bool is_stdin = strcmp(name, "-") == 0;
	const char *shown = is_stdin ? "stdin" : name;
	/* stdin outlives a failed open, so its buffer must too: a static one, never freed */
	static char stdin_readbuf[FILE_READ_BUFFER];
	struct file_priv *p = calloc(1, sizeof(*p));
	char *readbuf = is_stdin ? NULL : malloc(FILE_READ_BUFFER);
	FILE *fp = is_stdin ? stdin : fopen(name, "rb");
	if (!p || (!readbuf && !is_stdin) || !fp) {
		int err = !fp ? errno : ENOMEM;
		if (fp && !is_stdin)
			fclose(fp);
		free(readbuf);
		free(p);
		return rt_errorf(errbuf, err, "%s", shown);
	}
	setvbuf(fp, is_stdin ? stdin_readbuf : readbuf, _IOFBF, FILE_READ_BUFFER);
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pcap = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!pcap) {
		if (!is_stdin)
			fclose(fp);
		free(readbuf);
		free(p);
		return rt_errorf(errbuf, 0, "%s: %s", shown, perr);
	}
	p->pcap = pcap;
	p->readbuf = readbuf;
	src->priv = p;
	if (cfg->bpf && *cfg->bpf) {
		if (pcap_compile(pcap, &p->filter, cfg->bpf, 1, PCAP_NETMASK_UNKNOWN) < 0) {
			int rc = rt_errorf(errbuf, 0, "bad filter '%s': %s", cfg->bpf, pcap_geterr(pcap));
			file_close(src);
			return rc;
		}
		p->filtering = true;
	}
	src->linktype = rt_pcap_linktype(pcap);
	src->snaplen = (uint32_t)pcap_snapshot(pcap);
	src->ts_source = RT_TS_FILE;
	return 0;
}

static int file_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	struct file_priv *p = src->priv;
	struct pcap_pkthdr *h;
	const u_char *data;
	if (max < 1)
		return -EINVAL;
	/* libpcap keeps one frame valid at a time, so a batch is one frame. */
	int rc;
	while ((rc = pcap_next_ex(p->pcap, &h, &data)) == 1) {
		p->seq++;
		if (p->filtering && !pcap_offline_filter(&p->filter, h, data))
			continue;
		frames[0].data = data;
		frames[0].caplen = h->caplen;
		frames[0].wirelen = h->len;
		frames[0].ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		frames[0].seq = p->seq;
		frames[0].linktype = 0;
		frames[0].interface_id = 0;
		p->received++;
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	return rt_errorf(errbuf, 0, "%s: %s", src->name, pcap_geterr(p->pcap));
}

static int file_stats(struct rt_source *src, struct rt_source_stats *st, char *errbuf)
{
	(void)errbuf;
	struct file_priv *p = src->priv;
	st->received = p->received;
	return 0;
}

static void file_close(struct rt_source *src)
{
	struct file_priv *p = src->priv;
	if (!p)
		return;
	if (p->filtering)
		pcap_freecode(&p->filter);
	pcap_close(p->pcap); /* closes the FILE (stdin too) */
	free(p->readbuf);
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

/* Saved-capture source: one or several pcap/pcapng files (plain or gzip'd, "-" for stdin) merged by time (a k-way merge), BPF through libpcap. */
#include "capture/source_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool file_is_ours(const char *name, const struct rt_source_config *cfg)
{
	(void)cfg;
	struct stat st;
	if (strcmp(name, "-") == 0)
		return true;
	return stat(name, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode));
}

/* ---- filter ---- */

/*
 * A program that loads what only the kernel's packet socket knows (the
 * ancillary offsets from -4096: packet type, interface), which libpcap
 * compiles for link types whose frames do not hold it: run on a file's
 * frames, such a load fails and the filter matches nothing.
 */
static bool asks_kernel(const struct bpf_program *prog)
{
	for (unsigned i = 0; i < prog->bf_len; i++) {
		const struct bpf_insn *in = &prog->bf_insns[i];
		if (BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_ABS &&
		    in->k >= (uint32_t)-4096)
			return true;
	}
	return false;
}

/* The filter for `linktype`, compiled at its first use; NULL with errbuf set when it does not compile. */
static const struct bpf_program *filter_for(struct files_priv *p, int linktype, char *errbuf)
{
	for (int i = 0; i < p->nfilters; i++)
		if (p->filters[i].linktype == linktype)
			return &p->filters[i].prog;
	if (p->nfilters == RT_READ_MAX_FILTERS) {
		rt_errorf(errbuf, 0, "-f: the files mix more than %d link types",
		          RT_READ_MAX_FILTERS);
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
		rt_errorf(errbuf, 0, "bad filter '%s' for link type %d: %s", p->bpf, linktype,
		          pcap_geterr(dead));
		pcap_close(dead);
		return NULL;
	}
	pcap_close(dead);
	if (asks_kernel(&fl->prog)) {
		rt_errorf(errbuf, 0,
		          "filter '%s': link type %d records no packet direction or interface "
		          "(inbound, outbound, ifindex ask the kernel, a file cannot answer): it "
		          "would match nothing",
		          p->bpf, linktype);
		pcap_freecode(&fl->prog);
		return NULL;
	}
	fl->linktype = linktype;
	p->nfilters++;
	return &fl->prog;
}

/* ---- reading the files ---- */

static int open_reader(struct in_file *f, char *errbuf)
{
	bool is_stdin = strcmp(f->path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(f->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int err = errno;
		if (fd >= 0 && !is_stdin)
			close(fd);
		return rt_errorf(errbuf, err, "%s", f->shown);
	}
	/* a pipe or FIFO gives its bytes once: what was read of it must stay read */
	f->once = !S_ISREG(st.st_mode);
	if (!is_stdin && S_ISDIR(st.st_mode)) {
		close(fd);
		return rt_errmsg(errbuf, EISDIR, "%s: a directory, not a capture file", f->shown);
	}
	return rt_pcapfile_open_fd(&f->pf, fd, !is_stdin, f->shown, errbuf);
}

/* The drops its ISBs recorded, kept when the file's reader closes. */
static int keep_drops(struct in_file *f)
{
	uint32_t n = rt_pcapfile_interfaces(f->pf);
	free(f->drops);
	f->ndrops = 0;
	if (!(f->drops = calloc(n ? n : 1, sizeof(*f->drops))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		rt_pcapfile_iface_drops(f->pf, i, &f->drops[i]);
	f->ndrops = n;
	return 0;
}

static void close_reader(struct in_file *f)
{
	rt_pcapfile_close(f->pf); /* closes the file (never stdin) */
	f->pf = NULL;
}

/* File f has been read to its end. */
static int file_done(struct files_priv *p, struct in_file *f, char *errbuf)
{
	if (f->pf && keep_drops(f) < 0)
		return rt_errorf(errbuf, ENOMEM, "%s", f->shown);
	close_reader(f);
	f->state = F_DONE;
	f->nb = f->pos = 0;
	struct vpoint *v = &p->vp[f->vp];
	v->reading--;
	p->reading--;
	if (f->last_ns > v->end_ns)
		v->end_ns = f->last_ns;
	return 0;
}

/* ---- the heap of files being read, by (next frame's time, order) ---- */

static bool before(const struct files_priv *p, unsigned a, unsigned b)
{
	const struct in_file *x = &p->f[a], *y = &p->f[b];
	uint64_t tx = x->batch[x->pos].ts_ns, ty = y->batch[y->pos].ts_ns;
	return tx < ty || (tx == ty && x->order < y->order);
}

static void heap_down(struct files_priv *p, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < p->nheap && before(p, p->heap[l], p->heap[m]))
			m = l;
		if (r < p->nheap && before(p, p->heap[r], p->heap[m]))
			m = r;
		if (m == i)
			return;
		unsigned t = p->heap[i];
		p->heap[i] = p->heap[m];
		p->heap[m] = t;
		i = m;
	}
}

static void heap_push(struct files_priv *p, unsigned fi)
{
	size_t i = p->nheap++;
	p->heap[i] = fi;
	while (i && before(p, p->heap[i], p->heap[(i - 1) / 2])) {
		unsigned t = p->heap[i];
		p->heap[i] = p->heap[(i - 1) / 2];
		p->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct files_priv *p)
{
	p->heap[0] = p->heap[--p->nheap];
	heap_down(p, 0);
}

/*
 * File f, one of several, can be read no further (its data cut short or
 * damaged, its read failing): it ends at its last whole frame and the others
 * are read on; its failure is the stream's once they end (files_end()).
 */
static int cut_short(struct files_priv *p, struct in_file *f, int rc, char *errbuf)
{
	if (!p->late_err) {
		p->late_err = rc;
		snprintf(p->late_msg, sizeof(p->late_msg), "%s", errbuf);
	} else {
		p->late_more++;
	}
	return file_done(p, f, errbuf);
}

/* The end of the merged stream: 0, or the failure of a file that ended early (cut_short()). */
static int files_end(const struct files_priv *p, char *errbuf)
{
	if (!p->late_err)
		return 0;
	/* (the message cut to leave room for what follows) */
	if (p->late_more)
		snprintf(errbuf, RT_ERRBUF_SIZE,
		         "%.160s; %u more file(s) could not be read to their end either, the "
		         "others were",
		         p->late_msg, p->late_more);
	else
		snprintf(errbuf, RT_ERRBUF_SIZE, "%.200s; the other files were read to their end",
		         p->late_msg);
	return p->late_err;
}

/* Next batch of a file being read: into the heap, or the file ends. 0, -EINTR (call again) or -errno. */
static int refill(struct files_priv *p, unsigned fi, char *errbuf)
{
	struct in_file *f = &p->f[fi];
	int n = rt_pcapfile_next(f->pf, f->batch, RT_READ_FILE_BATCH, errbuf);
	if (n < 0 && n != -EINTR && n != -ENOMEM && p->n > 1)
		return cut_short(p, f, n, errbuf);
	if (n < 0)
		return n;
	f->nb = n;
	f->pos = 0;
	if (n == 0)
		return file_done(p, f, errbuf);
	heap_push(p, fi);
	return 0;
}

/* The stream reached pending file fi: open it again if it was closed, give it its vantage point, start reading it. */
static int activate(struct files_priv *p, unsigned fi, char *errbuf)
{
	struct in_file *f = &p->f[fi];
	int rc;
	if (!f->empty && !f->pf && (rc = open_reader(f, errbuf)) < 0)
		return rc;
	if ((rc = rt_files_assign_vantage(p, fi, errbuf)) < 0)
		return rc;
	f->state = F_ACTIVE;
	p->next_pending++;
	if (f->empty)
		return file_done(p, f, errbuf);
	if (f->nb) { /* still holds what the open read */
		heap_push(p, fi);
		return 0;
	}
	/* -EINTR: it stays active with no frames; the next call reads them */
	rc = refill(p, fi, errbuf);
	if (rc == 0 && f->state == F_ACTIVE && f->batch[0].ts_ns != f->first_ns)
		return rt_errmsg(errbuf, EIO, "%s: changed while being read", f->shown);
	return rc;
}

/* Frame f of file fi, as the stream hands it out. */
static int take(struct files_priv *p, unsigned fi, struct rt_frame *out, char *errbuf)
{
	struct in_file *f = &p->f[fi];
	*out = f->batch[f->pos++];
	p->seq += out->seq > f->last_seq ? out->seq - f->last_seq : 1;
	f->last_seq = out->seq;
	out->seq = p->seq;
	out->file = fi;
	f->last_ns = out->ts_ns;
	if (rt_files_global_id(p, f->vp, out->interface_id, &out->interface_id) < 0)
		return rt_errorf(errbuf, ENOMEM, "%s", f->shown);
	return 0;
}

/* Up to max frames of the merged stream, before the filter: the count, 0 at the end, or -errno. */
static int merge(struct files_priv *p, struct rt_frame *out, int max, char *errbuf)
{
	int rc;
	/* files whose batch ran out last time: their frames have been used, read on */
	for (size_t i = 0; i < p->n; i++) {
		struct in_file *f = &p->f[i];
		if (f->state == F_ACTIVE && f->pos == f->nb &&
		    (rc = refill(p, (unsigned)i, errbuf)) < 0)
			return rc;
	}
	int n = 0;
	while (n < max) {
		unsigned top = p->nheap ? p->heap[0] : 0;
		if (p->next_pending < p->n) {
			unsigned fi = p->pending[p->next_pending];
			const struct in_file *pf = &p->f[fi], *tf = &p->f[top];
			uint64_t ts = pf->empty ? UINT64_MAX : pf->first_ns;
			uint64_t tt = p->nheap ? tf->batch[tf->pos].ts_ns : 0;
			if (!p->nheap || ts < tt || (ts == tt && pf->order < tf->order)) {
				if ((rc = activate(p, fi, errbuf)) < 0)
					return n ? n : rc;
				continue;
			}
		}
		if (!p->nheap)
			break;
		struct in_file *f = &p->f[top];
		if (p->nheap == 1 && p->next_pending == p->n) { /* one file left: a run of it */
			while (n < max && f->pos < f->nb - 1) {
				if ((rc = take(p, top, &out[n], errbuf)) < 0)
					return n ? n : rc;
				n++;
			}
			if (n == max)
				break;
		}
		if ((rc = take(p, top, &out[n], errbuf)) < 0)
			return n ? n : rc;
		n++;
		if (f->pos == f->nb) {
			/* its next frames can only be read once these have been used */
			heap_pop(p);
			break;
		}
		heap_down(p, 0);
	}
	return n;
}

static int files_next(struct rt_source *src, struct rt_frame *frames, int max, char *errbuf)
{
	struct files_priv *p = src->priv;
	if (max < 1)
		return -EINVAL;
	for (;;) {
		int n = merge(p, frames, max, errbuf);
		if (n < 0)
			return n;
		if (n == 0 && !p->reading && p->next_pending == p->n)
			return files_end(p, errbuf);
		if (n == 0)
			continue; /* files that ended, or hold no frame: read on */
		int kept = 0;
		for (int i = 0; i < n; i++) {
			if (p->bpf) {
				const struct bpf_program *prog =
				    filter_for(p, frames[i].linktype, errbuf);
				if (!prog)
					return -EINVAL;
				struct pcap_pkthdr h = {.caplen = frames[i].caplen,
				                        .len = frames[i].wirelen};
				if (!pcap_offline_filter(prog, &h, frames[i].data))
					continue; /* the others keep their numbers (seq) */
			}
			p->f[frames[i].file].frames++;
			int c = rt_files_point_of_frame(p, &frames[i]);
			if (c >= 0)
				p->cp[c].frames++;
			if (kept != i)
				frames[kept] = frames[i];
			kept++;
		}
		if (kept) {
			p->received += (uint64_t)kept;
			return kept;
		}
	}
}

int rt_source_frame_interface(const struct rt_source *src, const struct rt_frame *fr, char *name,
                              size_t size, uint32_t *snaplen)
{
	const struct files_priv *p = src->ops == &rt_source_file_ops ? src->priv : NULL;
	if (!p || fr->file >= p->n || !p->f[fr->file].pf || p->f[fr->file].vp < 0)
		return -ENOENT;
	/* the frame's data lies in its file's reader: the file is open */
	const struct in_file *f = &p->f[fr->file];
	const struct vpoint *v = &p->vp[f->vp];
	uint32_t local = 0;
	while (local < v->nmap && v->map[local] != fr->interface_id)
		local++;
	snprintf(name, size, "%s", rt_pcapfile_iface_name(f->pf, local));
	*snaplen = f->pcapng ? rt_pcapfile_snaplen(f->pf, local) : f->snaplen;
	return 0;
}

/* ---- open and close ---- */

static void files_close(struct rt_source *src)
{
	struct files_priv *p = src->priv;
	if (!p)
		return;
	for (int i = 0; i < p->nfilters; i++)
		pcap_freecode(&p->filters[i].prog);
	if (p->held)
		munmap((void *)(uintptr_t)p->held, p->held_len);
	for (size_t i = 0; i < p->n; i++) {
		rt_pcapfile_close(p->f[i].pf);
		free(p->f[i].path);
		free(p->f[i].vantage);
		free(p->f[i].drops);
	}
	for (unsigned i = 0; i < p->nvp; i++) {
		free(p->vp[i].name);
		free(p->vp[i].files);
		free(p->vp[i].map);
	}
	free(p->vp);
	free(p->owner);
	free(p->f);
	free(p->pending);
	free(p->heap);
	free(p->bpf);
	free(p);
	src->priv = NULL;
}

/* Read file f's header and first frames: what it describes, when it starts. */
static int prime(struct in_file *f, bool keep_open, char *errbuf)
{
	int rc = open_reader(f, errbuf);
	if (rc < 0)
		return rc;
	const struct rt_pcapfile_info *info = rt_pcapfile_info(f->pf);
	f->linktype = info->linktype;
	f->snaplen = info->snaplen;
	f->gzip = info->gzip;
	f->pcapng = info->format == RT_PCAPFILE_PCAPNG;
	rc = rt_pcapfile_next(f->pf, f->batch, RT_READ_FILE_BATCH, errbuf);
	if (rc == -EINTR) /* a stop signal while a pipe holds back the first frames */
		return rt_errmsg(errbuf, EINTR, "%s: interrupted before its first frame came",
		                 f->shown);
	if (rc < 0)
		return rc;
	f->fingerprint = rt_pcapfile_fingerprint(f->pf);
	f->nb = rc;
	f->empty = rc == 0;
	if (rc)
		f->first_ns = f->batch[0].ts_ns;
	if (f->empty) {
		if (keep_drops(f) < 0)
			return rt_errorf(errbuf, ENOMEM, "%s", f->shown);
		close_reader(f);
	} else if (!keep_open && !f->once) {
		close_reader(f); /* read again from its start when the stream reaches it */
		f->nb = 0;
	}
	return 0;
}

/*
 * Groups of files that may continue one another: the files of a numbered
 * set by their stem, the other files by their fingerprint; and each set
 * member's predecessor.
 */
static int group_files(struct files_priv *p, char *errbuf)
{
	char **stem = calloc(p->n, sizeof(*stem));
	bool *in_set = calloc(p->n, sizeof(*in_set));
	int rc = stem && in_set ? 0 : rt_errorf(errbuf, ENOMEM, "grouping files"), ngroups = 0;
	for (size_t i = 0; i < p->n && !rc; i++) {
		char buf[4200];
		p->f[i].number = rt_fileset_rotation(p->f[i].path, buf, sizeof(buf));
		if (!(stem[i] = strdup(buf)))
			rc = rt_errorf(errbuf, ENOMEM, "grouping files");
	}
	for (size_t i = 0; i < p->n && !rc; i++) {
		for (size_t k = 0; k < p->n && !in_set[i]; k++)
			in_set[i] = k != i && !p->f[i].vantage && !p->f[k].vantage &&
			            strcmp(stem[k], stem[i]) == 0;
		if (!in_set[i])
			p->f[i].number = -1;
	}
	for (size_t i = 0; i < p->n && !rc; i++) {
		struct in_file *f = &p->f[i];
		f->group = f->pred = -1;
		if (f->vantage)
			continue;
		for (size_t k = 0; k < i && f->group < 0; k++)
			if (!p->f[k].vantage && in_set[k] == in_set[i] &&
			    (in_set[i] ? strcmp(stem[k], stem[i]) == 0
			               : p->f[k].fingerprint == f->fingerprint))
				f->group = p->f[k].group;
		if (f->group < 0)
			f->group = ngroups++;
	}
	for (size_t i = 0; i < p->n && !rc; i++) {
		struct in_file *f = &p->f[i];
		for (size_t k = 0; k < p->n && in_set[i]; k++) {
			const struct in_file *g = &p->f[k];
			if (in_set[k] && g->group == f->group && g->number < f->number &&
			    (f->pred < 0 || g->number > p->f[f->pred].number))
				f->pred = (int)k;
		}
	}
	for (size_t i = 0; stem && i < p->n; i++)
		free(stem[i]);
	free(stem);
	free(in_set);
	return rc;
}

/* Time order: first frame, then a set's numbering, then the order given; files without frames last. */
static int by_time(const void *a, const void *b, void *ctx)
{
	const struct files_priv *p = ctx;
	const struct in_file *x = &p->f[*(const unsigned *)a], *y = &p->f[*(const unsigned *)b];
	if (x->empty != y->empty)
		return x->empty ? 1 : -1;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	if (x->group == y->group && x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

static int open_all(struct rt_source *src, const struct rt_source_file_spec *files, size_t n,
                    const struct rt_source_config *cfg, char *errbuf)
{
	struct files_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return rt_errorf(errbuf, ENOMEM, "opening files");
	src->priv = p;
	if (!n)
		return rt_errmsg(errbuf, EINVAL, "no capture file given");
	p->f = calloc(n, sizeof(*p->f));
	p->pending = calloc(n, sizeof(*p->pending));
	p->heap = calloc(n, sizeof(*p->heap));
	struct stat *ids = calloc(n, sizeof(*ids));
	int rc = 0;
	if (!p->f || !p->pending || !p->heap || !ids)
		rc = rt_errorf(errbuf, ENOMEM, "opening files");
	p->n = n;
	for (size_t i = 0; i < n && !rc; i++) {
		struct in_file *f = &p->f[i];
		f->vp = -1;
		f->path = strdup(files[i].path);
		f->vantage = files[i].vantage ? strdup(files[i].vantage) : NULL;
		if (!f->path || (files[i].vantage && !f->vantage)) {
			rc = rt_errorf(errbuf, ENOMEM, "opening files");
			break;
		}
		f->shown = strcmp(f->path, "-") ? f->path : "stdin";
		bool is_stdin = strcmp(f->path, "-") == 0;
		if (is_stdin ? fstat(STDIN_FILENO, &ids[i]) < 0 : stat(f->path, &ids[i]) < 0) {
			rc = rt_errorf(errbuf, errno, "%s", f->shown);
			break;
		}
		for (size_t k = 0; k < i && !rc; k++) {
			if (ids[k].st_dev != ids[i].st_dev || ids[k].st_ino != ids[i].st_ino)
				continue;
			if (strcmp(p->f[k].path, f->path) == 0)
				rc = rt_errmsg(errbuf, EINVAL, "%s: given twice", f->shown);
			else
				rc = rt_errmsg(errbuf, EINVAL, "%s: the same file as %s", f->shown,
				               p->f[k].shown);
		}
		if (!rc)
			rc = prime(f, i < RT_READ_KEEP_OPEN, errbuf);
	}
	free(ids);
	/* named points exist from the start, in the order first given */
	for (size_t i = 0; i < n && !rc; i++) {
		const char *name = p->f[i].vantage;
		bool known = false;
		for (unsigned v = 0; v < p->nvp && name && !known; v++)
			known = p->vp[v].named && strcmp(p->vp[v].name, name) == 0;
		if (name && !known && !rt_files_vp_add(p, name, true, -1))
			rc = rt_errorf(errbuf, ENOMEM, "opening files");
	}
	if (!rc)
		rc = group_files(p, errbuf);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		p->pending[i] = (unsigned)i;
	qsort_r(p->pending, n, sizeof(*p->pending), by_time, p);
	for (size_t i = 0; i < n; i++)
		p->f[p->pending[i]].order = (unsigned)i;
	const struct in_file *first = &p->f[0];
	if (n > 1)
		snprintf(src->name, sizeof(src->name), "%zu files", n);
	src->linktype = first->linktype;
	src->snaplen = first->snaplen;
	src->ts_source = RT_TS_FILE;
	if (cfg->bpf && *cfg->bpf) {
		/* compiled now for the first link type, so a bad expression fails at once */
		if (!(p->bpf = strdup(cfg->bpf)))
			return rt_errorf(errbuf, ENOMEM, "-f");
		if (!filter_for(p, first->linktype, errbuf))
			return -EINVAL;
	}
	return 0;
}

static int file_open(struct rt_source *src, const char *name, const struct rt_source_config *cfg,
                     char *errbuf)
{
	struct rt_source_file_spec spec = {.path = name};
	int rc = open_all(src, &spec, 1, cfg, errbuf);
	if (rc < 0)
		files_close(src);
	return rc;
}

/* One file being read from its mapping: the mapping held until the close (rt_source_hold). */
static int files_hold(struct rt_source *src, const uint8_t **base, size_t *len)
{
	struct files_priv *p = src->priv;
	if (p->n != 1 || !p->f[0].pf || p->held || rt_pcapfile_hold(p->f[0].pf, base, len) < 0)
		return -ENOTSUP;
	p->held = *base;
	p->held_len = *len;
	return 0;
}

const struct rt_source_ops rt_source_file_ops = {
    .kind = "file",
    .is_ours = file_is_ours,
    .open = file_open,
    .next = files_next,
    .stats = rt_files_stats,
    .close = files_close,
    .hold = files_hold,
};

int rt_source_open_files(struct rt_source **out, const struct rt_source_file_spec *files, size_t n,
                         const struct rt_source_config *cfg, char *errbuf)
{
	static const struct rt_source_config defaults;
	struct rt_source *src = calloc(1, sizeof(*src));
	if (!src)
		return rt_errorf(errbuf, ENOMEM, "opening files");
	src->ops = &rt_source_file_ops;
	snprintf(src->name, sizeof(src->name), "%s", n ? files[0].path : "");
	int rc = open_all(src, files, n, cfg ? cfg : &defaults, errbuf);
	if (rc < 0) {
		files_close(src);
		free(src);
		return rc;
	}
	*out = src;
	return 0;
}

/* The outputs of dissect and capture as sinks of the frame pump: text lines, JSON Lines (by one thread or several), the totals of --count, the writer. */
#include "capture/sinks.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/frame_bytes.h"

/* ---- the files of a capture read from several, as the points announced them ---- */

/* Paths by file number (rt_frame.file), copied from the announcements. */
struct paths {
	char **p;
	unsigned n;
};

/* The files of an announced point into *ps. 0 or -ENOMEM. */
static int paths_learn(struct paths *ps, const struct rt_pump_point *pt)
{
	for (unsigned k = 0; k < pt->nfiles; k++) {
		unsigned f = pt->files[k];
		if (f >= ps->n) {
			char **np = realloc(ps->p, ((size_t)f + 1) * sizeof(*np));
			if (!np)
				return -ENOMEM;
			memset(np + ps->n, 0, ((size_t)f + 1 - ps->n) * sizeof(*np));
			ps->p = np;
			ps->n = f + 1;
		}
		if (!ps->p[f] && !(ps->p[f] = strdup(pt->paths[k])))
			return -ENOMEM;
	}
	return 0;
}

static const char *paths_of(const struct paths *ps, unsigned file)
{
	return file < ps->n && ps->p[file] ? ps->p[file] : "";
}

static void paths_free(struct paths *ps)
{
	for (unsigned i = 0; i < ps->n; i++)
		free(ps->p[i]);
	free(ps->p);
}

/* ---- text and JSON lines ---- */

struct lines {
	struct rt_outbuf *o;
	struct rt_print_text_opts opts;
	struct rt_print_text_times times; /* the run's: what -ttt and -ttttt remember */
	bool name_files;
	struct paths files;
};

static int lines_point(void *ctx, const struct rt_pump_point *pt, char *errbuf)
{
	struct lines *l = ctx;
	return paths_learn(&l->files, pt) < 0 ? rt_errorf(errbuf, ENOMEM, "file names") : 0;
}

static int text_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                      char *errbuf)
{
	struct lines *l = ctx;
	(void)errbuf;
	rt_print_text(l->o, &l->opts, &l->times, frame->seq,
	              l->name_files ? paths_of(&l->files, frame->file) : NULL, rec, frame->data);
	return l->o->error ? 1 : 0; /* the output failed: stop (its owner says so) */
}

static int json_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                      char *errbuf)
{
	struct lines *l = ctx;
	(void)errbuf;
	rt_print_json(l->o, frame->seq, l->name_files ? paths_of(&l->files, frame->file) : NULL,
	              rec);
	return l->o->error ? 1 : 0;
}

static void lines_free(void *ctx)
{
	struct lines *l = ctx;
	paths_free(&l->files);
	free(l);
}

static int lines_sink(struct rt_pump_sink *out, struct rt_outbuf *o,
                      const struct rt_print_text_opts *opts, bool name_files, char *errbuf)
{
	struct lines *l = calloc(1, sizeof(*l));
	if (!l)
		return rt_errorf(errbuf, ENOMEM, "output");
	l->o = o;
	if (opts)
		l->opts = *opts;
	l->name_files = name_files;
	*out = (struct rt_pump_sink){.point = name_files ? lines_point : NULL,
	                             .frame = opts ? text_frame : json_frame,
	                             .free = lines_free,
	                             .ctx = l};
	return 0;
}

int rt_text_sink(struct rt_pump_sink *out, struct rt_outbuf *o,
                 const struct rt_print_text_opts *opts, bool name_files, char *errbuf)
{
	static const struct rt_print_text_opts defaults;
	return lines_sink(out, o, opts ? opts : &defaults, name_files, errbuf);
}

int rt_json_sink(struct rt_pump_sink *out, struct rt_outbuf *o, bool name_files, char *errbuf)
{
	return lines_sink(out, o, NULL, name_files, errbuf);
}

/* ---- text and JSON lines by several threads: chunks decoded and formatted apart, written in order ---- */

#define CHUNK_FRAMES    2048        /* frames a thread decodes and formats at once, at most */
#define RING_BYTES      (32u << 20) /* the frames' bytes in flight, about (big frames: fewer a chunk) */
#define CHUNK_BYTES_MIN (256u << 10)

enum chunk_state { CHUNK_FILLING, CHUNK_QUEUED, CHUNK_DONE };

/* A run of frames copied from the pump, then their lines. */
struct chunk {
	struct rt_frame f[CHUNK_FRAMES]; /* data: an offset into `bytes` until queued */
	const char *file[CHUNK_FRAMES];  /* each frame's file name (name_files), else NULL */
	unsigned n;
	struct rt_frame_bytes bytes;      /* the frames' bytes */
	struct rt_print_text_times times; /* -ttt/-ttttt as they stood before its first line */
	struct rt_outkept out;            /* its lines */
	int error;                        /* its lines could not all be made (ENOMEM) */
	enum chunk_state state;
};

struct par {
	struct rt_outbuf *o;
	struct rt_print_text_opts opts;
	bool text, name_files;
	struct rt_dissect_opts decode;
	struct rt_print_text_times times; /* as the lines so far leave them */
	struct paths files;               /* file names by rt_frame.file, from the points */
	struct chunk *ring;
	unsigned nring;
	size_t chunk_bytes;              /* a chunk is queued once its frames' bytes reach this */
	uint64_t written, filled, taken; /* chunks written out; queued; taken by a thread */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool quit;
	pthread_t *th;
	struct rt_outbuf *ob; /* [threads]: each thread's output, into the blocks of its chunk */
	unsigned nth;
};

static struct chunk *chunk_at(struct par *p, uint64_t i)
{
	return &p->ring[i % p->nring];
}

/* Decode and format one chunk into its blocks; 0 or ENOMEM. */
static int format_chunk(struct par *p, struct chunk *c, struct rt_outbuf *ob)
{
	struct rt_print_text_times times = c->times;
	rt_out_keep(ob, &c->out);
	for (unsigned i = 0; i < c->n; i++) {
		struct rt_record rec;
		const struct rt_frame *f = &c->f[i];
		rt_dissect(&p->decode, f, &rec);
		if (p->text)
			rt_print_text(ob, &p->opts, &times, f->seq, c->file[i], &rec, f->data);
		else
			rt_print_json(ob, f->seq, c->file[i], &rec);
	}
	return rt_out_flush(ob);
}

/* A formatting thread and its buffer. */
struct worker_arg {
	struct par *p;
	struct rt_outbuf *ob;
};

static void *worker(void *arg)
{
	struct par *p = ((struct worker_arg *)arg)->p;
	struct rt_outbuf *ob = ((struct worker_arg *)arg)->ob;
	free(arg);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->taken == p->filled)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->taken == p->filled)
			break; /* quit, nothing left */
		struct chunk *c = chunk_at(p, p->taken++);
		pthread_mutex_unlock(&p->mu);
		int err = format_chunk(p, c, ob);
		pthread_mutex_lock(&p->mu);
		c->error = err;
		c->state = CHUNK_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Write out the oldest chunk once done (waiting for it when `wait`); false when it is not done. */
static bool write_oldest(struct par *p, bool wait)
{
	if (p->written == p->filled)
		return false;
	struct chunk *c = chunk_at(p, p->written);
	pthread_mutex_lock(&p->mu);
	while (wait && c->state != CHUNK_DONE)
		pthread_cond_wait(&p->done, &p->mu);
	bool done = c->state == CHUNK_DONE;
	pthread_mutex_unlock(&p->mu);
	if (!done)
		return false;
	if (c->error &&
	    !p->o->error) { /* the output fails there: no line after the last one made */
		rt_out_flush(p->o);
		if (!p->o->error)
			p->o->error = c->error;
	} else if (!p->o->error) {
		rt_out_write_kept(p->o, &c->out);
	}
	c->error = 0;
	c->state = CHUNK_FILLING;
	c->n = 0;
	c->bytes.len = 0;
	p->written++;
	return true;
}

/* Hand the chunk being filled to the threads. */
static void queue_chunk(struct par *p)
{
	struct chunk *c = chunk_at(p, p->filled);
	for (unsigned i = 0; i < c->n; i++)
		c->f[i].data = rt_frame_bytes_at(&c->bytes, &c->f[i]);
	pthread_mutex_lock(&p->mu);
	c->state = CHUNK_QUEUED;
	p->filled++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

static int par_point(void *ctx, const struct rt_pump_point *pt, char *errbuf)
{
	struct par *p = ctx;
	return paths_learn(&p->files, pt) < 0 ? rt_errorf(errbuf, ENOMEM, "file names") : 0;
}

static int par_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                     char *errbuf)
{
	struct par *p = ctx;
	(void)rec;
	/* a chunk begins (or every chunk is in flight): the chunks done go out, the oldest at least
	 * when every chunk is in flight */
	if (p->filled - p->written == p->nring || !chunk_at(p, p->filled)->n) {
		if (p->filled - p->written == p->nring)
			write_oldest(p, true);
		while (write_oldest(p, false))
			;
	}
	struct chunk *c = chunk_at(p, p->filled);
	if (rt_frame_bytes_add(&c->bytes, frame, &c->f[c->n]) < 0)
		return rt_errorf(errbuf, ENOMEM, "frames in flight");
	if (!c->n)
		c->times = p->times;
	if (!p->times.have_ts) {
		p->times.have_ts = true;
		p->times.first_ts = frame->ts_ns;
	}
	p->times.prev_ts = frame->ts_ns;
	c->file[c->n] = p->name_files ? paths_of(&p->files, frame->file) : NULL;
	if (++c->n == CHUNK_FRAMES || c->bytes.len >= p->chunk_bytes)
		queue_chunk(p);
	return p->o->error ? 1 : 0;
}

/* Queue what is left, write every chunk out. */
static int par_end(void *ctx, const struct rt_pump_result *res, char *errbuf)
{
	struct par *p = ctx;
	(void)res;
	(void)errbuf;
	if (chunk_at(p, p->filled)->n)
		queue_chunk(p);
	while (write_oldest(p, true))
		;
	return 0;
}

static void par_free(void *ctx)
{
	struct par *p = ctx;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	for (unsigned i = 0; p->ring && i < p->nring; i++) {
		rt_out_kept_free(&p->ring[i].out);
		free(p->ring[i].bytes.data);
	}
	paths_free(&p->files);
	free(p->ring);
	free(p->th);
	free(p->ob);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int rt_lines_sink_parallel(struct rt_pump_sink *out, struct rt_outbuf *o,
                           const struct rt_print_text_opts *opts, bool name_files,
                           const struct rt_dissect_opts *decode, unsigned threads, char *errbuf)
{
	struct par *p = calloc(1, sizeof(*p));
	if (!p)
		return rt_errorf(errbuf, ENOMEM, "output");
	p->o = o;
	p->text = opts != NULL;
	if (opts)
		p->opts = *opts;
	p->name_files = name_files;
	p->decode = *decode;
	p->nring = 3 * threads + 3;
	p->chunk_bytes =
	    RING_BYTES / p->nring < CHUNK_BYTES_MIN ? CHUNK_BYTES_MIN : RING_BYTES / p->nring;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	p->ring = calloc(p->nring, sizeof(*p->ring));
	p->th = calloc(threads, sizeof(*p->th));
	p->ob = calloc(threads, sizeof(*p->ob));
	bool ok = p->ring && p->th && p->ob;
	while (ok && p->nth < threads) {
		struct worker_arg *a = malloc(sizeof(*a));
		if (a)
			*a = (struct worker_arg){.p = p, .ob = &p->ob[p->nth]};
		ok = a && pthread_create(&p->th[p->nth], NULL, worker, a) == 0;
		if (!ok)
			free(a);
		p->nth += ok;
	}
	if (!ok) {
		par_free(p);
		return rt_errorf(errbuf, ENOMEM, "output threads");
	}
	*out = (struct rt_pump_sink){.point = name_files ? par_point : NULL,
	                             .frame = par_frame,
	                             .end = par_end,
	                             .frames_only = true,
	                             .free = par_free,
	                             .ctx = p};
	return 0;
}

/* ---- totals ---- */

/* A vantage point of the files, as its capture points announced it. */
struct vantage {
	char *name;
	unsigned nfiles;
	unsigned *files;
};

struct totals {
	struct rt_outbuf *o;
	bool json, by_vantage;
	struct rt_totals t;
	uint64_t *file_frames; /* by file number: frames counted */
	unsigned nfile_frames;
	struct paths files;
	struct vantage *v; /* by vantage point number */
	unsigned nv;
};

/* Vantage point pt->vantage as pt describes it. 0 or -ENOMEM. */
static int vantage_learn(struct totals *t, const struct rt_pump_point *pt)
{
	if (pt->vantage >= t->nv) {
		struct vantage *nv = realloc(t->v, ((size_t)pt->vantage + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		memset(nv + t->nv, 0, ((size_t)pt->vantage + 1 - t->nv) * sizeof(*nv));
		t->v = nv;
		t->nv = pt->vantage + 1;
	}
	struct vantage *v = &t->v[pt->vantage];
	char *name = strdup(pt->vantage_name);
	unsigned *files = malloc((pt->nfiles ? pt->nfiles : 1) * sizeof(*files));
	if (!name || !files) {
		free(name);
		free(files);
		return -ENOMEM;
	}
	if (pt->nfiles) /* a named point not reached yet has none (files may be NULL) */
		memcpy(files, pt->files, pt->nfiles * sizeof(*files));
	free(v->name);
	free(v->files);
	*v = (struct vantage){.name = name, .nfiles = pt->nfiles, .files = files};
	return paths_learn(&t->files, pt);
}

static int totals_point(void *ctx, const struct rt_pump_point *pt, char *errbuf)
{
	return vantage_learn(ctx, pt) < 0 ? rt_errorf(errbuf, ENOMEM, "counting frames") : 0;
}

static int totals_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                        char *errbuf)
{
	struct totals *t = ctx;
	rt_totals_add(&t->t, rec);
	if (!t->by_vantage)
		return 0;
	if (frame->file >= t->nfile_frames) {
		unsigned n = frame->file + 1;
		uint64_t *nf = realloc(t->file_frames, n * sizeof(*nf));
		if (!nf)
			return rt_errorf(errbuf, ENOMEM, "counting frames");
		memset(nf + t->nfile_frames, 0, (n - t->nfile_frames) * sizeof(*nf));
		t->file_frames = nf;
		t->nfile_frames = n;
	}
	t->file_frames[frame->file]++;
	return 0;
}

/* The totals, with a line (a key) per vantage point when counted by them. */
static int totals_end(void *ctx, const struct rt_pump_result *res, char *errbuf)
{
	struct totals *t = ctx;
	struct rt_totals_point *points = NULL;
	const char **paths = NULL;
	size_t npaths = 0, used = 0;
	unsigned n = t->by_vantage ? t->nv : 0;
	(void)res;
	(void)errbuf;
	if (t->o->error) /* the output failed before: its owner says so */
		return 0;
	for (unsigned i = 0; i < n; i++)
		npaths += t->v[i].nfiles;
	if (n && (!(points = calloc(n, sizeof(*points))) ||
	          !(paths = calloc(npaths ? npaths : 1, sizeof(*paths)))))
		n = 0; /* out of memory: the totals alone */
	for (unsigned i = 0; i < n; i++) {
		const struct vantage *v = &t->v[i];
		points[i] = (struct rt_totals_point){
		    .name = v->name ? v->name : "", .files = &paths[used], .nfiles = v->nfiles};
		for (unsigned k = 0; k < v->nfiles; k++) {
			unsigned f = v->files[k];
			paths[used++] = paths_of(&t->files, f);
			points[i].frames += f < t->nfile_frames ? t->file_frames[f] : 0;
		}
	}
	rt_print_totals(t->o, &t->t, points, n, t->json);
	free(points);
	free(paths);
	return 0;
}

static void totals_free(void *ctx)
{
	struct totals *t = ctx;
	for (unsigned i = 0; i < t->nv; i++) {
		free(t->v[i].name);
		free(t->v[i].files);
	}
	free(t->v);
	free(t->file_frames);
	paths_free(&t->files);
	free(t);
}

int rt_totals_sink(struct rt_pump_sink *out, struct rt_outbuf *o, bool json, bool vantage,
                   char *errbuf)
{
	struct totals *t = calloc(1, sizeof(*t));
	if (!t)
		return rt_errorf(errbuf, ENOMEM, "counting frames");
	t->o = o;
	t->json = json;
	t->by_vantage = vantage;
	*out = (struct rt_pump_sink){.point = vantage ? totals_point : NULL,
	                             .frame = totals_frame,
	                             .end = totals_end,
	                             .free = totals_free,
	                             .ctx = t};
	return 0;
}

/* ---- the writer ---- */

struct writer_sink {
	struct rt_writer *w;
	int if_id;
	struct rt_rewrite *rw; /* capture -r: each frame under its file's interface */
};

static int writer_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                        char *errbuf)
{
	const struct writer_sink *ws = ctx;
	(void)rec;
	int if_id = ws->rw ? rt_rewrite_iface(ws->rw, frame, errbuf) : ws->if_id;
	return if_id < 0 ? if_id : rt_writer_write(ws->w, if_id, frame, errbuf);
}

int rt_writer_sink(struct rt_pump_sink *out, struct rt_writer *w, int if_id, struct rt_rewrite *rw,
                   char *errbuf)
{
	struct writer_sink *ws = malloc(sizeof(*ws));
	if (!ws)
		return rt_errorf(errbuf, ENOMEM, "writer");
	*ws = (struct writer_sink){.w = w, .if_id = if_id, .rw = rw};
	*out = (struct rt_pump_sink){
	    .frame = writer_frame, .frames_only = true, .free = free, .ctx = ws};
	return 0;
}

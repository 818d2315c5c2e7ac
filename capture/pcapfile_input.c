/* The capture file reader's input: a descriptor or memory, gzip through zlib, one buffer. */
#include "capture/internal.h"
#include "common/filemap.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A mapped file is handed out this much at a time; the pages behind are released this much at a time. */
#define MAP_WINDOW (2u << 20)

static void gz_thread_start(struct rt_pcapfile *f);

/* Where inflate stands in a file of concatenated gzip members. */
enum gz_state {
	GZ_IN = 0,  /* inside a member (or its header) */
	GZ_DONE,    /* a member ended: another may follow */
	GZ_TRAILER, /* bytes after the last member that cannot start one: ignored */
};

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

/*
 * A plain regular file, `have` bytes of it read: mapped, read in place
 * from here on (sequential advice: the kernel reads ahead). Anything else,
 * or a mapping refused, keeps reading into the buffer.
 */
static void map_file(struct rt_pcapfile *f, size_t have)
{
	struct stat st;
	if (f->is_mem || fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size <= have || (uint64_t)st.st_size > SIZE_MAX)
		return;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (m == MAP_FAILED)
		return;
	(void)madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	free(f->buf);
	f->map = m;
	f->map_len = (size_t)st.st_size;
	f->buf = f->map;
	f->cap = 0;
}

void rt_pcapfile_unmap(struct rt_pcapfile *f)
{
	if (!f->map)
		free(f->buf);
	else if (!f->held)
		munmap(f->map, f->map_len);
	f->map = f->buf = NULL;
}

int rt_pcapfile_hold(struct rt_pcapfile *f, const uint8_t **base, size_t *len)
{
	if (!f->map || f->held)
		return -ENOTSUP;
	f->held = true;
	*base = f->map;
	*len = f->map_len;
	return 0;
}

/*
 * The mapping's next window after buf[pos, end) (at least `need` bytes
 * from pos when the file has them), the pages before pos released. Past
 * the mapping (a file that grew since it was opened), the rest is read into
 * a buffer as from any descriptor. Returns the bytes added, 0 at the end,
 * or a negative errno.
 */
static ssize_t map_refill(struct rt_pcapfile *f, size_t need, char *errbuf)
{
	size_t at = (size_t)(f->buf + f->pos - f->map), page = (size_t)sysconf(_SC_PAGESIZE);
	size_t behind = at / page * page;
	if (!f->held && behind >= f->released + MAP_WINDOW) {
		rt_map_release(f->map, f->released, behind);
		f->released = behind;
	}
	f->buf += f->pos;
	f->end -= f->pos;
	f->pos = 0;
	size_t left = f->map_len - at - f->end, add = need > f->end ? need - f->end : 0;
	if (add < MAP_WINDOW)
		add = MAP_WINDOW;
	if (add > left)
		add = left;
	if (add || f->end >= need || lseek(f->fd, (off_t)f->map_len, SEEK_SET) < 0) {
		if (!f->held) /* (held: its holder maps the pages ahead, rt_pcapfile_hold) */
			rt_map_range(f->map, at + f->end, add);
		f->end += add;
		return (ssize_t)add;
	}
	/* the file grew: what is left of the mapping moves to a buffer, reads go on after it */
	size_t cap = f->end + RT_READ_BUF_SIZE > need ? f->end + RT_READ_BUF_SIZE : need;
	uint8_t *b = malloc(cap);
	if (!b)
		return rt_errorf(errbuf, ENOMEM, "%s", f->name);
	memcpy(b, f->buf, f->end);
	if (!f->held) /* (held: its holder unmaps it) */
		munmap(f->map, f->map_len);
	f->map = NULL;
	f->buf = b;
	f->cap = cap;
	return rt_pcapfile_refill(f, need, errbuf);
}

/*
 * A signal cut a read of the header short: only the stop signals (SIGINT,
 * SIGTERM, SIGHUP) are caught without SA_RESTART while files are read, so the
 * opening ends: -EINTR.
 */
static int interrupted(const struct rt_pcapfile *f, char *errbuf)
{
	return rt_errmsg(errbuf, EINTR, "%s: interrupted before its header came", f->name);
}

int rt_pcapfile_start(struct rt_pcapfile *f, char *errbuf)
{
	_Static_assert(RT_READ_GZIP_IN_SIZE <= RT_READ_BUF_SIZE,
	               "a plain file's first read moves to the read buffer");
	f->zin = malloc(RT_READ_GZIP_IN_SIZE);
	f->buf = malloc(RT_READ_BUF_SIZE);
	if (!f->zin || !f->buf)
		return rt_errorf(errbuf, ENOMEM, "%s", f->name);
	f->cap = RT_READ_BUF_SIZE;
	/* read into the gzip input buffer, never more than it holds */
	size_t have = 0;
	while (have < 2) {
		ssize_t n = raw_read(f, f->zin + have, RT_READ_GZIP_IN_SIZE - have);
		if (n == -EINTR) /* a stop (Ctrl-C) while a pipe holds back its first bytes */
			return interrupted(f, errbuf);
		if (n < 0)
			return rt_errorf(errbuf, (int)-n, "%s: read", f->name);
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have >= 2 && f->zin[0] == 0x1f && f->zin[1] == 0x8b) {
		/* gzip: what was read is compressed input, inflated into buf from here on */
		f->z.next_in = f->zin;
		f->z.avail_in = (uInt)have;
		if (inflateInit2(&f->z, 16 + MAX_WBITS) != Z_OK)
			return rt_errorf(errbuf, ENOMEM, "%s: gzip", f->name);
		f->z_ready = true;
		f->z_read = have;
		f->info.gzip = true;
		gz_thread_start(f);
		return 0;
	}
	memcpy(f->buf, f->zin, have);
	f->end = have;
	free(f->zin);
	f->zin = NULL;
	map_file(f, have);
	return have < 2;
}

/* At least `want` compressed bytes at next_in, unless the input ends first: 0 or a negative errno. */
static int gz_fill(struct rt_pcapfile *f, size_t want)
{
	while (f->z.avail_in < want && !f->raw_eof) {
		if (f->z.avail_in && f->z.next_in != f->zin)
			memmove(f->zin, f->z.next_in,
			        f->z.avail_in); /* what is left, at the front */
		f->z.next_in = f->zin;
		ssize_t n =
		    raw_read(f, f->zin + f->z.avail_in, RT_READ_GZIP_IN_SIZE - f->z.avail_in);
		if (n < 0)
			return (int)n;
		f->z.avail_in += (uInt)n;
		f->z_read += (uint64_t)n;
	}
	return 0;
}

/*
 * Inflated bytes into dst: the count, 0 at the end of the last gzip member,
 * or a negative errno. Members follow one another as gzip -d reads them:
 * after a member, bytes that cannot start one (no gzip magic) are trailing
 * garbage, ignored; a member that starts and then fails is an error naming
 * its offset, reported after the bytes inflated before the failure.
 */
static ssize_t gz_read(struct rt_pcapfile *f, uint8_t *dst, size_t len, char *errbuf)
{
	for (;;) {
		if (f->z_state == GZ_TRAILER)
			return 0;
		int rc = gz_fill(f, f->z_state == GZ_DONE ? 2 : 1);
		if (rc < 0)
			return rc == -EINTR ? rc : rt_errorf(errbuf, -rc, "%s: read", f->name);
		if (f->z_state == GZ_DONE) {
			const uint8_t *in = f->z.next_in;
			if (f->z.avail_in < 2 || in[0] != 0x1f || in[1] != 0x8b) {
				f->z_state = GZ_TRAILER;
				return 0;
			}
			inflateReset(&f->z);
			f->z_member = f->z_read - f->z.avail_in;
			f->z_state = GZ_IN;
		}
		f->z.next_out = dst;
		f->z.avail_out = (uInt)len;
		int zr = inflate(&f->z, Z_NO_FLUSH);
		size_t got = len - f->z.avail_out;
		if (zr == Z_STREAM_END)
			f->z_state = GZ_DONE;
		if (got)
			return (ssize_t)
			    got; /* a failure is met again (and reported) by the next call */
		if (zr == Z_STREAM_END)
			continue;
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			return rt_errorf(
			    errbuf, 0, "%s: bad gzip data in the member at byte %llu: %s", f->name,
			    (unsigned long long)f->z_member, f->z.msg ? f->z.msg : zError(zr));
		if (f->z.avail_in == 0 && f->raw_eof)
			return rt_errorf(errbuf, 0,
			                 "%s: the gzip data ends early (the file is cut) in the "
			                 "member at byte %llu",
			                 f->name, (unsigned long long)f->z_member);
		if (zr == Z_BUF_ERROR && f->z.avail_in)
			return rt_errorf(errbuf, 0, "%s: bad gzip data: no progress", f->name);
	}
}

/*
 * A regular gzip'd file is inflated on a thread of its own, a few chunks
 * ahead of the reading (a pipe keeps its inflate on the reading thread: a
 * read that waits there is cut short by a signal).
 */
#define GZ_CHUNKS     4u
#define GZ_CHUNK_SIZE RT_READ_BUF_SIZE
struct gz_thread {
	struct rt_pcapfile *f;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t ready, room;
	struct {
		uint8_t *data;
		size_t len, off;
	} c[GZ_CHUNKS];
	unsigned head, tail; /* chunks [head, tail) hold inflated bytes */
	bool done, stop;     /* the inflate ended (at the end or failing: err); asked to end */
	int err;
	char errmsg[RT_ERRBUF_SIZE];
};

static void *gz_thread_main(void *arg)
{
	struct gz_thread *g = arg;
	for (;;) {
		pthread_mutex_lock(&g->mu);
		while (g->tail - g->head == GZ_CHUNKS && !g->stop)
			pthread_cond_wait(&g->room, &g->mu);
		bool stop = g->stop;
		unsigned at = g->tail % GZ_CHUNKS;
		pthread_mutex_unlock(&g->mu);
		if (stop)
			return NULL;
		char eb[RT_ERRBUF_SIZE] = "";
		ssize_t n;
		do
			n = gz_read(g->f, g->c[at].data, GZ_CHUNK_SIZE, eb);
		while (n == -EINTR);
		pthread_mutex_lock(&g->mu);
		if (n > 0) {
			g->c[at].len = (size_t)n;
			g->c[at].off = 0;
			g->tail++;
		} else {
			g->done = true;
			g->err = (int)n;
			memcpy(g->errmsg, eb, sizeof(eb));
		}
		pthread_cond_signal(&g->ready);
		pthread_mutex_unlock(&g->mu);
		if (n <= 0)
			return NULL;
	}
}

/* The inflate of a regular file started on its thread; anything else (or a failure) inflates here. */
static void gz_thread_start(struct rt_pcapfile *f)
{
	struct stat st;
	if (f->is_mem || fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	struct gz_thread *g = calloc(1, sizeof(*g));
	bool ok = g != NULL;
	for (unsigned i = 0; ok && i < GZ_CHUNKS; i++)
		ok = (g->c[i].data = malloc(GZ_CHUNK_SIZE)) != NULL;
	if (ok) {
		g->f = f;
		pthread_mutex_init(&g->mu, NULL);
		pthread_cond_init(&g->ready, NULL);
		pthread_cond_init(&g->room, NULL);
		/* signals stay the reading thread's (their EINTR cuts its waits short) */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		ok = pthread_create(&g->th, NULL, gz_thread_main, g) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ok) {
			f->zt = g;
			return;
		}
		pthread_cond_destroy(&g->ready);
		pthread_cond_destroy(&g->room);
		pthread_mutex_destroy(&g->mu);
	}
	for (unsigned i = 0; g && i < GZ_CHUNKS; i++)
		free(g->c[i].data);
	free(g);
}

void rt_pcapfile_gz_stop(struct rt_pcapfile *f)
{
	struct gz_thread *g = f->zt;
	if (!g)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = true;
	pthread_cond_signal(&g->room);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->th, NULL);
	for (unsigned i = 0; i < GZ_CHUNKS; i++)
		free(g->c[i].data);
	pthread_cond_destroy(&g->ready);
	pthread_cond_destroy(&g->room);
	pthread_mutex_destroy(&g->mu);
	free(g);
	f->zt = NULL;
}

/* Inflated bytes from the thread into dst: the count, 0 at the end, or its failure (errbuf filled). */
static ssize_t gz_take(struct rt_pcapfile *f, uint8_t *dst, size_t len, char *errbuf)
{
	struct gz_thread *g = f->zt;
	pthread_mutex_lock(&g->mu);
	while (g->head == g->tail && !g->done)
		pthread_cond_wait(&g->ready, &g->mu);
	if (g->head == g->tail) {
		int err = g->err;
		if (err < 0)
			snprintf(errbuf, RT_ERRBUF_SIZE, "%s", g->errmsg);
		pthread_mutex_unlock(&g->mu);
		return err;
	}
	unsigned at = g->head % GZ_CHUNKS;
	pthread_mutex_unlock(&g->mu);
	size_t n = g->c[at].len - g->c[at].off;
	if (n > len)
		n = len;
	memcpy(dst, g->c[at].data + g->c[at].off, n);
	g->c[at].off += n;
	if (g->c[at].off == g->c[at].len) {
		pthread_mutex_lock(&g->mu);
		g->head++;
		pthread_cond_signal(&g->room);
		pthread_mutex_unlock(&g->mu);
	}
	return (ssize_t)n;
}

/*
 * Keep buf[pos, end), move it to the front and read more after it, first
 * making room for `need` bytes. Returns the bytes added, 0 at the end of the
 * input, or a negative errno (errbuf set, except for -EINTR).
 */
ssize_t rt_pcapfile_refill(struct rt_pcapfile *f, size_t need, char *errbuf)
{
	if (f->map)
		return map_refill(f, need, errbuf);
	if (f->pos) {
		memmove(f->buf, f->buf + f->pos, f->end - f->pos);
		f->end -= f->pos;
		f->pos = 0;
	}
	if (need > f->cap) {
		size_t ncap = need + RT_READ_BUF_SIZE;
		uint8_t *nb = realloc(f->buf, ncap);
		if (!nb)
			return rt_errorf(errbuf, ENOMEM, "%s", f->name);
		f->buf = nb;
		f->cap = ncap;
	}
	size_t room = f->cap - f->end;
	ssize_t n = f->zt          ? gz_take(f, f->buf + f->end, room, errbuf)
	            : f->info.gzip ? gz_read(f, f->buf + f->end, room, errbuf)
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

/* Make `need` bytes available at pos (blocking); 0, or 1 at a clean end before any of them, or
 * -errno (-EINTR: a signal came). */
int rt_pcapfile_want(struct rt_pcapfile *f, size_t need, char *errbuf)
{
	while (f->end - f->pos < need) {
		ssize_t n = rt_pcapfile_refill(f, need, errbuf);
		if (n == -EINTR) /* a stop while a pipe holds back the header */
			return interrupted(f, errbuf);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return f->end == f->pos ? 1 : -EPROTO;
	}
	return 0;
}

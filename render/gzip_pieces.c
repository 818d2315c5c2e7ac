/* gzip of a document cut into pieces deflated as they fill, on threads of its own (render/gzip_pieces.h). */
#include "render/gzip_pieces.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WINDOW      (32u << 10) /* deflate's window: the bytes a piece is primed with */
#define THREADS_MAX 16u

_Static_assert(RT_GZP_PIECE >= WINDOW, "a full piece primes the next with a whole window");

struct piece {
	unsigned char *in; /* RT_GZP_PIECE bytes, len of them written */
	size_t len;
	unsigned char *out; /* its deflated bytes */
	size_t outlen;
	uint32_t crc; /* of its bytes */
	bool failed;  /* out of memory */
};

struct rt_gzp {
	int level;
	FILE *fp;
	struct piece *cur; /* the piece being written (the writer's) */
	pthread_mutex_t mu;
	pthread_cond_t work; /* a piece filled, or the document ended */
	/* under mu: the pieces; [0, full) filled, [0, taken) handed to a thread */
	struct piece **p;
	size_t n, cap, full, taken;
	bool ended, abandoned; /* the document ended; freed unfinished */
	bool nomem;            /* a write ran out of memory */
	pthread_t th[THREADS_MAX];
	unsigned nth, started; /* its threads: to start (at the first full piece), started */
};

/*
 * Piece pc deflated: primed with the window before it (prev's last bytes),
 * ended on a byte boundary, or the stream's end for the last.
 */
static void deflate_piece(z_stream *z, const struct piece *prev, struct piece *pc, bool last)
{
	pc->crc = (uint32_t)crc32(0, pc->in, (uInt)pc->len);
	if (deflateReset(z) != Z_OK ||
	    (prev && deflateSetDictionary(z, prev->in + prev->len - WINDOW, WINDOW) != Z_OK)) {
		pc->failed = true;
		return;
	}
	size_t cap = deflateBound(z, (uLong)pc->len) + 16; /* (and the sync flush's marker) */
	z->next_in = pc->in;
	z->avail_in = (uInt)pc->len;
	int flush = last ? Z_FINISH : Z_SYNC_FLUSH;
	for (;;) {
		unsigned char *grown = realloc(pc->out, cap);
		if (!grown) {
			pc->failed = true;
			return;
		}
		pc->out = grown;
		z->next_out = pc->out + pc->outlen;
		z->avail_out = (uInt)(cap - pc->outlen);
		int zr = deflate(z, flush);
		pc->outlen = cap - z->avail_out;
		if (last ? zr == Z_STREAM_END : zr == Z_OK && z->avail_out > 0)
			return;
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			pc->failed = true;
			return;
		}
		cap *= 2; /* (more output than deflateBound said: never, by zlib's word) */
	}
}

/* The filled pieces no thread took yet, deflated by this one (with g->mu held; it is, again, at the end). */
static void deflate_filled(struct rt_gzp *g, z_stream *z, bool zok)
{
	while (g->taken < g->full && !g->abandoned) {
		size_t i = g->taken++;
		const struct piece *prev = i ? g->p[i - 1] : NULL;
		struct piece *pc = g->p[i];
		bool last = g->ended && i + 1 == g->n;
		pthread_mutex_unlock(&g->mu);
		if (zok)
			deflate_piece(z, prev, pc, last);
		else
			pc->failed = true;
		pthread_mutex_lock(&g->mu);
	}
}

static bool deflate_start(z_stream *z, int level)
{
	memset(z, 0, sizeof(*z));
	return deflateInit2(z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

static void *piece_thread(void *arg)
{
	struct rt_gzp *g = arg;
	z_stream z;
	bool zok = deflate_start(&z, g->level);
	pthread_mutex_lock(&g->mu);
	for (;;) {
		deflate_filled(g, &z, zok);
		if (g->ended || g->abandoned)
			break;
		pthread_cond_wait(&g->work, &g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	if (zok)
		deflateEnd(&z);
	return NULL;
}

struct rt_gzp *rt_gzp_new(int level, unsigned threads)
{
	struct rt_gzp *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->level = level;
	threads = threads ? threads : 1;
	g->nth = (threads < THREADS_MAX ? threads : THREADS_MAX) - 1;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->work, NULL);
	return g;
}

/* The piece being written is full (or there is none yet): the next one begins. */
static bool piece_next(struct rt_gzp *g)
{
	struct piece *pc = calloc(1, sizeof(*pc));
	if (pc && !(pc->in = malloc(RT_GZP_PIECE))) {
		free(pc);
		pc = NULL;
	}
	pthread_mutex_lock(&g->mu);
	if (pc && g->n == g->cap) {
		size_t ncap = g->cap ? 2 * g->cap : 16;
		struct piece **np = realloc(g->p, ncap * sizeof(*np));
		if (np) {
			g->p = np;
			g->cap = ncap;
		}
	}
	bool ok = pc && g->n < g->cap;
	if (ok) {
		g->p[g->n++] = pc;
		g->full = g->n - 1; /* the one before it */
		pthread_cond_signal(&g->work);
	}
	pthread_mutex_unlock(&g->mu);
	if (!ok) {
		if (pc)
			free(pc->in);
		free(pc);
		return false;
	}
	g->cur = pc;
	while (g->full && g->started < g->nth) { /* (fewer threads if they cannot start) */
		if (pthread_create(&g->th[g->started], NULL, piece_thread, g) != 0) {
			g->nth = g->started;
			break;
		}
		g->started++;
	}
	return true;
}

static ssize_t gzp_write(void *cookie, const char *buf, size_t len)
{
	struct rt_gzp *g = cookie;
	for (size_t done = 0; done < len;) {
		if ((!g->cur || g->cur->len == RT_GZP_PIECE) && !piece_next(g)) {
			g->nomem = true;
			errno = ENOMEM;
			return -1;
		}
		size_t k = RT_GZP_PIECE - g->cur->len;
		k = k < len - done ? k : len - done;
		memcpy(g->cur->in + g->cur->len, buf + done, k);
		g->cur->len += k;
		done += k;
	}
	return (ssize_t)len;
}

FILE *rt_gzp_file(struct rt_gzp *g)
{
	if (!g->fp) {
		cookie_io_functions_t io = {.write = gzp_write};
		g->fp = fopencookie(g, "w", io);
		if (g->fp)
			setvbuf(g->fp, NULL, _IONBF, 0);
	}
	return g->fp;
}

static void put_le32(unsigned char *at, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		at[i] = (unsigned char)(v >> (8 * i));
}

/* The pieces' outputs one after the other between the gzip header and trailer. */
static int concatenate(struct rt_gzp *g, unsigned char **out, size_t *outlen)
{
	size_t total = 10 + 8;
	for (size_t i = 0; i < g->n; i++) {
		if (g->p[i]->failed)
			return -ENOMEM;
		total += g->p[i]->outlen;
	}
	unsigned char *o = malloc(total);
	if (!o)
		return -ENOMEM;
	/* magic, deflate, no flags, no time, the extra flags zlib writes for the level, Unix */
	const unsigned char head[10] = {
	    0x1f, 0x8b, 8, 0, 0, 0, 0, 0, g->level == 9 ? 2 : g->level == 1 ? 4 : 0, 3};
	memcpy(o, head, sizeof(head));
	size_t at = sizeof(head);
	uLong crc = crc32(0, NULL, 0), size = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct piece *pc = g->p[i];
		memcpy(o + at, pc->out, pc->outlen);
		at += pc->outlen;
		crc = crc32_combine(crc, pc->crc, (z_off_t)pc->len);
		size += (uLong)pc->len;
	}
	put_le32(o + at, (uint32_t)crc);
	put_le32(o + at + 4, (uint32_t)size); /* (modulo 2^32, as RFC 1952 has it) */
	*out = o;
	*outlen = total;
	return 0;
}

/* The threads ended (after the pieces they took). */
static void join_threads(struct rt_gzp *g)
{
	for (unsigned k = 0; k < g->started; k++)
		pthread_join(g->th[k], NULL);
	g->started = 0;
}

int rt_gzp_finish(struct rt_gzp *g, unsigned char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	if (g->fp && fclose(g->fp) != 0)
		g->nomem = true;
	g->fp = NULL;
	if (!g->cur && !piece_next(g)) /* (an empty document: one empty piece) */
		g->nomem = true;
	z_stream z;
	bool zok = deflate_start(&z, g->level);
	pthread_mutex_lock(&g->mu);
	g->ended = true;
	g->full = g->n;
	pthread_cond_broadcast(&g->work);
	deflate_filled(g, &z, zok);
	pthread_mutex_unlock(&g->mu);
	if (zok)
		deflateEnd(&z);
	join_threads(g);
	return g->nomem ? -ENOMEM : concatenate(g, out, outlen);
}

void rt_gzp_free(struct rt_gzp *g)
{
	if (!g)
		return;
	if (g->fp)
		fclose(g->fp);
	pthread_mutex_lock(&g->mu);
	g->abandoned = !g->ended;
	pthread_cond_broadcast(&g->work);
	pthread_mutex_unlock(&g->mu);
	join_threads(g);
	for (size_t i = 0; i < g->n; i++) {
		free(g->p[i]->in);
		free(g->p[i]->out);
		free(g->p[i]);
	}
	free(g->p);
	pthread_cond_destroy(&g->work);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* The staged analysis' buckets: what each part closed, logged, and the analyzer's buckets made of them in frame order. */
#include <stdlib.h>
#include <string.h>

#include "analyze/stage_internal.h"

void an_stage_bucket_log_clear(struct bucket_log *l)
{
	l->n = l->nrows = 0;
	l->nomem = false;
}

void an_stage_bucket_log_free(struct bucket_log *l)
{
	free(l->e);
	free(l->rows);
}

struct rt_an_flow_row *an_stage_part_rows(void *ctx, uint32_t n)
{
	struct part *p = ctx;
	struct bucket_log *l = p->bk_out;
	if (l->nrows + n > l->caprows || !l->rows) { /* (room even for none: never a null row) */
		uint32_t ncap = l->caprows ? l->caprows : 256;
		while (ncap < l->nrows + n)
			ncap *= 2;
		struct rt_an_flow_row *nr = realloc(l->rows, (size_t)ncap * sizeof(*nr));
		if (!nr) {
			l->nomem = true;
			return NULL;
		}
		l->rows = nr;
		l->caprows = ncap;
	}
	return l->rows + l->nrows;
}

int an_stage_part_bucket(void *ctx, const struct rt_an_bucket *b)
{
	struct part *p = ctx;
	struct bucket_log *l = p->bk_out;
	if (l->n == l->cap) {
		uint32_t ncap = l->cap ? l->cap * 2 : 16;
		struct bucket_entry *ne = realloc(l->e, (size_t)ncap * sizeof(*ne));
		if (!ne) {
			l->nomem = true;
			return 0;
		}
		l->e = ne;
		l->cap = ncap;
	}
	/* its rows are where an_stage_part_rows put them, after the log's last */
	l->e[l->n++] = (struct bucket_entry){.t = b->t_ns,
	                                     .ce = b->all.ce,
	                                     .cnp = b->all.cnp,
	                                     .nak = b->all.nak,
	                                     .retransmitted = b->all.retransmitted,
	                                     .row0 = l->nrows,
	                                     .nrows = b->nrows};
	l->nrows += b->nrows;
	return 0;
}

void an_stage_take_buckets(struct rt_an_stage *st, struct part_out *logs)
{
	st->bks = logs;
	memset(st->bk_at, 0, sizeof(st->bk_at));
}

/* The stage's id of part k's row r (AN_NONE: a flow it could not number). */
static inline uint32_t row_id(const struct rt_an_stage *st, unsigned k, uint32_t r)
{
	uint32_t id = st->bks[k].bk.rows[r].id;
	return id < st->p[k].ngid ? st->p[k].gid[id] : AN_NONE;
}

/* Part k's next row as a key that orders by id, then part: id << 8 | k; UINT64_MAX when it has none left. */
static inline uint64_t head_key(const struct rt_an_stage *st, const struct bucket_entry *e,
                                uint32_t at, unsigned k)
{
	return at < e->nrows ? (uint64_t)row_id(st, k, e->row0 + at) << 8 | k : UINT64_MAX;
}

/*
 * The bits set in x, in a few instructions (without -mpopcnt, as the
 * release build is, __builtin_popcountll is a call into libgcc's table).
 */
static inline uint32_t ones(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/*
 * The rows of the parts' entries e[] (stage ids lo..hi, each once) put in
 * st->rows by id, each straight to its rank: the ids marked in a bitmap,
 * each word given the count of the ids before it. For ids dense enough
 * that the bitmap is short beside the rows: a row costs a copy and two
 * reads of its id, where the merge compares every part's next row for
 * each. False when out of memory (the merge does it).
 */
static bool rank_rows(struct rt_an_stage *st, const struct bucket_entry *const *e, uint32_t lo,
                      uint32_t hi)
{
	uint32_t nwords = (hi - lo) / 64 + 1;
	if (nwords > st->capbits) {
		uint64_t *nb = calloc(nwords, sizeof(*nb));
		uint32_t *nr = malloc((size_t)nwords * sizeof(*nr));
		if (!nb || !nr) {
			free(nb);
			free(nr);
			return false;
		}
		free(st->idbits);
		free(st->idrank);
		st->idbits = nb;
		st->idrank = nr;
		st->capbits = nwords;
	}
	uint64_t *bits = st->idbits;
	for (unsigned k = 0; k < st->nparts; k++)
		for (uint32_t r = 0; e[k] && r < e[k]->nrows; r++) {
			uint32_t d = row_id(st, k, e[k]->row0 + r) - lo;
			bits[d / 64] |= 1ull << (d % 64);
		}
	for (uint32_t w = 0, sum = 0; w < nwords; w++) {
		st->idrank[w] = sum;
		sum += ones(bits[w]);
	}
	for (unsigned k = 0; k < st->nparts; k++)
		for (uint32_t r = 0; e[k] && r < e[k]->nrows; r++) {
			uint32_t id = row_id(st, k, e[k]->row0 + r), d = id - lo;
			uint32_t at =
			    st->idrank[d / 64] + ones(bits[d / 64] & ((1ull << (d % 64)) - 1));
			struct rt_an_flow_row *o = &st->rows[at];
			*o = st->bks[k].bk.rows[e[k]->row0 + r];
			o->id = id;
			o->selected = id < st->nflows && st->selected[id];
		}
	memset(bits, 0, (size_t)nwords * sizeof(*bits));
	return true;
}

uint32_t an_stage_rows(void *ctx, uint64_t t, const struct rt_an_flow_row **rows)
{
	struct rt_an_stage *st = ctx;
	struct rt_analyzer *an = st->an;
	const struct bucket_entry *e[STAGE_PARTS_MAX];
	uint64_t head[STAGE_PARTS_MAX];
	uint32_t at[STAGE_PARTS_MAX], n = 0;
	for (unsigned k = 0; k < st->nparts; k++) {
		struct bucket_log *l = &st->bks[k].bk;
		while (st->bk_at[k] < l->n && l->e[st->bk_at[k]].t < t)
			st->bk_at
			    [k]++; /* none is left behind: a part closes no bucket the stage does not */
		e[k] =
		    st->bk_at[k] < l->n && l->e[st->bk_at[k]].t == t ? &l->e[st->bk_at[k]++] : NULL;
		at[k] = 0;
		if (!e[k])
			continue;
		an->tot.c.ce += e[k]->ce;
		an->tot.c.cnp += e[k]->cnp;
		an->tot.c.nak += e[k]->nak;
		an->tot.c.retransmitted += e[k]->retransmitted;
		n += e[k]->nrows;
	}
	if (n > st->caprows) {
		struct rt_an_flow_row *nr = realloc(st->rows, (size_t)n * sizeof(*nr));
		if (!nr) {
			st->nomem = true;
			return 0;
		}
		st->rows = nr;
		st->caprows = n;
	}
	/*
	 * each part's rows are in id order (a part numbers its flows in frame
	 * order, as the stage does): the least of the parts' next rows first, a
	 * minimum over a few words kept at hand (a heap's branches cost more);
	 * or, when the ids are dense, each row straight to its rank
	 */
	uint32_t lo = UINT32_MAX, hi = 0;
	for (unsigned k = 0; k < st->nparts; k++) {
		head[k] = e[k] ? head_key(st, e[k], 0, k) : UINT64_MAX;
		if (!e[k] || !e[k]->nrows)
			continue;
		uint32_t first = (uint32_t)(head[k] >> 8),
		         last = row_id(st, k, e[k]->row0 + e[k]->nrows - 1);
		lo = first < lo ? first : lo;
		hi = last > hi ? last : hi;
	}
	if (n && hi != AN_NONE && (hi - lo) / 64 < n && rank_rows(st, e, lo, hi)) {
		*rows = st->rows;
		return n;
	}
	for (uint32_t r = 0; r < n; r++) {
		uint64_t m = head[0];
		for (unsigned k = 1; k < st->nparts; k++)
			m = head[k] < m ? head[k] : m;
		unsigned k = (unsigned)(m & 0xff);
		uint32_t id = (uint32_t)(m >> 8);
		struct rt_an_flow_row *o = &st->rows[r];
		*o = st->bks[k].bk.rows[e[k]->row0 + at[k]++];
		o->id = id;
		o->selected = id < st->nflows && st->selected[id];
		head[k] = head_key(st, e[k], at[k], k);
	}
	*rows = st->rows;
	return n;
}

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

int an_stage_part_bucket(void *ctx, const struct rt_an_bucket *b)
{
	struct part *p = ctx;
	struct bucket_log *l = p->bk_out;
	if (l->n == l->cap) {
		uint32_t ncap = l->cap ? l->cap * 2 : 16;
		struct bucket_entry *ne = realloc(l->e, (size_t)ncap * sizeof(*ne));
		if (!ne)
			goto nomem;
		l->e = ne;
		l->cap = ncap;
	}
	if (l->nrows + b->nrows > l->caprows) {
		uint32_t ncap = l->caprows ? l->caprows : 256;
		while (ncap < l->nrows + b->nrows)
			ncap *= 2;
		struct rt_an_flow_row *nr = realloc(l->rows, (size_t)ncap * sizeof(*nr));
		if (!nr)
			goto nomem;
		l->rows = nr;
		l->caprows = ncap;
	}
	l->e[l->n++] = (struct bucket_entry){.t = b->t_ns,
	                                     .ce = b->all.ce,
	                                     .cnp = b->all.cnp,
	                                     .nak = b->all.nak,
	                                     .retransmitted = b->all.retransmitted,
	                                     .row0 = l->nrows,
	                                     .nrows = b->nrows};
	if (b->nrows)
		memcpy(l->rows + l->nrows, b->rows, (size_t)b->nrows * sizeof(*b->rows));
	l->nrows += b->nrows;
	return 0;
nomem:
	l->nomem = true;
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
	 * minimum over a few words kept at hand (a heap's branches cost more)
	 */
	for (unsigned k = 0; k < st->nparts; k++)
		head[k] = e[k] ? head_key(st, e[k], 0, k) : UINT64_MAX;
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

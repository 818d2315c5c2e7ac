/* The results view's memory: one arena of blocks, freed with the view. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/results_build.h"

#define BLOCK_SIZE (1u << 20)

struct an_res_block {
	struct an_res_block *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
};

void *an_res_alloc(struct an_results *res, size_t size)
{
	size = (size + _Alignof(max_align_t) - 1) & ~(size_t)(_Alignof(max_align_t) - 1);
	struct an_res_block *b = res->blocks;
	if (!b || b->cap - b->used < size) {
		size_t cap = size > BLOCK_SIZE ? size : BLOCK_SIZE;
		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = res->blocks;
		res->blocks = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

void an_results_free(struct an_results *res)
{
	if (!res)
		return;
	for (struct an_res_block *b = res->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(res);
}

int an_res_points(struct an_results *res, struct rt_res_points *out, uint64_t bits)
{
	*out = (struct rt_res_points){0};
	if (!bits)
		return 0;
	uint64_t *w = an_res_alloc(res, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = bits;
	*out = (struct rt_res_points){.nwords = 1, .words = w};
	return 0;
}

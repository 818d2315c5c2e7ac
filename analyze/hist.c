/* Quantile sketch: nearest-rank quantiles, exact up to AN_HIST_EXACT values, then from log-linear buckets. */
#include "analyze/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned hist_index(uint64_t v)
{
	if (v < 16)
		return (unsigned)v;
	unsigned o = 63u - (unsigned)__builtin_clzll(v);
	if (o > 40)
		return AN_HIST_BUCKETS - 1;
	unsigned sub = (unsigned)(v >> (o - 3)) & 7u;
	return 16u + (o - 4u) * 8u + sub;
}

static uint64_t hist_value(unsigned idx)
{
	if (idx < 16)
		return idx;
	unsigned o = (idx - 16u) / 8u + 4u, sub = (idx - 16u) % 8u;
	uint64_t lo = (8ull + sub) << (o - 3);
	uint64_t width = 1ull << (o - 3);
	return lo + width / 2;
}

void an_hist_add(struct an_hist *h, uint64_t v)
{
	if (h->n < AN_HIST_EXACT)
		h->exact[h->n] = v;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->bucket[hist_index(v)]++;
	h->sumsq += (unsigned __int128)v * v;
}

double an_hist_stddev(const struct an_hist *h)
{
	if (!h->n)
		return 0.0;
	long double n = (long double)h->n, mean = (long double)h->sum / n;
	long double var = (long double)h->sumsq / n - mean * mean;
	return var > 0 ? (double)sqrtl(var) : 0.0;
}

void an_hist_addp(struct an_hist **h, uint64_t v)
{
	if (!*h)
		*h = calloc(1, sizeof(**h));
	if (*h)
		an_hist_add(*h, v);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t an_hist_quantile(const struct an_hist *h, double q)
{
	if (!h->n)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)h->n + 0.999999999);
	return an_hist_rank(h, rank);
}

uint64_t an_hist_rank(const struct an_hist *h, uint64_t rank)
{
	if (!h->n)
		return 0;
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	if (h->n <= AN_HIST_EXACT) {
		uint64_t tmp[AN_HIST_EXACT];
		memcpy(tmp, h->exact, h->n * sizeof(tmp[0]));
		qsort(tmp, h->n, sizeof(tmp[0]), cmp_u64);
		return tmp[rank - 1];
	}
	if (rank == 1)
		return h->min;
	if (rank == h->n)
		return h->max;
	uint64_t seen = 0;
	for (unsigned i = 0; i < AN_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t v = hist_value(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

unsigned an_hist_values(const struct an_hist *h, uint64_t *val, uint64_t *cnt)
{
	unsigned k = 0;
	if (h->n <= AN_HIST_EXACT) {
		for (; k < h->n; k++) {
			val[k] = h->exact[k];
			cnt[k] = 1;
		}
		return k;
	}
	for (unsigned i = 0; i < AN_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		uint64_t v = hist_value(i);
		val[k] = v < h->min ? h->min : v > h->max ? h->max : v;
		cnt[k++] = h->bucket[i];
	}
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

uint64_t an_median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

double an_median_double(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(n - 1) / 2];
}

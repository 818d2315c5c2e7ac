/* Downsampled time series for the HTML report: slots of 2^k buckets merged in pairs, keeping each slot's peak. */
#include <math.h>
#include <string.h>

#include "render/series.h"

void an_grid_init(struct an_grid *g, uint64_t len_ns)
{
	memset(g, 0, sizeof(*g));
	g->len_ns = len_ns ? len_ns : 1;
	g->per_slot = 1;
}

/* The bucket index of t_ns from the first bucket. */
static uint64_t bucket_index(const struct an_grid *g, uint64_t t_ns)
{
	return t_ns > g->t0 ? (t_ns - g->t0) / g->len_ns : 0;
}

bool an_grid_full(const struct an_grid *g, uint64_t t_ns)
{
	return g->started && bucket_index(g, t_ns) / g->per_slot >= AN_SER_SLOTS;
}

void an_grid_halve(struct an_grid *g)
{
	g->per_slot *= 2;
	g->nslots = (g->nslots + 1) / 2;
}

uint32_t an_grid_place(struct an_grid *g, uint64_t t_ns)
{
	if (!g->started) {
		g->started = true;
		g->t0 = t_ns;
	}
	uint64_t k = bucket_index(g, t_ns);
	if (k > g->last_bucket || g->nslots == 0)
		g->last_bucket = k;
	uint64_t s = k / g->per_slot;
	/* (the caller halved first while an_grid_full said so: this holds) */
	uint32_t slot = s < AN_SER_SLOTS ? (uint32_t)s : AN_SER_SLOTS - 1;
	if (slot + 1 > g->nslots)
		g->nslots = slot + 1;
	return slot;
}

uint64_t an_grid_slot_start(const struct an_grid *g, uint32_t slot)
{
	return g->t0 + (uint64_t)slot * g->per_slot * g->len_ns;
}

uint64_t an_grid_slot_buckets(const struct an_grid *g, uint32_t slot)
{
	uint64_t first = (uint64_t)slot * g->per_slot;
	if (first > g->last_bucket)
		return 0;
	uint64_t n = g->last_bucket - first + 1;
	return n < g->per_slot ? n : g->per_slot;
}

void an_band_add(struct an_band *b, uint32_t slot, double v, double w)
{
	if (slot >= AN_SER_SLOTS)
		return;
	if (!b->n[slot] || v < b->min[slot])
		b->min[slot] = v;
	if (!b->n[slot] || v > b->max[slot])
		b->max[slot] = v;
	b->n[slot]++;
	b->sum[slot] += v * w;
	b->w[slot] += w;
}

void an_band_halve(struct an_band *b, uint32_t nslots)
{
	if (nslots > AN_SER_SLOTS)
		nslots = AN_SER_SLOTS;
	for (uint32_t i = 0; i < nslots; i += 2) {
		uint32_t o = i / 2;
		double sum = b->sum[i], w = b->w[i], lo = b->min[i], hi = b->max[i];
		uint32_t n = b->n[i];
		if (i + 1 < nslots && b->n[i + 1]) {
			uint32_t j = i + 1;
			if (!n || b->min[j] < lo)
				lo = b->min[j];
			if (!n || b->max[j] > hi)
				hi = b->max[j];
			n += b->n[j];
			sum += b->sum[j];
			w += b->w[j];
		}
		b->sum[o] = sum;
		b->w[o] = w;
		b->min[o] = lo;
		b->max[o] = hi;
		b->n[o] = n;
	}
	uint32_t kept = (nslots + 1) / 2;
	size_t rest = AN_SER_SLOTS - kept;
	memset(b->sum + kept, 0, rest * sizeof(b->sum[0]));
	memset(b->w + kept, 0, rest * sizeof(b->w[0]));
	memset(b->min + kept, 0, rest * sizeof(b->min[0]));
	memset(b->max + kept, 0, rest * sizeof(b->max[0]));
	memset(b->n + kept, 0, rest * sizeof(b->n[0]));
}

bool an_band_point(const struct an_band *b, const struct an_grid *g, uint32_t slot, bool zero_fill,
                   double *lo, double *mean, double *hi)
{
	if (slot >= AN_SER_SLOTS)
		return false;
	if (!zero_fill) {
		if (!b->n[slot] || b->w[slot] <= 0)
			return false;
		*lo = b->min[slot];
		*hi = b->max[slot];
		*mean = b->sum[slot] / b->w[slot];
		return true;
	}
	uint64_t buckets = an_grid_slot_buckets(g, slot);
	if (!buckets)
		return false;
	*mean = b->sum[slot] / (double)buckets;
	*hi = b->n[slot] ? b->max[slot] : 0;
	/* a bucket of the slot without a value was idle: the lowest is 0 */
	*lo = b->n[slot] < buckets ? (b->n[slot] && b->min[slot] < 0 ? b->min[slot] : 0)
	                           : b->min[slot];
	return true;
}

void an_line_halve(float *v, uint32_t nslots, enum an_line_merge how)
{
	if (nslots > AN_SER_SLOTS)
		nslots = AN_SER_SLOTS;
	for (uint32_t i = 0; i < nslots; i += 2) {
		float a = v[i], b = i + 1 < nslots ? v[i + 1] : (how == AN_LINE_SUM ? 0.0f : NAN);
		if (how == AN_LINE_SUM)
			v[i / 2] = a + b;
		else
			v[i / 2] = isnan(b) ? a : b;
	}
	for (uint32_t i = (nslots + 1) / 2; i < AN_SER_SLOTS; i++)
		v[i] = how == AN_LINE_SUM ? 0.0f : NAN;
}

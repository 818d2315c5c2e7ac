/* Quantile sketch for per-flow delays: exact for the first values, log-linear buckets (8 per octave) after. */
#ifndef RT_ANALYZE_HIST_H
#define RT_ANALYZE_HIST_H

#include <stddef.h>
#include <stdint.h>

#define AN_HIST_EXACT   32
#define AN_HIST_BUCKETS (16 + 37 * 8)
struct an_hist {
	uint64_t n, min, max, sum;
	unsigned __int128
	    sumsq; /* of the values, exact: the standard deviation without a division per value */
	uint64_t exact[AN_HIST_EXACT];
	uint32_t bucket[AN_HIST_BUCKETS];
};

void an_hist_add(struct an_hist *h, uint64_t v);
/* Add to *h, allocating it at the first value (a value is lost when out of memory). */
void an_hist_addp(struct an_hist **h, uint64_t v);
/* Nearest-rank quantile, q in [0,1]; 0 when empty. */
uint64_t an_hist_quantile(const struct an_hist *h, double q);
/* The value of nearest rank `rank` (1 .. n, clamped); 0 when empty. */
uint64_t an_hist_rank(const struct an_hist *h, uint64_t rank);
/*
 * The values h's ranks give, each with how many values it stands for: the
 * values themselves while there are AN_HIST_EXACT or fewer, else one per
 * bucket that holds any (its middle, within min..max), in bucket order.
 * Into val[] and cnt[] (room for AN_HIST_BUCKETS each); returns how many.
 */
unsigned an_hist_values(const struct an_hist *h, uint64_t *val, uint64_t *cnt);
/* Population standard deviation of the values; 0 when empty. */
double an_hist_stddev(const struct an_hist *h);

/* The lower median of v[0 .. n), v sorted in place: 0 when n is 0. */
uint64_t an_median_u64(uint64_t *v, size_t n);
/* The same of doubles: NaN when n is 0. */
double an_median_double(double *v, size_t n);

#endif

/* Downsampled time series for the HTML report: a grid of at most AN_SER_SLOTS slots of 2^k buckets, peaks kept. */
#ifndef RT_RENDER_SERIES_H
#define RT_RENDER_SERIES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The buckets the analyzer hands to a sink (analyze/README.md, Sinks) fall
 * into slots of `per_slot` buckets each. When a bucket lies past the last
 * slot, every series merges its slots in pairs (the slot count halves, the
 * slot length doubles), so a series holds at most AN_SER_SLOTS points
 * whatever the capture's length, and memory is fixed.
 */
#define AN_SER_SLOTS 1024

struct an_grid {
	uint64_t t0;          /* start of the first bucket (ns since the epoch) */
	uint64_t len_ns;      /* the bucket length */
	uint64_t per_slot;    /* buckets per slot, a power of two */
	uint64_t last_bucket; /* index (from t0) of the latest bucket placed */
	uint32_t nslots;      /* slots in use: the latest one + 1 */
	bool started;
};

void an_grid_init(struct an_grid *g, uint64_t len_ns);
/*
 * Buckets come in time order. While an_grid_full() says the bucket starting
 * at t_ns lies past the last slot, halve every series (an_band_halve,
 * an_line_halve with g->nslots) and then the grid (an_grid_halve); then
 * an_grid_place() gives the bucket's slot.
 */
bool an_grid_full(const struct an_grid *g, uint64_t t_ns);
void an_grid_halve(struct an_grid *g);
uint32_t an_grid_place(struct an_grid *g, uint64_t t_ns);
/* Start of slot `slot` (ns since the epoch), and how many buckets of it lie up to the latest one. */
uint64_t an_grid_slot_start(const struct an_grid *g, uint32_t slot);
uint64_t an_grid_slot_buckets(const struct an_grid *g, uint32_t slot);

/*
 * A series with its band: per slot, the weighted sum of the per-bucket
 * values and the weights, and the lowest and highest per-bucket value
 * among the buckets that had one (n of them). A peak of one bucket stays
 * the slot's `max` however many times the slots are merged.
 */
struct an_band {
	double sum[AN_SER_SLOTS], w[AN_SER_SLOTS], min[AN_SER_SLOTS], max[AN_SER_SLOTS];
	uint32_t n[AN_SER_SLOTS];
};

/* Add the value of one bucket (weight w: 1 for a rate, the samples for a mean of samples). */
void an_band_add(struct an_band *b, uint32_t slot, double v, double w);
/* Merge slots 2i and 2i+1 into i for the `nslots` slots in use (the grid's count before it halved). */
void an_band_halve(struct an_band *b, uint32_t nslots);

/*
 * The point of one slot. A rate (`zero_fill`): buckets of the slot with no
 * value count as 0 (idle time), the mean is over all of them; else (a mean
 * of samples) the mean is over the weights and a slot without a value has
 * none (returns false).
 */
bool an_band_point(const struct an_band *b, const struct an_grid *g, uint32_t slot, bool zero_fill,
                   double *lo, double *mean, double *hi);

/* A plain line per slot: merged by summing (a count) or keeping the later known value (a level; NaN: unknown). */
enum an_line_merge { AN_LINE_SUM, AN_LINE_LAST };
void an_line_halve(float *v, uint32_t nslots, enum an_line_merge how);

#endif

/* perftest-style result tables of `gen`: bandwidth per message size, and latency statistics. */
#ifndef RT_GEN_PERF_H
#define RT_GEN_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rt_gen_config;

/* Message sizes of a sweep (-a), as perftest runs them: 2, 4, ..., 2^23 bytes. */
#define RT_PERF_SWEEP_MIN 2u
#define RT_PERF_SWEEP_MAX (1u << 23)

/* One bandwidth row: message payload only, as perftest counts it. */
struct rt_perf_bw {
	uint32_t size;       /* bytes per message */
	uint64_t iterations; /* messages completed, all QPs */
	double peak_bps;     /* payload rate of the best slice of the run (bits/s) */
	double avg_bps;      /* payload bytes * 8 / time of the run */
	double msg_rate;     /* messages per second */
};

/*
 * " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
 * MB is 2^20 bytes, as in perftest; with `gbits` Gb/sec (10^9 bits).
 */
void rt_perf_bw_header(FILE *fp, bool gbits);
void rt_perf_bw_row(FILE *fp, const struct rt_perf_bw *r, bool gbits);

/* Latency statistics of one message size, in ns. */
struct rt_perf_lat {
	uint32_t size;
	uint64_t iterations; /* samples */
	uint64_t min, max;
	uint64_t typical;   /* the median */
	double avg, stdev;  /* population standard deviation */
	uint64_t p99, p999; /* nearest-rank percentiles */
};

/*
 * Sort samples[0..n) in place and fill *st (n > 0). Percentile p is the
 * sample of rank ceil(p * n) (nearest rank): with 1000 samples, p99 is the
 * 990th smallest and p99.9 the 999th.
 */
void rt_perf_lat_stats(uint64_t *samples, size_t n, uint32_t size, struct rt_perf_lat *st);

/*
 * " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]
 *    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]" (one line)
 */
void rt_perf_lat_header(FILE *fp);
void rt_perf_lat_row(FILE *fp, const struct rt_perf_lat *st);

/* BW peak: the payload rate of the best slice this long of a run. */
#define RT_PERF_PEAK_SLICE_NS 10000000u
/* Most latency samples one run keeps (a run by time ends when it has them). */
#define RT_PERF_MAX_LAT (1u << 22)

/*
 * Whether a sender's run stops posting at now: stop_at has come, cfg->stop
 * was set (then *interrupted is true), or cfg->latency holds
 * RT_PERF_MAX_LAT samples (nlat).
 */
bool rt_perf_run_over(const struct rt_gen_config *cfg, uint64_t now, uint64_t stop_at, size_t nlat,
                      bool *interrupted);

/* What one run of a sender (one message size) did. */
struct rt_perf_run {
	uint64_t t0, t_last; /* its start; the last message's completion */
	uint64_t msgs;       /* messages completed, all QPs */
	double peak_bps;     /* payload rate of the best RT_PERF_PEAK_SLICE_NS */
	bool stopped;        /* Ctrl-C/SIGTERM: no further runs */
};

/*
 * Before a sender's runs: the table's header (not yet when interval lines
 * come first) and, for cfg->latency, room for one run's samples in *lat
 * (the caller frees it; NULL otherwise). 0 or -ENOMEM.
 */
int rt_perf_begin(FILE *fp, const struct rt_gen_config *cfg, bool intervals, uint64_t **lat);
/*
 * After one run of `size`-byte messages: its table row (with the header
 * first when interval lines came before it): the latency statistics of
 * lat[0..nlat) for cfg->latency (nothing without samples), else the
 * bandwidth of r (a run shorter than one slice has its average as its peak).
 */
void rt_perf_row(FILE *fp, const struct rt_gen_config *cfg, bool intervals, uint32_t size,
                 const struct rt_perf_run *r, uint64_t *lat, size_t nlat);

#endif

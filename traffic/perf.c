/* perftest-style result tables of `gen`: bandwidth per message size, and latency statistics. */
#include "traffic/perf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "traffic/gen.h"

/* Bytes per second in the table's unit. */
static double bw_unit(double bps, bool gbits)
{
	return gbits ? bps / 1e9 : bps / 8.0 / 1048576.0;
}

void rt_perf_bw_header(FILE *fp, bool gbits)
{
	const char *u = gbits ? "Gb/sec" : "MB/sec";
	fprintf(fp, " %-10s %-14s BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n", "#bytes",
	        "#iterations", u, u);
}

void rt_perf_bw_row(FILE *fp, const struct rt_perf_bw *r, bool gbits)
{
	fprintf(fp, " %-10u %-14llu %-18.2f %-20.2f %.6f\n", r->size,
	        (unsigned long long)r->iterations, bw_unit(r->peak_bps, gbits),
	        bw_unit(r->avg_bps, gbits), r->msg_rate / 1e6);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The sample of rank ceil(p * n), 1-based, in sorted samples. */
static uint64_t nearest_rank(const uint64_t *sorted, size_t n, double p)
{
	double r = ceil(p * (double)n - 1e-9);
	size_t rank = r < 1 ? 1 : (size_t)r;
	return sorted[(rank > n ? n : rank) - 1];
}

void rt_perf_lat_stats(uint64_t *samples, size_t n, uint32_t size, struct rt_perf_lat *st)
{
	qsort(samples, n, sizeof(*samples), cmp_u64);
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)samples[i];
	double avg = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += ((double)samples[i] - avg) * ((double)samples[i] - avg);
	*st = (struct rt_perf_lat){
	    .size = size,
	    .iterations = n,
	    .min = samples[0],
	    .max = samples[n - 1],
	    .typical = nearest_rank(samples, n, 0.5),
	    .avg = avg,
	    .stdev = sqrt(sq / (double)n),
	    .p99 = nearest_rank(samples, n, 0.99),
	    .p999 = nearest_rank(samples, n, 0.999),
	};
}

void rt_perf_lat_header(FILE *fp)
{
	fprintf(fp, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
	            "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% "
	            "percentile[usec]\n");
}

void rt_perf_lat_row(FILE *fp, const struct rt_perf_lat *st)
{
	fprintf(fp, " %-7u %-13llu %-14.2f %-12.2f %-17.2f %-14.2f %-15.2f %-23.2f %.2f\n",
	        st->size, (unsigned long long)st->iterations, (double)st->min / 1e3,
	        (double)st->max / 1e3, (double)st->typical / 1e3, st->avg / 1e3, st->stdev / 1e3,
	        (double)st->p99 / 1e3, (double)st->p999 / 1e3);
}

int rt_perf_begin(FILE *fp, const struct rt_gen_config *cfg, bool intervals, uint64_t **lat)
{
	*lat = NULL;
	if (cfg->latency) {
		uint64_t n =
		    cfg->iters && cfg->iters < RT_PERF_MAX_LAT ? cfg->iters : RT_PERF_MAX_LAT;
		if (!(*lat = malloc(n * sizeof(**lat))))
			return -ENOMEM;
		rt_perf_lat_header(fp);
	} else if (!intervals) {
		rt_perf_bw_header(fp, cfg->report_gbits);
	}
	fflush(fp);
	return 0;
}

void rt_perf_row(FILE *fp, const struct rt_gen_config *cfg, bool intervals, uint32_t size,
                 const struct rt_perf_run *r, uint64_t *lat, size_t nlat)
{
	if (cfg->latency) {
		if (nlat) {
			struct rt_perf_lat st;
			rt_perf_lat_stats(lat, nlat, size, &st);
			rt_perf_lat_row(fp, &st);
		}
	} else {
		double span = (double)(r->t_last - r->t0) / 1e9;
		struct rt_perf_bw row = {
		    .size = size,
		    .iterations = r->msgs,
		    .peak_bps = r->peak_bps,
		    .avg_bps = span > 0 ? (double)r->msgs * size * 8 / span : 0,
		    .msg_rate = span > 0 ? (double)r->msgs / span : 0,
		};
		if (row.peak_bps < row.avg_bps)
			row.peak_bps = row.avg_bps;
		if (intervals)
			rt_perf_bw_header(fp, cfg->report_gbits);
		rt_perf_bw_row(fp, &row, cfg->report_gbits);
	}
	fflush(fp);
}

bool rt_perf_run_over(const struct rt_gen_config *cfg, uint64_t now, uint64_t stop_at, size_t nlat,
                      bool *interrupted)
{
	*interrupted = cfg->stop && *cfg->stop;
	return now >= stop_at || *interrupted || (cfg->latency && nlat >= RT_PERF_MAX_LAT);
}

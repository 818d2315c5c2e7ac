/* capture --metrics: the store a capture publishes its figures into, and the server that reads it. */
#ifndef RT_TOOLS_CAPTURE_METRICS_H
#define RT_TOOLS_CAPTURE_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "render/metrics.h"
#include "capture/counters.h"
#include "rt_config.h"

#define RT_CAPTURE_METRICS_PUBLISH_NS                                                              \
	250000000u                        /* the figures a scrape sees are at most this old */
#define RT_CAPTURE_METRICS_TOP_DEFAULT 20 /* --metrics-top-flows */

struct rt_metrics_http;

/* One capture's metrics: zeroed means off (store NULL). */
struct rt_capture_metrics {
	struct rt_metrics *store;   /* what the server reads */
	struct rt_metrics_nic *nic; /* the sampler's conversion buffer (RT_METRICS_NIC_MAX) */
	struct rt_metrics_http *http;
	uint64_t published; /* when the figures were last published (CLOCK_MONOTONIC) */
	unsigned
	    final_requests; /* stop requests before the final figures: a later one ends the linger */
};

/*
 * Check "[ADDR:]PORT" as --metrics takes it: 0, or the usage exit status
 * after printing its line (nothing is checked in a build without
 * libmicrohttpd: --metrics then fails when the capture starts).
 */
int rt_capture_metrics_check(const char *listen);
/*
 * Create the store for `top` flows and serve it on `listen`, saying where on
 * standard error. Returns 0 or the exit status after printing its line.
 */
int rt_capture_metrics_start(struct rt_capture_metrics *m, const char *listen, unsigned top);
/*
 * The capture's figures into the store (capture thread; an NULL: none),
 * pauses still running counted `idle_ns` of capture time past the latest
 * frame (rt_analyzer_totals_idle); with `final`, the last ones (waits for a scrape's copy, and counts the stop
 * requests so far, which the linger compares with).
 */
void rt_capture_metrics_publish(struct rt_capture_metrics *m, const struct rt_analyzer *an,
                                uint64_t idle_ns, uint64_t frames, uint64_t dropped, uint64_t now,
                                bool final);
/* An rt_counters_sample_fn (ctx: the struct rt_capture_metrics): a sample's counters into the store. */
void rt_capture_metrics_nic_sample(void *ctx, const struct rt_counter_value *v, unsigned n);
/* Serve the final figures for linger_ns (a stop request ends it early), then stop. */
void rt_capture_metrics_linger(struct rt_capture_metrics *m, uint64_t linger_ns);
/* Stop serving and free the store; m is off (zeroed) after. */
void rt_capture_metrics_stop(struct rt_capture_metrics *m);

#endif

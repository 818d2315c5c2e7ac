/* Live metrics of a capture: a published snapshot and its Prometheus/OpenMetrics exposition (docs/METRICS.md). */
#ifndef RT_RENDER_METRICS_H
#define RT_RENDER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/results.h"
#include "common/errbuf.h"
#include "common/outbuf.h"

struct rt_analyzer;

/* Which exposition a scraper gets. */
enum rt_metrics_format {
	RT_METRICS_TEXT,        /* Prometheus text format 0.0.4 */
	RT_METRICS_OPENMETRICS, /* OpenMetrics 1.0.0 text */
};

#define RT_METRICS_TOP_MAX 1000 /* per-flow series: at most this many flows */
#define RT_METRICS_NIC_MAX 4096 /* NIC counters kept from one sample */

/* One NIC counter of the latest sample (rocetrace_nic_counter). */
struct rt_metrics_nic {
	char dev[32];  /* the RDMA device, or the netdev of an ethtool statistic */
	unsigned port; /* the RDMA port; 0 for an ethtool statistic (exported as port="") */
	char name[64]; /* the counter's file or statistic name */
	uint64_t value;
};

/* The figures exported at one moment. */
struct rt_metrics_snapshot {
	bool running;     /* false: the capture ended and these are its final figures */
	uint64_t frames;  /* frames the capture handed over */
	uint64_t dropped; /* frames the capture lost (kernel, ring, interface) */
	uint64_t flows;   /* flows seen */
	bool recorder;    /* capture --ring: its events and the triggers it held are exported */
	uint64_t events, held;
	struct rt_an_counts t;
	unsigned ntop;                  /* flows in top, busiest first */
	struct rt_an_flow_figures *top; /* room for the store's top_k */
	unsigned nfindings; /* the findings of the latest live view (rocetrace_finding) */
	struct rt_finding_tag findings[RT_FINDINGS_MAX];
};

/*
 * Write the exposition of `s` and `nnic` NIC counters into o: HELP and
 * TYPE lines for every family, counters ending in _total, per-flow series
 * labelled src, dst, dest_qp; OpenMetrics adds UNIT lines and the closing
 * "# EOF". Label values are escaped (\\, \", \n) and other bytes outside
 * printable ASCII become '?'.
 */
void rt_metrics_format(struct rt_outbuf *o, enum rt_metrics_format f,
                       const struct rt_metrics_snapshot *s, const struct rt_metrics_nic *nic,
                       unsigned nnic);

/* The Content-Type of a format. */
const char *rt_metrics_content_type(enum rt_metrics_format f);
/* The format a scraper's Accept header asks for (NULL: text). */
enum rt_metrics_format rt_metrics_negotiate(const char *accept);

/*
 * The store between the thread that captures, the one that samples NIC
 * counters and the one that serves scrapes: each side copies under a lock
 * held only for that copy, so a scrape never holds up the capture.
 */
struct rt_metrics;

/* A store with room for `top_k` flows (at most RT_METRICS_TOP_MAX); NULL (errbuf filled) when out of memory. */
struct rt_metrics *rt_metrics_new(unsigned top_k, char *errbuf);
void rt_metrics_free(struct rt_metrics *m);

/*
 * From the capture thread: take the analyzer's live figures (rt_analyzer_live:
 * totals and flows; rt_analyzer_top_flows: the top_k busiest) with the
 * capture's frames and drops, and publish them. `idle_ns`: the capture time
 * since the analyzer's latest record, as the caller knows it: pauses still
 * running count up to then (0: up to the latest record).
 * The busiest flows are found again only once 50 times the time the last
 * search took has passed (at most 2% of the thread: with a million flows
 * about once a second), and always with `wait`; the findings likewise, and
 * at most once a second (rt_analyzer_live_findings builds a view of every
 * flow: docs/METRICS.md says what it costs).
 * With `wait` false the publication is skipped when a scrape is copying
 * the previous one at this instant (returns false: publish again later);
 * the capture never waits. With `wait` true (the final figures) it waits.
 */
bool rt_metrics_publish(struct rt_metrics *m, const struct rt_analyzer *an, uint64_t idle_ns,
                        uint64_t frames, uint64_t dropped, bool running, bool wait);

/* From the capture thread, before rt_metrics_publish(): the flight recorder's counts. */
void rt_metrics_set_recorder(struct rt_metrics *m, uint64_t events, uint64_t held);

/* From the counter sampler: the latest sample's counters (the first RT_METRICS_NIC_MAX). */
void rt_metrics_set_nic(struct rt_metrics *m, const struct rt_metrics_nic *v, unsigned n);

/*
 * From the server: the exposition of what was published last, into a
 * malloc'd buffer *text of *len bytes the caller frees. Returns 0 or
 * -ENOMEM.
 */
int rt_metrics_render(struct rt_metrics *m, enum rt_metrics_format f, char **text, size_t *len);

#endif

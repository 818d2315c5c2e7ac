/* NIC counter sampler: sysfs and ethtool counters as JSON Lines (docs/FORMATS.md). */
#ifndef RT_COUNTERS_H
#define RT_COUNTERS_H

#include <stdint.h>

#include "capture/source.h"
#include "common/sysfs.h"

struct rt_counters_config {
	const char *path;       /* side file to create (OUT.counters.jsonl) */
	const char *sysfs_root; /* NULL = "/sys" */
	const char *dev;        /* RDMA device whose port counters are read, or NULL */
	unsigned port;          /* its port */
	const char *netdev;     /* netdev whose ethtool statistics are read, or NULL */
	uint64_t interval_ns;   /* sampling period of the thread (rt_counters_start) */
};

struct rt_counters;

/*
 * Which RDMA port and netdev to sample for capture device `dev` (under
 * sysfs `root`, NULL = "/sys"): an RDMA device[:port] gives its port and
 * the port's netdev; any other name is the netdev, with the RDMA port on
 * top of it if there is one. Sets cc->dev, cc->port and cc->netdev to
 * names kept in `rdev` and `netdev`.
 */
void rt_counters_targets(const char *dev, const char *root, struct rt_counters_config *cc,
                         char rdev[RT_DEVNAME_MAX], char netdev[RT_DEVNAME_MAX]);
/* Create the side file and check what can be read. Returns 0 or a negative errno with errbuf set.
 */
int rt_counters_open(struct rt_counters **out, const struct rt_counters_config *cfg, char *errbuf);
/* Append one sample line now. */
int rt_counters_sample(struct rt_counters *c, char *errbuf);
/* Number of counters one sample holds (sysfs + ethtool). */
unsigned rt_counters_count(const struct rt_counters *c);
/*
 * The capture's own statistics: rt_counters_stop() asks `fn` for them after
 * its last sample and writes them as the file's last line, a "capture"
 * object naming `device` (docs/FORMATS.md).
 */
typedef void (*rt_counters_capture_fn)(void *ctx, struct rt_source_stats *st);
void rt_counters_set_capture(struct rt_counters *c, const char *device, rt_counters_capture_fn fn,
                             void *ctx);
/* One counter of a sample, as rt_counters_set_sample_fn() hands it over. */
struct rt_counter_value {
	const char *dev;  /* the RDMA device, or the netdev of an ethtool statistic */
	unsigned port;    /* the RDMA port; 0 for an ethtool statistic */
	const char *name; /* the sysfs file or ethtool statistic (cut to 63 bytes) */
	uint64_t value;
};
/*
 * Also hand each sample's counters to `fn` (from the thread that takes the
 * sample; the array lives until fn returns). Set before rt_counters_start().
 */
typedef void (*rt_counters_sample_fn)(void *ctx, const struct rt_counter_value *v, unsigned n);
void rt_counters_set_sample_fn(struct rt_counters *c, rt_counters_sample_fn fn, void *ctx);
/* Take a sample now, then one every interval from a thread until rt_counters_stop(). */
int rt_counters_start(struct rt_counters *c, char *errbuf);
/* Stop the thread (if started), take the final sample, close the file and free c. */
int rt_counters_stop(struct rt_counters *c, char *errbuf);

/* The netdev's ethtool statistic names and values (SIOCETHTOOL); caller frees both arrays. Returns
 * the count or -errno. */
int rt_ethtool_stats(const char *netdev, char (**names)[32], uint64_t **values);

#endif

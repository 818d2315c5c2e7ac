/* Internals of the capture sources (not for use outside capture/): their ops tables, the verbs sniffer's figures. */
#ifndef RT_CAPTURE_INTERNAL_H
#define RT_CAPTURE_INTERNAL_H

#include <stddef.h>

#include "capture/source.h"
#include "rt_config.h"

extern const struct rt_source_ops rt_source_file_ops;
extern const struct rt_source_ops rt_source_pcap_ops;
#if RT_HAVE_IBVERBS
extern const struct rt_source_ops rt_source_verbs_ops;
#endif

/* The verbs sources' list(): every port of every RDMA device in sysfs (built with libibverbs or not). */
int rt_rdma_source_list(const struct rt_source_config *cfg, rt_source_list_fn fn, void *ctx,
			char *errbuf);

/*
 * A capture file's place in a rotated set: the number its name ends with
 * (OUT.N as capture -C/-G writes it, NAME.pcapN / NAME.pcapngN / NAME.capN
 * as tcpdump -C/-W does; a final ".gz" ignored), or -1 for an unnumbered
 * name. `stem` gets the path without the number (and ".gz"): files of one
 * set share it ("run.pcapng", "run.pcapng.1" -> "run.pcapng").
 */
long rt_fileset_rotation(const char *path, char *stem, size_t size);
/* The name a vantage point takes from its first file: no folder, ".gz", number or capture extension ("h1/run.pcapng.2.gz" -> "run"; "-" -> "stdin"). */
void rt_fileset_point_name(const char *path, char *name, size_t size);

/* The verbs sniffer: receive ring entries when -B is not given, and the smallest accepted. */
#define RT_VERBS_DEFAULT_RING 4096u
#define RT_VERBS_MIN_RING 64u
/* Frames handed out per next() call at most (the caller's batch may be smaller). */
#define RT_VERBS_POLL_BATCH 64
/* Receive buffer size when the port's netdev MTU cannot be read (a 9000-byte MTU jumbo frame fits). */
#define RT_VERBS_DEFAULT_SLOT 9216u

/* Nanoseconds of a raw HCA clock delta at hca_core_clock kHz (no overflow for any delta). */
static inline uint64_t rt_verbs_cycles_to_ns(uint64_t cycles, uint64_t khz)
{
	uint64_t per_s = khz * 1000u;
	return cycles / per_s * 1000000000u + cycles % per_s * 1000000u / khz;
}

#endif

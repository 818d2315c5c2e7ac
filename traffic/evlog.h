/* The traffic source's JSON Lines event log (docs/FORMATS.md): one object per event, ns timestamps. */
#ifndef RT_GEN_EVLOG_H
#define RT_GEN_EVLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/errbuf.h"
#include "dissect/dissect.h"
#include "common/json.h"
#include "common/outbuf.h"

struct rt_evlog {
	struct rt_outbuf *out; /* NULL: logging off, every call is a no-op */
	struct rt_json json;   /* the line being written */
	FILE *fp;
	int64_t real_minus_mono; /* CLOCK_REALTIME - CLOCK_MONOTONIC at open, ns */
};

/* The flow a per-QP event names: the data sender's IP, the receiver's IP, the data packets' QP. */
struct rt_evflow {
	char src[48], dst[48];
	uint32_t dest_qp;
};

/* Open `path` for writing (NULL: logging off). Returns 0 or -errno with errbuf filled. */
int rt_evlog_open(struct rt_evlog *log, const char *path, char *errbuf);
/* Flush and close; returns 0 or -errno of the first write error with errbuf filled. */
int rt_evlog_close(struct rt_evlog *log, char *errbuf);
/* Push buffered lines to the file. */
void rt_evlog_flush(struct rt_evlog *log);

/* Start a line {"ts":..,"event":..; mono_ns is a CLOCK_MONOTONIC time. */
void rt_evlog_begin(struct rt_evlog *log, uint64_t mono_ns, const char *event);
/* Start a per-QP line: also "src", "dst", "dest_qp". */
void rt_evlog_begin_flow(struct rt_evlog *log, uint64_t mono_ns, const char *event,
                         const struct rt_evflow *flow);
void rt_evlog_str(struct rt_evlog *log, const char *key, const char *value);
void rt_evlog_u64(struct rt_evlog *log, const char *key, uint64_t value);
void rt_evlog_double(struct rt_evlog *log, const char *key, double value, int decimals);
void rt_evlog_bool(struct rt_evlog *log, const char *key, bool value);
/* Close the line with "}\n". */
void rt_evlog_end(struct rt_evlog *log);

#endif

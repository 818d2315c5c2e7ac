/* report and timeline without --bucket: a bucket from the capture's length, measured before the analysis. */
#ifndef RT_TOOLS_BUCKET_DEFAULT_H
#define RT_TOOLS_BUCKET_DEFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/results.h"
#include "tools/cli.h"

/* About this many buckets over the capture. */
#define RT_BUCKET_POINTS 1000
/* The bucket of a capture whose length cannot be known before it is read (standard input, a pipe). */
#define RT_BUCKET_STREAM_NS 100000
/* report: the longest bucket chosen; a longer capture folds these into its points, peaks kept. */
#define RT_BUCKET_REPORT_MAX_NS 100000

/*
 * The shortest of 1, 2 or 5 times a power of ten nanoseconds that cuts
 * span_ns into at most RT_BUCKET_POINTS buckets, at least RT_AN_BUCKET_MIN_NS.
 */
uint64_t rt_bucket_for_span(uint64_t span_ns);

/*
 * The bucket report (`report` true) or timeline takes without --bucket:
 * the files are read once for their first and last timestamps, and
 * rt_bucket_for_span() of that span (report: at most
 * RT_BUCKET_REPORT_MAX_NS); RT_BUCKET_STREAM_NS when one of them is
 * standard input or not a regular file. `why` gets what was chosen and
 * why, one line without the command's name ("no --bucket: 50ms buckets,
 * 827 over the capture's 41.3 s"). A file that cannot be read
 * counts with what could be read (the analysis says what is wrong).
 */
uint64_t rt_bucket_default(const struct rt_cli_files *files, bool report, char *why,
                           size_t whysize);

#endif

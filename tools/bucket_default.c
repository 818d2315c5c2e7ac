/* report and timeline without --bucket: a bucket from the capture's length, measured before the analysis. */
#include "tools/bucket_default.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/pcapfile.h"

uint64_t rt_bucket_for_span(uint64_t span_ns)
{
	static const uint64_t steps[] = {1, 2, 5};
	uint64_t want = span_ns / RT_BUCKET_POINTS + (span_ns % RT_BUCKET_POINTS != 0);
	for (uint64_t decade = 1; decade <= UINT64_MAX / 10; decade *= 10)
		for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			if (steps[i] * decade >= want && steps[i] * decade >= RT_BUCKET_MIN_NS)
				return steps[i] * decade;
	return want;
}

/*
 * The earliest and latest timestamps of one file (opened read-only), as far
 * as it can be read: 0, or -ESPIPE for a stream (not a regular file).
 */
static int file_span(const char *path, uint64_t *first, uint64_t *last, bool *any)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct stat st;
	/* a pipe is not opened: that would take what its writer sends, or wait for one */
	if (stat(path, &st) < 0 || S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode))
		return -ESPIPE;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct rt_pcapfile *pf;
	if (rt_pcapfile_open_fd(&pf, fd, true, path, errbuf) < 0)
		return 0;
	struct rt_frame frames[256];
	int n;
	while ((n = rt_pcapfile_next(pf, frames, 256, errbuf)) > 0 || n == -EINTR)
		for (int i = 0; i < n; i++) {
			uint64_t t = frames[i].ts_ns;
			if (!*any || t < *first)
				*first = t;
			if (!*any || t > *last)
				*last = t;
			*any = true;
		}
	rt_pcapfile_close(pf);
	return 0;
}

/* "41.3 s", "850 us": a span for people, three digits. */
static void span_text(uint64_t ns, char *buf, size_t size)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	double v = (double)ns;
	unsigned u = 0;
	/* from 999.5 up %.3g would say 1e+03: that is the next unit's 1 */
	while (u + 1 < sizeof(units) / sizeof(units[0]) && v >= 999.5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, size, "%.3g %s", v, units[u]);
}

/* "50ms", "2us": a bucket as --bucket takes it. */
static void bucket_text(uint64_t ns, char *buf, size_t size)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	unsigned u = 0;
	while (u + 1 < sizeof(units) / sizeof(units[0]) && ns % 1000 == 0) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 "%s", ns, units[u]);
}

uint64_t rt_bucket_default(const struct rt_cli_files *files, bool report, char *why, size_t whysize)
{
	uint64_t first = 0, last = 0, bucket;
	bool any = false;
	char b[32], s[32];
	for (size_t i = 0; i < files->n; i++) {
		const char *path = files->files[i].path;
		if (!strcmp(path, "-") || file_span(path, &first, &last, &any) == -ESPIPE) {
			bucket_text(RT_BUCKET_STREAM_NS, b, sizeof(b));
			snprintf(why, whysize,
			         "no --bucket, and %s%s cannot be measured before it is read: %s "
			         "buckets",
			         strcmp(path, "-") ? path : "standard input",
			         strcmp(path, "-") ? " (a stream)" : "", b);
			return RT_BUCKET_STREAM_NS;
		}
	}
	uint64_t span = any ? last - first : 0;
	bucket = rt_bucket_for_span(span);
	bool capped = report && bucket > RT_BUCKET_REPORT_MAX_NS;
	if (capped)
		bucket = RT_BUCKET_REPORT_MAX_NS;
	bucket_text(bucket, b, sizeof(b));
	span_text(span, s, sizeof(s));
	snprintf(why, whysize, "no --bucket: %s buckets, %" PRIu64 " over the capture's %s%s", b,
	         span / bucket + 1, s,
	         capped ? " (folded into at most 1024 points, each keeping its peak)" : "");
	return bucket;
}

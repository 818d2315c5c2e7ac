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
			if (steps[i] * decade >= want && steps[i] * decade >= RT_AN_BUCKET_MIN_NS)
				return steps[i] * decade;
	return want;
}

/* A path that cannot be read twice: standard input, a pipe, a device (not a regular file). */
static bool is_stream(const char *path)
{
	struct stat st;
	return !strcmp(path, "-") ||
	       (stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode));
}

/* Whether the timestamps so far lie `enough` apart (the span is then at least that: a span only grows). */
static bool spans(bool any, uint64_t first, uint64_t last, uint64_t enough)
{
	return any && last - first >= enough;
}

/*
 * The earliest and latest timestamps of one regular file (opened
 * read-only), as far as it can be read, or until they lie `enough` apart.
 */
static void file_span(const char *path, uint64_t enough, uint64_t *first, uint64_t *last, bool *any)
{
	char errbuf[RT_ERRBUF_SIZE];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct rt_pcapfile *pf;
	if (rt_pcapfile_open_fd(&pf, fd, true, path, errbuf) < 0)
		return;
	struct rt_frame frames[256];
	int n;
	while (!spans(*any, *first, *last, enough) &&
	       ((n = rt_pcapfile_next(pf, frames, 256, errbuf)) > 0 || n == -EINTR)) {
		for (int i = 0; i < n; i++) {
			uint64_t t = frames[i].ts_ns;
			if (!*any || t < *first)
				*first = t;
			if (!*any || t > *last)
				*last = t;
			*any = true;
		}
	}
	rt_pcapfile_close(pf);
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
		if (is_stream(path)) {
			bucket_text(RT_BUCKET_STREAM_NS, b, sizeof(b));
			snprintf(why, whysize,
			         "no --bucket, and %s%s cannot be measured before it is read: %s "
			         "buckets",
			         strcmp(path, "-") ? path : "standard input",
			         strcmp(path, "-") ? " (a stream)" : "", b);
			return RT_BUCKET_STREAM_NS;
		}
	}
	/* report: a span longer than its longest bucket's points gets that bucket, however long */
	uint64_t enough = report ? RT_BUCKET_REPORT_MAX_NS * RT_BUCKET_POINTS + 1 : UINT64_MAX;
	for (size_t i = 0; i < files->n && !spans(any, first, last, enough); i++)
		file_span(files->files[i].path, enough, &first, &last, &any);
	uint64_t span = any ? last - first : 0;
	bucket = rt_bucket_for_span(span);
	if (report && bucket > RT_BUCKET_REPORT_MAX_NS) {
		bucket_text(RT_BUCKET_REPORT_MAX_NS, b, sizeof(b));
		span_text(RT_BUCKET_REPORT_MAX_NS * RT_BUCKET_POINTS, s, sizeof(s));
		snprintf(
		    why, whysize,
		    "no --bucket: %s buckets, the longest report chooses, for a capture over %s "
		    "(folded into at most 1024 points, each keeping its peak)",
		    b, s);
		return RT_BUCKET_REPORT_MAX_NS;
	}
	bucket_text(bucket, b, sizeof(b));
	span_text(span, s, sizeof(s));
	snprintf(why, whysize, "no --bucket: %s buckets, %" PRIu64 " over the capture's %s", b,
	         span / bucket + 1, s);
	return bucket;
}

/* Names of several capture files: the numbering of a rotated set (OUT, OUT.1, ...; tcpdump's trace.pcap1) and vantage point names. */
#include "capture/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/files.h"

/* Extensions a capture file name ends with; tcpdump -C/-W numbers the name right after them. */
static const char *const capture_ext[] = {".pcapng", ".pcap", ".cap"};

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Length of `name` without a final ".gz". */
static size_t without_gz(const char *name)
{
	size_t len = strlen(name);
	return ends_with(name, len, ".gz") && len > 3 ? len - 3 : len;
}

long rt_fileset_rotation(const char *path, char *stem, size_t size)
{
	size_t len = without_gz(path);
	const char *base = strrchr(path, '/');
	size_t base_off = base ? (size_t)(base - path) + 1 : 0;
	size_t d = len;
	while (d > base_off && path[d - 1] >= '0' && path[d - 1] <= '9')
		d--;
	long number = -1;
	size_t keep = len;
	/* at most 9 digits, after a non-empty name: OUT.N, or NAME.pcap + N as tcpdump writes them */
	if (d < len && len - d <= 9 && d > base_off) {
		bool dotted = path[d - 1] == '.' && d - 1 > base_off;
		bool after_ext = false;
		for (size_t i = 0; i < sizeof(capture_ext) / sizeof(capture_ext[0]); i++)
			after_ext |= ends_with(path, d, capture_ext[i]) &&
			             d > base_off + strlen(capture_ext[i]);
		if (dotted || after_ext) {
			number = strtol(path + d, NULL, 10);
			keep = dotted ? d - 1 : d;
		}
	}
	snprintf(stem, size, "%.*s", (int)keep, path);
	return number;
}

bool rt_fileset_one_capture(const struct rt_source_file_spec *files, size_t n)
{
	char first[4096], stem[4096];
	bool named = n && files[0].vantage;
	if (n)
		rt_fileset_rotation(files[0].path, first, sizeof(first));
	for (size_t i = 1; i < n; i++) {
		if (named != !!files[i].vantage)
			return false;
		if (named && strcmp(files[i].vantage, files[0].vantage) != 0)
			return false;
		rt_fileset_rotation(files[i].path, stem, sizeof(stem));
		if (!named && (strcmp(stem, first) != 0 || !strcmp(files[i].path, "-")))
			return false;
	}
	return true;
}

void rt_fileset_point_name(const char *path, char *name, size_t size)
{
	if (strcmp(path, "-") == 0) {
		snprintf(name, size, "stdin");
		return;
	}
	char stem[4096];
	rt_fileset_rotation(path, stem, sizeof(stem));
	const char *base = strrchr(stem, '/');
	base = base ? base + 1 : stem;
	size_t len = strlen(base);
	for (size_t i = 0; i < sizeof(capture_ext) / sizeof(capture_ext[0]); i++) {
		if (ends_with(base, len, capture_ext[i]) && len > strlen(capture_ext[i])) {
			len -= strlen(capture_ext[i]);
			break;
		}
	}
	snprintf(name, size, "%.*s", (int)len, base);
}

/* What capture's options mean together: --ring and its company, the file format -w OUT's name asks for. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "capture/recorder.h"
#include "tools/capture_options.h"
#include "tools/cli.h"

#define CMD "capture"

int rt_capture_check_ring(struct rt_capture_args *a)
{
	const struct rt_ring_args *r = &a->ring;
	if (!r->span_ns) {
		if (r->ntriggers || r->bytes_given || r->post_given || r->hold_off_given ||
		    r->max_events || r->json_events)
			return rt_cli_usage_error(
			    CMD, "--trigger, --ring-size, --post, --hold-off, "
			         "--max-events and --json-events go with --ring D");
		return 0;
	}
	if (!r->ntriggers)
		return rt_cli_usage_error(CMD, "--ring: give at least one --trigger EXPR");
	if (!a->out || !strcmp(a->out, "-") || !*a->out)
		return rt_cli_usage_error(CMD,
		                          "--ring: give -w DIR, the folder events are written to");
	if (a->rotate_bytes || a->rotate_seconds || a->counters_ns)
		return rt_cli_usage_error(CMD, "--ring writes event files: -G, -C and --counters "
		                               "have no place with it");
	if (!a->snaplen_given)
		a->snaplen = RT_RING_DEFAULT_SNAPLEN;
	if (r->bytes < RT_RECORDER_FRAME_BYTES(a->snaplen) * 16)
		return rt_cli_usage_error(CMD,
		                          "--ring-size: %llu bytes hold fewer than 16 frames of "
		                          "-s %u",
		                          (unsigned long long)r->bytes, a->snaplen);
	return 0;
}

/* Does name end with ext, in any case? */
static bool ends_with(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e && !strcasecmp(name + n - e, ext);
}

int rt_capture_check_format(struct rt_capture_args *a)
{
	static const char *const names[] = {"pcapng", "classic pcap"}; /* by enum rt_write_format */
	enum rt_write_format named;
	if (!a->out || a->ring.span_ns)
		return 0;
	if (ends_with(a->out, ".pcapng"))
		named = RT_FORMAT_PCAPNG;
	else if (ends_with(a->out, ".pcap"))
		named = RT_FORMAT_PCAP_NS;
	else
		return 0; /* --format's, or pcapng */
	if (!a->format_given)
		a->format = named;
	if (a->format != named)
		return rt_cli_usage_error(CMD,
		                          "-w %s names a %s file, --format asks for %s (drop "
		                          "--format, or rename the file)",
		                          a->out, names[named], names[a->format]);
	return 0;
}

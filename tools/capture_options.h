/* capture's command line: what it asks for (struct rt_capture_args), parsed and checked. */
#ifndef RT_TOOLS_CAPTURE_OPTIONS_H
#define RT_TOOLS_CAPTURE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/writer.h"
#include "dissect/print.h"
#include "tools/capture_ring.h"
#include "tools/cli.h"

/* What capture's command line asks for. */
struct rt_capture_args {
	const char *dev;
	const char *file; /* -r: a saved capture as the source */
	const char *out;  /* -w, or NULL: print decoded lines */
	const char *bpf;
	char *bpf_joined;               /* the expression after the options, joined */
	struct rt_print_text_opts text; /* without -w: dissect's text options */
	unsigned tflags;                /* the -t letters counted */
	char dev_by_index[80];          /* -i N: the N-th device of -D */
	const char *sysfs_root;
	const char *user; /* -Z: become this user once the device is open */
	uint32_t snaplen;
	uint32_t buffers;
	uint64_t max_count;         /* -c, 0 = no limit */
	uint64_t duration_ns;       /* --duration, 0 = no limit */
	uint64_t rotate_seconds;    /* -G */
	uint64_t rotate_bytes;      /* -C */
	uint64_t counters_ns;       /* --counters interval, 0 = off */
	const char *metrics;        /* --metrics [ADDR:]PORT, or NULL */
	uint64_t metrics_top;       /* --metrics-top-flows */
	uint64_t metrics_linger_ns; /* --metrics-linger */
	bool metrics_top_given, metrics_linger_given;
	enum rt_write_format format;
	bool format_given; /* --format: else -w OUT's name (.pcap, .pcapng) chooses */
	bool stats;
	bool list;
	uint64_t storm_ns; /* --storm-threshold, 0: the analyzer's default */
	bool stop_at_eof;  /* stop when standard input ends */
	bool notify_ready; /* say when capturing, on standard error */
	char **cmd;        /* after --, or NULL */
	bool snaplen_given;
	struct rt_ring_args ring; /* --ring and what goes with it */
	/* --hosts, --slurm: capture on every host through a launcher */
	struct rt_cli_hosts hosts;
	const char *remote_dir;
	bool no_analyze;
	bool
	    analyze_there; /* --analyze-there: each host analyzes its capture, partials come home */
	bool fetch;        /* --fetch: the captures come home too (with --analyze-there) */
	uint64_t
	    bucket_ns; /* --bucket: the time buckets the hosts' partials keep (0: timeline's default) */
	struct rt_cli_forward forward; /* the options for the hosts' captures, checked */
	/* the capture options as given, for the hosts' captures */
	struct {
		const char *name, *value;
	} given[32];
	unsigned ngiven;
};

/*
 * Parse capture's command line into *a (zeroed by the caller) and check it.
 * Returns 0, -1 after printing --help, or the usage exit status after
 * printing its line.
 */
int rt_capture_parse_args(int argc, char **argv, struct rt_capture_args *a);

/* capture_checks.c: --trigger, --ring-size, -w DIR... with --ring; 0 or the usage exit status. */
int rt_capture_check_ring(struct rt_capture_args *a);
/*
 * The format of -w OUT (one capture here, no --ring): .pcap classic pcap,
 * .pcapng pcapng, else --format's (pcapng by default); a --format the name
 * contradicts is refused. 0 or the usage exit status.
 */
int rt_capture_check_format(struct rt_capture_args *a);

/* Print capture's --help text on standard output (capture_help.c). */
void rt_capture_help(void);

#endif

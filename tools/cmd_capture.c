/* rocetrace capture: netdev, RDMA NIC or file into pcapng/pcap, optionally around a command. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/counters.h"
#include "analyze/analyze.h"
#include "analyze/metrics.h"
#include "capture/pump.h"
#include "common/sysfs.h"
#include "capture/writer.h"
#include "common/outbuf.h"
#include "dissect/dissect.h"
#include "dissect/print.h"
#include "rt_config.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/privileges.h"
#include "tools/spawn.h"
#include "tools/textopts.h"
#if RT_HAVE_MICROHTTPD
#include "tools/metrics_http.h"
#endif

#define BATCH       64
#define DRAIN_NS    100000000u /* after CMD exits, keep capturing this long */
#define CMD         "capture"
#define MAX_SECONDS (366ull * 86400) /* --duration, --counters, -G */
#define METRICS_PUBLISH_NS 250000000u /* --metrics: the figures a scrape sees are at most this old */
#define METRICS_TOP_DEFAULT 20

struct capture_args {
	const char *dev;
	const char *file; /* -r: a saved capture as the source */
	const char *out;  /* -w, or NULL: print decoded lines */
	const char *bpf;
	char *bpf_joined; /* the expression after the options, joined */
	struct rt_print_text_opts text; /* without -w: dissect's text options */
	char dev_by_index[80]; /* -i N: the N-th device of -D */
	const char *sysfs_root;
	const char *user; /* -Z: become this user once the device is open */
	uint32_t snaplen;
	uint32_t buffers;
	uint64_t max_count;      /* -c, 0 = no limit */
	uint64_t duration_ns;    /* --duration, 0 = no limit */
	uint64_t rotate_seconds; /* -G */
	uint64_t rotate_bytes;   /* -C */
	uint64_t counters_ns;    /* --counters interval, 0 = off */
	const char *metrics;     /* --metrics [ADDR:]PORT, or NULL */
	uint64_t metrics_top;    /* --metrics-top-flows */
	uint64_t metrics_linger_ns; /* --metrics-linger */
	enum rt_write_format format;
	bool stats;
	bool list;
	char **cmd; /* after --, or NULL */
};

/* The --stats ticker: the analyzer's running totals, printed and reset once a second. */
struct ticker {
	struct rt_analyzer *an;
	uint64_t last_ns;
};

/* Times of the capture loop (CLOCK_MONOTONIC). */
struct loop_clock {
	uint64_t start, last_flush;
};

struct capture {
	const struct capture_args *args;
	struct rt_source *src;
	struct rt_writer *writer;
	int if_id;
	struct ticker tick;
	struct loop_clock clock;
	struct rt_dissect_opts dopts;
	struct rt_outbuf *print; /* without -w: the decoded lines, else NULL */
	struct rt_print_text_opts text; /* how they look, and the times -ttt needs */
	uint64_t printed;
	uint64_t frames; /* handed over by the pump */
	/* --metrics: the store the server reads, when it was last published (CLOCK_MONOTONIC) */
	struct rt_metrics *metrics;
	uint64_t metrics_published;
	unsigned final_requests; /* stop requests before the final figures: a later one ends the linger */
	struct rt_metrics_nic *nic; /* the sampler's conversion buffer (RT_METRICS_NIC_MAX) */
#if RT_HAVE_MICROHTTPD
	struct rt_metrics_http *http; /* the server that reads the store */
#endif
	int rc; /* 0 or the first error (negative errno) */
	char errbuf[RT_ERRBUF_SIZE];
	/*
	 * The source's counts when the loop stopped: frames that reach the
	 * socket later (a command still running after Ctrl-C) are neither
	 * captured nor lost, so they count as neither.
	 */
	struct rt_source_stats final;
	bool stopped;
	/* the capture thread (with -- CMD) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started; /* the capture thread is in its loop (never reset) */
};

/* The command run with -- CMD, for the signal hook to pass SIGTERM on (set while signals are blocked). */
static volatile sig_atomic_t g_child_pid;

static void help(void)
{
	fputs(
	    "NAME\n"
	    "    rocetrace capture - capture RoCE traffic from a netdev or an RDMA NIC\n"
	    "\n"
	    "SYNOPSIS\n"
	    "    rocetrace capture -i DEV[:PORT] [-w OUT] [-s SNAPLEN] [-c N] [--duration D]\n"
	    "        [-B N] [--format pcapng|pcap] [-G SECONDS] [-C MB] [--counters [D]]\n"
	    "        [--sysfs-root DIR] [--stats] [--metrics [ADDR:]PORT\n"
	    "        [--metrics-top-flows N] [--metrics-linger D]] [-Z USER] [-n] [-v]\n"
	    "        [-e] [-x | -X] [-t...] [-#] [-f BPF | EXPRESSION] [-- CMD ARGS...]\n"
	    "    rocetrace capture -r FILE -w OUT [-s SNAPLEN] [-c N] [EXPRESSION]\n"
	    "    rocetrace capture -D [--sysfs-root DIR]\n"
	    "\n"
	    "DESCRIPTION\n"
	    "    Captures frames into OUT, or without -w prints each one decoded (as\n"
	    "    'rocetrace dissect' prints them), until Ctrl-C (SIGINT), SIGTERM or\n"
	    "    SIGHUP, -c N frames, --duration D, or the end of CMD. On every stop the\n"
	    "    buffered frames are written, an interface statistics block closes the\n"
	    "    pcapng file and a final line on standard error gives frames received,\n"
	    "    dropped and written (frames that reached the file) or printed. Frames\n"
	    "    that arrive after the stop are not counted, as received or as dropped.\n"
	    "\n"
	    "    DEV picks the capture source:\n"
	    "      an RDMA device listed in SYSFS/class/infiniband (mlx5_0, mlx5_0:2,\n"
	    "        rocep11s0): the verbs sniffer. It sees RoCE traffic the NIC moves\n"
	    "        without the kernel, sent and received, on port PORT (default 1).\n"
	    "        Needs CAP_NET_RAW and a NIC/firmware with sniffer flow support\n"
	    "        (mlx4, mlx5, bnxt_re). Timestamps come from the NIC's wall clock,\n"
	    "        else its raw clock converted with the core clock frequency, else\n"
	    "        the system clock; the pcapng interface block says which.\n"
	    "      a network interface (eth0, veth1, any): libpcap live capture,\n"
	    "        promiscuous, nanosecond kernel timestamps, frames handed over in\n"
	    "        blocks of the kernel ring (one wake-up per block, within 40 ms;\n"
	    "        without -w one by one). Soft-RoCE (rxe) traffic and mirror-port\n"
	    "        traffic are seen here.\n"
	    "      a number N: the N-th device 'capture -D' lists, as tcpdump -i takes it.\n"
	    "      an existing file (pcap or pcapng), or -r FILE: its frames are copied\n"
	    "        to OUT.\n"
	    "\n"
	    "OPTIONS\n"
	    "    -i, --interface DEV[:PORT]\n"
	    "        What to capture from (see above). Required, unless -r.\n"
	    "    -r FILE\n"
	    "        Copy the frames of a saved capture (with -w; the filter, -s and -c\n"
	    "        apply).\n"
	    "    -w, --write OUT\n"
	    "        Output file; '-' writes to standard output. An OUT that is a\n"
	    "        symbolic link is refused (so is the --counters file), so a link\n"
	    "        planted in a shared folder cannot redirect the capture. Without -w\n"
	    "        each frame is printed as one decoded line as it arrives (frames are\n"
	    "        handed over one by one, not in blocks).\n"
	    "    -s, --snaplen SNAPLEN\n"
	    "        Keep at most SNAPLEN bytes of each frame. Default: whole frames.\n"
	    "        -s 128 keeps every RoCE header (Ethernet, VLAN, IPv6, UDP, BTH and\n"
	    "        extended headers) for header-only capture at high rates.\n"
	    "    EXPRESSION, -f, --filter BPF\n"
	    "        Keep only frames matching the libpcap filter expression: the words\n"
	    "        after the options (capture -i eth0 udp port 4791), as tcpdump takes\n"
	    "        them, or one argument of -f. The verbs sniffer applies it in\n"
	    "        software. Default: every frame.\n"
	    "    -c, --count N\n"
	    "        Stop after N frames. Default: no limit.\n"
	    "    --duration D\n"
	    "        Stop after D (a bare number is seconds, decimals allowed; or give a\n"
	    "        unit: ns, us, ms, s, e.g. 500ms). At most 366 days. Default: no\n"
	    "        limit.\n"
	    "    -B, --buffer N\n"
	    "        Verbs sniffer: N receive buffers in the ring (default 4096, at\n"
	    "        least 64). libpcap: kernel buffer of N KiB (default 8192, 8 MiB;\n"
	    "        32768 without -w, where each frame takes a slot of its own).\n"
	    "    --format pcapng|pcap\n"
	    "        pcapng (default) with an interface block per source (name, link\n"
	    "        type, snap length, 1 ns resolution, timestamp source) and final\n"
	    "        statistics; or classic pcap with nanosecond timestamps.\n"
	    "    -G, --rotate-seconds SECONDS\n"
	    "        Start a new file every SECONDS (checked when a frame arrives).\n"
	    "    -C, --rotate-size MB\n"
	    "        Start a new file before one would pass MB million bytes.\n"
	    "        Rotated files are named OUT, OUT.1, OUT.2, ...; if OUT holds '%',\n"
	    "        it is an strftime(3) pattern expanded with the local time each\n"
	    "        file opens (e.g. -w 'run-%H%M%S.pcapng'). Default: one file.\n"
	    "    --counters [D]\n"
	    "        Sample NIC counters every D (default 1s, at least 10ms; a bare\n"
	    "        number is seconds), and at start and stop, into\n"
	    "        OUT.counters.jsonl: the RDMA port's hw_counters/ and counters/ from\n"
	    "        sysfs and its netdev's ethtool statistics (for a netdev DEV: its\n"
	    "        ethtool statistics, and the counters of an RDMA port on top of it,\n"
	    "        if any). Format: docs/FORMATS.md.\n"
	    "    --sysfs-root DIR\n"
	    "        Read class/infiniband and class/net under DIR instead of /sys.\n"
	    "    --stats\n"
	    "        Print once a second on standard error: packets and Gb/s of the\n"
	    "        last second, CE-marked packets, CNPs, NAKs, PFC pause frames per\n"
	    "        priority (XOFF), and the drops so far; a last line at the stop\n"
	    "        covers the time since the previous one.\n"
	    "    --metrics [ADDR:]PORT\n"
	    "        While capturing, serve the live figures at http://ADDR:PORT/metrics\n"
	    "        for Prometheus: the text exposition format 0.0.4, or OpenMetrics when\n"
	    "        the scraper's Accept header asks for application/openmetrics-text.\n"
	    "        ADDR is a numeric IPv4 address or [IPv6] address (default 127.0.0.1:\n"
	    "        only this host; 0.0.0.0 or [::] for every address); PORT 0 picks a\n"
	    "        free port. A line on standard error says where it serves. Frames,\n"
	    "        RoCE packets and bytes, CE marks, CNPs, NAKs, resends, PFC frames\n"
	    "        and paused seconds per priority, capture drops, flows, the busiest\n"
	    "        flows' figures and, with --counters, the NIC counters (every name in\n"
	    "        docs/METRICS.md). The figures are taken every 250 ms, so a scrape\n"
	    "        never waits for the capture, nor the capture for a scrape. At most 32\n"
	    "        connections (8 from one address); one that makes no progress for\n"
	    "        10 s is closed, and headers over 16 KiB are refused.\n"
	    "    --metrics-top-flows N\n"
	    "        Per-flow series (labels src, dst, dest_qp) for the N flows with the\n"
	    "        most bytes so far (default 20, at most 1000, 0: none).\n"
	    "    --metrics-linger D\n"
	    "        After the capture ends, keep serving its final figures for D (with\n"
	    "        rocetrace_capture_running 0) so a last scrape sees them; a signal\n"
	    "        ends the wait early. Default: 0, exit at once.\n"
	    "    -Z, --user USER\n"
	    "        Once the device is open, give up root and run as USER (its groups,\n"
	    "        group and user ids): OUT, rotated files and the --counters file are\n"
	    "        created as USER, and so is CMD run. USER must be able to write in\n"
	    "        OUT's folder.\n"
	    "    -n, -v, -e, -x, -X, -t, -tt, -ttt, -tttt, -ttttt, -#\n"
	    "        Without -w, as 'rocetrace dissect' takes them (-n: names are never\n"
	    "        looked up; -v more fields; -e the link level; -x/-X the bytes; the\n"
	    "        -t letters the timestamp; -# frame numbers).\n"
	    "    -D, --list-devices\n"
	    "        List RDMA devices (ports, link layer, state, netdev) and network\n"
	    "        interfaces, numbered for -i N, then exit.\n"
	    "    -- CMD ARGS...\n"
	    "        Start the capture, run CMD when it is ready, stop 100 ms after CMD\n"
	    "        exits, and exit with CMD's status (128+N if a signal N killed it;\n"
	    "        127 when CMD is not found, 126 when it cannot be run). SIGTERM and\n"
	    "        SIGHUP sent to rocetrace stop the capture and send SIGTERM to CMD;\n"
	    "        Ctrl-C reaches CMD from the terminal. CMD inherits the descriptors\n"
	    "        rocetrace was given, none it opened (capture socket, files). With\n"
	    "        -w -, CMD's standard output goes to standard error.\n"
	    "    -h, --help\n"
	    "        Print this help and exit.\n"
	    "\n"
	    "    Options come before the filter expression (everything after the first\n"
	    "    word that is not an option belongs to it, up to '--').\n"
	    "\n"
	    "EXIT STATUS\n"
	    "    0 when the capture ended normally (Ctrl-C included, and with -w - or\n"
	    "    without -w when the reader of standard output goes away), CMD's status\n"
	    "    with -- CMD, 1 on errors (what was captured before stays in OUT), 2 for\n"
	    "    usage errors.\n"
	    "\n"
	    "EXAMPLES\n"
	    "    rocetrace capture -i mlx5_0 -w run.pcapng -s 128 --counters -- ib_write_bw "
	    "10.0.0.2\n"
	    "    rocetrace capture -i eth0 -w rxe.pcapng --duration 10 --stats udp port 4791\n"
	    "    rocetrace capture -i eth0 -w run.pcapng --metrics 9464 --counters -- ./train.sh\n"
	    "    rocetrace capture -i mlx5_1:1 -w ring.pcapng -C 1000 -B 16384\n"
	    "    rocetrace capture -i eth0 -c 20 -# udp port 4791\n"
	    "    rocetrace capture -i eth0 -Z nobody -w /tmp/run.pcapng --duration 60\n"
	    "    rocetrace capture -D\n"
	    "    rocetrace capture -i 2 -w run.pcapng\n",
	    stdout);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int parse_args(int argc, char **argv, struct capture_args *a)
{
	enum { OPT_DURATION = 256, OPT_FORMAT, OPT_COUNTERS, OPT_SYSFS, OPT_STATS, OPT_METRICS,
	       OPT_METRICS_TOP, OPT_METRICS_LINGER };
	static const struct option longopts[] = {
	    {"interface", required_argument, NULL, 'i'},
	    {"write", required_argument, NULL, 'w'},
	    {"snaplen", required_argument, NULL, 's'},
	    {"filter", required_argument, NULL, 'f'},
	    {"count", required_argument, NULL, 'c'},
	    {"duration", required_argument, NULL, OPT_DURATION},
	    {"buffer", required_argument, NULL, 'B'},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"rotate-seconds", required_argument, NULL, 'G'},
	    {"rotate-size", required_argument, NULL, 'C'},
	    {"counters", optional_argument, NULL, OPT_COUNTERS},
	    {"sysfs-root", required_argument, NULL, OPT_SYSFS},
	    {"stats", no_argument, NULL, OPT_STATS},
	    {"metrics", required_argument, NULL, OPT_METRICS},
	    {"metrics-top-flows", required_argument, NULL, OPT_METRICS_TOP},
	    {"metrics-linger", required_argument, NULL, OPT_METRICS_LINGER},
	    {"list-devices", no_argument, NULL, 'D'},
	    {"user", required_argument, NULL, 'Z'},
	    {"number", no_argument, NULL, '#'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t v;
	unsigned tflags = 0;
	bool top_given = false, linger_given = false;
	int c;
	a->metrics_top = METRICS_TOP_DEFAULT;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option: the filter expression, or '--' and CMD. */
	static const char letters[] = "+:i:r:w:s:f:c:B:G:C:Z:Dh" RT_TEXT_LETTERS;
	while ((c = getopt_long(argc, argv, letters, longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a->dev = optarg;
			break;
		case 'r':
			a->file = optarg;
			break;
		case 'w':
			a->out = optarg;
			break;
		case 's':
			if (rt_opt_uint(CMD, "--snaplen", optarg, 1, 262144, &v))
				return RT_EXIT_USAGE;
			a->snaplen = (uint32_t)v;
			break;
		case 'f':
			a->bpf = optarg;
			break;
		case 'c':
			if (rt_opt_uint(CMD, "--count", optarg, 1, UINT64_MAX, &a->max_count))
				return RT_EXIT_USAGE;
			break;
		case OPT_DURATION:
			if (rt_opt_duration(CMD, "--duration", optarg, 1,
			                    MAX_SECONDS * 1000000000, &a->duration_ns))
				return RT_EXIT_USAGE;
			break;
		case 'B':
			if (rt_opt_uint(CMD, "--buffer", optarg, 1, 1u << 20, &v))
				return RT_EXIT_USAGE;
			a->buffers = (uint32_t)v;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "pcapng"))
				a->format = RT_FORMAT_PCAPNG;
			else if (!strcmp(optarg, "pcap"))
				a->format = RT_FORMAT_PCAP_NS;
			else
				return rt_cli_usage_error(
				    CMD, "--format: '%s' is not pcapng or pcap", optarg);
			break;
		case 'G':
			if (rt_opt_uint(CMD, "--rotate-seconds", optarg, 1, MAX_SECONDS,
			                &a->rotate_seconds))
				return RT_EXIT_USAGE;
			break;
		case 'C':
			if (rt_opt_uint(CMD, "--rotate-size", optarg, 1, UINT64_MAX / 1000000u, &v))
				return RT_EXIT_USAGE;
			a->rotate_bytes = v * 1000000u;
			break;
		case OPT_COUNTERS:
			a->counters_ns = 1000000000u;
			/* "--counters 0.5" as well as "--counters=0.5" */
			if (!optarg && optind < argc &&
			    rt_opt_parse_duration(argv[optind], 0, UINT64_MAX, &v) == 0)
				optarg = argv[optind++];
			if (optarg &&
			    rt_opt_duration(CMD, "--counters", optarg, 10000000,
			                    MAX_SECONDS * 1000000000, &a->counters_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_SYSFS:
			a->sysfs_root = optarg;
			break;
		case OPT_STATS:
			a->stats = true;
			break;
		case OPT_METRICS:
			a->metrics = optarg;
			break;
		case OPT_METRICS_TOP:
			if (rt_opt_uint(CMD, "--metrics-top-flows", optarg, 0, RT_METRICS_TOP_MAX,
					&a->metrics_top))
				return RT_EXIT_USAGE;
			top_given = true;
			break;
		case OPT_METRICS_LINGER:
			if (rt_opt_duration(CMD, "--metrics-linger", optarg, 0, 3600ull * 1000000000,
					    &a->metrics_linger_ns))
				return RT_EXIT_USAGE;
			linger_given = true;
			break;
		case 'D':
			a->list = true;
			break;
		case 'Z':
			a->user = optarg;
			break;
		case 'h':
			help();
			return -1;
		default:
			if (rt_text_option(c, &a->text, &tflags))
				break;
			return rt_cli_getopt_error(CMD, c, argv);
		}
	}
	if (rt_text_ts(CMD, tflags, &a->text))
		return RT_EXIT_USAGE;
	/* the words up to '--' are the filter expression; after it, CMD */
	int end = optind;
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		if (optind == argc)
			return rt_cli_usage_error(CMD, "no command after '--'");
		a->cmd = &argv[optind];
	} else {
		while (end < argc && strcmp(argv[end], "--") != 0)
			end++;
		if (end < argc) {
			if (end + 1 == argc)
				return rt_cli_usage_error(CMD, "no command after '--'");
			a->cmd = &argv[end + 1];
		}
		int rc = rt_cli_operands(CMD, end, argv, optind, false, &a->file, &a->bpf,
					 &a->bpf_joined);
		if (rc)
			return rc;
		for (int i = optind; i < end; i++)
			if (argv[i][0] == '-')
				return rt_cli_usage_error(
				    CMD, "'%s' after the filter expression '%s': options come first",
				    argv[i], a->bpf);
	}
	if (a->list)
		return 0;
	if (!a->metrics && (top_given || linger_given))
		return rt_cli_usage_error(CMD, "--metrics-top-flows and --metrics-linger go with --metrics");
#if RT_HAVE_MICROHTTPD
	struct sockaddr_storage ss;
	char errbuf[RT_ERRBUF_SIZE];
	if (a->metrics && rt_metrics_listen_parse(a->metrics, &ss, errbuf) < 0)
		return rt_cli_usage_error(CMD, "--metrics: %s", errbuf);
#endif
	if (a->dev && a->file)
		return rt_cli_usage_error(CMD, "-i and -r both name the source: give one");
	if (!a->dev && !a->file)
		return rt_cli_usage_error(CMD, "no capture device given (-i DEV; -D lists them)");
	if (a->out && !*a->out)
		return rt_cli_usage_error(CMD, "-w: empty file name");
	if (a->file && !a->out)
		return rt_cli_usage_error(CMD, "-r FILE copies frames: give -w OUT (or 'rocetrace "
					       "dissect FILE' to print them)");
	if (!a->out && (a->counters_ns || a->rotate_bytes || a->rotate_seconds))
		return rt_cli_usage_error(CMD, "--counters, -G and -C write files: give -w OUT");
	if (a->out && !strcmp(a->out, "-") && (a->counters_ns || a->rotate_bytes || a->rotate_seconds))
		return rt_cli_usage_error(
		    CMD, "-w - (standard output) cannot be used with --counters, -G or -C");
	return 0;
}

/* The `index`-th device (1-based) capture -D lists: RDMA ports, then network interfaces. */
struct nth_device {
	unsigned want, seen;
	char *name;
	size_t len;
};

static void find_nth(void *ctx, const struct rt_source_device *dev)
{
	struct nth_device *n = ctx;
	if (++n->seen == n->want)
		snprintf(n->name, n->len, "%s", dev->name);
}

/* -i N: the device name; 0 or the exit status. */
static int device_by_index(struct capture_args *a)
{
	uint64_t v;
	if (!a->dev || rt_opt_parse_uint(a->dev, 1, 65535, &v) != 0 || a->dev[0] == '0')
		return 0;
	struct rt_source_config cfg = {.sysfs_root = a->sysfs_root};
	struct nth_device n = {.want = (unsigned)v, .name = a->dev_by_index,
			       .len = sizeof(a->dev_by_index)};
	char errbuf[RT_ERRBUF_SIZE];
	static const char *const kinds[] = {"verbs", "pcap"};
	for (size_t k = 0; k < 2 && n.seen < n.want; k++)
		rt_source_list(kinds[k], &cfg, find_nth, &n, errbuf);
	if (n.seen < n.want)
		return rt_cli_usage_error(CMD, "-i %s: 'capture -D' lists %u devices", a->dev,
					  n.seen);
	a->dev = a->dev_by_index;
	return 0;
}

/* One line of -D, numbered for -i N across both lists. */
static void print_device(void *ctx, const struct rt_source_device *dev)
{
	unsigned *n = ctx;
	printf("  %u. %-16s %s\n", ++*n, dev->name, dev->desc);
}

/* -D: what the verbs and the libpcap sources can capture from. */
static int list_devices(const char *sysfs_root)
{
	struct rt_source_config cfg = {.sysfs_root = sysfs_root};
	char errbuf[RT_ERRBUF_SIZE];
	unsigned n = 0;

	printf("RDMA devices (verbs sniffer%s):\n",
	       rt_source_kind_built("verbs") ? "" : ", not built in: no libibverbs");
	if (rt_source_list("verbs", &cfg, print_device, &n, errbuf) <= 0)
		printf("  (none in %s/class/infiniband)\n", rt_sysfs_root(sysfs_root));
	printf("Network interfaces (libpcap):\n");
	if (rt_source_list("pcap", &cfg, print_device, &n, errbuf) < 0) {
		fflush(stdout);
		return rt_cli_fail(CMD, "cannot list network interfaces: %s", errbuf);
	}
	return fflush(stdout) == 0 ? RT_EXIT_OK : RT_EXIT_ERROR;
}

/*
 * After the pump stopped for a signal: SIGTERM or SIGHUP (a closed
 * session) stops CMD with SIGTERM (async-signal-safe). Ctrl-C reaches CMD
 * from the terminal by itself.
 */
static void on_signal(int sig)
{
	if ((sig == SIGTERM || sig == SIGHUP) && g_child_pid > 0)
		kill((pid_t)g_child_pid, SIGTERM);
}

/* The source's counts: live while the loop runs, as they were at its stop afterwards. */
static void writer_stats(void *ctx, int if_id, struct rt_source_stats *st)
{
	struct capture *cap = ctx;
	char errbuf[RT_ERRBUF_SIZE];
	(void)if_id;
	if (cap->stopped)
		*st = cap->final;
	else if (rt_source_stats(cap->src, st, errbuf) < 0)
		memset(st, 0, sizeof(*st));
}

/* The last line of the counters file: the capture's own received and dropped counts. */
static void counters_capture(void *ctx, struct rt_source_stats *st)
{
	writer_stats(ctx, 0, st);
}

static void tick_print(struct capture *cap, uint64_t now)
{
	struct ticker *t = &cap->tick;
	struct rt_an_counts c;
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE], pfc[128] = "";
	double secs = (double)(now - t->last_ns) / 1e9;
	rt_analyzer_interval(t->an, &c, true);
	rt_source_stats(cap->src, &st, errbuf);
	size_t len = 0;
	for (int p = 0; p < 8; p++)
		if (c.pfc_xoff[p] && len < sizeof(pfc))
			len += (size_t)snprintf(pfc + len, sizeof(pfc) - len, " p%d:%llu", p,
			                        (unsigned long long)c.pfc_xoff[p]);
	fprintf(stderr, "%llu pkts  %.3f Gb/s  CE %llu  CNP %llu  NAK %llu  PFC%s  drops %llu\n",
	        (unsigned long long)c.packets, secs > 0 ? (double)c.bytes * 8 / secs / 1e9 : 0.0,
	        (unsigned long long)c.ce, (unsigned long long)c.cnp, (unsigned long long)c.nak,
	        len ? pfc : " 0", (unsigned long long)(st.dropped + st.if_dropped));
	t->last_ns = now;
}

static void set_error(struct capture *cap, int rc, const char *msg)
{
	if (!cap->rc) {
		cap->rc = rc;
		snprintf(cap->errbuf, sizeof(cap->errbuf), "%s", msg);
	}
}

/* --metrics: the capture's figures into the store the server reads (final: waits for a scrape's copy). */
static void metrics_publish(struct capture *cap, uint64_t now, bool final)
{
	struct rt_source_stats st;
	writer_stats(cap, 0, &st);
	if (rt_metrics_publish(cap->metrics, cap->tick.an, cap->frames, st.dropped + st.if_dropped, !final, final))
		cap->metrics_published = now;
}

/* --counters with --metrics: each sample's counters into the store (on the sampler's thread). */
static void metrics_nic_sample(void *ctx, const struct rt_counter_value *v, unsigned n)
{
	struct capture *cap = ctx;
	if (n > RT_METRICS_NIC_MAX)
		n = RT_METRICS_NIC_MAX;
	for (unsigned i = 0; i < n; i++) {
		struct rt_metrics_nic *m = &cap->nic[i];
		snprintf(m->dev, sizeof(m->dev), "%s", v[i].dev);
		snprintf(m->name, sizeof(m->name), "%s", v[i].name);
		m->port = v[i].port;
		m->value = v[i].value;
	}
	rt_metrics_set_nic(cap->metrics, cap->nic, n);
}

/* Each frame: the analyzer of --stats and --metrics, then the writer. */
static int on_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
		    char *errbuf)
{
	struct capture *cap = ctx;

	cap->frames++;
	if (rec && cap->tick.an && rt_linktype_supported(frame->linktype))
		rt_analyzer_feed(cap->tick.an, rec);
	if (!cap->print)
		return rt_writer_write(cap->writer, cap->if_id, frame, errbuf);
	if (rec)
		rt_print_text(cap->print, &cap->text, frame->seq, rec, frame->data);
	cap->printed++;
	/* a reader of the lines that went away (| head): a normal stop */
	return cap->print->error ? 1 : 0;
}

/*
 * Before each read: the duration, the once-a-second ticker, and what was
 * written made visible in the file (every 100 ms while the source is idle,
 * every second while it delivers).
 */
static int on_tick(void *ctx, uint64_t now, bool idle, char *errbuf)
{
	struct capture *cap = ctx;
	const struct capture_args *a = cap->args;
	int rc;

	if (a->duration_ns && now - cap->clock.start >= a->duration_ns)
		return 1;
	if (a->stats && now - cap->tick.last_ns >= 1000000000u)
		tick_print(cap, now);
	if (cap->metrics && now - cap->metrics_published >= METRICS_PUBLISH_NS)
		metrics_publish(cap, now, false);
	if (cap->print) { /* lines are for a person: shown as they come */
		rt_out_flush(cap->print);
		return cap->print->error ? 1 : 0;
	}
	if (now - cap->clock.last_flush >= (idle ? 100000000u : 1000000000u)) {
		if ((rc = rt_writer_flush(cap->writer, errbuf)) < 0)
			return rc;
		cap->clock.last_flush = now;
	}
	return 0;
}

/* The capture loop: frames into the writer until a stop condition. */
static void run_loop(struct capture *cap)
{
	struct rt_pump_config pc = {
		.dissect = cap->tick.an || cap->print ? &cap->dopts : NULL,
		.max_frames = cap->args->max_count,
		.on_frame = on_frame,
		.on_tick = on_tick,
		.ctx = cap,
	};
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	int rc;

	cap->clock.start = cap->clock.last_flush = cap->tick.last_ns = now_ns(CLOCK_MONOTONIC);
	if ((rc = rt_pump_run(cap->src, &pc, &res, errbuf)) < 0)
		set_error(cap, rc, errbuf);
	cap->final = res.stats;
	cap->stopped = true;
}

static void *capture_thread(void *arg)
{
	struct capture *cap = arg;
	pthread_mutex_lock(&cap->lock);
	cap->started = true;
	pthread_cond_signal(&cap->cond);
	pthread_mutex_unlock(&cap->lock);
	run_loop(cap);
	return NULL;
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return RT_EXIT_ERROR;
}

/* Wait for CMD; g_child_pid is cleared before it is reaped, so no signal reaches a reused pid. */
static int wait_command(pid_t pid)
{
	siginfo_t info;
	int status = 0;

	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	g_child_pid = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return exit_status_of(status);
}

/* Start the loop in a thread, run CMD once it runs, stop a drain period after CMD exits. */
static int run_with_command(struct capture *cap, int *cmd_status)
{
	pthread_t th;
	sigset_t all, old;
	/* created with every signal blocked: they go to this thread, which passes them on to CMD */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&th, NULL, capture_thread, cap);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		set_error(cap, -err, "cannot start the capture thread");
		return -1;
	}
	pthread_mutex_lock(&cap->lock);
	while (!cap->started)
		pthread_cond_wait(&cap->cond, &cap->lock);
	pthread_mutex_unlock(&cap->lock);

	fflush(NULL);
	struct rt_spawn sp = {
		.argv = cap->args->cmd,
		/* with -w - our standard output is the capture: the command writes to stderr */
		.stdout_to_stderr = cap->args->out && !strcmp(cap->args->out, "-"),
		.pid = &g_child_pid,
		.cancelled = rt_pump_stopping, /* a signal before the fork: no command */
		.child_signals = rt_pump_release_signals,
	};
	char errbuf[RT_ERRBUF_SIZE];
	bool exec_failed;
	int rc = rt_spawn(&sp, &exec_failed, errbuf);
	if (rc == 0) {
		*cmd_status = wait_command((pid_t)g_child_pid);
		struct timespec drain = {0, DRAIN_NS};
		while (!rt_pump_stopping() && nanosleep(&drain, &drain) < 0 && errno == EINTR)
			;
	} else if (exec_failed) {
		rt_cli_fail(CMD, "%s", errbuf);
		*cmd_status = rt_spawn_exit_status(-rc);
	} else if (rc != -ECANCELED) {
		set_error(cap, rc, errbuf);
	}
	rt_pump_stop();
	pthread_join(th, NULL);
	return 0;
}

/* Which RDMA port and netdev the counter sampler reads for capture device `dev`. */
static void counter_targets(const char *dev, const char *root, struct rt_counters_config *cc,
                            char rdev[RT_DEVNAME_MAX], char netdev[RT_DEVNAME_MAX])
{
	unsigned port = 1;
	if (rt_rdma_name_is_device(root, dev) && rt_rdma_split_name(dev, rdev, &port) == 0) {
		cc->dev = rdev;
		cc->port = port;
		if (rt_rdma_port_netdev(root, rdev, port, netdev) == 0)
			cc->netdev = netdev;
		return;
	}
	snprintf(netdev, RT_DEVNAME_MAX, "%s", dev);
	cc->netdev = netdev;
	if (rt_rdma_find_by_netdev(root, dev, rdev, &port) == 0) {
		cc->dev = rdev;
		cc->port = port;
	}
}

/* The writer of -w and what goes beside it (interface, counters); sets cap->rc on failure. */
static void open_output(struct capture *cap, struct rt_counters **counters, char *cpath,
			size_t cpath_len)
{
	const struct capture_args *a = cap->args;
	static char rdev[RT_DEVNAME_MAX], netdev[RT_DEVNAME_MAX];
	char errbuf[RT_ERRBUF_SIZE];
	int rc;
	/* A file source keeps its own snap length: -s cuts its frames here, in the writer. */
	uint32_t snaplen = cap->src->snaplen;
	if (a->snaplen && (!snaplen || a->snaplen < snaplen))
		snaplen = a->snaplen;
	rt_writer_set_stats_fn(cap->writer, writer_stats, cap);
	cap->if_id = rt_writer_add_interface(cap->writer, cap->src->name, cap->src->linktype,
					     snaplen, cap->src->ts_source, errbuf);
	if (cap->if_id < 0) {
		set_error(cap, cap->if_id, errbuf);
		return;
	}
	if (!a->counters_ns)
		return;
	struct rt_counters_config cc = {
	    .path = cpath, .sysfs_root = a->sysfs_root, .interval_ns = a->counters_ns};
	snprintf(cpath, cpath_len, "%s.counters.jsonl", a->out);
	counter_targets(a->dev, a->sysfs_root, &cc, rdev, netdev);
	if ((rc = rt_counters_open(counters, &cc, errbuf)) < 0) {
		set_error(cap, rc, errbuf);
		return;
	}
	rt_counters_set_capture(*counters, a->dev, counters_capture, cap);
	if (cap->metrics)
		rt_counters_set_sample_fn(*counters, metrics_nic_sample, cap);
	if ((rc = rt_counters_start(*counters, errbuf)) < 0)
		set_error(cap, rc, errbuf);
}

/* --metrics: stop serving, free the store. */
static void metrics_stop(struct capture *cap)
{
#if RT_HAVE_MICROHTTPD
	rt_metrics_http_stop(cap->http);
	cap->http = NULL;
#endif
	rt_metrics_free(cap->metrics);
	free(cap->nic);
	cap->metrics = NULL;
	cap->nic = NULL;
}

/* Start serving the capture's metrics; 0 or the exit status. */
static int metrics_start(struct capture *cap)
{
#if RT_HAVE_MICROHTTPD
	const struct capture_args *a = cap->args;
	struct sockaddr_storage ss;
	char errbuf[RT_ERRBUF_SIZE], addr[INET6_ADDRSTRLEN] = "";
	unsigned port = 0;
	rt_metrics_listen_parse(a->metrics, &ss, errbuf); /* checked with the options */
	if (!(cap->metrics = rt_metrics_new((unsigned)a->metrics_top, errbuf)) ||
	    !(cap->nic = calloc(RT_METRICS_NIC_MAX, sizeof(*cap->nic)))) {
		rt_metrics_free(cap->metrics);
		cap->metrics = NULL;
		return rt_cli_fail(CMD, "--metrics: out of memory");
	}
	if (rt_metrics_http_start(&cap->http, &ss, cap->metrics, &port, errbuf) < 0) {
		metrics_stop(cap);
		return rt_cli_fail(CMD, "%s", errbuf);
	}
	if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	fprintf(stderr, "rocetrace capture: metrics at http://%s%s%s:%u/metrics\n",
		ss.ss_family == AF_INET6 ? "[" : "", addr, ss.ss_family == AF_INET6 ? "]" : "", port);
	return 0;
#else
	(void)cap;
	return rt_cli_fail(CMD, "--metrics: this rocetrace was built without libmicrohttpd "
				"(install libmicrohttpd-dev and build again)");
#endif
}

/* --metrics-linger: serve the final figures a while (a signal ends it), then stop serving. */
static void metrics_linger(struct capture *cap)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + cap->args->metrics_linger_ns;
	for (uint64_t now; (now = now_ns(CLOCK_MONOTONIC)) < end && rt_pump_stop_requests() == cap->final_requests;) {
		uint64_t left = end - now < 50000000u ? end - now : 50000000u;
		struct timespec ts = {0, (long)left};
		nanosleep(&ts, NULL);
	}
	metrics_stop(cap);
}

/* Open the source and the output, capture until a stop, close; returns the exit status. */
static int run_capture(const struct capture_args *a)
{
	static struct rt_outbuf print;
	char errbuf[RT_ERRBUF_SIZE];
	int rc;
	struct rt_user user;
	if (a->user && rt_user_lookup(a->user, &user, errbuf) < 0)
		return rt_cli_usage_error(CMD, "-Z: %s", errbuf);
	struct capture cap = {.args = a};
	rt_dissect_opts_init(&cap.dopts);
	/* the ticker needs no ICRC; printed lines show it, as dissect's do */
	cap.dopts.verify_icrc = !a->out;

	struct rt_source_config scfg = {
	    .snaplen = a->snaplen,
	    .buffer_count = a->buffers,
	    .bpf = a->bpf,
	    .sysfs_root = a->sysfs_root,
	    .immediate = !a->out, /* printed lines are read as they come */
	};
	if ((a->file ? rt_source_open_file(&cap.src, a->file, &scfg, errbuf)
		     : rt_source_open(&cap.src, a->dev, &scfg, errbuf)) < 0)
		return rt_cli_fail(CMD, "%s", errbuf);
	/* the server binds its port as the caller (a port below 1024 needs root) */
	if (a->metrics && (rc = metrics_start(&cap)) != 0) {
		rt_source_close(cap.src);
		return rc;
	}
	/* the device is open: the files are created by USER, and CMD runs as USER */
	if (a->user && rt_drop_privileges(&user, errbuf) < 0) {
		metrics_stop(&cap);
		rt_source_close(cap.src);
		return rt_cli_fail(CMD, "-Z: %s", errbuf);
	}
	if (!a->out && !rt_linktype_supported(cap.src->linktype)) {
		rc = rt_cli_fail(CMD, "%s: link type %d cannot be decoded: give -w OUT",
				 cap.src->name, cap.src->linktype);
		metrics_stop(&cap);
		rt_source_close(cap.src);
		return rc;
	}
	struct rt_writer_config wcfg = {
	    .format = a->format,
	    .path = a->out,
	    .rotate_seconds = a->rotate_seconds,
	    .rotate_bytes = a->rotate_bytes,
	    .application = "rocetrace " RT_VERSION,
	};
	if (a->out && rt_writer_open(&cap.writer, &wcfg, errbuf) < 0) {
		metrics_stop(&cap);
		rt_source_close(cap.src);
		return rt_cli_fail(CMD, "%s", errbuf);
	}
	pthread_mutex_init(&cap.lock, NULL);
	pthread_cond_init(&cap.cond, NULL);
	struct rt_counters *counters = NULL;
	char cpath[4200];
	if (cap.writer) {
		open_output(&cap, &counters, cpath, sizeof(cpath));
	} else {
		rt_out_init(&print, stdout);
		cap.print = &print;
		cap.text = a->text;
	}

	if ((a->stats || a->metrics) && !cap.rc) {
		struct rt_analyzer_opts aopts;
		rt_analyzer_opts_init(&aopts);
		if (!(cap.tick.an = rt_analyzer_new(&aopts, errbuf)))
			set_error(&cap, -ENOMEM, errbuf);
	}

	/*
	 * Ctrl-C, SIGTERM and SIGHUP stop the loop; a reader of -w - (or of the
	 * printed lines) that goes away (| head) shows up as EPIPE.
	 */
	rt_pump_catch_signals(on_signal);
	bool to_stdout = !a->out || !strcmp(a->out, "-");

	int cmd_status = -1;
	if (!cap.rc) {
		if (a->cmd)
			run_with_command(&cap, &cmd_status);
		else
			run_loop(&cap);
		if (a->stats) /* the last, partial interval */
			tick_print(&cap, now_ns(CLOCK_MONOTONIC));
	}

	if (counters && (rc = rt_counters_stop(counters, errbuf)) < 0)
		set_error(&cap, rc, errbuf);
	if (cap.metrics) {
		/* the pauses still running end as analyze ends them: the figures are the file's */
		if (cap.tick.an && !cap.rc && (rc = rt_analyzer_finish(cap.tick.an, errbuf)) < 0)
			set_error(&cap, rc, errbuf);
		/* counted before a scraper can see the final figures: a signal sent on seeing them ends the linger */
		cap.final_requests = rt_pump_stop_requests();
		if (cap.tick.an)
			metrics_publish(&cap, now_ns(CLOCK_MONOTONIC), true);
	}
	struct rt_source_stats st;
	writer_stats(&cap, cap.if_id, &st);
	if (cap.writer && (rc = rt_writer_finish(cap.writer, errbuf)) < 0)
		set_error(&cap, rc, errbuf);
	uint64_t written = cap.writer ? rt_writer_count(cap.writer) : cap.printed;
	if (cap.writer)
		rt_writer_close(cap.writer, errbuf);
	if (cap.print && (rc = rt_out_flush(cap.print)) != 0 && rc != EPIPE)
		set_error(&cap, -rc, "writing the decoded lines");
	rt_source_close(cap.src);
	rt_analyzer_free(cap.tick.an);
	if (to_stdout && cap.rc == -EPIPE)
		cap.rc = 0; /* the reader of standard output went away: a normal stop */
	pthread_cond_destroy(&cap.cond);
	pthread_mutex_destroy(&cap.lock);

	/* One line: the error, or the final counts. */
	if (cap.rc)
		fprintf(stderr, "rocetrace capture: %s (stopped after ", cap.errbuf);
	else
		fputs("rocetrace capture: ", stderr);
	fprintf(stderr, "%llu received, %llu dropped, %llu %s", (unsigned long long)st.received,
	        (unsigned long long)(st.dropped + st.if_dropped), (unsigned long long)written,
	        cap.writer ? "written" : "printed");
	if (st.if_dropped)
		fprintf(stderr, " (%llu by the interface)", (unsigned long long)st.if_dropped);
	if (st.ring_empty)
		fprintf(stderr, " (receive ring ran empty %llu times: raise -B)",
		        (unsigned long long)st.ring_empty);
	fputs(cap.rc ? ")\n" : "\n", stderr);
	if (cap.metrics)
		metrics_linger(&cap);
	rt_pump_release_signals();
	if (cap.rc)
		return RT_EXIT_ERROR;
	return cmd_status >= 0 ? cmd_status : RT_EXIT_OK;
}

int rt_cmd_capture(int argc, char **argv)
{
	struct capture_args a = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc < 0)
		return RT_EXIT_OK; /* --help */
	if (rc == 0 && a.list)
		return list_devices(a.sysfs_root);
	/* what is open now was handed down by the caller: CMD inherits that, nothing of ours */
	if (rc == 0 && a.cmd && (rc = rt_spawn_note_inherited()) < 0)
		rc = rt_cli_fail(CMD, "cannot list open descriptors: %s", strerror(-rc));
	if (rc == 0)
		rc = device_by_index(&a);
	if (rc == 0)
		rc = run_capture(&a);
	free(a.bpf_joined);
	return rc;
}

/* capture's command line: the help text, the option table, parsing and the checks. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/metrics.h"
#include "common/outfile.h"
#include "tools/capture_metrics.h"
#include "tools/capture_options.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/textopts.h"

#define CMD         "capture"
#define MAX_SECONDS (366ull * 86400) /* --duration, --counters, -G */

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
	    "        [--metrics-top-flows N] [--metrics-linger D]] [-Z USER] [--notify-ready]\n"
	    "        [--stop-at-eof] [-n] [-v] [-e] [-x | -X] [-t...] [-#]\n"
	    "        [-f BPF | EXPRESSION] [-- CMD ARGS...]\n"
	    "    rocetrace capture -r FILE -w OUT [-s SNAPLEN] [-c N] [EXPRESSION]\n"
	    "    rocetrace capture -D [--sysfs-root DIR]\n"
	    "    rocetrace capture --hosts H1[=DEV],H2[=DEV],... [--launcher TEMPLATE]\n"
	    "        [-i DEV] -w DIR/|PREFIX [--duration D] [--timeout D] [--remote CMD]\n"
	    "        [--remote-dir DIR] [--no-analyze] [-s SNAPLEN] [-c N] [-B N]\n"
	    "        [--format pcapng|pcap] [--counters [D]] [--stats] [-Z USER]\n"
	    "        [EXPRESSION] [-- CMD ARGS...]\n"
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
	    "    With --hosts, rocetrace captures on every host of a job at once: it\n"
	    "    starts 'rocetrace capture -i DEV -w FILE --stop-at-eof --notify-ready'\n"
	    "    on each host through the cluster's launcher (ssh, srun, mpirun, ip\n"
	    "    netns exec), waits until every host reports capturing (or has\n"
	    "    failed: unreachable, device refused, not capturing within --timeout;\n"
	    "    the others go on), runs CMD here, and stops every capture at once when\n"
	    "    CMD ends (plus 100 ms), --duration passes, every capture ended by\n"
	    "    itself (-c N), or on Ctrl-C, SIGTERM or SIGHUP: each host's standard\n"
	    "    input is closed and its capture writes what it holds and ends; one\n"
	    "    that does not end within 15 s gets 'LAUNCHER kill -TERM PID'. Each\n"
	    "    file then comes home through the launcher ('LAUNCHER cat FILE'),\n"
	    "    named after its host (DIR/HOST.pcapng, or PREFIX-HOST.pcapng), is\n"
	    "    checked to hold every frame its capture wrote, and is removed from its\n"
	    "    host (a second Ctrl-C stops that: the files stay on the hosts). A\n"
	    "    closing list gives each host's frames and drops, or why it failed.\n"
	    "    Last, 'rocetrace analyze' runs over the files with each host a\n"
	    "    vantage point (--vantage HOST=FILE), so a packet seen on several\n"
	    "    hosts counts once; the command is printed first, to run again with\n"
	    "    other options. Should rocetrace itself die, the captures see their\n"
	    "    input end and stop.\n"
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
	    "        unit: ns, us, ms, s, min, h, e.g. 500ms or 2h). At most 366 days.\n"
	    "        Default: no limit.\n"
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
	    "        10 s is closed, and headers over 16 KiB are refused. Not with\n"
	    "        --hosts: give it to a capture on one host.\n"
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
	    "    --notify-ready\n"
	    "        Once capturing (the device open, OUT created), print one line on\n"
	    "        standard error: 'rocetrace capture: ready: pid PID, capturing from\n"
	    "        DEV into OUT', so whatever started the capture in the background\n"
	    "        knows when to start the traffic.\n"
	    "    --stop-at-eof\n"
	    "        Also stop when standard input ends (its writer closes it, or goes\n"
	    "        away): how 'capture --hosts' stops the captures it starts, and\n"
	    "        why they stop when it dies. Not with -- CMD.\n"
	    "    -n, -v, -e, -x, -X, -t, -tt, -ttt, -tttt, -ttttt, -#\n"
	    "        Without -w, as 'rocetrace dissect' takes them (-n: names are never\n"
	    "        looked up; -v more fields; -e the link level; -x/-X the bytes; the\n"
	    "        -t letters the timestamp; -# frame numbers).\n"
	    "    --hosts H1[=DEV],H2[=DEV],...\n"
	    "        Capture on these hosts (see above), each from -i DEV or from the\n"
	    "        DEV given after its name. May be repeated. -s, -c, -B, -Z,\n"
	    "        --format, --counters (its file comes home too), --sysfs-root,\n"
	    "        --stats and the filter are passed on; they, DEV and the folder\n"
	    "        must be plain words (letters, digits and _./:=,@+-), as a launcher\n"
	    "        such as ssh hands them to a shell: write the filter with and, or,\n"
	    "        not. -w names a folder when it is one or ends with '/' (created\n"
	    "        when missing), else the start of each file's name. Not with -r, -G,\n"
	    "        -C.\n"
	    "    --launcher TEMPLATE\n"
	    "        Command prefix that runs a command on {host}; {host} is replaced by\n"
	    "        the host name, or appended when absent. Default: 'ssh {host}'.\n"
	    "        E.g. 'ssh -o BatchMode=yes {host}', 'srun -N1 -w {host}',\n"
	    "        'mpirun -H {host} -n 1', 'ip netns exec {host}'. It must pass the\n"
	    "        command's output on unchanged (the file comes home through it:\n"
	    "        pdsh, which labels each line, cannot), and should pass standard\n"
	    "        input on (ssh, srun and ip netns exec do; else the stop reaches\n"
	    "        the captures 15 s later, by their pid).\n"
	    "    --remote CMD\n"
	    "        The rocetrace command on the hosts (default rocetrace), e.g.\n"
	    "        'sudo /opt/rocetrace/bin/rocetrace'.\n"
	    "    --remote-dir DIR\n"
	    "        Where the hosts write their capture until it comes home (default\n"
	    "        /tmp); the files are named rocetrace-HERE-PID-HOST.pcapng, so\n"
	    "        runs never meet.\n"
	    "    --timeout D\n"
	    "        A host not capturing D after the start has failed (default 30 s; a\n"
	    "        bare number is seconds). Bringing a file home has no limit.\n"
	    "    --no-analyze\n"
	    "        Bring the files home, but do not run the analysis.\n"

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
	    "    usage errors. With --hosts: 1 when a host failed (the files of the\n"
	    "    others still come home and are analysed) or no host could capture,\n"
	    "    else CMD's status with -- CMD, else the analysis's status.\n"
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
	    "    rocetrace capture -i 2 -w run.pcapng\n"
	    "    rocetrace capture --hosts node01,node02 -i mlx5_0 -s 128 -w run1/ -- "
	    "./allreduce.sh\n"
	    "    rocetrace capture --hosts n1=mlx5_0,n2=mlx5_1 --launcher 'srun -N1 -w {host}' -w "
	    "incast/ "
	    "--duration 30\n"
	    "    rocetrace capture --hosts ns-a=eth0,ns-b=eth0 --launcher 'ip netns exec {host}' "
	    "-w lab/ -c 1000\n",
	    stdout);
}

/* --hosts: what the capture on every host can take. 0 or the usage exit status. */
static int check_hosts_args(struct rt_capture_args *a)
{
	if (a->file)
		return rt_cli_usage_error(
		    CMD, "--hosts captures on the hosts: -r FILE has no place here");
	if (!a->out || !strcmp(a->out, "-") || !*a->out)
		return rt_cli_usage_error(
		    CMD, "--hosts: give -w DIR/ or -w PREFIX, where the files come home");
	if (a->rotate_bytes || a->rotate_seconds)
		return rt_cli_usage_error(
		    CMD, "--hosts: -G and -C are not supported (one file per host)");
	if (a->stop_at_eof || a->notify_ready)
		return rt_cli_usage_error(CMD, "--hosts gives its captures --stop-at-eof and "
		                               "--notify-ready itself");
	if (a->metrics)
		return rt_cli_usage_error(CMD, "--hosts: --metrics serves one capture's figures: "
		                               "give it to a capture on one host");
	if (a->dev && !rt_cli_plain_word(a->dev))
		return rt_cli_usage_error(CMD, "-i '%s' cannot be passed to the hosts safely",
		                          a->dev);
	for (unsigned i = 0; i < a->ngiven; i++) {
		int rc = rt_cli_forward(CMD, &a->forward, a->given[i].name, a->given[i].value);
		if (rc)
			return rc;
	}
	/* the filter goes word by word: each must pass a launcher's shell unchanged */
	for (const char *w = a->bpf; w && *w;) {
		size_t len = strcspn(w, " ");
		char word[320];
		snprintf(word, sizeof(word), "%.*s", (int)len, w);
		if (len && !rt_cli_plain_word(word))
			return rt_cli_usage_error(
			    CMD,
			    "--hosts: the filter word '%s' cannot be passed to the "
			    "hosts safely (write and, or, not for &&, ||, !)",
			    word);
		w += len + (w[len] == ' ');
	}
	return 0;
}

int rt_capture_parse_args(int argc, char **argv, struct rt_capture_args *a)
{
	enum {
		OPT_DURATION = 256,
		OPT_FORMAT,
		OPT_COUNTERS,
		OPT_SYSFS,
		OPT_STATS,
		OPT_STOP_EOF,
		OPT_READY,
		OPT_HOSTS,
		OPT_LAUNCHER,
		OPT_REMOTE,
		OPT_REMOTE_DIR,
		OPT_TIMEOUT,
		OPT_NO_ANALYZE,
		OPT_METRICS,
		OPT_METRICS_TOP,
		OPT_METRICS_LINGER
	};
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
	    {"stop-at-eof", no_argument, NULL, OPT_STOP_EOF},
	    {"notify-ready", no_argument, NULL, OPT_READY},
	    {"hosts", required_argument, NULL, OPT_HOSTS},
	    {"launcher", required_argument, NULL, OPT_LAUNCHER},
	    {"remote", required_argument, NULL, OPT_REMOTE},
	    {"remote-dir", required_argument, NULL, OPT_REMOTE_DIR},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"no-analyze", no_argument, NULL, OPT_NO_ANALYZE},
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
	a->metrics_top = RT_CAPTURE_METRICS_TOP_DEFAULT;
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
			if (rt_opt_duration(CMD, "--duration", optarg, 1, MAX_SECONDS * 1000000000,
			                    &a->duration_ns))
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
			if (optarg && rt_opt_duration(CMD, "--counters", optarg, 10000000,
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
			if (rt_opt_duration(CMD, "--metrics-linger", optarg, 0,
			                    3600ull * 1000000000, &a->metrics_linger_ns))
				return RT_EXIT_USAGE;
			linger_given = true;
			break;
		case OPT_STOP_EOF:
			a->stop_at_eof = true;
			break;
		case OPT_READY:
			a->notify_ready = true;
			break;
		case OPT_HOSTS:
			if (a->nhosts == RT_CAPTURE_MAX_HOSTS)
				return rt_cli_usage_error(CMD, "--hosts given more than %d times",
				                          RT_CAPTURE_MAX_HOSTS);
			a->hosts[a->nhosts++] = optarg;
			break;
		case OPT_LAUNCHER:
			a->launcher = optarg;
			break;
		case OPT_REMOTE:
			a->remote = optarg;
			break;
		case OPT_REMOTE_DIR:
			if (!rt_cli_plain_word(optarg))
				return rt_cli_usage_error(
				    CMD,
				    "--remote-dir: '%s' cannot be passed to the hosts "
				    "safely (use letters, digits and _./:=,@+- only)",
				    optarg);
			a->remote_dir = optarg;
			break;
		case OPT_TIMEOUT:
			if (rt_opt_duration(CMD, "--timeout", optarg, 1000000000u,
			                    MAX_SECONDS * 1000000000, &a->hosts_timeout_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_NO_ANALYZE:
			a->no_analyze = true;
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
		/* what the captures on the hosts (--hosts) get: the capture options, as written */
		static const int forwarded[] = {'s',        'c',          'B',       'Z',
		                                OPT_FORMAT, OPT_COUNTERS, OPT_SYSFS, OPT_STATS};
		for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++) {
			if (c != forwarded[k])
				continue;
			if (a->ngiven == sizeof(a->given) / sizeof(a->given[0]))
				return rt_cli_usage_error(CMD, "too many options");
			const struct option *o = longopts;
			while (o->name && o->val != c)
				o++;
			a->given[a->ngiven].name = o->name;
			a->given[a->ngiven++].value = o->has_arg == no_argument ? NULL : optarg;
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
				    CMD,
				    "'%s' after the filter expression '%s': options come first",
				    argv[i], a->bpf);
	}
	if (a->list)
		return 0;
	if (!a->metrics && (top_given || linger_given))
		return rt_cli_usage_error(
		    CMD, "--metrics-top-flows and --metrics-linger go with --metrics");
	if (a->nhosts)
		return check_hosts_args(a);
	if (a->launcher || a->remote || a->remote_dir || a->hosts_timeout_ns || a->no_analyze)
		return rt_cli_usage_error(CMD, "--launcher, --remote, --remote-dir, --timeout and "
		                               "--no-analyze need --hosts");
	if (a->metrics && (c = rt_capture_metrics_check(a->metrics)) != 0)
		return c;
	if (a->dev && a->file)
		return rt_cli_usage_error(CMD, "-i and -r both name the source: give one");
	if (a->stop_at_eof && a->cmd)
		return rt_cli_usage_error(CMD, "--stop-at-eof and -- CMD: CMD stops the capture");
	if (!a->dev && !a->file)
		return rt_cli_usage_error(CMD, "no capture device given (-i DEV; -D lists them)");
	if (a->out && !*a->out)
		return rt_cli_usage_error(CMD, "-w: empty file name");
	if (a->file && !a->out)
		return rt_cli_usage_error(CMD, "-r FILE copies frames: give -w OUT (or 'rocetrace "
		                               "dissect FILE' to print them)");
	if (a->file && a->out && strcmp(a->file, "-") && rt_output_replaces(a->out, a->file))
		return rt_cli_usage_error(CMD, "-w %s: the output would replace the input file %s",
		                          a->out, a->file);
	if (!a->out && (a->counters_ns || a->rotate_bytes || a->rotate_seconds))
		return rt_cli_usage_error(CMD, "--counters, -G and -C write files: give -w OUT");
	if (a->out && !strcmp(a->out, "-") &&
	    (a->counters_ns || a->rotate_bytes || a->rotate_seconds))
		return rt_cli_usage_error(
		    CMD, "-w - (standard output) cannot be used with --counters, -G or -C");
	return 0;
}

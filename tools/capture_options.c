/* capture's command line: the help text, the option table, parsing and the checks. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/results.h"
#include "render/metrics.h"
#include "common/outfile.h"
#include "tools/capture_metrics.h"
#include "tools/capture_options.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/optable.h"
#include "tools/options.h"
#include "tools/slurm.h"
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
	    "    rocetrace capture -i DEV --ring D --trigger EXPR [--trigger EXPR]...\n"
	    "        [--ring-size SIZE] [--post D] [--hold-off D] [--max-events N]\n"
	    "        [--json-events FILE] [--storm-threshold D] -w DIR [the capture options]\n"
	    "        [-- CMD ARGS...]\n"
	    "    rocetrace capture -r FILE -w OUT [-s SNAPLEN] [-c N] [EXPRESSION]\n"
	    "    rocetrace capture -D [--sysfs-root DIR]\n"
	    "    rocetrace capture --hosts H1[=DEV],H2[=DEV],... [--launcher TEMPLATE]\n"
	    "        [-i DEV] -w DIR/|PREFIX [--duration D] [--timeout D] [--remote CMD]\n"
	    "        [--remote-dir DIR] [--no-analyze | --analyze-there [--fetch]]\n"
	    "        [-s SNAPLEN] [-c N] [-B N]\n"
	    "        [--format pcapng|pcap] [--counters [D]] [--stats] [-Z USER]\n"
	    "        [EXPRESSION] [-- CMD ARGS...]\n"
	    "    rocetrace capture --slurm [-i DEV] -w DIR/|PREFIX [the --hosts options]\n"
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
	    "    With --analyze-there the captures are analyzed where they are: once\n"
	    "    they stopped, every host runs 'rocetrace analyze --partial\n"
	    "    REMOTE_DIR/rocetrace-HERE-PID-HOST.rtpart --point HOST FILE' through\n"
	    "    the launcher (all at once, each with all its cores), and only that\n"
	    "    partial result comes home (DIR/HOST.rtpart, removed from the host);\n"
	    "    then 'rocetrace analyze DIR/HOST.rtpart ...' merges them, each host a\n"
	    "    vantage point, and prints the analysis. The captures stay on the\n"
	    "    hosts, named HOST:PATH in the closing list, unless --fetch. A host\n"
	    "    whose analysis fails says why; the others are merged without it,\n"
	    "    and the hosts missing are named.\n"
	    "\n"
	    "OPTIONS\n"
	    "    -i, --interface DEV[:PORT]\n"
	    "        What to capture from (see above). Required, unless -r.\n"
	    "    -r FILE\n"
	    "        Copy the frames of a saved capture (with -w; the filter, -s and -c\n"
	    "        apply). Each frame keeps its interface and link type (a pcapng\n"
	    "        mixing link types needs --format pcapng: classic pcap holds one).\n"
	    "        When standard error is a terminal (and neither --stats nor a\n"
	    "        command prints there), a progress line (frames read, seconds)\n"
	    "        is shown there every second for big files, cleared at the end.\n"
	    "    -w, --write OUT\n"
	    "        Output file; '-' writes to standard output. Its name chooses the\n"
	    "        format: OUT.pcap classic pcap, OUT.pcapng (or any other name)\n"
	    "        pcapng, unless --format says. An OUT that is a symbolic link is\n"
	    "        refused (so is the --counters file), so a link planted in a shared\n"
	    "        folder cannot redirect the capture. Without -w each frame is\n"
	    "        printed as one decoded line as it arrives (frames are handed over\n"
	    "        one by one, not in blocks).\n"
	    "    -s, --snaplen SNAPLEN\n"
	    "        Keep at most SNAPLEN bytes of each frame (1 to 262144). Default, and\n"
	    "        -s 0 as tcpdump takes it: whole frames (262144 bytes at most).\n"
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
	    "        statistics; or classic pcap with nanosecond timestamps. Default:\n"
	    "        as -w OUT's name ends (.pcap or .pcapng; a name ending otherwise\n"
	    "        gets pcapng); a --format the name contradicts is refused.\n"
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
	    "        Print once a second on standard error: packets and rate of the\n"
	    "        last second (in the unit that fits it: kb/s, Mb/s, Gb/s),\n"
	    "        CE-marked packets, CNPs, NAKs, PFC pause frames per\n"
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
	    "    --ring D\n"
	    "        Flight recorder: keep the frames of the last D (at most 1 h) in\n"
	    "        memory, analysed as --stats does, and when a --trigger fires write\n"
	    "        DIR/eventN-TIME-CODE.pcapng (-w DIR, a folder) holding the D before\n"
	    "        the trigger and the --post after it, with a comment naming the\n"
	    "        trigger, its figures and its time; print one line saying what fired,\n"
	    "        and go on capturing. -s defaults to 128 (headers only). Not with -G,\n"
	    "        -C, --counters or -w -. docs/CAPTURE.md, \"Flight recorder\".\n"
	    "    --ring-size SIZE\n"
	    "        The ring's memory (K, M, G: 2^10 steps), allocated at the start and\n"
	    "        never more (default 256M, at least 1M); the oldest frames go when it\n"
	    "        is full before D is.\n"
	    "    --trigger EXPR\n"
	    "        When to write an event (repeated: any of them). EXPR is one of: cnp,\n"
	    "        cnp_rate>N/s, ce_share>P%, pfc_paused>P% or pfc_paused:C>P% (of the\n"
	    "        last second; C a priority 0-7 or pause), pfc_storm or pfc_storm:C\n"
	    "        (paused without a break for --storm-threshold), nak, rnr, timeout (a\n"
	    "        resend no NAK asked for), drop (the capture's own), finding:CODE (a\n"
	    "        code of docs/FINDINGS.md: the analysis so far is judged at the first\n"
	    "        frame of each second). '.gt.' may stand for '>' and 'pct' for '%'. A\n"
	    "        malformed one is refused with where it went wrong, before capturing.\n"
	    "    --storm-threshold D\n"
	    "        A class paused without a break for D is a PFC storm, for pfc_storm,\n"
	    "        finding:pfc_storm and --metrics' findings (default 10ms, as analyze).\n"
	    "    --post D\n"
	    "        An event also holds the D after its trigger (default 1s).\n"
	    "    --hold-off D\n"
	    "        No event starts within D of the last one's trigger, nor while its\n"
	    "        file is written (default: --post).\n"
	    "    --max-events N\n"
	    "        Write N events at most (default: no limit).\n"
	    "    --json-events FILE\n"
	    "        One JSON line per event once its file is complete (its trigger,\n"
	    "        time, figures, file and frames). Not with --hosts.\n"
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
	    "    -n, -v, -e, -x, -X, -t, -tt, -ttt, -tttt, -ttttt, -#, --number\n"
	    "        Without -w, as 'rocetrace dissect' takes them (-n: names are never\n"
	    "        looked up; -v more fields; -e the link level; -x/-X the bytes; the\n"
	    "        -t letters the timestamp; -# frame numbers).\n"
	    "    --hosts H1[=DEV],H2[=DEV],...\n"
	    "        Capture on these hosts (see above), each from -i DEV or from the\n"
	    "        DEV given after its name. A name may be a Slurm hostlist\n"
	    "        expression, as scontrol show hostnames expands it: node[01-16,20]\n"
	    "        is node01 to node16 and node20 (=DEV after it goes with each of\n"
	    "        them). May be repeated. -s, -c, -B, -Z,\n"
	    "        --format, --counters (its file comes home too), --sysfs-root,\n"
	    "        --stats, --ring and its options and the filter are passed on (with\n"
	    "        --ring a trigger on one host makes every host write the same\n"
	    "        window; their event files come home as DIR/HOST-eventN-...);\n"
	    "        they, DEV and the folder\n"
	    "        must be plain words (letters, digits and _./:=,@+-), as a launcher\n"
	    "        such as ssh hands them to a shell: write the filter with and, or,\n"
	    "        not. -w names a folder when it is one or ends with '/' (created\n"
	    "        when missing), else the start of each file's name. Not with -r, -G,\n"
	    "        -C.\n"
	    "    --slurm\n"
	    "        Inside a Slurm allocation (salloc, sbatch): capture on every node of\n"
	    "        the job (SLURM_JOB_NODELIST), as --hosts does, through 'srun\n"
	    "        --overlap -N1 -n1 -w {host}' (unless --launcher) running this\n"
	    "        rocetrace's own path there (unless --remote). Not with --hosts.\n"
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
	    "    --analyze-there\n"
	    "        Analyze each capture on its host and bring home only its partial\n"
	    "        result (the host's analysis, its CE-marked packets and a sample\n"
	    "        of the others: about 90 MB for 1e8 packets, docs/CAPTURE.md), to\n"
	    "        be merged here (see above): for captures too big to move, and\n"
	    "        every host's cores at work on its own capture. The hosts need a\n"
	    "        rocetrace that writes partials of the format this one reads. Not\n"
	    "        with --no-analyze or --ring (its event files come home to be\n"
	    "        analyzed).\n"
	    "    --fetch\n"
	    "        With --analyze-there: bring the captures home as well, after\n"
	    "        their analysis there (DIR/HOST.pcapng, checked and removed from\n"
	    "        the hosts as without it). Without --analyze-there the captures\n"
	    "        always come home.\n"

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
	    "    others still come home and are analysed; with --analyze-there, a\n"
	    "    host whose analysis or partial failed) or no host could capture,\n"
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
	    "    rocetrace capture -i mlx5_0 --ring 5s --post 2s --trigger 'cnp_rate>1000/s' "
	    "--trigger pfc_storm -w events/\n"
	    "    rocetrace capture -D\n"
	    "    rocetrace capture -i 2 -w run.pcapng\n"
	    "    rocetrace capture --hosts node01,node02 -i mlx5_0 -s 128 -w run1/ -- "
	    "./allreduce.sh\n"
	    "    rocetrace capture --hosts n1=mlx5_0,n2=mlx5_1 --launcher 'srun -N1 -w {host}' -w "
	    "incast/ "
	    "--duration 30\n"
	    "    rocetrace capture --hosts ns-a=eth0,ns-b=eth0 --launcher 'ip netns exec {host}' "
	    "-w lab/ -c 1000\n"
	    "    rocetrace capture --hosts 'node[01-16]' -i mlx5_0 -w run/ --duration 60\n"
	    "    rocetrace capture --slurm -i mlx5_0 -s 128 -w run/ -- srun ./train.sh\n"
	    "    rocetrace capture --slurm -i mlx5_0 -s 128 -w run/ --analyze-there -- srun "
	    "./train.sh\n",
	    stdout);
}

/* --hosts (--slurm: the allocation's nodes): what the capture on every host can take. 0 or the
 * usage exit status. */
static int check_hosts_args(struct rt_capture_args *a)
{
	int st = rt_cli_slurm(CMD, &a->hosts);
	if (st)
		return st;
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
	if (a->ring.json_events)
		return rt_cli_usage_error(CMD,
		                          "--hosts: --json-events writes one capture's events: "
		                          "give it to a capture on one host");
	if (a->analyze_there && a->no_analyze)
		return rt_cli_usage_error(CMD, "--analyze-there and --no-analyze: give one");
	if (a->analyze_there && a->ring.span_ns)
		return rt_cli_usage_error(CMD,
		                          "--analyze-there: --ring's event files are windows of "
		                          "their own: they come home to be analyzed");
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

static int show_help(struct rt_opt_use *u)
{
	(void)u;
	help();
	return -1;
}

/* --counters [D]: "--counters 0.5" as well as "--counters=0.5" */
static int counters_option(struct rt_opt_use *u)
{
	struct rt_capture_args *a = u->args;
	uint64_t v;
	a->counters_ns = 1000000000u;
	if (!u->arg && optind < u->argc &&
	    rt_opt_parse_duration(u->argv[optind], 0, UINT64_MAX, &v) == 0)
		u->arg = u->argv[optind++];
	if (u->arg && rt_opt_duration(CMD, "--counters", u->arg, 10000000, MAX_SECONDS * 1000000000,
	                              &a->counters_ns))
		return RT_EXIT_USAGE;
	return 0;
}

static int remote_dir_option(struct rt_opt_use *u)
{
	if (!rt_cli_plain_word(u->arg))
		return rt_cli_usage_error(CMD,
		                          "--remote-dir: '%s' cannot be passed to the hosts "
		                          "safely (use letters, digits and _./:=,@+- only)",
		                          u->arg);
	*(const char **)rt_opt_field(u) = u->arg;
	return 0;
}

/* The capture options as given, for the hosts' captures (checked once --hosts is known). */
static int remember_forwarded(void *args, const char *name, const char *value)
{
	struct rt_capture_args *a = args;
	if (a->ngiven == sizeof(a->given) / sizeof(a->given[0]))
		return rt_cli_usage_error(CMD, "too many options");
	a->given[a->ngiven].name = name;
	a->given[a->ngiven++].value = value;
	return 0;
}

/* --trigger EXPR: parsed now, so a bad one is refused before capturing, saying where it went wrong. */
static int trigger_option(struct rt_opt_use *u)
{
	struct rt_capture_args *a = u->args;
	struct rt_ring_args *r = &a->ring;
	char errbuf[RT_ERRBUF_SIZE], line[600];
	size_t at;
	if (r->ntriggers == sizeof(r->triggers) / sizeof(r->triggers[0]))
		return rt_cli_usage_error(CMD, "--trigger: at most %zu",
		                          sizeof(r->triggers) / sizeof(r->triggers[0]));
	struct rt_trigger *t = &r->triggers[r->ntriggers];
	if (rt_trigger_parse(u->arg, t, &at, errbuf) < 0) {
		rt_trigger_error_line(u->arg, at, errbuf, line, sizeof(line));
		return rt_cli_usage_error(CMD, "%s", line);
	}
	if (t->kind == RT_TRIG_FINDING && !rt_finding_code_known(t->finding)) {
		char known[1024];
		size_t n = 0;
		for (const char *const *c = rt_finding_codes; *c && n < sizeof(known); c++)
			n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", n ? ", " : "",
			                      *c);
		return rt_cli_usage_error(
		    CMD, "--trigger '%s': no finding has the code '%s' (codes: %s)", u->arg,
		    t->finding, known);
	}
	r->ntriggers++;
	/* the hosts get it in words: '>' and '%' would not pass their shell */
	return remember_forwarded(a, "trigger", t->word);
}

/* -s: remembered as given, so --ring's default (headers only) applies otherwise. */
static int snaplen_option(struct rt_opt_use *u)
{
	struct rt_capture_args *a = u->args;
	uint64_t v;
	if (rt_opt_uint(CMD, u->opt, u->arg, 0, 262144, &v))
		return RT_EXIT_USAGE;
	a->snaplen = v ? (uint32_t)v : 262144; /* 0: whole frames, as tcpdump takes it */
	a->snaplen_given = true;
	return remember_forwarded(a, "snaplen", u->arg);
}

#define AT(member) RT_AT(struct rt_capture_args, member)
_Static_assert(sizeof(enum rt_write_format) == sizeof(unsigned), "--format's field");

static const struct rt_opt rows[] = {
    {.name = "interface", .letter = 'i', .kind = RT_OPT_STRING, .at = AT(dev)},
    {.letter = 'r', .kind = RT_OPT_STRING, .at = AT(file)},
    {.name = "write", .letter = 'w', .kind = RT_OPT_STRING, .at = AT(out)},
    {.name = "snaplen",
     .letter = 's',
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = snaplen_option},
    {.name = "filter", .letter = 'f', .kind = RT_OPT_STRING, .at = AT(bpf)},
    {.name = "count",
     .letter = 'c',
     .kind = RT_OPT_UINT,
     .at = AT(max_count),
     .min = 1,
     .max = UINT64_MAX,
     .forward = true},
    {.name = "duration",
     .kind = RT_OPT_DURATION,
     .at = AT(duration_ns),
     .min = 1,
     .max = MAX_SECONDS * 1000000000},
    {.name = "buffer",
     .letter = 'B',
     .kind = RT_OPT_UINT,
     .at = AT(buffers),
     .store = RT_STORE_U32,
     .min = 1,
     .max = 1u << 20,
     .forward = true},
    {.name = "format",
     .kind = RT_OPT_CHOICE,
     .choices = "pcapng|pcap", /* enum rt_write_format's order */
     .at = AT(format),
     .given = AT(format_given),
     .store = RT_STORE_UINT,
     .forward = true},
    {.name = "rotate-seconds",
     .letter = 'G',
     .kind = RT_OPT_UINT,
     .at = AT(rotate_seconds),
     .min = 1,
     .max = MAX_SECONDS},
    {.name = "rotate-size",
     .letter = 'C',
     .kind = RT_OPT_UINT,
     .at = AT(rotate_bytes),
     .min = 1,
     .max = UINT64_MAX / 1000000u,
     .mul = 1000000u},
    {.name = "counters",
     .kind = RT_OPT_CALL,
     .has_arg = optional_argument,
     .call = counters_option,
     .forward = true},
    {.name = "sysfs-root", .kind = RT_OPT_STRING, .at = AT(sysfs_root), .forward = true},
    {.name = "stats", .kind = RT_OPT_FLAG, .at = AT(stats), .forward = true},
    {.name = "metrics", .kind = RT_OPT_STRING, .at = AT(metrics)},
    {.name = "metrics-top-flows",
     .kind = RT_OPT_UINT,
     .at = AT(metrics_top),
     .max = RT_METRICS_TOP_MAX,
     .given = AT(metrics_top_given)},
    {.name = "metrics-linger",
     .kind = RT_OPT_DURATION,
     .at = AT(metrics_linger_ns),
     .max = 3600ull * 1000000000,
     .given = AT(metrics_linger_given)},
    {.name = "ring",
     .kind = RT_OPT_DURATION,
     .at = AT(ring.span_ns),
     .min = 1000000,
     .max = 3600ull * 1000000000,
     .forward = true},
    {.name = "ring-size",
     .kind = RT_OPT_SIZE,
     .at = AT(ring.bytes),
     .min = RT_RECORDER_MIN_BYTES,
     .max = 1ull << 40,
     .given = AT(ring.bytes_given),
     .forward = true},
    {.name = "storm-threshold",
     .kind = RT_OPT_DURATION,
     .at = AT(storm_ns),
     .min = 1000,
     .max = 86400000000000ull,
     .forward = true},
    {.name = "trigger", .kind = RT_OPT_CALL, .has_arg = required_argument, .call = trigger_option},
    {.name = "post",
     .kind = RT_OPT_DURATION,
     .at = AT(ring.post_ns),
     .max = 3600ull * 1000000000,
     .given = AT(ring.post_given),
     .forward = true},
    {.name = "hold-off",
     .kind = RT_OPT_DURATION,
     .at = AT(ring.hold_off_ns),
     .max = 86400ull * 1000000000,
     .given = AT(ring.hold_off_given),
     .forward = true},
    {.name = "max-events",
     .kind = RT_OPT_UINT,
     .at = AT(ring.max_events),
     .min = 1,
     .max = 1000000,
     .forward = true},
    {.name = "json-events", .kind = RT_OPT_STRING, .at = AT(ring.json_events)},
    {.name = "stop-at-eof", .kind = RT_OPT_FLAG, .at = AT(stop_at_eof)},
    {.name = "notify-ready", .kind = RT_OPT_FLAG, .at = AT(notify_ready)},
    RT_CLI_HOSTS_ROWS(struct rt_capture_args, hosts, 1000000000u, MAX_SECONDS * 1000000000),
    {.name = "remote-dir",
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = remote_dir_option,
     .at = AT(remote_dir)},
    {.name = "no-analyze", .kind = RT_OPT_FLAG, .at = AT(no_analyze)},
    {.name = "analyze-there", .kind = RT_OPT_FLAG, .at = AT(analyze_there)},
    {.name = "fetch", .kind = RT_OPT_FLAG, .at = AT(fetch)},
    {.name = "list-devices", .letter = 'D', .kind = RT_OPT_FLAG, .at = AT(list)},
    {.name = "user", .letter = 'Z', .kind = RT_OPT_STRING, .at = AT(user), .forward = true},
    RT_TEXT_ROWS(struct rt_capture_args, text, tflags),
    {.name = "help", .letter = 'h', .kind = RT_OPT_CALL, .call = show_help},
};

/*
 * The operands after the options: the words up to '--' are the filter
 * expression; after it, CMD. 0 or the usage exit status.
 */
static int operands(int argc, char **argv, struct rt_capture_args *a)
{
	int end = optind;
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		if (optind == argc)
			return rt_cli_usage_error(CMD, "no command after '--'");
		a->cmd = &argv[optind];
		return 0;
	}
	while (end < argc && strcmp(argv[end], "--") != 0)
		end++;
	if (end < argc) {
		if (end + 1 == argc)
			return rt_cli_usage_error(CMD, "no command after '--'");
		a->cmd = &argv[end + 1];
	}
	for (int i = optind; i < end; i++) /* before the expression is compiled */
		if (argv[i][0] == '-')
			return rt_cli_usage_error(
			    CMD, "'%s' after the filter expression (from '%s'): options come first",
			    argv[i], argv[optind]);
	return rt_cli_operands(CMD, end, argv, optind, false, &a->file, &a->bpf, &a->bpf_joined);
}

/* What the options mean together, for one capture here; 0 or the usage exit status. */
static int check_args(struct rt_capture_args *a)
{
	int rc;
	if (a->hosts.launcher || a->hosts.remote || a->remote_dir || a->hosts.timeout_ns ||
	    a->no_analyze)
		return rt_cli_usage_error(CMD, "--launcher, --remote, --remote-dir, --timeout and "
		                               "--no-analyze need --hosts or --slurm");
	if (a->analyze_there || a->fetch)
		return rt_cli_usage_error(CMD,
		                          "--analyze-there and --fetch need --hosts or --slurm "
		                          "(they say where the analysis runs)");
	if (a->metrics && (rc = rt_capture_metrics_check(a->metrics)) != 0)
		return rc;
	if (a->dev && a->file)
		return rt_cli_usage_error(CMD, "-i and -r both name the source: give one");
	if (a->stop_at_eof && a->cmd)
		return rt_cli_usage_error(CMD, "--stop-at-eof and -- CMD: CMD stops the capture");
	if (!a->dev && !a->file)
		return rt_cli_usage_error(CMD, "no capture device given (-i DEV; -D lists them)");
	if (a->out && !*a->out)
		return rt_cli_usage_error(CMD, "-w: empty file name");
	if ((rc = rt_capture_check_format(a)))
		return rc;
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

const struct rt_opt_table rt_capture_options = {.cmd = CMD,
                                                .rows = rows,
                                                .nrows = sizeof(rows) / sizeof(rows[0]),
                                                .stop_at_operand = true,
                                                .forward = remember_forwarded};

int rt_capture_parse_args(int argc, char **argv, struct rt_capture_args *a)
{
	a->metrics_top = RT_CAPTURE_METRICS_TOP_DEFAULT;
	a->ring.bytes = RT_RING_DEFAULT_BYTES;
	a->ring.post_ns = RT_RING_DEFAULT_POST_NS;
	int rc = rt_opt_parse(&rt_capture_options, a, argc, argv);
	if (rc)
		return rc;
	if (rt_text_ts(CMD, a->tflags, &a->text))
		return RT_EXIT_USAGE;
	if ((rc = operands(argc, argv, a)))
		return rc;
	if (a->list)
		return 0;
	if (!a->metrics && (a->metrics_top_given || a->metrics_linger_given))
		return rt_cli_usage_error(
		    CMD, "--metrics-top-flows and --metrics-linger go with --metrics");
	if ((rc = rt_capture_check_ring(a)))
		return rc;
	return a->hosts.names.n || a->hosts.slurm ? check_hosts_args(a) : check_args(a);
}

/* rocetrace gen: the active RoCEv2 traffic source (serve / send / lat), udp or verbs backend. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/gen.h"
#include "traffic/perf.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/optable.h"
#include "tools/options.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static const char help_text[] =
    "NAME\n"
    "    rocetrace gen - an active RoCEv2 traffic source with perftest's options\n"
    "\n"
    "SYNOPSIS\n"
    "    rocetrace gen serve [OPTIONS]\n"
    "    rocetrace gen send SERVER [OPTIONS]\n"
    "    rocetrace gen lat SERVER [OPTIONS]\n"
    "\n"
    "DESCRIPTION\n"
    "    An active RoCEv2 traffic source with the options of perftest\n"
    "    (ib_write_bw, ib_write_lat): 'serve' waits for senders; 'send' connects to\n"
    "    a server and moves messages over one or more RC QPs, printing one line per\n"
    "    interval (Gb/s, messages/s, CNPs handled, NAKs, retransmissions), then\n"
    "    perftest's table and a closing 'summary key=value ...' line; 'lat' is a\n"
    "    ping-pong on one QP at depth 1: each message waits for the one before it\n"
    "    to complete, and the times are printed as ib_write_lat prints them (see\n"
    "    TABLES). A 'gen serve' answers both.\n"
    "\n"
    "    The udp backend (default) runs anywhere: it puts real RoCEv2 packets\n"
    "    (BTH, RETH, payload, pad, ICRC) in UDP datagrams to port 4791, one UDP\n"
    "    source port per QP, DSCP 26 and ECT(0) on every data packet. The server\n"
    "    ACKs AckReq packets, NAKs a PSN gap once until the sender resyncs, and\n"
    "    answers CE-marked packets with CNPs (opcode 0x81, BECN), at most one per\n"
    "    QP per --cnp-interval. ACKs, NAKs and CNPs go to the sender's address, UDP\n"
    "    port 4791. The sender paces each QP with a token bucket, reacts to CNPs as\n"
    "    a DCQCN reaction point and goes back N on a NAK or a retransmission\n"
    "    timeout. QP numbers and start PSNs are exchanged over TCP (--control-port)\n"
    "    before the run. The sender needs a local address other than the server's\n"
    "    (on one host: --bind 127.0.0.2 against 127.0.0.1).\n"
    "\n"
    "    The udp server listens on 127.0.0.1 unless --bind names another address\n"
    "    (0.0.0.0: every address), and takes whoever reaches its setup port\n"
    "    without letting them end or block it: only a sender whose HELLO line was\n"
    "    accepted is a client, and only one that finished with DONE counts toward\n"
    "    --clients. A connection must send its HELLO within --hello-timeout; at\n"
    "    most 16 connections wait for theirs at once (a new one closes the one\n"
    "    waiting longest) and at most 64 senders run at once, so peers that connect\n"
    "    and say nothing cannot keep a sender out. A sender that sends no data\n"
    "    packet and no line for --idle-timeout is dropped and its QPs freed. A\n"
    "    setup line is at most 8191 bytes. Text from a peer is quoted escaped\n"
    "    (\\xNN for control and non-ASCII bytes), at most 64 characters, and at\n"
    "    most 10 setup notices a second are printed; the rest are counted in one\n"
    "    line.\n"
    "\n"
    "    The verbs backend connects with RDMA CM and posts the operation on RC QPs\n"
    "    of an RDMA device (built when librdmacm is found); CNPs handled come from\n"
    "    the device's rp_cnp_handled counter.\n"
    "\n"
    "    Units, as in every rocetrace command: a duration D takes ns, us, ms, s,\n"
    "    min or h and a bare number is seconds; a RATE takes K, M, G or T (decimal),\n"
    "    optionally with bit/s or bps, and a bare number is bits/s; BYTES take K, M\n"
    "    or G as binary multiples, optionally followed by iB (64K = 64KiB = 65536),\n"
    "    and a bare number is bytes. rocetrace 0.1 read a bare RATE as Gb/s and -d\n"
    "    as the queue depth: both are refused with what to write now.\n"
    "\n"
    "    The event log (--log) names each flow as the wire shows it: src (sender\n"
    "    IP), dst (server IP), dest_qp (the server's QP); byte counts there are\n"
    "    frame bytes (Ethernet + IP + UDP + RoCE).\n"
    "\n"
    "OPTIONS\n"
    "   Every role\n"
    "    --backend udp|verbs\n"
    "        Traffic backend (default udp).\n"
    "    -B, --bind ADDR\n"
    "        Local IPv4 address. serve: where the data and setup ports listen (udp\n"
    "        default 127.0.0.1, loopback only: give the address senders reach;\n"
    "        verbs default: any); send: the address to send from (default: the\n"
    "        route's).\n"
    "    -d, --ib-dev DEV\n"
    "        RDMA device: verbs reads its hw_counters (default: the one RDMA CM\n"
    "        picked); with -x, its GID gives the address.\n"
    "    -i, --ib-port N\n"
    "        The port of DEV whose GID -x names (default 1).\n"
    "    -x, --gid-index N\n"
    "        Send (serve: listen) from the IPv4 address that GID N of DEV's port -i\n"
    "        holds, instead of -B ('rocetrace doctor' shows the RoCE v2 GID index of\n"
    "        each address).\n"
    "    -p, --port N\n"
    "        RoCEv2 UDP port (default 4791).\n"
    "    --control-port N\n"
    "        TCP port of the setup exchange (perftest's -p; default 18515).\n"
    "    --dscp N\n"
    "        DSCP of data packets and ACKs (default 26).\n"
    "    --interval D\n"
    "        Report interval (default 1s).\n"
    "    --log FILE\n"
    "        JSON Lines event log with ns timestamps (docs/FORMATS.md).\n"
    "    --pfc\n"
    "        udp: serve sends 802.1Qbb PFC XOFF (quanta 65535, sent again every\n"
    "        quarter of its pause time) for the data priority on the interface the\n"
    "        data arrives on while its receive backlog is above --pfc-xoff, and XON\n"
    "        once it falls to half of that; send listens on its own interface and\n"
    "        pauses all QPs for the quanta (at --line-rate) or until XON. Needs\n"
    "        CAP_NET_RAW; only a sender on the server's link hears the frames.\n"
    "    --pfc-priority N\n"
    "        Priority the PFC frames name (default 3).\n"
    "    -D, --duration D\n"
    "        send, lat: time of traffic (each size with -a; default 5s for send\n"
    "        without -n); serve: give up after D if the clients have not finished\n"
    "        (default: never).\n"
    "    --sysfs-root DIR\n"
    "        Read class/infiniband under DIR instead of /sys.\n"
    "    -h, --help\n"
    "        Print this help and exit.\n"
    "\n"
    "   send and lat\n"
    "    -o, --op OP\n"
    "        write, send or read (default write; read: verbs backend).\n"
    "    -s, --size BYTES\n"
    "        Message size, at most 1G (default 64K; lat: 2).\n"
    "    -a, --all\n"
    "        Every size 2, 4, 8, ... 8M (2^23) in turn, one table row each; -n or\n"
    "        -D apply to each (default -n 1000).\n"
    "    -n, --iters N\n"
    "        Messages per QP (each size with -a), then stop; with -D too,\n"
    "        whichever comes first (lat default 1000).\n"
    "    --report_gbits, --report-gbits\n"
    "        The send table in Gb/sec instead of MB/sec.\n"
    "    -m, --mtu N\n"
    "        RoCE path MTU, payload bytes per packet, 256..4096 (default 1024).\n"
    "    -q, --qps N\n"
    "        QPs, each with its own UDP source port (default 1; lat: 1).\n"
    "    -t, --tx-depth N\n"
    "        Messages outstanding per QP (default 16; lat: 1).\n"
    "    --qdepth N\n"
    "        The older name of --tx-depth.\n"
    "    -b, --bytes BYTES\n"
    "        Stop each QP after this many message bytes (default: no cap).\n"
    "    -r, --rate RATE\n"
    "        Per-QP rate cap, e.g. 2.5G, 400M (default none).\n"
    "    --line-rate RATE\n"
    "        Line rate, the most DCQCN recovers to (default 100G).\n"
    "    --timeout D\n"
    "        Retransmission timeout (default 4ms).\n"
    "    --no-dcqcn\n"
    "        Ignore CNPs (count them, keep the rate).\n"
    "    --dcqcn-g X\n"
    "        Alpha gain g (default 1/256 = 0.00390625).\n"
    "    --dcqcn-alpha-period D\n"
    "        Alpha decay period K (default 55us).\n"
    "    --dcqcn-timer D\n"
    "        Rate-increase timer T (default 55us).\n"
    "    --dcqcn-bytes N\n"
    "        Rate-increase byte counter B; K, M, G are decimal here (default 10M =\n"
    "        10000000).\n"
    "    --dcqcn-f N\n"
    "        Fast-recovery steps F (default 5).\n"
    "    --dcqcn-rai RATE\n"
    "        Additive increase R_AI (default 40M).\n"
    "    --dcqcn-rhai RATE\n"
    "        Hyper increase R_HAI (default 100M).\n"
    "    --dcqcn-min-rate RATE\n"
    "        Lowest rate a cut can reach (default 10M).\n"
    "\n"
    "   serve\n"
    "    -c, --clients N\n"
    "        Senders to serve before exiting, 1..64 (default 1); udp: only a sender\n"
    "        that finished with DONE counts, not one that left early or was\n"
    "        dropped.\n"
    "    --hello-timeout D\n"
    "        udp: close a setup connection that has not sent its HELLO line within\n"
    "        D, 10ms..1h (default 5s).\n"
    "    --idle-timeout D\n"
    "        udp: drop a sender that sent no data packet and no setup line for D,\n"
    "        100ms..86400s (default 60s); a sender's retransmission timeout or PFC\n"
    "        pause must stay below it.\n"
    "    --cnp-interval D\n"
    "        Minimum time between CNPs per QP (default 50us).\n"
    "    --cnp-dscp N\n"
    "        DSCP of CNPs (default 48).\n"
    "    --pfc-xoff BYTES\n"
    "        Receive backlog (socket memory) that sends XOFF (default: half the\n"
    "        receive buffer).\n"
    "    --stall AT:D\n"
    "        udp: AT after serving starts, read no data for D (at most 5s), then\n"
    "        drain again: a receiver that stops draining, the usual root cause of a\n"
    "        PFC storm. With --pfc, the backlog climbs above --pfc-xoff and stays\n"
    "        there, and XOFFs sent again every quarter of their pause time (at\n"
    "        --line-rate) keep the priority paused without a break until D is over\n"
    "        and the drain brings the XON. A wake-up later than 3/4 of a pause\n"
    "        still breaks it: on a busy host, run serve as a real-time task\n"
    "        (chrt -f 10). Without --pfc, the receive buffer overflows and the\n"
    "        sender retransmits. The setup exchange goes on meanwhile; two lines\n"
    "        of the report say when the stall begins and ends.\n"
    "\n"
    "TABLES\n"
    "    send and lat print their table as perftest prints it:\n"
    "    #bytes #iterations BW peak BW average MsgRate (send)\n"
    "        Message payload only; MB/sec is 2^20 bytes a second, Gb/sec\n"
    "        (--report_gbits) 10^9 bits; the peak is the best 10 ms; #iterations\n"
    "        counts messages of every QP.\n"
    "    #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% (lat)\n"
    "        In microseconds, from posting a message until it completes (udp:\n"
    "        until the ACK of its last packet is back): a round trip, where\n"
    "        ib_write_lat prints half of one; t_typical is the median, percentiles\n"
    "        are nearest-rank. The sender polls without sleeping while it waits, as\n"
    "        perftest does.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 when the run is done, also when Ctrl-C or SIGTERM ends it early (send\n"
    "    and lat then print the table and summary of what was sent), 1 on errors\n"
    "    (one line on standard error), 2 for usage errors.\n"
    "\n"
    "EXAMPLES\n"
    "    rocetrace gen serve -B 10.0.0.2 --log serve.jsonl\n"
    "    rocetrace gen send 10.0.0.2 -q 4 -s 1K -D 3 --rate 2G --log send.jsonl\n"
    "    rocetrace gen serve & rocetrace gen send 127.0.0.1 -B 127.0.0.2 -D 1\n"
    "    rocetrace gen send 10.0.0.2 -d mlx5_0 -x 3 -a -n 200 --report_gbits\n"
    "    rocetrace gen lat 10.0.0.2 -s 64 -n 10000\n"
    "    rocetrace gen serve -B 10.0.0.2 --pfc --pfc-xoff 64K --stall 2s:500ms\n"
    "    rocetrace gen send 192.168.1.2 --backend verbs --op read -s 1M -q 2 -t 64\n";

#define CMD          "gen"
#define SEC_NS       1000000000ull
#define MAX_RATE_BPS 100000000000000ull /* 100T */
#define MIN_RATE_BPS 1000ull            /* under 1 kbit/s is surely a mistake */
#define LAT_ITERS    1000               /* perftest's default for latency tests */
#define STALL_MAX_NS (5 * SEC_NS)       /* longer, a receiver is down rather than slow */

enum role { ROLE_SERVE, ROLE_SEND, ROLE_LAT };

/* What the command line said: struct rt_gen_config and the rest. */
struct gen_args {
	struct rt_gen_config cfg;
	enum role role;
	bool duration_given, size_given, depth_given;
	unsigned ib_port;
	int gid_index; /* -1: none */
	char gid_addr[16];
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int show_help(struct rt_opt_use *u)
{
	(void)u;
	fputs(help_text, stdout);
	return -1;
}

static int ib_dev_option(struct rt_opt_use *u)
{
	/* rocetrace 0.1's -d was the queue depth: a number is surely that */
	if (all_digits(u->arg))
		return rt_cli_usage_error(
		    CMD,
		    "-d is the RDMA device now, as in perftest; for a queue depth of %s "
		    "write -t %s",
		    u->arg, u->arg);
	*(const char **)rt_opt_field(u) = u->arg;
	return 0;
}

static int op_option(struct rt_opt_use *u)
{
	if (rt_gen_op_parse(u->arg, rt_opt_field(u)))
		return rt_cli_usage_error(CMD, "--op: '%s' is not write, send or read", u->arg);
	return 0;
}

/* --stall AT:D into cfg.stall_at_ns and cfg.stall_ns */
static int stall_option(struct rt_opt_use *u)
{
	struct rt_gen_config *cfg = rt_opt_field(u);
	const char *colon = strchr(u->arg, ':');
	char at[32];
	size_t n = colon ? (size_t)(colon - u->arg) : 0;
	if (!n || n >= sizeof(at) || !colon[1])
		return rt_cli_usage_error(CMD,
		                          "--stall: '%s' is not AT:D (e.g. 2s:500ms: after 2 s of "
		                          "serving, read no data for 500 ms)",
		                          u->arg);
	memcpy(at, u->arg, n);
	at[n] = '\0';
	uint64_t d;
	if (!rt_opt_parse_duration(colon + 1, 0, UINT64_MAX, &d) && d > STALL_MAX_NS)
		return rt_cli_usage_error(CMD,
		                          "--stall: a stall of %s is longer than 5s: a receiver "
		                          "that reads nothing for longer is down, not congested",
		                          colon + 1);
	int rc = rt_opt_duration(CMD, "--stall AT", at, 0, 86400 * SEC_NS, &cfg->stall_at_ns);
	return rc ? rc
	          : rt_opt_duration(CMD, "--stall D", colon + 1, SEC_NS / 1000, STALL_MAX_NS,
	                            &cfg->stall_ns);
}

#define AT(member) RT_AT(struct gen_args, member)
_Static_assert(sizeof(enum rt_gen_backend) == sizeof(unsigned), "--backend's field");

/* perftest's letters and long names where it has the option; --qdepth as rocetrace 0.1 named -t */
static const struct rt_opt rows[] = {
    {.name = "backend",
     .kind = RT_OPT_CHOICE,
     .choices = "udp|verbs", /* enum rt_gen_backend's order */
     .at = AT(cfg.backend),
     .store = RT_STORE_UINT},
    {.name = "bind", .letter = 'B', .kind = RT_OPT_STRING, .at = AT(cfg.bind_addr)},
    {.name = "ib-dev",
     .letter = 'd',
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = ib_dev_option,
     .at = AT(cfg.ib_dev)},
    {.name = "ib-port",
     .letter = 'i',
     .kind = RT_OPT_UINT,
     .at = AT(ib_port),
     .store = RT_STORE_UINT,
     .min = 1,
     .max = 255},
    {.name = "gid-index",
     .letter = 'x',
     .kind = RT_OPT_UINT,
     .at = AT(gid_index),
     .store = RT_STORE_INT,
     .max = 65535},
    {.name = "port",
     .letter = 'p',
     .kind = RT_OPT_UINT,
     .at = AT(cfg.port),
     .store = RT_STORE_U16,
     .min = 1,
     .max = 65535},
    {.name = "control-port",
     .kind = RT_OPT_UINT,
     .at = AT(cfg.control_port),
     .store = RT_STORE_U16,
     .min = 1,
     .max = 65535},
    {.name = "dscp", .kind = RT_OPT_UINT, .at = AT(cfg.dscp), .store = RT_STORE_U8, .max = 63},
    {.name = "interval",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.interval_s),
     .store = RT_STORE_DOUBLE,
     .div = 1e9,
     .min = SEC_NS / 100,
     .max = 86400 * SEC_NS},
    {.name = "log", .kind = RT_OPT_STRING, .at = AT(cfg.log_path)},
    {.name = "duration",
     .letter = 'D',
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.duration_s),
     .store = RT_STORE_DOUBLE,
     .div = 1e9,
     .max = 86400 * SEC_NS,
     .given = AT(duration_given)},
    {.name = "help", .letter = 'h', .kind = RT_OPT_CALL, .call = show_help},
    {.name = "op",
     .letter = 'o',
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = op_option,
     .at = AT(cfg.op)},
    {.name = "size",
     .letter = 's',
     .kind = RT_OPT_SIZE,
     .at = AT(cfg.msg_size),
     .store = RT_STORE_U32,
     .min = 1,
     .max = RT_GEN_MAX_MSG,
     .given = AT(size_given)},
    {.name = "all", .letter = 'a', .kind = RT_OPT_FLAG, .at = AT(cfg.sweep)},
    {.name = "iters",
     .letter = 'n',
     .kind = RT_OPT_COUNT,
     .at = AT(cfg.iters),
     .min = 1,
     .max = 1000000000000ull},
    {.name = "report_gbits",
     .alias = "report-gbits",
     .kind = RT_OPT_FLAG,
     .at = AT(cfg.report_gbits)},
    {.name = "mtu",
     .letter = 'm',
     .kind = RT_OPT_UINT,
     .at = AT(cfg.mtu),
     .store = RT_STORE_U32,
     .min = 256,
     .max = 4096},
    {.name = "qps",
     .letter = 'q',
     .kind = RT_OPT_UINT,
     .at = AT(cfg.qps),
     .store = RT_STORE_UINT,
     .min = 1,
     .max = RT_GEN_MAX_QPS},
    {.name = "tx-depth",
     .alias = "qdepth",
     .letter = 't',
     .kind = RT_OPT_UINT,
     .at = AT(cfg.qdepth),
     .store = RT_STORE_UINT,
     .min = 1,
     .max = RT_GEN_MAX_QDEPTH,
     .given = AT(depth_given)},
    {.name = "bytes",
     .letter = 'b',
     .kind = RT_OPT_SIZE,
     .at = AT(cfg.bytes),
     .min = 1,
     .max = UINT64_MAX},
    {.name = "rate",
     .letter = 'r',
     .kind = RT_OPT_RATE,
     .at = AT(cfg.rate_gbps),
     .store = RT_STORE_DOUBLE,
     .div = 1e9,
     .min = 1000000,
     .max = MAX_RATE_BPS},
    {.name = "line-rate",
     .kind = RT_OPT_RATE,
     .at = AT(cfg.line_gbps),
     .store = RT_STORE_DOUBLE,
     .div = 1e9,
     .min = 1000000,
     .max = MAX_RATE_BPS},
    {.name = "timeout",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.timeout_ns),
     .min = 10000,
     .max = 10 * SEC_NS},
    {.name = "no-dcqcn", .kind = RT_OPT_CLEAR, .at = AT(cfg.dcqcn)},
    {.name = "dcqcn-g", .kind = RT_OPT_REAL, .at = AT(cfg.dcqcn_params.g), .rmin = 1e-9, .rmax = 1},
    {.name = "dcqcn-alpha-period",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.dcqcn_params.alpha_period_ns),
     .min = 1000,
     .max = SEC_NS},
    {.name = "dcqcn-timer",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.dcqcn_params.timer_ns),
     .min = 1000,
     .max = SEC_NS},
    {.name = "dcqcn-bytes",
     .kind = RT_OPT_COUNT,
     .at = AT(cfg.dcqcn_params.byte_counter),
     .min = 1,
     .max = UINT64_MAX},
    {.name = "dcqcn-f",
     .kind = RT_OPT_UINT,
     .at = AT(cfg.dcqcn_params.f),
     .store = RT_STORE_UINT,
     .max = 1000},
    {.name = "dcqcn-rai",
     .kind = RT_OPT_RATE,
     .at = AT(cfg.dcqcn_params.rai_mbps),
     .store = RT_STORE_DOUBLE,
     .div = 1e6,
     .min = MIN_RATE_BPS,
     .max = MAX_RATE_BPS},
    {.name = "dcqcn-rhai",
     .kind = RT_OPT_RATE,
     .at = AT(cfg.dcqcn_params.rhai_mbps),
     .store = RT_STORE_DOUBLE,
     .div = 1e6,
     .min = MIN_RATE_BPS,
     .max = MAX_RATE_BPS},
    {.name = "dcqcn-min-rate",
     .kind = RT_OPT_RATE,
     .at = AT(cfg.dcqcn_params.min_mbps),
     .store = RT_STORE_DOUBLE,
     .div = 1e6,
     .min = MIN_RATE_BPS,
     .max = MAX_RATE_BPS},
    {.name = "sysfs-root", .kind = RT_OPT_STRING, .at = AT(cfg.sysfs_root)},
    {.name = "clients",
     .letter = 'c',
     .kind = RT_OPT_UINT,
     .at = AT(cfg.clients),
     .store = RT_STORE_UINT,
     .min = 1,
     .max = 64},
    {.name = "cnp-interval", .kind = RT_OPT_DURATION, .at = AT(cfg.cnp_interval_ns), .max = SEC_NS},
    {.name = "cnp-dscp",
     .kind = RT_OPT_UINT,
     .at = AT(cfg.cnp_dscp),
     .store = RT_STORE_U8,
     .max = 63},
    {.name = "pfc", .kind = RT_OPT_FLAG, .at = AT(cfg.pfc)},
    {.name = "pfc-priority",
     .kind = RT_OPT_UINT,
     .at = AT(cfg.pfc_priority),
     .store = RT_STORE_UINT,
     .max = 7},
    {.name = "pfc-xoff",
     .kind = RT_OPT_SIZE,
     .at = AT(cfg.pfc_xoff_bytes),
     .min = 1,
     .max = UINT64_MAX},
    {.name = "stall",
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = stall_option,
     .at = AT(cfg)},
    {.name = "hello-timeout",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.hello_timeout_ns),
     .min = SEC_NS / 100,
     .max = 3600 * SEC_NS},
    {.name = "idle-timeout",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.idle_timeout_ns),
     .min = SEC_NS / 10,
     .max = 86400 * SEC_NS},
};

/* What the options mean together, for the role; 0 or the exit status. */
static int settle(struct gen_args *a)
{
	struct rt_gen_config *cfg = &a->cfg;
	if (a->gid_index >= 0) {
		char errbuf[RT_ERRBUF_SIZE];
		if (!cfg->ib_dev)
			return rt_cli_usage_error(CMD, "-x %d: which device? (-d DEV)",
			                          a->gid_index);
		if (cfg->bind_addr)
			return rt_cli_usage_error(CMD, "-x and -B both name the local address");
		if (rt_gen_gid_addr(cfg->sysfs_root, cfg->ib_dev, a->ib_port,
		                    (unsigned)a->gid_index, a->gid_addr, errbuf) < 0)
			return rt_cli_fail(CMD, "%s", errbuf);
		cfg->bind_addr = a->gid_addr;
	}
	if (a->role == ROLE_SERVE)
		return 0;
	if (cfg->stall_ns)
		return rt_cli_usage_error(CMD,
		                          "--stall belongs to serve (the receiver stops reading)");
	if (cfg->sweep && a->size_given)
		return rt_cli_usage_error(CMD, "-a runs every size from 2 to 8M: drop -s");
	if (cfg->sweep)
		cfg->msg_size = RT_PERF_SWEEP_MAX;
	if (a->role == ROLE_LAT) {
		cfg->latency = true;
		if (cfg->qps != 1)
			return rt_cli_usage_error(CMD,
			                          "lat: one QP (perftest's latency tests run one)");
		if (a->depth_given && cfg->qdepth != 1)
			return rt_cli_usage_error(CMD, "lat: depth 1 (one message at a time)");
		cfg->qdepth = 1;
		if (!a->size_given && !cfg->sweep)
			cfg->msg_size = 2; /* perftest's latency default */
	}
	/* by count, by time, or both (whichever first); a sweep and lat count by default */
	if (!a->duration_given)
		cfg->duration_s = cfg->iters || cfg->sweep || cfg->latency ? 0 : cfg->duration_s;
	if (!cfg->iters && !a->duration_given && (cfg->sweep || cfg->latency))
		cfg->iters = LAT_ITERS;
	if (cfg->duration_s <= 0 && !cfg->iters)
		return rt_cli_usage_error(CMD, "--duration must be above 0");
	return 0;
}

const struct rt_opt_table rt_gen_options = {
    .cmd = CMD, .rows = rows, .nrows = sizeof(rows) / sizeof(rows[0])};

/* The role (argv[1]), the options and the SERVER operand into *a. 0, -1 after --help, or the exit status. */
static int parse_args(int argc, char **argv, struct gen_args *a)
{
	if (argc < 2)
		return rt_cli_usage_error(CMD, "which role: serve, send or lat?");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(help_text, stdout);
		return -1;
	}
	if (!strcmp(argv[1], "serve"))
		a->role = ROLE_SERVE;
	else if (!strcmp(argv[1], "send"))
		a->role = ROLE_SEND;
	else if (!strcmp(argv[1], "lat"))
		a->role = ROLE_LAT;
	else
		return rt_cli_usage_error(CMD, "unknown role '%s' (serve, send or lat)", argv[1]);
	const char *role = argv[1];
	rt_gen_config_default(&a->cfg);
	if (a->role == ROLE_SERVE)
		a->cfg.duration_s = 0;
	argc--;
	argv++;
	int rc = rt_opt_parse(&rt_gen_options, a, argc, argv);
	if (rc)
		return rc;
	if (a->role != ROLE_SERVE) {
		if (optind >= argc)
			return rt_cli_usage_error(CMD, "%s: SERVER address missing", role);
		a->cfg.server = argv[optind++];
	}
	if (optind < argc)
		return rt_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	return settle(a);
}

int rt_cmd_gen(int argc, char **argv)
{
	struct gen_args a = {.ib_port = 1, .gid_index = -1};
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc;
	const char *role = argv[1];
	struct rt_gen_config *cfg = &a.cfg;
	cfg->stop = &stop_flag;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	char errbuf[RT_ERRBUF_SIZE] = "";
	bool serve = a.role == ROLE_SERVE;
	if (cfg->backend == RT_GEN_BACKEND_UDP) {
		rc = serve ? rt_gen_udp_serve(cfg, stdout, errbuf)
		           : rt_gen_udp_send(cfg, stdout, errbuf);
	} else if (cfg->pfc || cfg->stall_ns) {
		rc = rt_errmsg(errbuf, EINVAL, "%s",
		               cfg->pfc
		                   ? "--pfc belongs to the udp backend (a NIC does PFC itself)"
		                   : "--stall belongs to the udp backend (a NIC drains itself)");
	} else {
#if RT_HAVE_RDMACM
		rc = serve ? rt_gen_verbs_serve(cfg, stdout, errbuf)
		           : rt_gen_verbs_send(cfg, stdout, errbuf);
#else
		rc = rt_errmsg(errbuf, EOPNOTSUPP,
		               "this build has no verbs backend (librdmacm missing)");
#endif
	}
	fflush(stdout);
	char cmd[16];
	snprintf(cmd, sizeof(cmd), "gen %s", role);
	return rc ? rt_cli_fail(cmd, "%s", errbuf) : RT_EXIT_OK;
}

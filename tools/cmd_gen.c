/* rocetrace gen: the active RoCEv2 traffic source (serve / send), udp or verbs backend. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/gen/gen.h"
#include "tools/commands.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static const char help_text[] =
	"usage: rocetrace gen serve [OPTIONS]\n"
	"       rocetrace gen send SERVER [OPTIONS]\n"
	"\n"
	"An active RoCEv2 traffic source in the spirit of ib_write_bw: 'serve' waits for\n"
	"senders, 'send' connects to a server and moves messages over one or more RC QPs,\n"
	"printing one line per interval (Gb/s, messages/s, CNPs handled, NAKs,\n"
	"retransmissions) and a closing 'summary key=value ...' line.\n"
	"\n"
	"The udp backend (default) runs anywhere: it puts real RoCEv2 packets (BTH, RETH,\n"
	"payload, pad, ICRC) in UDP datagrams to port 4791, one UDP source port per QP,\n"
	"DSCP 26 and ECT(0) on every data packet. The server ACKs AckReq packets, NAKs a\n"
	"PSN gap once until the sender resyncs, and answers CE-marked packets with CNPs\n"
	"(opcode 0x81, BECN), at most one per QP per --cnp-interval. ACKs, NAKs and CNPs go\n"
	"to the sender's address, UDP port 4791. The sender paces each QP with a token\n"
	"bucket, reacts to CNPs as a DCQCN reaction point and goes back N on a NAK or a\n"
	"retransmission timeout. QP numbers and start PSNs are exchanged over TCP\n"
	"(--control-port) before the run. The sender needs a local address other than the\n"
	"server's (on one host: --bind 127.0.0.2 against 127.0.0.1).\n"
	"\n"
	"The verbs backend connects with RDMA CM and posts the operation on RC QPs of an\n"
	"RDMA device (built when librdmacm is found); CNPs handled come from the device's\n"
	"rp_cnp_handled counter.\n"
	"\n"
	"options (both roles):\n"
	"  --backend udp|verbs   traffic backend (default udp)\n"
	"  -B, --bind ADDR       local IPv4 address (serve: default any; send: the route's)\n"
	"  -p, --port N          RoCEv2 UDP port (default 4791)\n"
	"  --control-port N      TCP port of the setup exchange (default 18515)\n"
	"  --dscp N              DSCP of data packets and ACKs (default 26)\n"
	"  --interval S          report interval in seconds (default 1)\n"
	"  --log FILE            JSON Lines event log with ns timestamps (docs/FORMATS.md)\n"
	"  --pfc                 udp: serve sends 802.1Qbb PFC XOFF (quanta 65535, refreshed)\n"
	"                        for the data priority on the interface the data arrives on\n"
	"                        while its receive backlog is above --pfc-xoff, and XON\n"
	"                        once it falls to half of that; send listens on its own\n"
	"                        interface and pauses all QPs for the quanta (at\n"
	"                        --line-rate) or until XON. Needs CAP_NET_RAW; only a\n"
	"                        sender on the server's link hears the frames.\n"
	"  --pfc-priority N      priority the PFC frames name (default 3)\n"
	"  -D, --duration S      send: seconds of traffic (default 5); serve: give up after\n"
	"                        S seconds if the clients have not finished (default: never)\n"
	"  -h, --help            this text\n"
	"\n"
	"options (send):\n"
	"  -o, --op OP           write, send or read (default write; read: verbs backend)\n"
	"  -s, --size BYTES      message size, K/M suffixes are binary (default 64K)\n"
	"  --mtu N               RoCE path MTU, payload bytes per packet, 256..4096 (default 1024)\n"
	"  -q, --qps N           QPs, each with its own UDP source port (default 1)\n"
	"  -d, --qdepth N        messages outstanding per QP (default 16)\n"
	"  -b, --bytes BYTES     stop each QP after this many message bytes (default: no cap)\n"
	"  -r, --rate RATE       per-QP rate cap, e.g. 2.5G, 400M (bits/s; default none)\n"
	"  --line-rate RATE      line rate, the most DCQCN recovers to (default 100G)\n"
	"  --timeout DUR         retransmission timeout, e.g. 4ms (default 4ms)\n"
	"  --no-dcqcn            ignore CNPs (count them, keep the rate)\n"
	"  --dcqcn-g X           alpha gain g (default 1/256 = 0.00390625)\n"
	"  --dcqcn-alpha-period DUR  alpha decay period K (default 55us)\n"
	"  --dcqcn-timer DUR     rate-increase timer T (default 55us)\n"
	"  --dcqcn-bytes BYTES   rate-increase byte counter B (default 10M, decimal)\n"
	"  --dcqcn-f N           fast-recovery steps F (default 5)\n"
	"  --dcqcn-rai RATE      additive increase R_AI (default 40M)\n"
	"  --dcqcn-rhai RATE     hyper increase R_HAI (default 100M)\n"
	"  --dcqcn-min-rate RATE lowest rate a cut can reach (default 10M)\n"
	"  --ib-dev DEV          verbs: RDMA device whose hw_counters to read (default:\n"
	"                        the one RDMA CM picked)\n"
	"  --sysfs-root DIR      verbs: read counters under DIR instead of /sys\n"
	"\n"
	"options (serve):\n"
	"  -c, --clients N       senders to serve before exiting (default 1)\n"
	"  --cnp-interval DUR    minimum time between CNPs per QP (default 50us)\n"
	"  --cnp-dscp N          DSCP of CNPs (default 48)\n"
	"  --pfc-xoff BYTES      receive backlog (socket memory) that sends XOFF\n"
	"                        (default: half the receive buffer)\n"
	"\n"
	"DUR takes ns, us, ms or s (a bare number is seconds). The event log names each\n"
	"flow as the wire shows it: src (sender IP), dst (server IP), dest_qp (the\n"
	"server's QP); byte counts are frame bytes (Ethernet + IP + UDP + RoCE).\n"
	"\n"
	"exit status: 0 done, 1 error (one line on stderr), 2 usage error.\n"
	"\n"
	"examples:\n"
	"  rocetrace gen serve --log serve.jsonl\n"
	"  rocetrace gen send 10.0.0.2 -q 4 -s 1K -D 3 --rate 2G --log send.jsonl\n"
	"  rocetrace gen serve -B 127.0.0.1 & rocetrace gen send 127.0.0.1 -B 127.0.0.2 -D 1\n"
	"  rocetrace gen send 192.168.1.2 --backend verbs --op read -s 1M -q 2\n";

enum {
	OPT_BACKEND = 1000,
	OPT_CONTROL_PORT,
	OPT_DSCP,
	OPT_INTERVAL,
	OPT_LOG,
	OPT_MTU,
	OPT_LINE_RATE,
	OPT_TIMEOUT,
	OPT_NO_DCQCN,
	OPT_G,
	OPT_ALPHA_PERIOD,
	OPT_TIMER,
	OPT_DBYTES,
	OPT_F,
	OPT_RAI,
	OPT_RHAI,
	OPT_MIN_RATE,
	OPT_IB_DEV,
	OPT_SYSFS_ROOT,
	OPT_CNP_INTERVAL,
	OPT_CNP_DSCP,
	OPT_PFC,
	OPT_PFC_PRIORITY,
	OPT_PFC_XOFF,
};

static const struct option long_opts[] = {
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"bind", required_argument, NULL, 'B'},
	{"port", required_argument, NULL, 'p'},
	{"control-port", required_argument, NULL, OPT_CONTROL_PORT},
	{"dscp", required_argument, NULL, OPT_DSCP},
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{"log", required_argument, NULL, OPT_LOG},
	{"duration", required_argument, NULL, 'D'},
	{"help", no_argument, NULL, 'h'},
	{"op", required_argument, NULL, 'o'},
	{"size", required_argument, NULL, 's'},
	{"mtu", required_argument, NULL, OPT_MTU},
	{"qps", required_argument, NULL, 'q'},
	{"qdepth", required_argument, NULL, 'd'},
	{"bytes", required_argument, NULL, 'b'},
	{"rate", required_argument, NULL, 'r'},
	{"line-rate", required_argument, NULL, OPT_LINE_RATE},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"no-dcqcn", no_argument, NULL, OPT_NO_DCQCN},
	{"dcqcn-g", required_argument, NULL, OPT_G},
	{"dcqcn-alpha-period", required_argument, NULL, OPT_ALPHA_PERIOD},
	{"dcqcn-timer", required_argument, NULL, OPT_TIMER},
	{"dcqcn-bytes", required_argument, NULL, OPT_DBYTES},
	{"dcqcn-f", required_argument, NULL, OPT_F},
	{"dcqcn-rai", required_argument, NULL, OPT_RAI},
	{"dcqcn-rhai", required_argument, NULL, OPT_RHAI},
	{"dcqcn-min-rate", required_argument, NULL, OPT_MIN_RATE},
	{"ib-dev", required_argument, NULL, OPT_IB_DEV},
	{"sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT},
	{"clients", required_argument, NULL, 'c'},
	{"cnp-interval", required_argument, NULL, OPT_CNP_INTERVAL},
	{"cnp-dscp", required_argument, NULL, OPT_CNP_DSCP},
	{"pfc", no_argument, NULL, OPT_PFC},
	{"pfc-priority", required_argument, NULL, OPT_PFC_PRIORITY},
	{"pfc-xoff", required_argument, NULL, OPT_PFC_XOFF},
	{NULL, 0, NULL, 0},
};

/* A non-negative number with an optional suffix from `units` (name, multiplier pairs). */
struct unit {
	const char *name;
	double mult;
};

static int parse_units(const char *s, const struct unit *units, double bare, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!*end) {
		*out = v * bare;
		return 0;
	}
	for (const struct unit *u = units; u->name; u++)
		if (!strcmp(end, u->name)) {
			*out = v * u->mult;
			return 0;
		}
	return -EINVAL;
}

static const struct unit dur_units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {NULL, 0}};
static const struct unit rate_units[] = {{"G", 1e9}, {"g", 1e9}, {"M", 1e6}, {"m", 1e6},
					 {"K", 1e3}, {"k", 1e3}, {NULL, 0}};
static const struct unit size_units[] = {{"K", 1024.0}, {"k", 1024.0}, {"M", 1048576.0},
					 {"m", 1048576.0}, {"G", 1073741824.0}, {"g", 1073741824.0},
					 {NULL, 0}};
static const struct unit dec_units[] = {{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"m", 1e6},
					{"G", 1e9}, {"g", 1e9}, {NULL, 0}};

static int bad(const char *opt, const char *arg)
{
	fprintf(stderr, "rocetrace gen: bad value '%s' for %s (see 'rocetrace gen --help')\n", arg,
		opt);
	return RT_EXIT_USAGE;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (end == s || *end || errno || v < min || v > max || s[0] == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

int rt_cmd_gen(int argc, char **argv)
{
	if (argc < 2) {
		fputs(help_text, stderr);
		return RT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(help_text, stdout);
		return RT_EXIT_OK;
	}
	bool serve = !strcmp(argv[1], "serve");
	if (!serve && strcmp(argv[1], "send")) {
		fprintf(stderr, "rocetrace gen: unknown role '%s' (serve or send)\n", argv[1]);
		return RT_EXIT_USAGE;
	}
	struct rt_gen_config cfg;
	rt_gen_config_default(&cfg);
	if (serve)
		cfg.duration_s = 0;
	double v;
	unsigned long u;
	argc--;
	argv++;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "B:p:D:ho:s:q:d:b:r:c:", long_opts, NULL)) != -1) {
		const char *name = optind > 1 ? argv[optind - 1] : "option";
		switch (c) {
		case 'h':
			fputs(help_text, stdout);
			return RT_EXIT_OK;
		case OPT_BACKEND:
			if (!strcmp(optarg, "udp"))
				cfg.backend = RT_GEN_BACKEND_UDP;
			else if (!strcmp(optarg, "verbs"))
				cfg.backend = RT_GEN_BACKEND_VERBS;
			else
				return bad("--backend", optarg);
			break;
		case 'B':
			cfg.bind_addr = optarg;
			break;
		case 'p':
			if (parse_uint(optarg, 1, 65535, &u))
				return bad("--port", optarg);
			cfg.port = (uint16_t)u;
			break;
		case OPT_CONTROL_PORT:
			if (parse_uint(optarg, 1, 65535, &u))
				return bad("--control-port", optarg);
			cfg.control_port = (uint16_t)u;
			break;
		case OPT_DSCP:
		case OPT_CNP_DSCP:
			if (parse_uint(optarg, 0, 63, &u))
				return bad(c == OPT_DSCP ? "--dscp" : "--cnp-dscp", optarg);
			*(c == OPT_DSCP ? &cfg.dscp : &cfg.cnp_dscp) = (uint8_t)u;
			break;
		case OPT_INTERVAL:
			if (parse_units(optarg, dur_units, 1, &v) || v < 0.01)
				return bad("--interval", optarg);
			cfg.interval_s = v;
			break;
		case OPT_LOG:
			cfg.log_path = optarg;
			break;
		case 'D':
			if (parse_units(optarg, dur_units, 1, &v) || v > 86400)
				return bad("--duration", optarg);
			cfg.duration_s = v;
			break;
		case 'o':
			if (rt_gen_op_parse(optarg, &cfg.op))
				return bad("--op", optarg);
			break;
		case 's':
			if (parse_units(optarg, size_units, 1, &v) || v < 1 || v > 1073741824.0)
				return bad("--size", optarg);
			cfg.msg_size = (uint32_t)v;
			break;
		case OPT_MTU:
			if (parse_uint(optarg, 256, 4096, &u))
				return bad("--mtu", optarg);
			cfg.mtu = (uint32_t)u;
			break;
		case 'q':
			if (parse_uint(optarg, 1, 256, &u))
				return bad("--qps", optarg);
			cfg.qps = (unsigned)u;
			break;
		case 'd':
			if (parse_uint(optarg, 1, 4096, &u))
				return bad("--qdepth", optarg);
			cfg.qdepth = (unsigned)u;
			break;
		case 'b':
			if (parse_units(optarg, size_units, 1, &v) || v < 1)
				return bad("--bytes", optarg);
			cfg.bytes = (uint64_t)v;
			break;
		case 'r':
			if (parse_units(optarg, rate_units, 1e9, &v) || v < 1e6)
				return bad("--rate", optarg);
			cfg.rate_gbps = v / 1e9;
			break;
		case OPT_LINE_RATE:
			if (parse_units(optarg, rate_units, 1e9, &v) || v < 1e6)
				return bad("--line-rate", optarg);
			cfg.line_gbps = v / 1e9;
			break;
		case OPT_TIMEOUT:
			if (parse_units(optarg, dur_units, 1, &v) || v < 1e-5 || v > 10)
				return bad("--timeout", optarg);
			cfg.timeout_ns = (uint64_t)(v * 1e9);
			break;
		case OPT_NO_DCQCN:
			cfg.dcqcn = false;
			break;
		case OPT_G:
			if (parse_units(optarg, dur_units, 1, &v) || v <= 0 || v > 1)
				return bad("--dcqcn-g", optarg);
			cfg.dcqcn_params.g = v;
			break;
		case OPT_ALPHA_PERIOD:
		case OPT_TIMER:
			if (parse_units(optarg, dur_units, 1, &v) || v < 1e-6 || v > 1)
				return bad(name, optarg);
			*(c == OPT_TIMER ? &cfg.dcqcn_params.timer_ns
					 : &cfg.dcqcn_params.alpha_period_ns) = (uint64_t)(v * 1e9);
			break;
		case OPT_DBYTES:
			if (parse_units(optarg, dec_units, 1, &v) || v < 1)
				return bad("--dcqcn-bytes", optarg);
			cfg.dcqcn_params.byte_counter = (uint64_t)v;
			break;
		case OPT_F:
			if (parse_uint(optarg, 0, 1000, &u))
				return bad("--dcqcn-f", optarg);
			cfg.dcqcn_params.f = (unsigned)u;
			break;
		case OPT_RAI:
		case OPT_RHAI:
		case OPT_MIN_RATE:
			if (parse_units(optarg, rate_units, 1e9, &v) || v <= 0)
				return bad(name, optarg);
			*(c == OPT_RAI	   ? &cfg.dcqcn_params.rai_mbps
			  : c == OPT_RHAI ? &cfg.dcqcn_params.rhai_mbps
					  : &cfg.dcqcn_params.min_mbps) = v / 1e6;
			break;
		case OPT_IB_DEV:
			cfg.ib_dev = optarg;
			break;
		case OPT_SYSFS_ROOT:
			cfg.sysfs_root = optarg;
			break;
		case 'c':
			if (parse_uint(optarg, 1, 64, &u))
				return bad("--clients", optarg);
			cfg.clients = (unsigned)u;
			break;
		case OPT_CNP_INTERVAL:
			if (parse_units(optarg, dur_units, 1, &v) || v > 1)
				return bad("--cnp-interval", optarg);
			cfg.cnp_interval_ns = (uint64_t)(v * 1e9);
			break;
		case OPT_PFC:
			cfg.pfc = true;
			break;
		case OPT_PFC_PRIORITY:
			if (parse_uint(optarg, 0, 7, &u))
				return bad("--pfc-priority", optarg);
			cfg.pfc_priority = (unsigned)u;
			break;
		case OPT_PFC_XOFF:
			if (parse_units(optarg, size_units, 1, &v) || v < 1)
				return bad("--pfc-xoff", optarg);
			cfg.pfc_xoff_bytes = (uint64_t)v;
			break;
		default:
			fprintf(stderr, "rocetrace gen: see 'rocetrace gen --help'\n");
			return RT_EXIT_USAGE;
		}
	}
	if (!serve) {
		if (optind >= argc) {
			fprintf(stderr, "rocetrace gen send: SERVER address missing\n");
			return RT_EXIT_USAGE;
		}
		cfg.server = argv[optind++];
		if (cfg.duration_s <= 0) {
			fprintf(stderr, "rocetrace gen send: --duration must be above 0\n");
			return RT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rocetrace gen: unexpected argument '%s'\n", argv[optind]);
		return RT_EXIT_USAGE;
	}
	cfg.stop = &stop_flag;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	char errbuf[RT_ERRBUF_SIZE] = "";
	int rc;
	if (cfg.backend == RT_GEN_BACKEND_UDP) {
		rc = serve ? rt_gen_udp_serve(&cfg, stdout, errbuf) : rt_gen_udp_send(&cfg, stdout, errbuf);
	} else if (cfg.pfc) {
		snprintf(errbuf, sizeof(errbuf), "--pfc belongs to the udp backend (a NIC does PFC itself)");
		rc = -EINVAL;
	} else {
#if RT_HAVE_RDMACM
		rc = serve ? rt_gen_verbs_serve(&cfg, stdout, errbuf)
			   : rt_gen_verbs_send(&cfg, stdout, errbuf);
#else
		snprintf(errbuf, sizeof(errbuf), "this build has no verbs backend (librdmacm missing)");
		rc = -EOPNOTSUPP;
#endif
	}
	fflush(stdout);
	if (rc) {
		fprintf(stderr, "rocetrace gen %s: %s\n", serve ? "serve" : "send", errbuf);
		return RT_EXIT_ERROR;
	}
	return RT_EXIT_OK;
}

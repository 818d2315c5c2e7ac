/* rocetrace gen: the active RoCEv2 traffic source (serve / send), udp or verbs backend. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/gen.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

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
	"The udp server listens on 127.0.0.1 unless --bind names another address (0.0.0.0:\n"
	"every address), and takes whoever reaches its setup port without letting them\n"
	"end or block it: only a sender whose HELLO line was accepted is a client, and\n"
	"only one that finished with DONE counts toward --clients. A connection must send\n"
	"its HELLO within --hello-timeout; at most 16 connections wait for theirs at once\n"
	"(a new one closes the one waiting longest) and at most 64 senders run at once,\n"
	"so peers that connect and say nothing cannot keep a sender out. A sender that\n"
	"sends no data packet and no line for --idle-timeout is dropped and its QPs\n"
	"freed. A setup line is at most 8191 bytes. Text from a peer is quoted escaped\n"
	"(\\xNN for control and non-ASCII bytes), at most 64 characters, and at most 10\n"
	"setup notices a second are printed; the rest are counted in one line.\n"
	"\n"
	"The verbs backend connects with RDMA CM and posts the operation on RC QPs of an\n"
	"RDMA device (built when librdmacm is found); CNPs handled come from the device's\n"
	"rp_cnp_handled counter.\n"
	"\n"
	"options (both roles):\n"
	"  --backend udp|verbs   traffic backend (default udp)\n"
	"  -B, --bind ADDR       local IPv4 address. serve: where the data and setup ports\n"
	"                        listen (udp default 127.0.0.1, loopback only: give the\n"
	"                        address senders reach; verbs default: any); send: the\n"
	"                        address to send from (default: the route's)\n"
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
	"  -s, --size BYTES      message size, at most 1G (default 64K)\n"
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
	"  --dcqcn-bytes N       rate-increase byte counter B; K, M, G are decimal here\n"
	"                        (default 10M = 10000000)\n"
	"  --dcqcn-f N           fast-recovery steps F (default 5)\n"
	"  --dcqcn-rai RATE      additive increase R_AI (default 40M)\n"
	"  --dcqcn-rhai RATE     hyper increase R_HAI (default 100M)\n"
	"  --dcqcn-min-rate RATE lowest rate a cut can reach (default 10M)\n"
	"  --ib-dev DEV          verbs: RDMA device whose hw_counters to read (default:\n"
	"                        the one RDMA CM picked)\n"
	"  --sysfs-root DIR      verbs: read counters under DIR instead of /sys\n"
	"\n"
	"options (serve):\n"
	"  -c, --clients N       senders to serve before exiting, 1..64 (default 1); udp:\n"
	"                        only a sender that finished with DONE counts, not one\n"
	"                        that left early or was dropped\n"
	"  --hello-timeout DUR   udp: close a setup connection that has not sent its\n"
	"                        HELLO line within DUR, 10ms..1h (default 5s)\n"
	"  --idle-timeout DUR    udp: drop a sender that sent no data packet and no setup\n"
	"                        line for DUR, 100ms..86400s (default 60s); a sender's\n"
	"                        retransmission timeout or PFC pause must stay below it\n"
	"  --cnp-interval DUR    minimum time between CNPs per QP (default 50us)\n"
	"  --cnp-dscp N          DSCP of CNPs (default 48)\n"
	"  --pfc-xoff BYTES      receive backlog (socket memory) that sends XOFF\n"
	"                        (default: half the receive buffer)\n"
	"\n"
	"DUR takes ns, us, ms or s (a bare number is seconds). RATE takes K, M, G or T,\n"
	"optionally followed by bps (a bare number is Gb/s). BYTES takes K, M or G as\n"
	"binary multiples, optionally followed by iB (64K = 64KiB = 65536). The event log\n"
	"names each flow as the wire shows it: src (sender IP), dst (server IP), dest_qp\n"
	"(the server's QP); byte counts are frame bytes (Ethernet + IP + UDP + RoCE).\n"
	"\n"
	"exit status: 0 done, 1 error (one line on stderr), 2 usage error.\n"
	"\n"
	"examples:\n"
	"  rocetrace gen serve -B 10.0.0.2 --log serve.jsonl\n"
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
	OPT_HELLO_TIMEOUT,
	OPT_IDLE_TIMEOUT,
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
	{"hello-timeout", required_argument, NULL, OPT_HELLO_TIMEOUT},
	{"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
	{NULL, 0, NULL, 0},
};

#define CMD          "gen"
#define SEC_NS       1000000000ull
#define MAX_RATE_BPS 100000000000000ull /* 100T */

int rt_cmd_gen(int argc, char **argv)
{
	if (argc < 2)
		return rt_cli_usage_error(CMD, "which role: serve or send?");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(help_text, stdout);
		return RT_EXIT_OK;
	}
	bool serve = !strcmp(argv[1], "serve");
	if (!serve && strcmp(argv[1], "send"))
		return rt_cli_usage_error(CMD, "unknown role '%s' (serve or send)", argv[1]);
	struct rt_gen_config cfg;
	rt_gen_config_default(&cfg);
	if (serve)
		cfg.duration_s = 0;
	uint64_t v;
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":B:p:D:ho:s:q:d:b:r:c:", long_opts, NULL)) != -1) {
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
				return rt_cli_usage_error(
				    CMD, "--backend: '%s' is not udp or verbs", optarg);
			break;
		case 'B':
			cfg.bind_addr = optarg;
			break;
		case 'p':
		case OPT_CONTROL_PORT:
			if (rt_opt_uint(CMD, c == 'p' ? "--port" : "--control-port", optarg, 1,
			                65535, &v))
				return RT_EXIT_USAGE;
			*(c == 'p' ? &cfg.port : &cfg.control_port) = (uint16_t)v;
			break;
		case OPT_DSCP:
		case OPT_CNP_DSCP:
			if (rt_opt_uint(CMD, c == OPT_DSCP ? "--dscp" : "--cnp-dscp", optarg, 0, 63,
			                &v))
				return RT_EXIT_USAGE;
			*(c == OPT_DSCP ? &cfg.dscp : &cfg.cnp_dscp) = (uint8_t)v;
			break;
		case OPT_INTERVAL:
			if (rt_opt_duration(CMD, "--interval", optarg, SEC_NS, SEC_NS / 100,
			                    86400 * SEC_NS, &v))
				return RT_EXIT_USAGE;
			cfg.interval_s = (double)v / 1e9;
			break;
		case OPT_LOG:
			cfg.log_path = optarg;
			break;
		case 'D':
			if (rt_opt_duration(CMD, "--duration", optarg, SEC_NS, 0, 86400 * SEC_NS,
			                    &v))
				return RT_EXIT_USAGE;
			cfg.duration_s = (double)v / 1e9;
			break;
		case 'o':
			if (rt_gen_op_parse(optarg, &cfg.op))
				return rt_cli_usage_error(
				    CMD, "--op: '%s' is not write, send or read", optarg);
			break;
		case 's':
			if (rt_opt_size(CMD, "--size", optarg, 1, RT_GEN_MAX_MSG, &v))
				return RT_EXIT_USAGE;
			cfg.msg_size = (uint32_t)v;
			break;
		case OPT_MTU:
			if (rt_opt_uint(CMD, "--mtu", optarg, 256, 4096, &v))
				return RT_EXIT_USAGE;
			cfg.mtu = (uint32_t)v;
			break;
		case 'q':
			if (rt_opt_uint(CMD, "--qps", optarg, 1, RT_GEN_MAX_QPS, &v))
				return RT_EXIT_USAGE;
			cfg.qps = (unsigned)v;
			break;
		case 'd':
			if (rt_opt_uint(CMD, "--qdepth", optarg, 1, RT_GEN_MAX_QDEPTH, &v))
				return RT_EXIT_USAGE;
			cfg.qdepth = (unsigned)v;
			break;
		case 'b':
			if (rt_opt_size(CMD, "--bytes", optarg, 1, UINT64_MAX, &cfg.bytes))
				return RT_EXIT_USAGE;
			break;
		case 'r':
		case OPT_LINE_RATE:
			if (rt_opt_rate(CMD, c == 'r' ? "--rate" : "--line-rate", optarg,
			                1000000000, 1000000, MAX_RATE_BPS, &v))
				return RT_EXIT_USAGE;
			*(c == 'r' ? &cfg.rate_gbps : &cfg.line_gbps) = (double)v / 1e9;
			break;
		case OPT_TIMEOUT:
			if (rt_opt_duration(CMD, "--timeout", optarg, SEC_NS, 10000, 10 * SEC_NS,
			                    &cfg.timeout_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_NO_DCQCN:
			cfg.dcqcn = false;
			break;
		case OPT_G:
			if (rt_opt_real(CMD, "--dcqcn-g", optarg, 1e-9, 1, &cfg.dcqcn_params.g))
				return RT_EXIT_USAGE;
			break;
		case OPT_ALPHA_PERIOD:
		case OPT_TIMER:
			if (rt_opt_duration(
			        CMD, c == OPT_TIMER ? "--dcqcn-timer" : "--dcqcn-alpha-period",
			        optarg, SEC_NS, 1000, SEC_NS,
			        c == OPT_TIMER ? &cfg.dcqcn_params.timer_ns
			                       : &cfg.dcqcn_params.alpha_period_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_DBYTES:
			if (rt_opt_count(CMD, "--dcqcn-bytes", optarg, 1, UINT64_MAX,
			                 &cfg.dcqcn_params.byte_counter))
				return RT_EXIT_USAGE;
			break;
		case OPT_F:
			if (rt_opt_uint(CMD, "--dcqcn-f", optarg, 0, 1000, &v))
				return RT_EXIT_USAGE;
			cfg.dcqcn_params.f = (unsigned)v;
			break;
		case OPT_RAI:
		case OPT_RHAI:
		case OPT_MIN_RATE:
			if (rt_opt_rate(CMD,
			                c == OPT_RAI    ? "--dcqcn-rai"
			                : c == OPT_RHAI ? "--dcqcn-rhai"
			                                : "--dcqcn-min-rate",
			                optarg, 1000000000, 1, MAX_RATE_BPS, &v))
				return RT_EXIT_USAGE;
			*(c == OPT_RAI    ? &cfg.dcqcn_params.rai_mbps
			  : c == OPT_RHAI ? &cfg.dcqcn_params.rhai_mbps
			                  : &cfg.dcqcn_params.min_mbps) = (double)v / 1e6;
			break;
		case OPT_IB_DEV:
			cfg.ib_dev = optarg;
			break;
		case OPT_SYSFS_ROOT:
			cfg.sysfs_root = optarg;
			break;
		case 'c':
			if (rt_opt_uint(CMD, "--clients", optarg, 1, 64, &v))
				return RT_EXIT_USAGE;
			cfg.clients = (unsigned)v;
			break;
		case OPT_CNP_INTERVAL:
			if (rt_opt_duration(CMD, "--cnp-interval", optarg, SEC_NS, 0, SEC_NS,
			                    &cfg.cnp_interval_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_PFC:
			cfg.pfc = true;
			break;
		case OPT_PFC_PRIORITY:
			if (rt_opt_uint(CMD, "--pfc-priority", optarg, 0, 7, &v))
				return RT_EXIT_USAGE;
			cfg.pfc_priority = (unsigned)v;
			break;
		case OPT_PFC_XOFF:
			if (rt_opt_size(CMD, "--pfc-xoff", optarg, 1, UINT64_MAX,
			                &cfg.pfc_xoff_bytes))
				return RT_EXIT_USAGE;
			break;
		case OPT_HELLO_TIMEOUT:
			if (rt_opt_duration(CMD, "--hello-timeout", optarg, SEC_NS, SEC_NS / 100,
			                    3600 * SEC_NS, &cfg.hello_timeout_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_IDLE_TIMEOUT:
			if (rt_opt_duration(CMD, "--idle-timeout", optarg, SEC_NS, SEC_NS / 10,
			                    86400 * SEC_NS, &cfg.idle_timeout_ns))
				return RT_EXIT_USAGE;
			break;
		default:
			return rt_cli_getopt_error(CMD, c, argv);
		}
	}
	if (!serve) {
		if (optind >= argc)
			return rt_cli_usage_error(CMD, "send: SERVER address missing");
		cfg.server = argv[optind++];
		if (cfg.duration_s <= 0)
			return rt_cli_usage_error(CMD, "send: --duration must be above 0");
	}
	if (optind < argc)
		return rt_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
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
		rc = rt_errmsg(errbuf, EINVAL, "--pfc belongs to the udp backend (a NIC does PFC itself)");
	} else {
#if RT_HAVE_RDMACM
		rc = serve ? rt_gen_verbs_serve(&cfg, stdout, errbuf)
			   : rt_gen_verbs_send(&cfg, stdout, errbuf);
#else
		rc = rt_errmsg(errbuf, EOPNOTSUPP, "this build has no verbs backend (librdmacm missing)");
#endif
	}
	fflush(stdout);
	return rc ? rt_cli_fail(serve ? "gen serve" : "gen send", "%s", errbuf) : RT_EXIT_OK;
}

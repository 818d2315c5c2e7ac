/* rocetrace doctor: option parsing and wiring of doctor/ (one host) and doctor/hosts.c (several). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "doctor/hosts.h"
#include "doctor/prolog.h"
#include "common/launch.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/optable.h"
#include "tools/options.h"
#include "tools/slurm.h"

#define CMD         "doctor"
#define MAX_SECONDS 3600ull
#define MAX_HOSTS   4096

static volatile sig_atomic_t g_stop;

static void help(void)
{
	fputs(
	    "NAME\n"
	    "    rocetrace doctor - is this host ready for lossless RoCE?\n"
	    "\n"
	    "SYNOPSIS\n"
	    "    rocetrace doctor [DEV[:PORT] | NETDEV]... [--json] [--priority P] [--dscp D]\n"
	    "        [--mtu 1024|2048|4096] [--speed RATE] [--interval S] [--traffic S]\n"
	    "        [--capture-from NAME] [--sysfs-root DIR] [--tools-dir DIR]\n"
	    "        [--no-netlink]\n"
	    "    rocetrace doctor --hosts H1,H2,... [--launcher TEMPLATE] [--remote CMD]\n"
	    "        [--timeout S] [--parallel N] [--json] [the options above]\n"
	    "        [DEV|NETDEV]...\n"
	    "    rocetrace doctor --slurm [the --hosts options] [DEV|NETDEV]...\n"
	    "    rocetrace doctor --prolog [the checking options] [DEV[:PORT]|NETDEV]...\n"
	    "\n"
	    "DESCRIPTION\n"
	    "    Checks every RDMA port named (DEV: all its ports; DEV:PORT: one; NETDEV:\n"
	    "    the RDMA port on top of it, or the netdev alone), by default every RDMA\n"
	    "    port of the host, and prints one line per check: pass, warn, FAIL, or\n"
	    "    ---- when it could not check (and why), with the value found, the value\n"
	    "    expected and the command that fixes it. With no RDMA device it says so\n"
	    "    and checks the host's Ethernet netdevs. Without root it checks what it\n"
	    "    can read. docs/DOCTOR.md describes every check.\n"
	    "\n"
	    "    link.state, link.layer, link.speed, link.netdev\n"
	    "        port ACTIVE, Ethernet, its speed; the netdev up\n"
	    "    mtu\n"
	    "        the netdev MTU gives the RoCE MTU required (4096 needs >= 4192)\n"
	    "    gid.roce_v2, gid.index\n"
	    "        a RoCE v2 GID for every address of the netdev; the GID index to pass\n"
	    "        to perftest (-x N) and NCCL (NCCL_IB_GID_INDEX)\n"
	    "    ecn.np, ecn.rp, ecn.cnp\n"
	    "        ECN notification and reaction point on the RoCE priority; CNP DSCP and\n"
	    "        priority\n"
	    "    pfc.enabled, pfc.trust, pfc.dscp_map, pfc.peer\n"
	    "        PFC on the RoCE priority (DCB netlink, else dcb, mlnx_qos, lldptool),\n"
	    "        trust pcp/dscp, DSCP -> priority, the link partner's PFC\n"
	    "    rdma_cm.tos, rdma_cm.mode\n"
	    "        the default ToS and RoCE mode of rdma_cm connections (configfs)\n"
	    "    counters.*\n"
	    "        np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled,\n"
	    "        out_of_buffer, packet_seq_err, PFC pause frames, rx_discards_phy:\n"
	    "        sampled twice --interval apart, and what their movement means\n"
	    "    traffic.* (with --traffic)\n"
	    "        a short capture: RoCE data ECN-capable? DSCP as configured? PFC\n"
	    "        frames on which priority? CNPs?\n"
	    "\n"
	    "OPTIONS\n"
	    "    --json\n"
	    "        Print one JSON object on one line: host, verdict, priority, dscp,\n"
	    "        summary, notes, targets[] with device, port, netdev, gid_index and\n"
	    "        checks{NAME: {status, value, expected, fix, note}}; status is pass,\n"
	    "        warn, fail or unchecked.\n"
	    "    -v, --verbose\n"
	    "        Also print what each passing check means.\n"
	    "    --priority P\n"
	    "        The RoCE priority, lossless and ECN-enabled (0..7). Default 3.\n"
	    "    --dscp D\n"
	    "        The DSCP of RoCE data (0..63). Default 26.\n"
	    "    --mtu 1024|2048|4096\n"
	    "        The RoCE path MTU required. Default 4096.\n"
	    "    --speed RATE\n"
	    "        Fail a link slower than RATE (e.g. 100G; a bare number is bits/s).\n"
	    "        Default: any speed.\n"
	    "    --interval S\n"
	    "        Time between the two counter samples (default 1 s; a unit may\n"
	    "        follow: 500ms). 0 takes one sample and leaves movement unchecked.\n"
	    "    --traffic S\n"
	    "        Capture S seconds (e.g. 2, 500ms) per port and check the live\n"
	    "        traffic: the verbs sniffer on an RDMA port (sees kernel-bypass\n"
	    "        traffic), libpcap on a netdev. Needs CAP_NET_RAW.\n"
	    "    --capture-from NAME\n"
	    "        With --traffic: capture from NAME instead (an RDMA device, a\n"
	    "        netdev such as a mirror port, or a saved pcap/pcapng file).\n"
	    "    --sysfs-root DIR\n"
	    "        Read class/infiniband, class/net, kernel/config/rdma_cm and\n"
	    "        kernel/debug under DIR instead of /sys. Addresses, DCB netlink and\n"
	    "        ethtool still come from this host's kernel.\n"
	    "    --tools-dir DIR\n"
	    "        Run dcb, mlnx_qos and lldptool from DIR instead of $PATH.\n"
	    "    --no-netlink\n"
	    "        Do not ask the kernel over DCB netlink; use the tools only.\n"
	    "    --prolog\n"
	    "        For a scheduler's prolog or health check: under 2 s (counters\n"
	    "        sampled 100 ms apart unless --interval, the tools given 1.1 s in\n"
	    "        all), nothing printed when the host is ready, else one line naming\n"
	    "        the failed checks of each port ('rocetrace doctor: not ready:\n"
	    "        mlx5_0:1 mtu, ecn.np'), fit for a drain reason; a host without an\n"
	    "        RDMA port is not ready. Exit 0 ready, 1 not ready. tools/slurm-prolog\n"
	    "        drains a Slurm node with that line (docs/DOCTOR.md).\n"
	    "    --hosts H1,H2,...\n"
	    "        Run 'rocetrace doctor --json' with the options above on every host\n"
	    "        at once through the launcher and print one table of checks by host,\n"
	    "        the settings that must agree on every host (MTU, trust, DSCP map,\n"
	    "        PFC, CNP DSCP and priority, ECN per priority, GID index) with the\n"
	    "        hosts that differ from the most marked, then each problem with its\n"
	    "        fix. A name may be a Slurm hostlist expression (node[01-16,20]).\n"
	    "        May be repeated.\n"
	    "    --slurm\n"
	    "        Inside a Slurm allocation: --hosts with the job's nodes\n"
	    "        (SLURM_JOB_NODELIST), through 'srun --overlap -N1 -n1 -w {host}'\n"
	    "        (unless --launcher), running this rocetrace's own path there\n"
	    "        (unless --remote).\n"
	    "    --launcher TEMPLATE\n"
	    "        Command prefix that runs a command on {host}; {host} is replaced by\n"
	    "        the host name, or appended when absent. Default: 'ssh {host}'.\n"
	    "        E.g. 'ssh -o BatchMode=yes {host}', 'srun -N1 -w {host}',\n"
	    "        'pdsh -w {host}', 'mpirun -H {host} -n 1', 'ip netns exec {host}'.\n"
	    "    --remote CMD\n"
	    "        The rocetrace command on the hosts (default rocetrace), e.g.\n"
	    "        'sudo /opt/rocetrace/bin/rocetrace'.\n"
	    "    --timeout S\n"
	    "        Give up on a host after S seconds (default 60 plus 8 x --traffic).\n"
	    "    --parallel N\n"
	    "        At most N hosts at once (default: all).\n"
	    "    -h, --help\n"
	    "        Print this help and exit.\n"
	    "\n"
	    "EXIT STATUS\n"
	    "    0 when no check failed (warnings and checks that could not run allowed),\n"
	    "    1 when a check failed, a host gave no report (with --prolog: the host\n"
	    "    is not ready), or on errors, 2 for usage errors.\n"
	    "\n"
	    "EXAMPLES\n"
	    "    rocetrace doctor\n"
	    "    rocetrace doctor mlx5_0:1 --priority 3 --dscp 26 --speed 100G\n"
	    "    rocetrace doctor ens1f0np0 --json | jq '.targets[].checks | map_values(.status)'\n"
	    "    sudo rocetrace doctor mlx5_0 --traffic 2\n"
	    "    rocetrace doctor --hosts node01,node02,node03 --launcher 'ssh -o BatchMode=yes "
	    "{host}'\n"
	    "    rocetrace doctor --hosts 'node[01-16]' --launcher 'srun -N1 -w {host}'\n"
	    "    rocetrace doctor --slurm mlx5_0\n"
	    "    rocetrace doctor --prolog mlx5_0 mlx5_1\n",
	    stdout);
}

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

struct doctor_args {
	struct rt_doctor_config cfg;
	bool json, verbose;
	struct rt_cli_hosts hosts;
	unsigned parallel;
	bool prolog, interval_given;
	struct rt_cli_forward forward; /* words for the remote doctors */
};

static int show_help(struct rt_opt_use *u)
{
	(void)u;
	help();
	return -1;
}

static int mtu_option(struct rt_opt_use *u)
{
	uint64_t v;
	if (rt_opt_uint(CMD, u->opt, u->arg, 256, 4096, &v))
		return RT_EXIT_USAGE;
	if (v != 1024 && v != 2048 && v != 4096)
		return rt_cli_usage_error(CMD, "--mtu: '%s' is not 1024, 2048 or 4096", u->arg);
	*(unsigned *)rt_opt_field(u) = (unsigned)v;
	return 0;
}

/* What the remote doctors get: every checking option, as written. */
static int forward(void *args, const char *name, const char *value)
{
	struct doctor_args *a = args;
	return rt_cli_forward(CMD, &a->forward, name, value);
}

#define AT(member) RT_AT(struct doctor_args, member)

static const struct rt_opt rows[] = {
    {.name = "json", .kind = RT_OPT_FLAG, .at = AT(json)},
    {.name = "verbose", .letter = 'v', .kind = RT_OPT_FLAG, .at = AT(verbose)},
    {.name = "priority",
     .kind = RT_OPT_UINT,
     .at = AT(cfg.priority),
     .store = RT_STORE_UINT,
     .max = 7,
     .forward = true},
    {.name = "dscp",
     .kind = RT_OPT_UINT,
     .at = AT(cfg.dscp),
     .store = RT_STORE_UINT,
     .max = 63,
     .forward = true},
    {.name = "mtu",
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = mtu_option,
     .at = AT(cfg.min_mtu),
     .forward = true},
    {.name = "speed",
     .kind = RT_OPT_RATE,
     .at = AT(cfg.speed_bps),
     .min = 1000000,
     .max = 10000000000000ull,
     .forward = true},
    {.name = "interval",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.interval_ns),
     .max = MAX_SECONDS * 1000000000,
     .given = AT(interval_given),
     .forward = true},
    {.name = "traffic",
     .kind = RT_OPT_DURATION,
     .at = AT(cfg.traffic_ns),
     .min = 1000000,
     .max = MAX_SECONDS * 1000000000,
     .forward = true},
    {.name = "capture-from", .kind = RT_OPT_STRING, .at = AT(cfg.capture_from), .forward = true},
    {.name = "sysfs-root", .kind = RT_OPT_STRING, .at = AT(cfg.sysfs_root), .forward = true},
    {.name = "tools-dir", .kind = RT_OPT_STRING, .at = AT(cfg.tools_dir), .forward = true},
    {.name = "no-netlink", .kind = RT_OPT_CLEAR, .at = AT(cfg.dcb_netlink), .forward = true},
    {.name = "prolog", .kind = RT_OPT_FLAG, .at = AT(prolog)},
    RT_CLI_HOSTS_ROWS(struct doctor_args, hosts, 1000000, MAX_SECONDS * 1000000000),
    {.name = "parallel",
     .kind = RT_OPT_UINT,
     .at = AT(parallel),
     .store = RT_STORE_UINT,
     .min = 1,
     .max = MAX_HOSTS},
    {.name = "help", .letter = 'h', .kind = RT_OPT_CALL, .call = show_help},
};

/* What the options ask for together; 0 or the usage exit status. */
static int check_args(struct doctor_args *a)
{
	int rc = rt_cli_slurm(CMD, &a->hosts);
	if (rc)
		return rc;
	if (!a->hosts.names.n &&
	    (a->hosts.launcher || a->hosts.remote || a->hosts.timeout_ns || a->parallel))
		return rt_cli_usage_error(CMD,
		                          "--launcher, --remote, --timeout and --parallel need "
		                          "--hosts or --slurm");
	if (a->prolog && (a->hosts.names.n || a->json || a->verbose || a->cfg.traffic_ns))
		return rt_cli_usage_error(CMD, "--prolog checks this host and prints one line: not "
		                               "with --hosts, --slurm, --json, -v or --traffic");
	if (a->cfg.capture_from && !a->cfg.traffic_ns)
		return rt_cli_usage_error(CMD, "--capture-from needs --traffic");
	return 0;
}

const struct rt_opt_table rt_doctor_options = {
    .cmd = CMD, .rows = rows, .nrows = sizeof(rows) / sizeof(rows[0]), .forward = forward};

static int parse_args(int argc, char **argv, struct doctor_args *a)
{
	int rc = rt_opt_parse(&rt_doctor_options, a, argc, argv);
	if (rc)
		return rc;
	return check_args(a);
}

static int run_hosts(struct doctor_args *a, int argc, char **argv)
{
	struct rt_hostlist hl = {0};
	int rc =
	    rt_cli_hosts_expand(CMD, a->hosts.names.v, a->hosts.names.n, false, MAX_HOSTS, &hl);
	for (int i = optind; i < argc && !rc; i++)
		rc = rt_cli_forward(CMD, &a->forward, NULL, argv[i]);
	if (rc) {
		rt_hostlist_free(&hl);
		return rc;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct rt_doctor_hosts_opts o = {
	    .launcher = a->hosts.launcher,
	    .remote = a->hosts.remote,
	    .args = a->forward.argv,
	    .timeout_ns = a->hosts.timeout_ns
	                      ? a->hosts.timeout_ns
	                      : 60000000000ull + 8 * a->cfg.traffic_ns + a->cfg.interval_ns,
	    .max_parallel = a->parallel,
	    .json = a->json,
	    .stop = &g_stop,
	};
	const char *cols = getenv("COLUMNS");
	if (cols && atoi(cols) >= 40)
		o.width = (unsigned)atoi(cols);
	char errbuf[RT_ERRBUF_SIZE];
	rc = rt_doctor_hosts(&o, (const char *const *)hl.names, hl.n, stdout, errbuf);
	rt_hostlist_free(&hl);
	if (rc < 0)
		return rt_cli_fail(CMD, "%s", errbuf);
	return g_stop ? RT_EXIT_ERROR : rc;
}

int rt_cmd_doctor(int argc, char **argv)
{
	struct doctor_args a;
	memset(&a, 0, sizeof(a));
	rt_doctor_config_init(&a.cfg);
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc;
	if (a.hosts.names.n)
		return run_hosts(&a, argc, argv);

	/* a sysfs tree that is not there would check nothing and pass */
	struct stat st;
	if (a.cfg.sysfs_root && stat(a.cfg.sysfs_root, &st) < 0)
		return rt_cli_fail(CMD, "--sysfs-root %s: %s", a.cfg.sysfs_root, strerror(errno));
	if (a.cfg.sysfs_root && !S_ISDIR(st.st_mode))
		return rt_cli_fail(CMD, "--sysfs-root %s: not a directory", a.cfg.sysfs_root);
	struct rt_doc_report report;
	char errbuf[RT_ERRBUF_SIZE];
	if (a.prolog)
		rt_doctor_prolog_config(&a.cfg, a.interval_given);
	if (rt_doctor_run(&a.cfg, argv + optind, argc - optind, &report, errbuf) < 0)
		return rt_cli_fail(CMD, "%s", errbuf);
	if (a.prolog) {
		bool ready = rt_doctor_print_prolog(&report, stdout);
		rt_doctor_report_free(&report);
		if (fflush(stdout) != 0)
			return rt_cli_fail(CMD, "writing the report: %s", strerror(errno));
		return ready ? RT_EXIT_OK : RT_EXIT_ERROR;
	}
	if (a.json)
		rc = rt_doctor_print_json(&report, stdout);
	else {
		const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
		bool color =
		    isatty(STDOUT_FILENO) && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
		rc = rt_doctor_print_text(&report, stdout, color, a.verbose);
	}
	enum rt_doc_status verdict = rt_doctor_verdict(&report);
	rt_doctor_report_free(&report);
	if (rc < 0)
		return rt_cli_fail(CMD, "writing the report: %s", strerror(-rc));
	return verdict == RT_DOC_FAIL ? RT_EXIT_ERROR : RT_EXIT_OK;
}

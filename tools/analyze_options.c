/* analyze, timeline and report's command line: the option table and its parsing (help: analyze_help.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dissect/pktkind.h"
#include "tools/analyze_options.h"
#include "tools/cli.h"
#include "tools/bucket_default.h"
#include "tools/commands.h"
#include "tools/optable.h"
#include "tools/options.h"
#include "tools/selection.h"

#define MAX_DURATION_NS      1000000000000000ull /* 1e6 s: --bucket, --episode-gap */
#define AN_MAX_DUP_WINDOW_NS 100000000ull /* --dup-window: 100 ms, the span copies are kept */

/* The commands of the table, as rows name them. */
#define AN                 (1u << RT_MODE_ANALYZE)
#define TL                 (1u << RT_MODE_TIMELINE)
#define RP                 (1u << RT_MODE_REPORT)
#define AT(member)         RT_AT(struct rt_analyze_args, member)
#define ONLY_ANALYZE(opt)  opt " is an option of 'rocetrace analyze'"
#define ONLY_TIMELINE(opt) opt " is an option of 'rocetrace timeline'"

/* --vantage-sample: M at most this (a finer sample matches too few packets to say anything) */
#define MAX_SAMPLE_M 1048576u

/* --vantage-sample K/M: K in M of the packets matched across the points. */
static int vantage_sample_option(struct rt_opt_use *u)
{
	struct rt_analyze_args *a = u->args;
	const char *slash = strchr(u->arg, '/');
	char k_text[24];
	uint64_t k, m;
	if (!slash || (size_t)(slash - u->arg) >= sizeof(k_text))
		return rt_cli_usage_error(u->cmd, "%s takes K/M, K packets in M (1/16), not '%s'",
		                          u->opt, u->arg);
	memcpy(k_text, u->arg, (size_t)(slash - u->arg));
	k_text[slash - u->arg] = '\0';
	if (rt_opt_uint(u->cmd, "--vantage-sample M", slash + 1, 1, MAX_SAMPLE_M, &m) ||
	    rt_opt_uint(u->cmd, "--vantage-sample K", k_text, 1, m, &k))
		return RT_EXIT_USAGE;
	a->ao.vantage_sample_k = (uint32_t)k;
	a->ao.vantage_sample_m = (uint32_t)m;
	return 0;
}

static int show_help(struct rt_opt_use *u)
{
	const struct rt_analyze_args *a = u->args;
	fputs(rt_analyze_help(a->mode), stdout);
	return -1;
}

/* The options of analyze, timeline and report: each row says which of them it serves. */
static const struct rt_opt rows[] = {
    {.name = "help", .letter = 'h', .kind = RT_OPT_CALL, .call = show_help},
    {.name = "filter", .letter = 'f', .kind = RT_OPT_STRING, .at = AT(bpf)},
    RT_CLI_FILES_ROWS(struct rt_analyze_args, files),
    {.name = "json", .kind = RT_OPT_FLAG, .at = AT(json), .cmds = AN},
    {.name = "json",
     .kind = RT_OPT_REFUSED,
     .cmds = TL,
     .refused = "unknown option '--json' (use --format json)"},
    {.name = "json",
     .kind = RT_OPT_REFUSED,
     .cmds = RP,
     .refused = "--json is an option of 'rocetrace analyze' (the page holds that document)"},
    {.name = "link-speed",
     .kind = RT_OPT_RATE,
     .at = AT(ao.link_speed_bps),
     .given = AT(fixed.link_speed),
     .min = 1000000,
     .max = 100000000000000ull},
    {.name = "counters", .kind = RT_OPT_STRING, .at = AT(counters)},
    {.name = "source-log", .kind = RT_OPT_STRING, .at = AT(srclog)},
    {.name = "udp-port",
     .kind = RT_OPT_UINT,
     .at = AT(ao.udp_port),
     .given = AT(fixed.udp_port),
     .store = RT_STORE_U16,
     .min = 1,
     .max = 65535},
    {.name = "storm-threshold",
     .kind = RT_OPT_DURATION,
     .at = AT(ao.storm_ns),
     .given = AT(fixed.storm),
     .min = 1000,
     .max = 86400000000000ull,
     .cmds = AN | RP,
     .refused = ONLY_ANALYZE("--storm-threshold")},
    /* the older spelling, in whole ms */
    {.name = "storm-ms",
     .kind = RT_OPT_UINT,
     .at = AT(ao.storm_ns),
     .given = AT(fixed.storm_ms),
     .min = 1,
     .max = 86400000,
     .mul = 1000000,
     .cmds = AN | RP,
     .refused = ONLY_ANALYZE("--storm-ms")},
    {.name = "fail-on",
     .kind = RT_OPT_CHOICE,
     .choices = "warning|error",
     .store = RT_STORE_UINT,
     .at = AT(fail_on),
     .given = AT(fail_on_given),
     .cmds = AN,
     .refused = ONLY_ANALYZE("--fail-on")},
    {.name = "top",
     .kind = RT_OPT_UINT,
     .at = AT(top),
     .max = 1000000,
     .cmds = AN,
     .refused = ONLY_ANALYZE("--top")},
    {.name = "bucket",
     .kind = RT_OPT_DURATION_WAS_NS,
     .at = AT(tlo.bucket_ns),
     .min = RT_AN_BUCKET_MIN_NS,
     .max = RT_AN_BUCKET_MAX_NS},
    RT_SELECTION_ROWS(struct rt_analyze_args, sel),
    {.name = "format",
     .kind = RT_OPT_CHOICE,
     .choices = "csv|json",
     .store = RT_STORE_BOOL,
     .at = AT(tlo.json),
     .cmds = TL,
     .refused = ONLY_TIMELINE("--format")},
    {.name = "episode-gap",
     .kind = RT_OPT_DURATION_WAS_NS,
     .at = AT(ao.episode_gap_ns),
     .given = AT(fixed.episode_gap),
     .min = 1000,
     .max = MAX_DURATION_NS,
     .cmds = AN | RP,
     .refused = ONLY_ANALYZE("--episode-gap")},
    {.name = "rate-window",
     .kind = RT_OPT_DURATION_WAS_NS,
     .at = AT(ao.rate_window_ns),
     .given = AT(fixed.rate_window),
     .min = 1000,
     .max = 4000000000ull,
     .cmds = AN | RP,
     .refused = ONLY_ANALYZE("--rate-window")},
    {.name = "dup-window",
     .kind = RT_OPT_DURATION_WAS_NS,
     .at = AT(ao.dup_window_ns),
     .given = AT(fixed.dup_window),
     .max = AN_MAX_DUP_WINDOW_NS},
    {.name = "max-flows",
     .kind = RT_OPT_UINT,
     .at = AT(ao.max_flows),
     .store = RT_STORE_U32,
     .min = 1,
     .max = UINT32_MAX - 1},
    {.name = "no-idle",
     .kind = RT_OPT_FLAG,
     .at = AT(tlo.no_idle),
     .cmds = TL,
     .refused = ONLY_TIMELINE("--no-idle")},
    {.name = "by-vantage",
     .kind = RT_OPT_FLAG,
     .at = AT(by_vantage),
     .cmds = TL,
     .refused = ONLY_TIMELINE("--by-vantage")},
    {.name = "title",
     .kind = RT_OPT_STRING,
     .at = AT(title),
     .cmds = RP,
     .refused = "--title is an option of 'rocetrace report'"},
    {.name = "vantage-window",
     .kind = RT_OPT_DURATION,
     .at = AT(ao.vantage_window_ns),
     .min = 1000,
     .max = 10000000000ull,
     .cmds = AN | RP,
     .refused = ONLY_ANALYZE("--vantage-window")},
    {.name = "vantage-sample",
     .kind = RT_OPT_CALL,
     .has_arg = required_argument,
     .call = vantage_sample_option,
     .cmds = AN | RP,
     .refused = ONLY_ANALYZE("--vantage-sample")},
    {.letter = 'o', .kind = RT_OPT_STRING, .at = AT(out_path), .cmds = TL | RP},
    {.name = "partial",
     .kind = RT_OPT_STRING,
     .at = AT(partial_out),
     .cmds = AN,
     .refused = ONLY_ANALYZE("--partial")},
    {.name = "point",
     .kind = RT_OPT_STRING,
     .at = AT(point),
     .cmds = AN,
     .refused = ONLY_ANALYZE("--point")},
    RT_CLI_THREADS_ROW(struct rt_analyze_args, threads),
};

#define TABLE(name, mode)                                                                          \
	{                                                                                          \
		.cmd = name, .rows = rows, .nrows = sizeof(rows) / sizeof(rows[0]),                \
		.cmd_bit = 1u << (mode)                                                            \
	}
const struct rt_opt_table rt_analyze_options[3] = {TABLE("analyze", RT_MODE_ANALYZE),
                                                   TABLE("timeline", RT_MODE_TIMELINE),
                                                   TABLE("report", RT_MODE_REPORT)};

int rt_analyze_parse_args(int argc, char **argv, struct rt_analyze_args *a)
{
	rt_analyzer_opts_init(&a->ao);
	a->threads = rt_cli_cpus();
	a->sel.allowed = RT_PK_FLOW_KINDS;
	int rc = rt_opt_parse(&rt_analyze_options[a->mode], a, argc, argv);
	if (rc)
		return rc;
	a->ao.flow = a->sel.flow;
	a->ao.conversation = a->sel.conversation;
	a->ao.kinds = a->sel.kinds;
	if (a->point && !a->partial_out)
		return rt_cli_usage_error(a->cmd,
		                          "--point names the vantage point of --partial OUT");
	if (a->mode == RT_MODE_ANALYZE && a->tlo.bucket_ns && !a->partial_out)
		return rt_cli_usage_error(a->cmd, "--bucket with analyze is the length of the time "
		                                  "buckets a partial keeps (--partial OUT); the "
		                                  "timeline is 'rocetrace timeline'");
	rc = rt_cli_files_operands(a->cmd, argc, argv, optind, &a->files, &a->bpf, &a->bpf_joined);
	if (rc == 0 && a->mode == RT_MODE_TIMELINE && (a->ao.conversation || a->ao.kinds) &&
	    rt_cli_files_stdin(&a->files))
		return rt_cli_usage_error(a->cmd,
		                          "--conversation and --kind read the capture twice "
		                          "(which flows they select is known at its end): "
		                          "give a file, not standard input");
	return rc;
}

/* analyze, timeline and report's command line: the option table, parsing and the checks (help: analyze_help.c). */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/flowsel.h"
#include "tools/analyze_options.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"

#define MAX_DURATION_NS      1000000000000000ull /* 1e6 s: --bucket, --episode-gap */
#define AN_MAX_DUP_WINDOW_NS 100000000ull /* --dup-window: 100 ms, the span copies are kept */
/* --bucket: shorter ones are surely a mistake (a 64-byte frame lasts 5 ns at 100G; rows explode) */
#define MIN_BUCKET_NS 100ull

enum {
	OPT_JSON = 256,
	OPT_LINK,
	OPT_COUNTERS,
	OPT_SRCLOG,
	OPT_PORT,
	OPT_STORM,
	OPT_TOP,
	OPT_BUCKET,
	OPT_FLOW,
	OPT_FORMAT,
	OPT_GAP,
	OPT_RATEWIN,
	OPT_DUPWIN,
	OPT_MAXFLOWS,
	OPT_NOIDLE,
	OPT_BYVANTAGE,
	OPT_VANTAGE,
	OPT_TITLE,
	OPT_VWINDOW,
};

int rt_analyze_parse_args(int argc, char **argv, struct rt_analyze_args *a)
{
	const char *cmd = a->cmd;
	enum rt_analyze_mode mode = a->mode;
	bool timeline = mode == RT_MODE_TIMELINE, report = mode == RT_MODE_REPORT;
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"filter", required_argument, NULL, 'f'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"link-speed", required_argument, NULL, OPT_LINK},
	    {"counters", required_argument, NULL, OPT_COUNTERS},
	    {"source-log", required_argument, NULL, OPT_SRCLOG},
	    {"udp-port", required_argument, NULL, OPT_PORT},
	    {"storm-ms", required_argument, NULL, OPT_STORM},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"bucket", required_argument, NULL, OPT_BUCKET},
	    {"flow", required_argument, NULL, OPT_FLOW},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"episode-gap", required_argument, NULL, OPT_GAP},
	    {"rate-window", required_argument, NULL, OPT_RATEWIN},
	    {"dup-window", required_argument, NULL, OPT_DUPWIN},
	    {"max-flows", required_argument, NULL, OPT_MAXFLOWS},
	    {"no-idle", no_argument, NULL, OPT_NOIDLE},
	    {"by-vantage", no_argument, NULL, OPT_BYVANTAGE},
	    {"vantage", required_argument, NULL, OPT_VANTAGE},
	    {"title", required_argument, NULL, OPT_TITLE},
	    {"vantage-window", required_argument, NULL, OPT_VWINDOW},
	    {NULL, 0, NULL, 0},
	};
	struct rt_analyzer_opts *ao = &a->ao;
	struct rt_flowsel sel;
	rt_analyzer_opts_init(ao);
	uint64_t port = RT_ROCEV2_PORT, v;
	const char *shortopts = mode != RT_MODE_ANALYZE ? ":hf:r:o:" : ":hf:r:";
	int c, li, rc;
	optind = 1;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
		switch (c) {
		case 'h':
			fputs(rt_analyze_help(mode), stdout);
			return -1;
		case 'f':
			a->bpf = optarg;
			break;
		case 'r':
			if ((rc = rt_cli_files_add(cmd, &a->files, optarg, NULL)))
				return rc;
			break;
		case OPT_VANTAGE:
			if ((rc = rt_cli_files_vantage(cmd, &a->files, optarg)))
				return rc;
			break;
		case OPT_JSON:
			if (timeline)
				return rt_cli_usage_error(
				    cmd, "unknown option '--json' (use --format json)");
			if (report)
				return rt_cli_usage_error(
				    cmd, "--json is an option of 'rocetrace analyze' (the page "
				         "holds that document)");
			a->json = true;
			break;
		case OPT_LINK:
			if (rt_opt_rate(cmd, "--link-speed", optarg, 1000000, 100000000000000ull,
			                &ao->link_speed_bps))
				return RT_EXIT_USAGE;
			break;
		case OPT_COUNTERS:
			a->counters = optarg;
			break;
		case OPT_SRCLOG:
			a->srclog = optarg;
			break;
		case OPT_STORM:
		case OPT_TOP:
		case OPT_GAP:
		case OPT_RATEWIN:
			if (timeline || (report && c == OPT_TOP))
				return rt_cli_usage_error(
				    cmd, "--%s is an option of 'rocetrace analyze'",
				    longopts[li].name);
			if (c == OPT_STORM) {
				if (rt_opt_uint(cmd, "--storm-ms", optarg, 1, 86400000, &v))
					return RT_EXIT_USAGE;
				ao->storm_ns = v * 1000000ull;
			} else if (c == OPT_TOP) {
				if (rt_opt_uint(cmd, "--top", optarg, 0, 1000000, &a->top))
					return RT_EXIT_USAGE;
			} else if (c == OPT_GAP) {
				if (rt_opt_duration_was_ns(cmd, "--episode-gap", optarg, 1000,
				                           MAX_DURATION_NS, &ao->episode_gap_ns))
					return RT_EXIT_USAGE;
			} else if (rt_opt_duration_was_ns(cmd, "--rate-window", optarg, 1000,
			                                  4000000000ull, &ao->rate_window_ns)) {
				return RT_EXIT_USAGE;
			}
			break;
		case OPT_PORT:
			if (rt_opt_uint(cmd, "--udp-port", optarg, 1, 65535, &port))
				return RT_EXIT_USAGE;
			break;
		case OPT_DUPWIN:
			if (rt_opt_duration_was_ns(cmd, "--dup-window", optarg, 0,
			                           AN_MAX_DUP_WINDOW_NS, &ao->dup_window_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_VWINDOW:
			if (timeline)
				return rt_cli_usage_error(
				    cmd, "--vantage-window is an option of 'rocetrace analyze'");
			if (rt_opt_duration(cmd, "--vantage-window", optarg, 1000, 10000000000ull,
			                    &ao->vantage_window_ns))
				return RT_EXIT_USAGE;
			break;
		case OPT_MAXFLOWS:
			if (rt_opt_uint(cmd, "--max-flows", optarg, 1, UINT32_MAX - 1, &v))
				return RT_EXIT_USAGE;
			ao->max_flows = (uint32_t)v;
			break;
		case OPT_FLOW:
			/* checked here, before anything is opened or read */
			if (rt_flowsel_parse(&sel, optarg) < 0)
				return rt_cli_usage_error(cmd,
				                          "--flow: bad selector '%s' (want %s)",
				                          optarg, RT_FLOWSEL_FORMS);
			ao->flow = optarg;
			break;
		case OPT_TITLE:
			if (!report)
				return rt_cli_usage_error(
				    cmd, "--title is an option of 'rocetrace report'");
			a->title = optarg;
			break;
		case OPT_BUCKET:
		case OPT_FORMAT:
		case OPT_NOIDLE:
		case OPT_BYVANTAGE:
		case 'o':
			if (!timeline && !(report && (c == OPT_BUCKET || c == 'o')))
				return rt_cli_usage_error(
				    cmd, "%s%s is an option of 'rocetrace timeline'",
				    li < 0 ? "-" : "--", li < 0 ? "o" : longopts[li].name);
			if (c == OPT_BUCKET) {
				if (rt_opt_duration_was_ns(cmd, "--bucket", optarg, MIN_BUCKET_NS,
				                           MAX_DURATION_NS, &a->tlo.bucket_ns))
					return RT_EXIT_USAGE;
			} else if (c == OPT_NOIDLE) {
				a->tlo.no_idle = true;
			} else if (c == OPT_BYVANTAGE) {
				a->by_vantage = true;
			} else if (c == OPT_FORMAT) {
				if (!strcmp(optarg, "json"))
					a->tlo.json = true;
				else if (strcmp(optarg, "csv"))
					return rt_cli_usage_error(
					    cmd, "--format: '%s' is not csv or json", optarg);
			} else {
				a->out_path = optarg;
			}
			break;
		default:
			return rt_cli_getopt_error(cmd, c, argv);
		}
	}
	int orc =
	    rt_cli_files_operands(cmd, argc, argv, optind, &a->files, &a->bpf, &a->bpf_joined);
	if (orc)
		return orc;
	ao->udp_port = (uint16_t)port;
	return 0;
}

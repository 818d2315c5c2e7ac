/* capture's command line: the option table, parsing and the checks (the help text: capture_help.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/results.h"
#include "render/metrics.h"
#include "common/outfile.h"
#include "tools/bucket_default.h"
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
	if (a->bucket_ns && !a->analyze_there)
		return rt_cli_usage_error(CMD,
		                          "--bucket is the time buckets of the hosts' partials: "
		                          "it needs --analyze-there (a timeline of fetched files "
		                          "takes its own)");
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
	rt_capture_help();
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
    {.name = "bucket",
     .kind = RT_OPT_DURATION,
     .at = AT(bucket_ns),
     .min = RT_AN_BUCKET_MIN_NS,
     .max = RT_AN_BUCKET_MAX_NS},
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
	if (a->analyze_there || a->fetch || a->bucket_ns)
		return rt_cli_usage_error(
		    CMD, "--analyze-there, --bucket and --fetch need --hosts or --slurm "
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

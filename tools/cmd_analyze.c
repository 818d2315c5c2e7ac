/* `rocetrace analyze`, `timeline` and `report`: read a capture, dissect each frame, feed the analyzer, report. */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analyze/analyze.h"
#include "analyze/fanout.h"
#include "analyze/feed.h"
#include "analyze/partial.h"
#include "render/sinks.h"
#include "capture/pump.h"
#include "common/outfile.h"
#include "common/textfmt.h"
#include "dissect/dissect.h"
#include "tools/analyze_options.h"
#include "tools/analyze_partial.h"
#include "tools/bucket_default.h"
#include "tools/cli.h"
#include "tools/commands.h"

/* The progress line of a big file on a terminal: frames read, flows found. */
struct progress {
	const struct rt_an_feed *feed;
	struct rt_cli_progress line;
};

static void on_progress(void *ctx, uint64_t frames, uint64_t elapsed_ns)
{
	struct progress *p = ctx;
	char flows[32];

	snprintf(flows, sizeof(flows), "%llu flows", (unsigned long long)rt_an_feed_flows(p->feed));
	rt_cli_progress_line(&p->line, frames, flows, elapsed_ns);
}

/*
 * Read every frame of the files into the analysis (the pump's sink `feed`); *res says how the
 * read ended. 0 or a negative errno (errbuf set).
 */
static int run(struct rt_an_feed *feed, const struct rt_cli_files *files, const char *bpf,
               uint16_t udp_port, const char *cmd, struct rt_pump_result *res, char *errbuf)
{
	struct rt_dissect_opts dopts;
	struct progress pr = {.feed = feed, .line = {.cmd = cmd}};
	struct rt_pump_sink sink;
	struct rt_pump_config pc = {.decode = &dopts, .sinks = &sink, .nsinks = 1, .ctx = &pr};
	struct rt_source *src;
	int rc = rt_pump_open_files(&src, files->files, files->n, bpf, errbuf);

	memset(res, 0, sizeof(*res));
	if (rc == -EINTR && rt_pump_stopping()) { /* Ctrl-C before a pipe gave its header */
		res->end = RT_PUMP_INTERRUPTED;
		res->signal = rt_pump_stop_signal();
		return 0;
	}
	if (rc < 0)
		return rc;
	rt_dissect_opts_init(&dopts);
	dopts.udp_port = udp_port;
	rt_an_feed_sink(feed, &sink);
	if (rt_cli_progress_wanted(false))
		pc.on_progress = on_progress;
	rc = rt_pump_run(src, &pc, res, errbuf);
	rt_cli_progress_end(&pr.line);
	rt_source_close(src);
	return rc;
}

/* What analyze would warn about, on stderr (a timeline has no report to hold it). */
static void warn_on_stderr(struct rt_analyzer *an, const char *cmd)
{
	struct rt_an_warning w[RT_AN_WARNINGS_MAX];
	unsigned nw = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
	rt_analyze_warn_lines(cmd, w, nw < RT_AN_WARNINGS_MAX ? nw : RT_AN_WARNINGS_MAX);
}

/*
 * The read error, on stderr, and what the output holds: -o OUT left as it was (`kept`: the output
 * failed), or the rows of the frames before it; the report, the page (`page`) or the partial
 * (`what`, "no partial written" when `kept`) covers them.
 */
static void say_read_error(const char *cmd, const char *what, const char *read_err,
                           const char *out_path, bool kept, bool page, uint64_t frames)
{
	if (kept && out_path)
		fprintf(stderr, "rocetrace %s: %s (%s is left as it was)\n", cmd, read_err,
		        out_path);
	else if (kept)
		fprintf(stderr, "rocetrace %s: %s (no %s written)\n", cmd, read_err, what);
	else if (out_path && !page)
		fprintf(stderr,
		        "rocetrace %s: %s (reading stopped early: %s holds the rows of the frames "
		        "before it)\n",
		        cmd, read_err, out_path);
	else if (frames || !page)
		fprintf(stderr, "rocetrace %s: %s (the %s covers the frames before it)\n", cmd,
		        read_err, what);
	else
		fprintf(stderr, "rocetrace %s: %s (no frame read: the page says only this)\n", cmd,
		        read_err);
}

/* What stopped the reading, for the report: the read error, else the signal that cut reading or the end short ("": none). */
static const char *stop_reason(char *buf, size_t size, const char *read_err,
                               const struct rt_pump_result *res, int frc, int finish_sig)
{
	if (read_err[0])
		snprintf(buf, size, "%s", read_err);
	else if (res->end == RT_PUMP_INTERRUPTED)
		snprintf(buf, size, "interrupted by signal %d", res->signal);
	else if (frc == -EINTR)
		snprintf(buf, size, "interrupted by signal %d while the figures were worked out",
		         finish_sig);
	else
		buf[0] = '\0';
	return buf;
}

/* The analyzer whose end phase a signal cuts short (set while rt_an_feed_finish runs), and that signal. */
static struct rt_analyzer *volatile finishing;
static volatile sig_atomic_t finish_signal;

static void on_signal(int sig)
{
	struct rt_analyzer *an = finishing;
	if (an) {
		finish_signal = sig;
		rt_analyzer_interrupt(an);
	}
}

static int load_side_files(struct rt_analyzer *an, const char *counters, const char *srclog,
                           const char *cmd, char *errbuf)
{
	if (counters && rt_analyzer_load_counters(an, counters, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
		return -1;
	}
	if (srclog && rt_analyzer_load_source_log(an, srclog, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
		return -1;
	}
	return 0;
}

static int run_command(struct rt_analyze_args *a);
static int report_defaults(struct rt_analyze_args *a, char *out, size_t outsize, char *title,
                           size_t titlesize);

/* The options into *a (its cmd and mode set), then the run; returns the exit status. */
static int parse_and_run(int argc, char **argv, struct rt_analyze_args *a)
{
	char default_out[4096], default_title[4200];
	int rc = rt_analyze_parse_args(argc, argv, a);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc; /* -1: --help */
	if (a->mode == RT_MODE_REPORT &&
	    report_defaults(a, default_out, sizeof(default_out), default_title,
	                    sizeof(default_title)) < 0) {
		fprintf(stderr, "rocetrace %s: out of memory\n", a->cmd);
		return RT_EXIT_ERROR;
	}
	if ((rc = rt_analyze_partial_inputs(a)) >= 0) /* partial results in: merged */
		return rc;
	if (a->partial_out) {
		/* a partial is one vantage point (every interface of its files): the host's */
		if ((rc = rt_analyze_partial_check(a)) != 0)
			return rc;
		a->ao.partial = true;
		return run_command(a);
	}
	/*
	 * Several files, or the interfaces of one, may be several vantage points: the report follows
	 * packets between them (the timeline too, though it shows no paths: its copies are then the
	 * report's, bucket by bucket)
	 */
	a->ao.vantage = true;
	/* one file, or one capture cut into a rotated set: one clock, read as the single file */
	a->ao.vantage_clocks = !rt_fileset_one_capture(a->files.files, a->files.n);
	return run_command(a);
}

static int common(int argc, char **argv, enum rt_analyze_mode mode)
{
	static const char *const names[] = {"analyze", "timeline", "report"};
	struct rt_analyze_args a = {
	    .cmd = names[mode], .mode = mode, .top = 10}; /* bucket_ns 0: --bucket not given */
	int status = parse_and_run(argc, argv, &a);
	rt_cli_files_free(&a.files);
	rt_selection_free(&a.sel);
	free(a.selected_ids);
	free(a.paths);
	free(a.bpf_joined);
	return status;
}

/*
 * The counters file analyze reads unless --counters names one: FILE.counters.jsonl
 * beside the one FILE (several files: beside exactly one of them), or NULL.
 */
static const char *auto_counters(const struct rt_cli_files *files, char *buf, size_t size)
{
	const char *found = NULL;
	struct stat st;
	for (size_t i = 0; i < files->n; i++) {
		const char *path = files->files[i].path;
		char name[4096];
		if (!strcmp(path, "-") ||
		    (size_t)snprintf(name, sizeof(name), "%s.counters.jsonl", path) >=
		        sizeof(name) ||
		    stat(name, &st) != 0)
			continue;
		if (found)
			return NULL;
		snprintf(buf, size, "%s", name);
		found = buf;
	}
	return found;
}

/*
 * The analysis of the command into *an and *feed: the analyzer with its sink (the timeline's rows or
 * the page to `out`, or the report), fed by the pump's sink *feed; timeline --by-vantage: a fan-out
 * by capture point too, each point's rows to the output of the analyzer's sink. 0, or the exit
 * status (message printed). *html: the page, for the reading's error.
 */
static int analysis(struct rt_analyze_args *a, FILE *out, const char *bucket_note,
                    struct rt_analyzer **an, struct rt_an_feed **feed, struct rt_an_html **html)
{
	char errbuf[RT_ERRBUF_SIZE] = "";
	*feed = NULL;
	if (!(*an = rt_analyzer_new(&a->ao, errbuf))) {
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
		return errno == EINVAL ? RT_EXIT_USAGE : RT_EXIT_ERROR;
	}
	struct rt_an_fanout *fo = NULL;
	struct rt_an_sink sink;
	struct rt_an_html_opts ho = {.bucket_ns = a->tlo.bucket_ns,
	                             .title = a->title,
	                             .files = a->paths,
	                             .nfiles = (unsigned)a->files.n,
	                             .threads = a->threads,
	                             .counters = a->counters,
	                             .source_log = a->srclog,
	                             .bucket_note = bucket_note};
	bool by_point = a->mode == RT_MODE_TIMELINE && a->by_vantage;
	if (a->partial_out) /* one point: its frames split among threads by host pair */
		rt_analyzer_one_point(*an);
	int rc = rt_an_feed_new(feed, *an, a->threads, errbuf);
	if (rc == 0 && by_point) { /* the points' names as the pump announces them */
		a->tlo.vantage_name = rt_an_feed_point_name;
		a->tlo.vantage_ctx = *feed;
	}
	if (rc == 0 && a->partial_out) /* no report: the partial (its buckets kept) at the end */
		rc = rt_partial_bucket_sink(*an, a->tlo.bucket_ns, errbuf);
	if (rc == 0 && !a->partial_out)
		rc = a->mode == RT_MODE_REPORT
		         ? rt_an_report_html_sink(out, &ho, &sink, html, errbuf)
		     : a->mode == RT_MODE_TIMELINE
		         ? rt_an_timeline_sink(out, &a->tlo, &sink, errbuf)
		     : a->json ? rt_an_report_json_sink(stdout, &sink, errbuf)
		               : rt_an_report_text_sink(stdout, (unsigned)a->top, &sink, errbuf);
	if (rc == 0 && !a->partial_out)
		rc = rt_analyzer_add_sink(*an, &sink, errbuf);
	if (rc == 0 && by_point &&
	    (rc = rt_an_fanout_new(&fo, &a->ao, rt_an_timeline_point_sink, sink.ctx, errbuf)) == 0)
		rt_an_feed_fanout(*feed, fo);
	if (rc < 0) {
		rt_an_feed_free(*feed);
		rt_analyzer_free(*an);
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
		return RT_EXIT_ERROR;
	}
	return 0;
}

/* What the page says about reading the capture: its error, or the signal that stopped it (exit status as analyze's). */
static void page_note(struct rt_an_html *html, const char *read_err, int signal)
{
	char msg[RT_ERRBUF_SIZE + 64];
	if (read_err[0]) {
		rt_an_html_input_error(html, read_err, RT_EXIT_ERROR);
	} else if (signal) {
		snprintf(msg, sizeof(msg),
		         "interrupted by signal %d: the page covers the frames read before it",
		         signal);
		rt_an_html_input_error(html, msg, 128 + signal);
	}
}

/*
 * The page's files (a->paths) and its default path and title, from the first FILE: its name without its
 * folder and its .gz, .pcap, .pcapng (or .cap) ending or a partial's .rtpart, plus .html, in the current folder; "report.html" for
 * standard input. 0, or -ENOMEM.
 */
static int report_defaults(struct rt_analyze_args *a, char *out, size_t outsize, char *title,
                           size_t titlesize)
{
	const char *first = a->files.files[0].path;
	if (!(a->paths = calloc(a->files.n, sizeof(*a->paths))))
		return -ENOMEM;
	for (size_t i = 0; i < a->files.n; i++)
		a->paths[i] = a->files.files[i].path;
	if (!a->title) {
		const char *shown = !strcmp(first, "-") ? "standard input" : first;
		if (a->files.n > 1)
			snprintf(title, titlesize, "rocetrace report: %s and %zu more file%s",
			         shown, a->files.n - 1, a->files.n > 2 ? "s" : "");
		else
			snprintf(title, titlesize, "rocetrace report: %s", shown);
		a->title = title;
	}
	if (a->out_path)
		return 0;
	char base[4096];
	snprintf(base, sizeof(base), "%s", first);
	char *name = basename(base);
	static const char *const endings[] = {".gz", ".pcapng", ".pcap", ".cap", ".rtpart"};
	for (unsigned i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
		size_t n = strlen(name), e = strlen(endings[i]);
		if (n > e && !strcmp(name + n - e, endings[i]))
			name[n - e] = 0;
	}
	if (!strcmp(first, "-") || !name[0] || !strcmp(name, ".") || !strcmp(name, "/"))
		snprintf(out, outsize, "report.html");
	else
		snprintf(out, outsize, "%.*s.html", (int)(outsize - 6), name);
	a->out_path = out;
	return 0;
}

/* Whether one of the files (standard input aside) does not exist: then no page, only the error. */
static bool file_missing(const struct rt_cli_files *files)
{
	struct stat st;
	for (size_t i = 0; i < files->n; i++)
		if (strcmp(files->files[i].path, "-") && stat(files->files[i].path, &st) != 0)
			return true;
	return false;
}

/* The input (a FILE or a side file) that writing `out` would replace, or NULL. */
static const char *input_at(const struct rt_analyze_args *a, const char *out)
{
	const char *side[] = {a->counters, a->srclog};
	for (size_t i = 0; i < a->files.n + 2; i++) {
		const char *in = i < a->files.n ? a->files.files[i].path : side[i - a->files.n];
		if (in && strcmp(in, "-") && rt_output_replaces(out, in))
			return in;
	}
	return NULL;
}

/* Whether the analysis holds a finding of severity `sev` or worse (analyze --fail-on): they come most severe first. */
static bool finding_at_least(struct rt_analyzer *an, enum rt_severity sev)
{
	const struct rt_results *r = rt_analyzer_results(an);
	return r && r->nfindings && r->findings[0].severity >= sev;
}

/* After the options: open the output, analyze the files, report. Returns the exit status. */
static int run_command(struct rt_analyze_args *a)
{
	const char *cmd = a->cmd;
	char errbuf[RT_ERRBUF_SIZE] = "";
	/* -o -: standard output, as without -o (a page too) */
	if (a->out_path && !strcmp(a->out_path, "-"))
		a->out_path = NULL;
	/* -o OUT: rows go to a file next to OUT that replaces it at the end; on an error OUT stays */
	struct rt_outfile of = {0};
	const char *in = a->out_path ? input_at(a, a->out_path) : NULL;
	if (in) {
		fprintf(stderr, "rocetrace %s: %s: the output would replace the input file %s\n",
		        cmd, a->out_path, in);
		return RT_EXIT_USAGE;
	}
	if (a->out_path && rt_outfile_open(&of, a->out_path, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
		return RT_EXIT_ERROR;
	}
	int status = RT_EXIT_OK;
	char counters_buf[4096];
	if (!a->counters)
		a->counters = auto_counters(&a->files, counters_buf, sizeof(counters_buf));
	/* no --bucket: one from the capture's length, said on stderr (timeline) or on the page (or
	 * the partial's, as the timeline would take) */
	char bucket_note[256] = "";
	if ((a->mode != RT_MODE_ANALYZE || a->partial_out) && !a->tlo.bucket_ns) {
		a->tlo.bucket_ns = rt_bucket_default(&a->files, a->mode == RT_MODE_REPORT,
		                                     bucket_note, sizeof(bucket_note));
		if (a->mode == RT_MODE_TIMELINE)
			fprintf(stderr, "rocetrace %s: %s\n", cmd, bucket_note);
	}
	/* a timeline writes rows as it reads: the flows its rows are of are found by a run before */
	if (a->mode == RT_MODE_TIMELINE && (a->ao.conversation || a->ao.kinds)) {
		status = rt_selection_resolve(cmd, &a->files, a->bpf, &a->ao, &a->selected_ids,
		                              &a->ao.nselected_ids);
		if (status) {
			rt_outfile_abort(&of);
			return status;
		}
		a->ao.selected_ids = a->selected_ids;
	}
	struct rt_an_html *html = NULL;
	struct rt_analyzer *an;
	struct rt_an_feed *feed;
	if ((status = analysis(a, a->out_path ? of.fp : stdout, bucket_note[0] ? bucket_note : NULL,
	                       &an, &feed, &html)) != 0) {
		rt_outfile_abort(&of);
		return status;
	}
	/*
	 * Side files are read before the first frame, in every mode: a missing or unreadable one
	 * fails at once, not after the whole capture (a timeline and the page join them bucket by
	 * bucket; the report joins the source log to the flows as they come)
	 */
	if (load_side_files(an, a->counters, a->srclog, cmd, errbuf) < 0) {
		rt_an_feed_free(feed);
		rt_analyzer_free(an);
		rt_outfile_abort(&of);
		return RT_EXIT_ERROR;
	}
	struct rt_pump_result res;
	rt_pump_catch_signals(on_signal);
	int rc = run(feed, &a->files, a->bpf, a->ao.udp_port, cmd, &res, errbuf);
	char read_err[RT_ERRBUF_SIZE] = "";
	if (rc < 0) {
		snprintf(read_err, sizeof(read_err), "%s", errbuf);
		status = RT_EXIT_ERROR;
		/* nothing read at all: only the error (the page says it) */
		if (!res.frames && (!html || file_missing(&a->files))) {
			rt_pump_release_signals();
			fprintf(stderr, "rocetrace %s: %s\n", cmd, read_err);
			rt_an_feed_free(feed);
			rt_analyzer_free(an);
			rt_outfile_abort(&of);
			return RT_EXIT_ERROR;
		}
	}
	/* a reader that goes away (| head) ends the output quietly (EPIPE), as in every command */
	finishing = an; /* Ctrl-C now cuts the end phase short: the report covers what was done */
	int frc = rt_an_feed_finish(feed, errbuf);
	finishing = NULL;
	/* what failed making the output (not reading the input: the rows before it are kept) */
	bool end_failed = frc < 0 && frc != -EPIPE && frc != -EINTR;
	bool output_failed = end_failed || (rc < 0 && !res.read_failed);
	if (end_failed) {
		fprintf(stderr, "rocetrace %s: %s%s\n", cmd, errbuf,
		        a->out_path ? " (the file is left as it was)" : "");
		status = RT_EXIT_ERROR;
	}
	bool page_failed = false, partial_failed = false;
	char stopped[RT_ERRBUF_SIZE + 64];
	if (a->mode != RT_MODE_TIMELINE) {
		if (html)
			page_note(html, read_err, res.end == RT_PUMP_INTERRUPTED ? res.signal : 0);
		rt_analyzer_input_error(
		    an, stop_reason(stopped, sizeof(stopped), read_err, &res, frc, finish_signal));
		/* a read cut short still gives the partial of the frames before it (its view says so) */
		int ws =
		    a->partial_out && !end_failed ? rt_analyze_partial_write(a, an) : RT_EXIT_OK;
		if ((partial_failed = ws != RT_EXIT_OK))
			status = ws;
		/* a partial has no report (its view was taken) */
		int wrc = a->partial_out ? 0 : rt_analyzer_report(an, errbuf);
		if (wrc < 0 && wrc != -EPIPE) {
			fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
			status = RT_EXIT_ERROR;
			page_failed = true;
		}
	}
	/*
	 * a run whose output failed leaves -o OUT as it was (its error line says so); a read that
	 * stopped early keeps what the frames before it gave (a page says what failed reading)
	 */
	bool kept = of.fp && (html ? page_failed : output_failed);
	if (kept) {
		rt_outfile_abort(&of);
	} else if (of.fp && rt_outfile_commit(&of, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
		status = RT_EXIT_ERROR;
	}
	if (a->mode == RT_MODE_TIMELINE)
		warn_on_stderr(an, cmd);
	if (html && !kept && a->out_path)
		printf("%s\n", a->out_path);
	rt_pump_release_signals();
	const char *what = a->partial_out ? "partial" : "report";
	char tail[96];
	snprintf(tail, sizeof(tail), "; the %s covers %s", what,
	         frc == -EINTR ? "what was worked out before it" : "the frames read so far");
	if (read_err[0])
		say_read_error(cmd, what, read_err, a->out_path, kept || partial_failed,
		               html != NULL, res.frames);
	else if ((frc == -EINTR || res.end == RT_PUMP_INTERRUPTED) && status == RT_EXIT_OK)
		status =
		    rt_cli_interrupted(cmd, frc == -EINTR ? finish_signal : res.signal, "%s", tail);
	rt_an_feed_free(feed);
	if (a->fail_on_given && status == RT_EXIT_OK &&
	    finding_at_least(an, a->fail_on == 0 ? RT_SEV_WARNING : RT_SEV_ERROR))
		status = RT_EXIT_FINDINGS;
	rt_analyzer_free(an);
	return status;
}

int rt_cmd_analyze(int argc, char **argv)
{
	return common(argc, argv, RT_MODE_ANALYZE);
}

int rt_cmd_timeline(int argc, char **argv)
{
	return common(argc, argv, RT_MODE_TIMELINE);
}

int rt_cmd_report(int argc, char **argv)
{
	return common(argc, argv, RT_MODE_REPORT);
}

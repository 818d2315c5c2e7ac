/* `rocetrace analyze`, `timeline` and `report`: read a capture, dissect each frame, feed the analyzer, report. */
#include <errno.h>
#include <libgen.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/analyze.h"
#include "analyze/feeder.h"
#include "analyze/sinks.h"
#include "capture/pump.h"
#include "common/outfile.h"
#include "dissect/dissect.h"
#include "tools/analyze_options.h"
#include "tools/cli.h"
#include "tools/commands.h"

/*
 * The source being read, whose capture points the analyzer asks for (from its own thread:
 * capture/source.h), and the names of the points once it is closed (the timeline's last rows).
 */
struct vmap {
	const struct rt_source *src;
	unsigned nnames;
	char names[RT_AN_VANTAGE_MAX][320];
};

static int vantage_of(void *ctx, uint32_t interface_id, uint32_t sll_ifindex)
{
	const struct vmap *m = ctx;
	return rt_source_point_of(m->src, interface_id, sll_ifindex);
}

static bool vantage_alone(void *ctx)
{
	const struct vmap *m = ctx;
	return rt_source_one_point(m->src);
}

/* A capture point's name for the timeline's rows (from the analyzer's thread): the source's, then the one it had at its close. */
static int point_name(void *ctx, unsigned point, char *name, size_t size)
{
	const struct vmap *m = ctx;
	if (m->src)
		return rt_source_point_name(m->src, point, name, size);
	if (point >= m->nnames)
		return -ENOENT;
	snprintf(name, size, "%s", m->names[point]);
	return 0;
}

/*
 * What the pump feeds: the analyzer (on a thread of its own when a second
 * CPU can take it: reading and dissecting then run beside the analysis),
 * and the progress line of a big file on a terminal.
 */
struct feed {
	struct rt_analyzer *an;
	struct rt_an_feeder *feeder; /* NULL: fed on this thread */
	const struct rt_dissect_opts *dopts;
	struct rt_source *src;
	const char *cmd;
	uint64_t frames;
	bool progress_shown;
};

static int on_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                    char *errbuf)
{
	struct feed *f = ctx;

	struct rt_record own;

	(void)rec;
	(void)errbuf;
	/* dissected here, straight into the feeder's batch when there is one: no copy */
	if (f->feeder) {
		rt_dissect(f->dopts, frame, rt_an_feeder_slot(f->feeder));
		rt_an_feeder_commit(f->feeder);
	} else {
		rt_dissect(f->dopts, frame, &own);
		rt_analyzer_feed(f->an, &own);
	}
	/* now and then: a sink that failed (a reader that went away, a refused bucket) ends the run */
	if ((++f->frames & 0xfff) != 0)
		return 0;
	return (f->feeder ? rt_an_feeder_status(f->feeder) : rt_analyzer_status(f->an, NULL)) ? 1
	                                                                                      : 0;
}

static void on_progress(void *ctx, uint64_t frames, uint64_t elapsed_ns)
{
	struct feed *f = ctx;
	uint64_t flows = f->feeder ? rt_an_feeder_flows(f->feeder) : rt_analyzer_flow_count(f->an);

	fprintf(stderr, "\r%s: %llu frames, %llu flows, %.0f s", f->cmd, (unsigned long long)frames,
	        (unsigned long long)flows, (double)elapsed_ns / 1e9);
	fflush(stderr);
	f->progress_shown = true;
}

/* The source's vantage points, as the report names them (at most RT_AN_VANTAGE_MAX). 0 or a negative errno. */
static int describe_vantage(struct rt_analyzer *an, const struct rt_source *src, char *errbuf)
{
	struct rt_an_vantage vp[RT_AN_VANTAGE_MAX];
	const char **paths[RT_AN_VANTAGE_MAX] = {0};
	unsigned n = rt_source_point_count(src);
	int rc = 0;
	if (n > RT_AN_VANTAGE_MAX)
		n = RT_AN_VANTAGE_MAX;
	for (unsigned i = 0; i < n && !rc; i++) {
		struct rt_vantage_point p;
		if (rt_source_point(src, i, &p) < 0 ||
		    !(paths[i] = calloc(p.nfiles + 1, sizeof(*paths[i])))) {
			rc = rt_errorf(errbuf, ENOMEM, "vantage point %u", i);
			break;
		}
		vp[i] =
		    (struct rt_an_vantage){.name = p.name, .files = paths[i], .frames = p.frames};
		for (unsigned k = 0; k < p.nfiles; k++) {
			struct rt_source_file_info fi;
			if (rt_source_file_info(src, p.files[k], &fi) == 0)
				paths[i][vp[i].nfiles++] = fi.path;
		}
	}
	if (!rc)
		rc = rt_analyzer_vantage_points(an, vp, n, errbuf);
	for (unsigned i = 0; i < n; i++)
		free(paths[i]);
	return rc;
}

/* Read every frame of the files into the analyzer; *res says how the read ended. 0 or a negative errno (errbuf set). */
static int run(struct rt_analyzer *an, const struct rt_cli_files *files, const char *bpf,
               uint16_t udp_port, struct vmap *vmap, const char *cmd, struct rt_pump_result *res,
               char *errbuf)
{
	struct rt_dissect_opts dopts;
	struct feed f = {.an = an, .cmd = cmd, .dopts = &dopts};
	struct rt_pump_config pc = {.on_frame = on_frame, .ctx = &f};
	struct rt_source *src;
	int rc = rt_pump_open_files(&src, files->files, files->n, bpf, errbuf);

	memset(res, 0, sizeof(*res));
	if (rc < 0)
		return rc;
	f.src = src;
	vmap->src = src;
	rt_dissect_opts_init(&dopts);
	dopts.udp_port = udp_port;
	if (isatty(STDERR_FILENO))
		pc.on_progress = on_progress;
	/* a second CPU analyzes while this one reads (with one CPU, or no thread: fed here) */
	cpu_set_t cpus;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 1 &&
	    rt_an_feeder_start(&f.feeder, an, errbuf) < 0)
		f.feeder = NULL;
	rc = rt_pump_run(src, &pc, res, errbuf);
	if (f.feeder)
		rt_an_feeder_stop(f.feeder);
	if (f.progress_shown)
		fprintf(stderr, "\r\033[K");
	/* frames the capture itself lost, as the file recorded them (pcapng ISBs) */
	if (res->stats.drops_known)
		rt_analyzer_capture_drops(an, res->stats.if_dropped, res->stats.dropped);
	char verr[RT_ERRBUF_SIZE];
	int vrc = describe_vantage(an, src, verr);
	if (vrc < 0 && rc >= 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s", verr);
		rc = vrc;
	}
	/* the analysis is fed: its end phase names the points from here */
	unsigned n = rt_source_point_count(src);
	vmap->nnames = n < RT_AN_VANTAGE_MAX ? n : RT_AN_VANTAGE_MAX;
	for (unsigned i = 0; i < vmap->nnames; i++)
		rt_source_point_name(src, i, vmap->names[i], sizeof(vmap->names[i]));
	vmap->src = NULL;
	rt_source_close(src);
	return rc;
}

/* The analyzer whose end phase a signal cuts short (set while rt_analyzer_finish runs), and that signal. */
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

static int run_command(struct rt_analyze_args *a, struct vmap *vmap);

/* The options into *a (its cmd and mode set), then the run; returns the exit status. */
static int parse_and_run(int argc, char **argv, struct rt_analyze_args *a)
{
	int rc = rt_analyze_parse_args(argc, argv, a);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc; /* -1: --help */
	const char *cmd = a->cmd;
	struct rt_analyzer_opts *ao = &a->ao;
	/*
	 * Several files, or the interfaces of one, may be several vantage points: the report follows
	 * packets between them (the timeline too, though it shows no paths: its copies are then the
	 * report's, bucket by bucket)
	 */
	struct vmap *vmap = calloc(1, sizeof(*vmap));
	if (!vmap) {
		fprintf(stderr, "rocetrace %s: out of memory\n", cmd);
		return RT_EXIT_ERROR;
	}
	ao->vantage_of = vantage_of;
	ao->vantage_alone = vantage_alone;
	ao->vantage_ctx = vmap;
	ao->vantage_clocks = a->files.n > 1;
	a->tlo.vantage_ctx = vmap;
	if (a->by_vantage)
		a->tlo.vantage_name = point_name;
	int status = run_command(a, vmap);
	free(vmap);
	return status;
}

static int common(int argc, char **argv, enum rt_analyze_mode mode)
{
	static const char *const names[] = {"analyze", "timeline", "report"};
	struct rt_analyze_args a = {
	    .cmd = names[mode], .mode = mode, .top = 10, .tlo = {.bucket_ns = 100000}};
	int status = parse_and_run(argc, argv, &a);
	rt_cli_files_free(&a.files);
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
 * The analyzer with the sink of the command (the timeline's rows or the page to `out`, or the report), or NULL
 * (message printed). *html: the page, for the reading's error.
 */
static struct rt_analyzer *analyzer(const struct rt_analyze_args *a, FILE *out,
                                    struct rt_an_html **html, int *status)
{
	char errbuf[RT_ERRBUF_SIZE] = "";
	struct rt_analyzer *an = rt_analyzer_new(&a->ao, errbuf);
	if (!an) {
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
		*status = errno == EINVAL ? RT_EXIT_USAGE : RT_EXIT_ERROR;
		return NULL;
	}
	struct rt_an_sink sink;
	struct rt_an_html_opts ho = {.bucket_ns = a->tlo.bucket_ns,
	                             .title = a->title,
	                             .files = a->paths,
	                             .nfiles = (unsigned)a->files.n,
	                             .counters = a->counters,
	                             .source_log = a->srclog};
	int src = a->mode == RT_MODE_REPORT ? rt_an_report_html_sink(out, &ho, &sink, html, errbuf)
	          : a->mode == RT_MODE_TIMELINE ? rt_an_timeline_sink(out, &a->tlo, &sink, errbuf)
	          : a->json                     ? rt_an_report_json_sink(stdout, &sink, errbuf)
	                    : rt_an_report_text_sink(stdout, (unsigned)a->top, &sink, errbuf);
	if (src < 0 || rt_analyzer_add_sink(an, &sink, errbuf) < 0) {
		rt_analyzer_free(an);
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
		*status = RT_EXIT_ERROR;
		return NULL;
	}
	return an;
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
 * folder and its .gz, .pcap, .pcapng (or .cap) ending, plus .html, in the current folder; "report.html" for
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
	static const char *const endings[] = {".gz", ".pcapng", ".pcap", ".cap"};
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

/* After the options: open the output, analyze the files (vmap: their capture points), report. Returns the exit status. */
static int run_command(struct rt_analyze_args *a, struct vmap *vmap)
{
	const char *cmd = a->cmd;
	char errbuf[RT_ERRBUF_SIZE] = "";
	char default_out[4096], default_title[4200];
	if (a->mode == RT_MODE_REPORT &&
	    report_defaults(a, default_out, sizeof(default_out), default_title,
	                    sizeof(default_title)) < 0) {
		fprintf(stderr, "rocetrace %s: out of memory\n", cmd);
		return RT_EXIT_ERROR;
	}
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
	struct rt_an_html *html = NULL;
	struct rt_analyzer *an = analyzer(a, a->out_path ? of.fp : stdout, &html, &status);
	if (!an) {
		rt_outfile_abort(&of);
		return status;
	}
	/*
	 * Side files are read before the first frame, in every mode: a missing or unreadable one
	 * fails at once, not after the whole capture (a timeline and the page join them bucket by
	 * bucket; the report joins the source log to the flows as they come)
	 */
	if (load_side_files(an, a->counters, a->srclog, cmd, errbuf) < 0) {
		rt_analyzer_free(an);
		rt_outfile_abort(&of);
		return RT_EXIT_ERROR;
	}
	struct rt_pump_result res;
	rt_pump_catch_signals(on_signal);
	int rc = run(an, &a->files, a->bpf, a->ao.udp_port, vmap, cmd, &res, errbuf);
	char read_err[RT_ERRBUF_SIZE] = "";
	if (rc < 0) {
		snprintf(read_err, sizeof(read_err), "%s", errbuf);
		status = RT_EXIT_ERROR;
		/* nothing read at all: only the error (the page says it) */
		if (!res.frames && (!html || file_missing(&a->files))) {
			rt_pump_release_signals();
			fprintf(stderr, "rocetrace %s: %s\n", cmd, read_err);
			rt_analyzer_free(an);
			rt_outfile_abort(&of);
			return RT_EXIT_ERROR;
		}
	}
	/* a reader that goes away (| head) ends the output quietly (EPIPE), as in every command */
	finishing = an; /* Ctrl-C now cuts the end phase short: the report covers what was done */
	int frc = rt_analyzer_finish(an, errbuf);
	finishing = NULL;
	if (frc < 0 && frc != -EPIPE && frc != -EINTR) {
		fprintf(stderr, "rocetrace %s: %s%s\n", cmd, errbuf,
		        a->out_path ? " (the file is left as it was)" : "");
		status = RT_EXIT_ERROR;
	}
	bool page_failed = false;
	if (a->mode != RT_MODE_TIMELINE) {
		if (html)
			page_note(html, read_err, res.end == RT_PUMP_INTERRUPTED ? res.signal : 0);
		int wrc = rt_analyzer_report(an, errbuf);
		if (wrc < 0 && wrc != -EPIPE) {
			fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
			status = RT_EXIT_ERROR;
			page_failed = true;
		}
	}
	/* a run that failed leaves -o OUT as it was (its error line says so); a page says what failed reading */
	bool kept = of.fp && (html ? page_failed : status != RT_EXIT_OK);
	if (kept) {
		rt_outfile_abort(&of);
	} else if (of.fp && rt_outfile_commit(&of, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", cmd, errbuf);
		status = RT_EXIT_ERROR;
	}
	if (a->mode == RT_MODE_TIMELINE) {
		/* no report to hold them: what analyze would warn about goes to stderr */
		struct rt_an_warning w[RT_AN_WARNINGS_MAX];
		unsigned nw = rt_analyzer_warnings(an, w, RT_AN_WARNINGS_MAX);
		for (unsigned i = 0; i < nw && i < RT_AN_WARNINGS_MAX; i++)
			fprintf(stderr, "rocetrace %s: warning: %s\n", cmd, w[i].message);
	}
	if (html && !kept)
		printf("%s\n", a->out_path);
	rt_pump_release_signals();
	if (read_err[0] && kept)
		fprintf(stderr, "rocetrace %s: %s (%s is left as it was)\n", cmd, read_err,
		        a->out_path);
	else if (read_err[0])
		fprintf(stderr, "rocetrace %s: %s (the report covers the frames before it)\n", cmd,
		        read_err);
	else if (frc == -EINTR && status == RT_EXIT_OK)
		status = rt_cli_interrupted(cmd, finish_signal,
		                            "; the report covers what was worked out before it");
	else if (res.end == RT_PUMP_INTERRUPTED && status == RT_EXIT_OK)
		status = rt_cli_interrupted(cmd, res.signal,
		                            "; the report covers the frames read so far");
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

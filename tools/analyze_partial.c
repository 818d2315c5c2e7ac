/* analyze's partial results: `--partial OUT` writes one vantage point's, and partials given as inputs are merged and reported. */
#include "tools/analyze_partial.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/partial.h"
#include "common/outfile.h"
#include "common/textfmt.h"
#include "tools/cli_messages.h"
#include "tools/commands.h"

/* The option given that a partial result fixes where it is made, or NULL. */
static const char *fixed_option(const struct rt_analyze_args *a)
{
	const struct rt_analyzer_opts *o = &a->ao;
	if (a->fixed.link_speed)
		return "--link-speed";
	if (a->fixed.storm || a->fixed.storm_ms)
		return a->fixed.storm ? "--storm-threshold" : "--storm-ms";
	if (a->fixed.episode_gap)
		return "--episode-gap";
	if (a->fixed.rate_window)
		return "--rate-window";
	if (a->fixed.dup_window)
		return "--dup-window";
	if (a->fixed.udp_port)
		return "--udp-port";
	if (o->max_flows)
		return "--max-flows";
	if (o->vantage_sample_k)
		return "--vantage-sample";
	/* a timeline's --flow picks the rows of the merged flows */
	if ((o->flow && a->mode != RT_MODE_TIMELINE) || o->conversation || o->kinds)
		return "--flow, --conversation, --kind";
	if (a->bpf)
		return "a filter";
	if (a->counters || a->srclog)
		return "--counters, --source-log";
	return NULL;
}

/* The merged view (or the one partial's) reported as analyze does; r NULL: out of memory. Returns the exit status. */
static int report(struct rt_analyze_args *a, const struct rt_results *r, char *errbuf)
{
	struct rt_an_sink sink = {0};
	int status = RT_EXIT_OK;
	if (!r ||
	    (a->json ? rt_an_report_json_sink(stdout, &sink, errbuf)
	             : rt_an_report_text_sink(stdout, (unsigned)a->top, &sink, errbuf)) < 0 ||
	    sink.report(sink.ctx, r, errbuf) < 0)
		status = RT_EXIT_ERROR;
	if (sink.free)
		sink.free(sink.ctx);
	if (status != RT_EXIT_OK)
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, r ? errbuf : "out of memory");
	if (status == RT_EXIT_OK && a->fail_on_given && r->nfindings &&
	    r->findings[0].severity >= (a->fail_on == 0 ? RT_SEV_WARNING : RT_SEV_ERROR))
		status = RT_EXIT_FINDINGS;
	return status;
}

/* The partials named by the inputs, read, merged and reported (timeline, report: replayed). Returns the exit status. */
static int merge_and_report(struct rt_analyze_args *a)
{
	char errbuf[RT_ERRBUF_SIZE] = "";
	size_t n = a->files.n;
	struct rt_partial **p = calloc(n, sizeof(*p)), *merged = NULL;
	int status = p ? RT_EXIT_OK : RT_EXIT_ERROR;
	for (size_t i = 0; p && i < n && status == RT_EXIT_OK; i++)
		if (rt_partial_read(a->files.files[i].path, &p[i], errbuf) < 0)
			status = RT_EXIT_ERROR;
	/* one partial (one host, or the only one that came home) is reported as it is */
	int rc = status == RT_EXIT_OK && n > 1
	             ? rt_partials_merge(p, (unsigned)n, a->ao.vantage_window_ns, &merged, errbuf)
	             : 0;
	if (rc < 0) /* they cannot be merged (other settings, one point twice): a usage error */
		status = rc == -EINVAL ? RT_EXIT_USAGE : RT_EXIT_ERROR;
	const struct rt_results *r = n > 1       ? (merged ? merged->r : NULL)
	                             : p && p[0] ? p[0]->r
	                                         : NULL;
	if (status != RT_EXIT_OK)
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, p ? errbuf : "out of memory");
	else if (a->mode == RT_MODE_ANALYZE)
		status = report(a, r, errbuf);
	else
		status = rt_analyze_partial_replay(a, p, n, r);
	rt_partial_free(merged);
	for (size_t i = 0; p && i < n; i++)
		rt_partial_free(p[i]);
	free(p);
	return status;
}

int rt_analyze_partial_inputs(struct rt_analyze_args *a)
{
	size_t partials = 0;
	for (size_t i = 0; i < a->files.n; i++)
		partials +=
		    strcmp(a->files.files[i].path, "-") && rt_partial_is(a->files.files[i].path);
	if (!partials)
		return -1;
	for (size_t i = 0; partials < a->files.n && i < a->files.n; i++) {
		const char *f = a->files.files[i].path;
		if (!strcmp(f, "-") || rt_partial_is(f))
			continue;
		if (access(f, R_OK) < 0) { /* a partial that did not come: said as it is */
			fprintf(stderr, "rocetrace %s: %s: %s\n", a->cmd, f, strerror(errno));
			return RT_EXIT_ERROR;
		}
		return rt_cli_usage_error(a->cmd,
		                          "%s is not a partial result (no RTPART magic: a "
		                          "capture, or a partial gzip'd or cut): partial "
		                          "results and captures do not mix",
		                          f);
	}
	if (a->by_vantage)
		return rt_cli_usage_error(a->cmd, "--by-vantage needs the captures: with partial "
		                                  "results, each partial's own timeline is "
		                                  "'rocetrace timeline HOST.rtpart'");
	if (a->mode == RT_MODE_TIMELINE && (a->ao.conversation || a->ao.kinds))
		return rt_cli_usage_error(a->cmd,
		                          "--conversation and --kind need the captures (the "
		                          "flows they pick are known reading them): with "
		                          "partial results, pick the rows with --flow");
	if (a->partial_out)
		return rt_cli_usage_error(a->cmd, "--partial makes a partial result from captures, "
		                                  "not from partial results");
	for (size_t i = 0; i < a->files.n; i++)
		if (a->files.files[i].vantage)
			return rt_cli_usage_error(a->cmd,
			                          "--vantage with partial results: each names its "
			                          "vantage point (made with analyze --partial "
			                          "--point NAME)");
	const char *fixed = fixed_option(a);
	if (fixed)
		return rt_cli_usage_error(a->cmd,
		                          "%s: fixed where each partial result was made (analyze "
		                          "--partial): not with partial results",
		                          fixed);
	return merge_and_report(a);
}

int rt_analyze_partial_check(const struct rt_analyze_args *a)
{
	for (size_t i = 0; i < a->files.n; i++)
		if (a->files.files[i].vantage)
			return rt_cli_usage_error(
			    a->cmd, "--vantage with --partial: a partial result is one "
			            "vantage point (--point NAME names it)");
	if (rt_cli_files_stdin(&a->files))
		return rt_cli_usage_error(a->cmd, "--partial: give the capture files, not "
		                                  "standard input (the partial names them)");
	struct rt_analyzer_opts d;
	rt_analyzer_opts_init(&d);
	if (a->ao.vantage_window_ns != d.vantage_window_ns)
		return rt_cli_usage_error(a->cmd, "--vantage-window with --partial: the window is "
		                                  "the merge's (give it where the partials are "
		                                  "merged)");
	if (a->json)
		return rt_cli_usage_error(a->cmd, "--json with --partial: a partial result is "
		                                  "written, not a report (merge partials with "
		                                  "'rocetrace analyze A.rtpart B.rtpart --json')");
	for (size_t i = 0; i < a->files.n; i++)
		if (rt_output_replaces(a->partial_out, a->files.files[i].path))
			return rt_cli_usage_error(a->cmd,
			                          "--partial %s: that is one of the captures to "
			                          "read; name the partial apart (HOST.rtpart)",
			                          a->partial_out);
	if (a->point && (!a->point[0] || strpbrk(a->point, "\t\n\r")))
		return rt_cli_usage_error(a->cmd, "--point: a name, not empty, on one line");
	if (strcmp(a->partial_out, "-")) { /* where it goes is checked before the analysis */
		char errbuf[RT_ERRBUF_SIZE];
		struct rt_outfile of;
		if (rt_outfile_open(&of, a->partial_out, errbuf) < 0) {
			fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
			return RT_EXIT_ERROR;
		}
		rt_outfile_abort(&of);
	}
	return 0;
}

/* "N bytes" of the partial written to `path`, or where it went when that is no file's size. */
static const char *written_size(const char *path, char *buf, size_t size)
{
	struct stat st;
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(buf, size, "%lld bytes", (long long)st.st_size);
	else
		snprintf(buf, size, "%s",
		         strcmp(path, "-") ? "the partial" : "the partial (standard output)");
	return buf;
}

int rt_analyze_partial_write(const struct rt_analyze_args *a, struct rt_analyzer *an)
{
	char errbuf[RT_ERRBUF_SIZE] = "", host[256] = "";
	const char *point = a->point;
	if (!point) {
		if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
			snprintf(host, sizeof(host), "localhost");
		point = host;
	}
	const char **files = calloc(a->files.n + 1, sizeof(*files));
	for (size_t i = 0; files && i < a->files.n; i++)
		files[i] = a->files.files[i].path;
	struct rt_partial *p = NULL;
	uint64_t frames = 0;
	const struct rt_results *r = rt_analyzer_results(an);
	if (r)
		frames = r->c.packets;
	int rc = !files ? rt_errorf(errbuf, ENOMEM, "the partial")
	                : rt_partial_take(an, point, files, (unsigned)a->files.n, &p, errbuf);
	free(files);
	if (rc == 0)
		rc = rt_partial_write(p, a->partial_out, errbuf);
	char size[64];
	char len[32];
	if (rc == 0)
		fprintf(
		    stderr,
		    "rocetrace %s: %s: point %s, %llu frames, %u flows, %llu packets kept (every "
		    "CE mark and CNP, %u in %u sampled), %llu time buckets of %s, %s written\n",
		    a->cmd, a->partial_out, point, (unsigned long long)frames, p->r->nflows,
		    (unsigned long long)p->npackets, p->sample_k, p->sample_m,
		    (unsigned long long)(p->buckets ? p->buckets->n : 0),
		    rt_fmt_duration(len, sizeof(len), p->buckets ? p->buckets->len_ns : 0),
		    written_size(a->partial_out, size, sizeof(size)));
	else
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
	rt_partial_free(p);
	return rc < 0 ? RT_EXIT_ERROR : RT_EXIT_OK;
}

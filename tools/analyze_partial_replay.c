/* timeline and report of partial results: their merged buckets and view through the sinks a capture's go through. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/partial.h"
#include "common/outfile.h"
#include "common/textfmt.h"
#include "render/sinks.h"
#include "tools/analyze_partial.h"
#include "tools/bucket_default.h"
#include "tools/cli_messages.h"
#include "tools/commands.h"

void rt_analyze_warn_lines(const char *cmd, const struct rt_an_warning *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char line[sizeof(w[i].message) + 64]; /* a message whole, after its prefix */
		int len =
		    snprintf(line, sizeof(line), "rocetrace %s: warning: %s", cmd, w[i].message);
		size_t shown = len < 0                      ? 0
		               : (size_t)len < sizeof(line) ? (size_t)len
		                                            : sizeof(line) - 1;
		rt_text_fill(stderr, line, shown, 0, RT_TEXT_WIDTH, 4); /* long: on, indented */
	}
}

/*
 * The merged buckets' length into a->tlo.bucket_ns: --bucket when it is a
 * multiple of every partial's, else (none given) one for the merged span
 * as for captures, a multiple of theirs, said in `note`. 0, or the exit
 * status after its line.
 */
static int bucket_len(struct rt_analyze_args *a, struct rt_partial *const *p, size_t n,
                      const struct rt_results *r, char *note, size_t size)
{
	char errbuf[RT_ERRBUF_SIZE], b[32], s[32];
	uint64_t span = r->any_frame ? r->end_ns - r->start_ns : 0, want = rt_bucket_for_span(span);
	if (a->mode == RT_MODE_REPORT && want > RT_BUCKET_REPORT_MAX_NS)
		want = RT_BUCKET_REPORT_MAX_NS;
	uint64_t asked = a->tlo.bucket_ns;
	if (rt_partials_bucket_len(p, (unsigned)n, asked, want, &a->tlo.bucket_ns, errbuf) < 0)
		return rt_cli_usage_error(a->cmd, "%s", errbuf);
	if (!asked)
		snprintf(note, size,
		         "no --bucket: %s buckets, %" PRIu64
		         " over the partials' %s (a multiple of the buckets each keeps)",
		         rt_fmt_duration(b, sizeof(b), a->tlo.bucket_ns),
		         span / a->tlo.bucket_ns + 1, rt_fmt_duration(s, sizeof(s), span));
	return 0;
}

/* The output (-o OUT, not one of the partials; else standard output) into *of. 0 or the exit status. */
static int open_output(const struct rt_analyze_args *a, struct rt_outfile *of)
{
	char errbuf[RT_ERRBUF_SIZE];
	if (!a->out_path)
		return 0;
	for (size_t i = 0; i < a->files.n; i++)
		if (rt_output_replaces(a->out_path, a->files.files[i].path)) {
			fprintf(stderr,
			        "rocetrace %s: %s: the output would replace the input file %s\n",
			        a->cmd, a->out_path, a->files.files[i].path);
			return RT_EXIT_USAGE;
		}
	if (rt_outfile_open(of, a->out_path, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
		return RT_EXIT_ERROR;
	}
	return 0;
}

/* The timeline's or the page's sink, writing to fp, added to an. 0 or a negative errno. */
static int add_sink(struct rt_analyze_args *a, struct rt_analyzer *an, FILE *fp, const char *note,
                    char *errbuf)
{
	struct rt_an_sink sink;
	struct rt_an_html *html;
	struct rt_an_html_opts ho = {.bucket_ns = a->tlo.bucket_ns,
	                             .title = a->title,
	                             .files = a->paths,
	                             .nfiles = (unsigned)a->files.n,
	                             .threads = a->threads,
	                             .bucket_note = note[0] ? note : NULL};
	int rc = a->mode == RT_MODE_REPORT ? rt_an_report_html_sink(fp, &ho, &sink, &html, errbuf)
	                                   : rt_an_timeline_sink(fp, &a->tlo, &sink, errbuf);
	return rc < 0 ? rc : rt_analyzer_add_sink(an, &sink, errbuf);
}

int rt_analyze_partial_replay(struct rt_analyze_args *a, struct rt_partial *const *p, size_t n,
                              const struct rt_results *r)
{
	char note[256] = "", errbuf[RT_ERRBUF_SIZE] = "";
	int status = bucket_len(a, p, n, r, note, sizeof(note));
	if (status)
		return status;
	if (a->mode == RT_MODE_TIMELINE && note[0])
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, note);
	if (a->out_path && !strcmp(a->out_path, "-")) /* standard output, as without -o */
		a->out_path = NULL;
	struct rt_outfile of = {0};
	if ((status = open_output(a, &of)) != 0)
		return status;
	struct rt_analyzer *an = rt_analyzer_new(&a->ao, errbuf);
	int rc = an ? add_sink(a, an, a->out_path ? of.fp : stdout, note, errbuf) : -ENOMEM;
	if (rc == 0)
		rc = rt_analyzer_replay(an, p, (unsigned)n, r, errbuf);
	if (rc == 0)
		rc = rt_analyzer_report(an, errbuf);
	rt_analyzer_free(an);
	/* a reader that goes away (| head) ends the output quietly, as in every command */
	if (rc < 0 && rc != -EPIPE) {
		fprintf(stderr, "rocetrace %s: %s%s\n", a->cmd, errbuf,
		        a->out_path ? " (the file is left as it was)" : "");
		rt_outfile_abort(&of);
		return RT_EXIT_ERROR;
	}
	if (of.fp && rt_outfile_commit(&of, errbuf) < 0) {
		fprintf(stderr, "rocetrace %s: %s\n", a->cmd, errbuf);
		return RT_EXIT_ERROR;
	}
	if (a->mode == RT_MODE_TIMELINE)
		rt_analyze_warn_lines(a->cmd, r->warnings, r->nwarnings);
	else if (a->out_path)
		printf("%s\n", a->out_path);
	return RT_EXIT_OK;
}

/* One-line messages of the subcommands: usage errors, failures, interruptions, getopt complaints, the progress line of a long read. */
#ifndef RT_TOOLS_CLI_MESSAGES_H
#define RT_TOOLS_CLI_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>

/* "rocetrace CMD: MESSAGE (see 'rocetrace CMD --help')" on stderr; returns RT_EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) int rt_cli_usage_error(const char *cmd, const char *fmt, ...);

/* "rocetrace CMD: MESSAGE" on stderr; returns RT_EXIT_ERROR. */
__attribute__((format(printf, 2, 3))) int rt_cli_fail(const char *cmd, const char *fmt, ...);

/*
 * "rocetrace CMD: interrupted" and the formatted rest (its separator
 * included) on stderr; returns the status of a command the signal `sig`
 * stopped: 128 + sig (130 for Ctrl-C), 130 when sig is 0.
 */
__attribute__((format(printf, 3, 4))) int rt_cli_interrupted(const char *cmd, int sig,
                                                             const char *fmt, ...);

/*
 * The usage error for what getopt_long returned as `c` (':' a missing value,
 * anything else an unknown option) when its option string starts with ':'
 * (after any '+') and opterr is 0: names the option as it was written.
 */
int rt_cli_getopt_error(const char *cmd, int c, char *const argv[]);

/*
 * The progress line of a long read (analyze, timeline, report, dissect,
 * capture -r): "CMD: N frames[, MORE], T s" on stderr, rewritten in place
 * (the pump calls it about once a second); only where stderr is a terminal
 * (rt_cli_progress_wanted), never into data on standard output.
 */
struct rt_cli_progress {
	const char *cmd;
	bool shown; /* a line is on the terminal: rt_cli_progress_end() clears it */
};

/* stderr is a terminal, and standard output is not (`output_on_stdout`: what it prints would mix). */
bool rt_cli_progress_wanted(bool output_on_stdout);
/* The line with `frames` read in `elapsed_ns`, and `more` after them (NULL: nothing). */
void rt_cli_progress_line(struct rt_cli_progress *p, uint64_t frames, const char *more,
                          uint64_t elapsed_ns);
/* The pump's on_progress, its ctx a struct rt_cli_progress. */
void rt_cli_progress_pump(void *ctx, uint64_t frames, uint64_t elapsed_ns);
/* The line cleared, if one was shown. */
void rt_cli_progress_end(struct rt_cli_progress *p);

#endif

/* One-line messages of the subcommands: usage errors, failures, interruptions, getopt complaints, the progress line of a long read. */
#ifndef RT_TOOLS_CLI_MESSAGES_H
#define RT_TOOLS_CLI_MESSAGES_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
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

/* The longest option or command name rt_cli_suggest() weighs; the most names it offers. */
#define RT_CLI_WORD_MAX    64
#define RT_CLI_SUGGEST_MAX 4
/* The most long options rt_cli_unknown_option() reads. */
#define RT_CLI_NAMES_MAX 256

/*
 * "; did you mean 'LEAD NAME'?" into out (or "" when none fits): the names
 * of names[0..n) that typed[0..len) begins, else the nearest ones (one
 * letter off for a short word, two for a longer one), at most
 * RT_CLI_SUGGEST_MAX of them, in their order.
 */
void rt_cli_suggest(const char *typed, size_t len, const char *const *names, size_t n,
                    const char *lead, char *out, size_t size);

/*
 * The usage error for a long option `word` ("--name" or "--name=value") the
 * command does not take, as typed (a shortened name is not taken either):
 * "unknown option '--count'; did you mean '--counters'?". longopts ends
 * with a zero name.
 */
int rt_cli_unknown_option(const char *cmd, const char *word, const struct option *longopts);

/*
 * The usage error for what getopt_long returned as `c` (':' a missing value,
 * anything else an unknown option) when its option string starts with ':'
 * (after any '+') and opterr is 0: names the option as it was written, and
 * the long options of longopts it may have meant.
 */
int rt_cli_getopt_error(const char *cmd, int c, char *const argv[], const struct option *longopts);

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

/* One-line messages of the subcommands: usage errors, failures, getopt complaints. */
#ifndef RT_TOOLS_CLI_H
#define RT_TOOLS_CLI_H

#include <stdbool.h>

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
 * tcpdump's operands after the options, argv[first..argc): the capture FILE
 * (unless -r gave it: *path already set) and then a filter expression of one
 * or more words, joined with spaces into *bpf ("udp port 4791"), which must
 * be freed. An expression and -f (*bpf already set) together are refused.
 * `need_file`: a FILE is required. Returns 0, or the exit status after one
 * line on stderr.
 */
int rt_cli_operands(const char *cmd, int argc, char **argv, int first, bool need_file,
		    const char **path, const char **bpf, char **joined);

#endif

/* One-line messages of the subcommands: usage errors, failures, interruptions, getopt complaints. */
#ifndef RT_TOOLS_CLI_MESSAGES_H
#define RT_TOOLS_CLI_MESSAGES_H

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

#endif

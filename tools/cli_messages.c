/* One-line messages of the subcommands: usage errors, failures, interruptions, getopt complaints, the progress line of a long read. */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/cli_messages.h"
#include "tools/commands.h"

/* "rocetrace CMD: " + HEAD + the formatted message + TAIL on stderr. */
__attribute__((format(printf, 4, 0))) static void say(const char *cmd, const char *head,
                                                      const char *tail, const char *fmt, va_list ap)
{
	fprintf(stderr, "rocetrace %s: %s", cmd, head);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

int rt_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char tail[96];
	va_list ap;
	snprintf(tail, sizeof(tail), " (see 'rocetrace %s --help')\n", cmd);
	va_start(ap, fmt);
	say(cmd, "", tail, fmt, ap);
	va_end(ap);
	return RT_EXIT_USAGE;
}

int rt_cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(cmd, "", "\n", fmt, ap);
	va_end(ap);
	return RT_EXIT_ERROR;
}

int rt_cli_interrupted(const char *cmd, int sig, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(cmd, "interrupted", "\n", fmt, ap);
	va_end(ap);
	return 128 + (sig > 0 ? sig : SIGINT);
}

int rt_cli_getopt_error(const char *cmd, int c, char *const argv[])
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	/* a long option is named up to its '=' */
	int len = (int)strcspn(arg, "=");
	bool is_long = !strncmp(arg, "--", 2);
	/* an unknown letter inside a group ("-zq") leaves optind on it: argv[optind - 1] is the one
	 * before */
	if (c == '?' && optopt > 0 && optopt < 128 && arg[len] != '=')
		is_long = false;
	if (!is_long && c == ':')
		return rt_cli_usage_error(cmd, "option '-%c' needs a value", optopt);
	if (!is_long)
		return rt_cli_usage_error(cmd, "unknown option '-%c'", optopt);
	if (c == ':')
		return rt_cli_usage_error(cmd, "option '%.*s' needs a value", len, arg);
	if (optopt)
		return rt_cli_usage_error(cmd, "option '%.*s' takes no value", len, arg);
	return rt_cli_usage_error(cmd, "unknown option '%.*s'", len, arg);
}

bool rt_cli_progress_wanted(bool output_on_stdout)
{
	return isatty(STDERR_FILENO) && !(output_on_stdout && isatty(STDOUT_FILENO));
}

void rt_cli_progress_line(struct rt_cli_progress *p, uint64_t frames, const char *more,
                          uint64_t elapsed_ns)
{
	fprintf(stderr, "\r%s: %llu frames%s%s, %.0f s", p->cmd, (unsigned long long)frames,
	        more ? ", " : "", more ? more : "", (double)elapsed_ns / 1e9);
	fflush(stderr);
	p->shown = true;
}

void rt_cli_progress_pump(void *ctx, uint64_t frames, uint64_t elapsed_ns)
{
	rt_cli_progress_line(ctx, frames, NULL, elapsed_ns);
}

void rt_cli_progress_end(struct rt_cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

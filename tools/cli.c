/* One-line messages of the subcommands: usage errors, failures, getopt complaints. */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
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

int rt_cli_operands(const char *cmd, int argc, char **argv, int first, bool need_file,
		    const char **path, const char **bpf, char **joined)
{
	*joined = NULL;
	if (!*path && need_file) {
		if (first >= argc)
			return rt_cli_usage_error(cmd, "no capture file given (FILE or -r FILE)");
		*path = argv[first++];
	}
	if (first >= argc)
		return 0;
	if (*bpf)
		return rt_cli_usage_error(cmd,
					  "a filter twice: -f '%s' and '%s' (give one: -f BPF or the "
					  "expression after the options, as tcpdump takes it)",
					  *bpf, argv[first]);
	size_t len = 0;
	for (int i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return rt_cli_fail(cmd, "out of memory");
	s[0] = '\0';
	for (int i = first; i < argc; i++) {
		if (i > first)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	*joined = s;
	*bpf = s;
	return 0;
}

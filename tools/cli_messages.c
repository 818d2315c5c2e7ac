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

/* The edits (a letter added, removed or changed) that make a[0..la) into b; above 9 counts as 9. */
static unsigned distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b);
	unsigned row[RT_CLI_WORD_MAX + 1];
	if (la > RT_CLI_WORD_MAX || lb > RT_CLI_WORD_MAX)
		return 9;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb] > 9 ? 9 : row[lb];
}

void rt_cli_suggest(const char *typed, size_t len, const char *const *names, size_t n,
                    const char *lead, char *out, size_t size)
{
	const char *pick[RT_CLI_SUGGEST_MAX];
	size_t npick = 0;
	/* the names it begins, else the nearest ones, a few edits away */
	for (size_t i = 0; i < n && len; i++)
		if (!strncmp(names[i], typed, len) && npick < RT_CLI_SUGGEST_MAX)
			pick[npick++] = names[i];
	unsigned best = len > 3 ? 2 : len > 1 ? 1 : 0;
	for (size_t i = 0; i < n && !npick; i++) {
		unsigned d = distance(typed, len, names[i]);
		if (d < best)
			best = d;
	}
	bool near = !npick && best;
	for (size_t i = 0; i < n && near && npick < RT_CLI_SUGGEST_MAX; i++)
		if (distance(typed, len, names[i]) <= best)
			pick[npick++] = names[i];
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < npick && used < size; i++) {
		const char *sep = !i ? "; did you mean " : i + 1 < npick ? ", " : " or ";
		used += (size_t)snprintf(out + used, size - used, "%s'%s%s'", sep, lead, pick[i]);
	}
	if (npick && used < size)
		snprintf(out + used, size - used, "?");
}

int rt_cli_unknown_option(const char *cmd, const char *word, const struct option *longopts)
{
	const char *names[RT_CLI_NAMES_MAX];
	size_t n = 0;
	int len = (int)strcspn(word, "="); /* named up to its '=' */
	for (; longopts[n].name && n < RT_CLI_NAMES_MAX; n++)
		names[n] = longopts[n].name;
	char hint[RT_CLI_SUGGEST_MAX * (RT_CLI_WORD_MAX + 8) + 32];
	rt_cli_suggest(word + 2, (size_t)len - 2, names, n, "--", hint, sizeof(hint));
	return rt_cli_usage_error(cmd, "unknown option '%.*s'%s", len, word, hint);
}

/* Does the long option `word` ("--name" or "--name=value") spell a name of longopts in full? */
static bool spelled_out(const char *word, const struct option *longopts)
{
	size_t len = strcspn(word, "=") - 2;
	for (size_t i = 0; longopts[i].name; i++)
		if (strlen(longopts[i].name) == len && !strncmp(longopts[i].name, word + 2, len))
			return true;
	return false;
}

int rt_cli_getopt_error(const char *cmd, int c, char *const argv[], const struct option *longopts)
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
	if (!spelled_out(arg, longopts) || (c != ':' && !optopt))
		return rt_cli_unknown_option(cmd, arg, longopts);
	if (c == ':')
		return rt_cli_usage_error(cmd, "option '%.*s' needs a value", len, arg);
	return rt_cli_usage_error(cmd, "option '%.*s' takes no value", len, arg);
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

/* What the subcommands take alike: tcpdump's operands, capture files, --hosts, options passed on to hosts, the CPUs. */
#ifndef RT_TOOLS_CLI_H
#define RT_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/files.h"
#include "common/hostlist.h"
#include "tools/cli_messages.h"
#include "tools/optable.h"

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

/*
 * The capture files a command reads (dissect, analyze, timeline): -r FILE
 * (repeatable), --vantage NAME=FILE[,FILE...], then FILE operands, in that
 * order; freed with rt_cli_files_free().
 */
struct rt_cli_files {
	struct rt_source_file_spec *files;
	size_t n, cap;
	char **owned; /* the --vantage values, split */
	size_t nowned;
};

/*
 * One more file (-r FILE), of vantage point `vantage` (NULL: by the rule);
 * a name given before is refused. 0, or the exit status after one line on
 * stderr.
 */
int rt_cli_files_add(const char *cmd, struct rt_cli_files *fs, const char *path,
                     const char *vantage);
/* --vantage NAME=FILE[,FILE...]: the files of a vantage point named NAME. 0, or the exit status. */
int rt_cli_files_vantage(const char *cmd, struct rt_cli_files *fs, const char *arg);
/*
 * The operands after the options, argv[first..argc): FILEs, then a filter
 * expression as rt_cli_operands() takes it. The first operand is a FILE
 * when no file was given yet (then it is required); each next one is a
 * FILE while it names an existing file, holds a '/', or ends like a
 * capture file name (.pcap, .pcapng, .cap, .gz, with a rotation number
 * after them: run.pcapng.2). 0, or the exit status.
 */
int rt_cli_files_operands(const char *cmd, int argc, char **argv, int first,
                          struct rt_cli_files *fs, const char **bpf, char **joined);
void rt_cli_files_free(struct rt_cli_files *fs);
/* Is one of the files standard input ('-')? */
bool rt_cli_files_stdin(const struct rt_cli_files *fs);

/* The rows of -r FILE (repeatable) and --vantage NAME=FILE[,FILE...], into the struct rt_cli_files `files` of `type`. */
#define RT_CLI_FILES_ROWS(type, files)                                                             \
	{.letter = 'r',                                                                            \
	 .kind = RT_OPT_CALL,                                                                      \
	 .has_arg = required_argument,                                                             \
	 .call = rt_cli_file_option,                                                               \
	 .at = RT_AT(type, files)},                                                                \
	{                                                                                          \
		.name = "vantage", .kind = RT_OPT_CALL, .has_arg = required_argument,              \
		.call = rt_cli_vantage_option, .at = RT_AT(type, files)                            \
	}
/* -r FILE and --vantage NAME=FILE[,FILE...] (the rows' functions). */
int rt_cli_file_option(struct rt_opt_use *u);

/* The CPUs this process may run on (at least 1, at most RT_CLI_THREADS_MAX): --threads' default. */
unsigned rt_cli_cpus(void);
#define RT_CLI_THREADS_MAX 256
/* --threads N into the unsigned `member` of `type` (set it to rt_cli_cpus() before parsing). */
#define RT_CLI_THREADS_ROW(type, member)                                                           \
	{                                                                                          \
		.name = "threads", .kind = RT_OPT_UINT, .at = RT_AT(type, member),                 \
		.store = RT_STORE_UINT, .min = 1, .max = RT_CLI_THREADS_MAX                        \
	}
int rt_cli_vantage_option(struct rt_opt_use *u);

/*
 * How a command runs itself on other hosts (capture --hosts, doctor --hosts):
 * --hosts H1,H2,... (repeatable), --slurm, --launcher TEMPLATE, --remote CMD
 * and --timeout D, the same options in every command that has them.
 */
struct rt_cli_hosts {
	struct rt_opt_list names; /* the --hosts values, as given (--slurm: the allocation's) */
	const char *launcher;     /* NULL: ssh {host} */
	const char *remote;       /* NULL: rocetrace */
	uint64_t timeout_ns;      /* 0: the command's default */
	bool slurm;               /* --slurm: the nodes of the Slurm allocation (tools/slurm.h) */
};
/* Their rows, into the struct rt_cli_hosts `hosts` of `type`; --timeout from tmin to tmax ns. */
#define RT_CLI_HOSTS_ROWS(type, hosts, tmin, tmax)                                                 \
	{.name = "hosts", .kind = RT_OPT_LIST, .at = RT_AT(type, hosts.names)},                    \
	    {.name = "slurm", .kind = RT_OPT_FLAG, .at = RT_AT(type, hosts.slurm)},                \
	    {.name = "launcher", .kind = RT_OPT_STRING, .at = RT_AT(type, hosts.launcher)},        \
	    {.name = "remote", .kind = RT_OPT_STRING, .at = RT_AT(type, hosts.remote)},            \
	{                                                                                          \
		.name = "timeout", .kind = RT_OPT_DURATION, .at = RT_AT(type, hosts.timeout_ns),   \
		.min = (tmin), .max = (tmax)                                                       \
	}

/*
 * The values of --hosts: items separated by commas, each a host or a Slurm
 * hostlist expression (node[01-16,20]: common/hostlist.h), with `devices`
 * followed by =DEV, which goes with each of its hosts ("HOST=DEV" in hl).
 * None, a host given twice, or more than max are refused. 0, or the usage
 * exit status after one line on stderr.
 */
int rt_cli_hosts_expand(const char *cmd, const char *const *values, size_t nvalues, bool devices,
                        size_t max, struct rt_hostlist *hl);

/* A word a launcher that re-reads the command with a shell (ssh) passes on unchanged: letters,
 * digits and _./:=,@+- only. */
bool rt_cli_plain_word(const char *w);

/* Options passed on to the same command on other hosts (doctor --hosts, capture --hosts). */
#define RT_CLI_FORWARD_MAX 64
struct rt_cli_forward {
	char *argv[RT_CLI_FORWARD_MAX + 1]; /* the words so far, NULL-terminated */
	char buf[RT_CLI_FORWARD_MAX][320];
	unsigned n;
};

/*
 * Pass "--NAME=VALUE" on (or "--NAME" when value is NULL, or the word VALUE
 * when name is NULL); a value must be a plain word (rt_cli_plain_word).
 * 0, or the usage exit status after one line on stderr.
 */
int rt_cli_forward(const char *cmd, struct rt_cli_forward *f, const char *name, const char *value);

#endif

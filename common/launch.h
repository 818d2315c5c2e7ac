/* Run one command on many hosts at once through a launcher prefix (ssh, pdsh, srun, ip netns exec), or a local tool, with a timeout; or drive them step by step. */
#ifndef RT_LAUNCH_H
#define RT_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errbuf.h" /* RT_ERRBUF_SIZE */

/* The launcher used when none is given. */
#define RT_LAUNCH_DEFAULT "ssh {host}"
/* Output kept per stream when rt_launch_opts.max_output is 0. */
#define RT_LAUNCH_MAX_OUTPUT (4u << 20)

/* What one command did. */
struct rt_launch_result {
	char host[256]; /* the host (empty for a local command) */
	char *command;  /* the shell command line that ran (rt_launch_hosts), or NULL */
	int status;     /* exit status 0..255, 128+N when signal N ended it, -1 when it never ran */
	bool timed_out; /* stopped by the timeout (status then says how it ended) */
	bool stopped;   /* stopped because rt_launch_opts.stop was set */
	char *out;      /* standard output, NUL-terminated (never NULL after a run) */
	size_t out_len;
	bool
	    out_truncated; /* more than max_output bytes were written; the rest was read and dropped */
	char *err;         /* standard error, likewise */
	size_t err_len;
	bool err_truncated;
	char error[RT_ERRBUF_SIZE]; /* why it never ran (status -1) */
	uint64_t elapsed_ns;
};

struct rt_launch_opts {
	/*
	 * Command prefix; every "{host}" is replaced by the host, shell-quoted.
	 * Without "{host}" the host is appended as the last word of the prefix
	 * ("ssh -p 2222" → "ssh -p 2222 HOST"). NULL: RT_LAUNCH_DEFAULT.
	 */
	const char *launcher;
	char *const *argv;             /* the command run through the launcher, NULL-terminated */
	char *const *const *host_argv; /* per host instead of argv: host i runs host_argv[i] */
	uint64_t timeout_ns; /* per command, 0 = none; on expiry SIGTERM, then SIGKILL 2 s later */
	size_t max_output;   /* bytes kept per stream; 0 = RT_LAUNCH_MAX_OUTPUT */
	unsigned max_parallel; /* commands running at once; 0 = all */
	/* When it becomes non-zero (a signal handler sets it), running commands get SIGTERM. */
	const volatile sig_atomic_t *stop;
	/*
	 * Standard input: a pipe each command holds until rt_launch_close_stdin()
	 * or its end (true), or /dev/null (false). A command that stops when its
	 * input ends (capture --stop-at-eof) stops with its controller, however
	 * that ends.
	 */
	bool stdin_pipe;
	/* Per host: a descriptor its standard output is written to instead of kept (-1: kept). NULL: all kept. */
	const int *stdout_fds;
	/* Each complete line of output as it comes (stream 1: standard output, 2: standard error), or NULL. */
	void (*on_line)(void *ctx, size_t host, int stream, const char *line);
	void *ctx;
};

/*
 * The shell command line for one host: the launcher with "{host}" replaced
 * (or the host appended), a space, then every word of argv quoted for
 * /bin/sh. Returns a malloc'ed string or NULL (ENOMEM).
 */
char *rt_launch_command_line(const char *launcher, const char *host, char *const *argv);

/*
 * Run the command line of every host with /bin/sh -c, in parallel, each in
 * its own process group with standard input from /dev/null; collect
 * standard output, standard error and the exit status into res[0..n-1]
 * (which the caller frees with rt_launch_result_free). A command that
 * cannot start is recorded in its result (status -1), not returned.
 * Returns 0, or a negative errno with errbuf set when nothing could run.
 */
int rt_launch_hosts(const struct rt_launch_opts *o, const char *const *hosts, size_t n,
                    struct rt_launch_result *res, char *errbuf);

/*
 * The same, driven by the caller: rt_launch_start() starts the commands
 * (results as for rt_launch_hosts, filled as they run), rt_launch_poll()
 * waits up to timeout_ms for output and exits (handing lines to on_line,
 * starting commands the parallel limit held back, applying the timeout)
 * and returns how many have not finished; rt_launch_end() ends what still
 * runs (standard input closed, SIGTERM, SIGKILL 2 s later), waits for it,
 * frees the session and returns as rt_launch_hosts does.
 */
struct rt_launch_session;
int rt_launch_start(struct rt_launch_session **out, const struct rt_launch_opts *o,
                    const char *const *hosts, size_t n, struct rt_launch_result *res, char *errbuf);
size_t rt_launch_poll(struct rt_launch_session *s, int timeout_ms);
/* Close host i's standard input (stdin_pipe): the command reads its end. */
void rt_launch_close_stdin(struct rt_launch_session *s, size_t i);
/*
 * Write `line` to host i's standard input (stdin_pipe) without waiting: a
 * line shorter than PIPE_BUF goes whole or not at all. 0, -EAGAIN when
 * its pipe is full, -EPIPE when its input is closed or it ended.
 */
int rt_launch_write_stdin(struct rt_launch_session *s, size_t i, const char *line);
/* Send sig to host i's command and everything it started (its process group), while it runs. */
void rt_launch_signal(struct rt_launch_session *s, size_t i, int sig);
/* Host i's command has finished (or could not start): its result is complete. */
bool rt_launch_done(const struct rt_launch_session *s, size_t i);
int rt_launch_end(struct rt_launch_session *s, char *errbuf);

/*
 * Run argv directly (argv[0] a path, no shell) the same way, alone, and
 * wait for it or the timeout. Returns 0 when it ran (whatever its status),
 * or a negative errno with errbuf set when it could not start.
 */
int rt_launch_local(char *const *argv, uint64_t timeout_ns, size_t max_output,
                    struct rt_launch_result *res, char *errbuf);

void rt_launch_result_free(struct rt_launch_result *r);

#endif

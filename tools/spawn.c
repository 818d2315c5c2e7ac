/* The command `capture -- CMD` runs: forked with signals held until its pid is known, with the caller's descriptors only. */
#include "tools/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errbuf.h"

/* Probed one by one where /proc is not mounted. */
#define PROBE_MAX 4096

/* The descriptors above standard error the caller handed down, in increasing order. */
static int *inherited;
static size_t n_inherited;

static int add_inherited(int fd)
{
	int *more = realloc(inherited, (n_inherited + 1) * sizeof(*inherited));
	if (!more)
		return -ENOMEM;
	inherited = more;
	inherited[n_inherited++] = fd;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int rt_spawn_note_inherited(void)
{
	DIR *d = opendir("/proc/self/fd");
	int rc = 0;

	n_inherited = 0;
	if (!d) {
		for (int fd = STDERR_FILENO + 1; fd < PROBE_MAX && rc == 0; fd++)
			if (fcntl(fd, F_GETFD) >= 0)
				rc = add_inherited(fd);
		return rc;
	}
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd <= STDERR_FILENO || fd == dirfd(d))
			continue;
		rc = add_inherited((int)fd);
	}
	closedir(d);
	if (n_inherited > 1)
		qsort(inherited, n_inherited, sizeof(*inherited), cmp_int);
	return rc;
}

/* Descriptors lo..hi close on exec (async-signal-safe). */
static void cloexec_range(unsigned lo, unsigned hi)
{
	struct rlimit rl;
	unsigned max = PROBE_MAX;

	if (lo > hi || close_range(lo, hi, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	/* a kernel before 5.11: one by one, up to the descriptor limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		max = rl.rlim_cur < (1u << 20) ? (unsigned)rl.rlim_cur : 1u << 20;
	for (unsigned fd = lo; fd <= hi && fd < max; fd++) {
		int flags = fcntl((int)fd, F_GETFD);
		if (flags >= 0)
			fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
	}
}

/* In the child: every descriptor above standard error but the inherited ones closes on exec. */
static void cloexec_all_but_inherited(void)
{
	unsigned lo = STDERR_FILENO + 1;

	for (size_t i = 0; i < n_inherited; i++) {
		unsigned fd = (unsigned)inherited[i];
		if (fd > lo)
			cloexec_range(lo, fd - 1);
		lo = fd + 1;
	}
	cloexec_range(lo, ~0u);
}

int rt_spawn_exit_status(int err)
{
	return err == ENOENT ? 127 : 126;
}

int rt_spawn(const struct rt_spawn *s, bool *exec_failed, char *errbuf)
{
	const char *name = s->argv[0];
	sigset_t hold, old;
	int status_pipe[2], err = 0;

	*exec_failed = false;
	/* the child writes its exec error here; a successful exec closes it (O_CLOEXEC) */
	if (pipe2(status_pipe, O_CLOEXEC) < 0)
		return rt_errorf(errbuf, errno, "cannot start '%s'", name);
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &hold, &old);
	if (s->cancelled && s->cancelled()) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(status_pipe[0]);
		close(status_pipe[1]);
		return rt_errmsg(errbuf, ECANCELED, "stopped before '%s' started", name);
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (s->child_signals)
			s->child_signals();
		sigprocmask(SIG_SETMASK, &old, NULL);
		cloexec_all_but_inherited();
		if (s->stdout_to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(name, s->argv);
		err = errno;
		ssize_t n = write(status_pipe[1], &err, sizeof(err));
		(void)n;
		_exit(rt_spawn_exit_status(err));
	}
	if (pid < 0)
		err = errno;
	else
		*s->pid = pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(status_pipe[1]);
	if (pid < 0) {
		close(status_pipe[0]);
		return rt_errorf(errbuf, err, "cannot start '%s'", name);
	}
	ssize_t n;
	while ((n = read(status_pipe[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(status_pipe[0]);
	if (n != (ssize_t)sizeof(err))
		return 0; /* exec closed the pipe: the command runs */
	*exec_failed = true;
	*s->pid = 0; /* before the reaping: a handler never signals a pid that may be reused */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return rt_errorf(errbuf, err, "cannot run '%s'", name);
}

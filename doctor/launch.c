/* Parallel command runner: one process group per command, pipes read with poll(), timeout by SIGTERM then SIGKILL. */
#include "doctor/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE_NS  2000000000ull /* SIGTERM → SIGKILL */
#define DRAIN_GRACE_NS 2000000000ull /* after the command exits, wait this long for its pipes to close */
#define TICK_MS        50            /* poll wake-up for exits, timeouts and the stop flag */

struct proc {
	struct rt_launch_result *res;
	char *const *argv; /* exec'ed directly when cmdline is NULL */
	const char *cmdline;
	size_t cap;
	pid_t pid;
	int fd[2]; /* stdout, stderr; -1 once at end of file */
	bool started, exited, done, term_sent, kill_sent;
	uint64_t start_ns, deadline_ns, kill_ns, exit_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool word_is_plain(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,@%+-",
		            *w))
			return false;
	return true;
}

/* Append s to the growing string *buf (len, cap), quoted for /bin/sh when quote is set. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, bool quote)
{
	size_t need = strlen(s) * 4 + 3;
	if (*len + need + 1 > *cap) {
		size_t ncap = (*len + need + 1) * 2;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	char *p = *buf + *len;
	if (!quote || word_is_plain(s)) {
		size_t l = strlen(s);
		memcpy(p, s, l);
		p += l;
	} else {
		*p++ = '\'';
		for (; *s; s++) {
			if (*s == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *s;
			}
		}
		*p++ = '\'';
	}
	*p = '\0';
	*len = (size_t)(p - *buf);
	return 0;
}

char *rt_launch_command_line(const char *launcher, const char *host, char *const *argv)
{
	static const char tag[] = "{host}";
	if (!launcher)
		launcher = RT_LAUNCH_DEFAULT;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = append(&buf, &len, &cap, "", false);
	bool substituted = false;
	for (const char *p = launcher; rc == 0 && *p;) {
		const char *at = strstr(p, tag);
		if (!at) {
			rc = append(&buf, &len, &cap, p, false);
			break;
		}
		char *part = strndup(p, (size_t)(at - p));
		if (!part) {
			rc = -ENOMEM;
			break;
		}
		rc = append(&buf, &len, &cap, part, false);
		free(part);
		if (rc == 0)
			rc = append(&buf, &len, &cap, host, true);
		substituted = true;
		p = at + sizeof(tag) - 1;
	}
	if (rc == 0 && !substituted) {
		rc = append(&buf, &len, &cap, " ", false);
		if (rc == 0)
			rc = append(&buf, &len, &cap, host, true);
	}
	for (size_t i = 0; rc == 0 && argv && argv[i]; i++) {
		rc = append(&buf, &len, &cap, " ", false);
		if (rc == 0)
			rc = append(&buf, &len, &cap, argv[i], true);
	}
	if (rc < 0) {
		free(buf);
		errno = -rc;
		return NULL;
	}
	return buf;
}

static void child_exec(struct proc *p, int out_w, int err_w, int report_w)
{
	/* a process group of its own, so a timeout reaches every process the command started */
	setpgid(0, 0);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
		goto fail;
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (p->cmdline)
		execl("/bin/sh", "sh", "-c", p->cmdline, (char *)NULL);
	else
		execv(p->argv[0], p->argv);
fail:;
	int e = errno;
	if (write(report_w, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int start(struct proc *p, char *errbuf)
{
	int out[2] = {-1, -1}, err[2] = {-1, -1}, rep[2] = {-1, -1};
	int rc = 0;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out;
	}
	p->start_ns = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0)
		child_exec(p, out[1], err[1], rep[1]);
	setpgid(pid, pid); /* also here: no race with a kill() before the child ran */
	close(rep[1]);
	rep[1] = -1;
	int child_errno = 0;
	ssize_t n;
	do
		n = read(rep[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	p->pid = pid;
	p->started = true;
	if (n == (ssize_t)sizeof(child_errno)) {
		/* exec failed: reap the child and report why */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		p->started = false;
		rc = -child_errno;
		goto out;
	}
	p->fd[0] = out[0];
	p->fd[1] = err[0];
	out[0] = err[0] = -1;
	fcntl(p->fd[0], F_SETFL, O_NONBLOCK);
	fcntl(p->fd[1], F_SETFL, O_NONBLOCK);
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	if (rc < 0) {
		snprintf(p->res->error, sizeof(p->res->error), "cannot run %s: %s",
		         p->cmdline ? "/bin/sh" : p->argv[0], strerror(-rc));
		if (errbuf)
			snprintf(errbuf, RT_ERRBUF_SIZE, "%s", p->res->error);
		p->res->status = -1;
		p->done = true;
	}
	return rc;
}

/* Read what one pipe holds; keep up to p->cap bytes of it. */
static void drain(struct proc *p, int which)
{
	char tmp[65536];
	char **buf = which == 0 ? &p->res->out : &p->res->err;
	size_t *len = which == 0 ? &p->res->out_len : &p->res->err_len;
	bool *trunc = which == 0 ? &p->res->out_truncated : &p->res->err_truncated;
	for (;;) {
		ssize_t n = read(p->fd[which], tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close(p->fd[which]);
			p->fd[which] = -1;
			return;
		}
		size_t keep = (size_t)n;
		if (*len + keep > p->cap) {
			keep = p->cap - *len;
			*trunc = true;
		}
		if (keep) {
			char *nb = realloc(*buf, *len + keep + 1);
			if (!nb) {
				*trunc = true;
				continue;
			}
			memcpy(nb + *len, tmp, keep);
			*len += keep;
			nb[*len] = '\0';
			*buf = nb;
		}
	}
}

static void signal_group(struct proc *p, int sig)
{
	if (p->pid > 0 && kill(-p->pid, sig) < 0)
		kill(p->pid, sig);
}

/* Exits, timeouts and the stop flag of one running process. */
static void supervise(struct proc *p, const struct rt_launch_opts *o, uint64_t now)
{
	if (!p->exited) {
		int st;
		pid_t w = waitpid(p->pid, &st, WNOHANG);
		if (w == p->pid) {
			p->exited = true;
			p->exit_ns = now;
			p->res->elapsed_ns = now - p->start_ns;
			p->res->status = WIFEXITED(st) ? WEXITSTATUS(st)
			                 : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
			                                   : -1;
		}
	}
	bool stop = o->stop && *o->stop;
	if (!p->exited && !p->term_sent && (stop || (p->deadline_ns && now >= p->deadline_ns))) {
		if (stop)
			p->res->stopped = true;
		else
			p->res->timed_out = true;
		signal_group(p, SIGTERM);
		p->term_sent = true;
		p->kill_ns = now + KILL_GRACE_NS;
	}
	if (!p->exited && p->term_sent && !p->kill_sent && now >= p->kill_ns) {
		signal_group(p, SIGKILL);
		p->kill_sent = true;
	}
	/* exited, but something it started still holds the pipes: give it a moment, then end it */
	if (p->exited && (p->fd[0] >= 0 || p->fd[1] >= 0) && now >= p->exit_ns + DRAIN_GRACE_NS) {
		signal_group(p, SIGKILL);
		for (int i = 0; i < 2; i++) {
			drain(p, i);
			if (p->fd[i] >= 0) {
				close(p->fd[i]);
				p->fd[i] = -1;
			}
		}
	}
	if (p->exited && p->fd[0] < 0 && p->fd[1] < 0)
		p->done = true;
}

static int run_all(struct proc *procs, size_t n, const struct rt_launch_opts *o, char *errbuf)
{
	size_t next = 0, running = 0, started_ok = 0;
	size_t limit = o->max_parallel ? o->max_parallel : n;
	struct pollfd *pfd = calloc(2 * n + 1, sizeof(*pfd));
	struct proc **owner = calloc(2 * n + 1, sizeof(*owner));
	int *which = calloc(2 * n + 1, sizeof(*which));
	if (!pfd || !owner || !which) {
		free(pfd);
		free(owner);
		free(which);
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	int last_err = 0;
	for (;;) {
		while (running < limit && next < n && !(o->stop && *o->stop)) {
			struct proc *p = &procs[next++];
			int rc = start(p, errbuf);
			if (rc < 0) {
				last_err = rc;
				continue;
			}
			if (o->timeout_ns)
				p->deadline_ns = p->start_ns + o->timeout_ns;
			running++;
			started_ok++;
		}
		if (running == 0 && (next == n || (o->stop && *o->stop)))
			break;
		nfds_t nf = 0;
		for (size_t i = 0; i < n; i++) {
			if (!procs[i].started || procs[i].done)
				continue;
			for (int k = 0; k < 2; k++) {
				if (procs[i].fd[k] < 0)
					continue;
				pfd[nf].fd = procs[i].fd[k];
				pfd[nf].events = POLLIN;
				owner[nf] = &procs[i];
				which[nf] = k;
				nf++;
			}
		}
		int pr = poll(pfd, nf, TICK_MS);
		if (pr < 0 && errno != EINTR) {
			last_err = -errno;
			snprintf(errbuf, RT_ERRBUF_SIZE, "poll: %s", strerror(errno));
			/* keep supervising: the processes still need reaping */
		}
		for (nfds_t k = 0; pr > 0 && k < nf; k++)
			if (pfd[k].revents)
				drain(owner[k], which[k]);
		uint64_t now = now_ns();
		for (size_t i = 0; i < n; i++) {
			struct proc *p = &procs[i];
			if (!p->started || p->done)
				continue;
			supervise(p, o, now);
			if (p->done)
				running--;
		}
	}
	free(pfd);
	free(owner);
	free(which);
	/* never started because of the stop flag */
	for (size_t i = next; i < n; i++) {
		procs[i].res->status = -1;
		procs[i].res->stopped = true;
		snprintf(procs[i].res->error, sizeof(procs[i].res->error), "not started: stopped");
	}
	bool stopped = o->stop && *o->stop;
	return started_ok || n == 0 || stopped ? 0 : (last_err ? last_err : -ECANCELED);
}

static void result_init(struct rt_launch_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = -1;
}

/* Every result has its output strings, empty when nothing came. */
static int results_finish(struct rt_launch_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!res[i].out)
			res[i].out = calloc(1, 1);
		if (!res[i].err)
			res[i].err = calloc(1, 1);
		if (!res[i].out || !res[i].err)
			return -ENOMEM;
	}
	return 0;
}

int rt_launch_hosts(const struct rt_launch_opts *o, const char *const *hosts, size_t n,
                    struct rt_launch_result *res, char *errbuf)
{
	struct proc *procs = calloc(n ? n : 1, sizeof(*procs));
	if (!procs) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		result_init(&res[i]);
		snprintf(res[i].host, sizeof(res[i].host), "%s", hosts[i]);
		res[i].command = rt_launch_command_line(o->launcher, hosts[i], o->argv);
		if (!res[i].command) {
			snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
			rc = -ENOMEM;
		}
		procs[i] = (struct proc){.res = &res[i], .cmdline = res[i].command,
		                         .cap = o->max_output ? o->max_output : RT_LAUNCH_MAX_OUTPUT,
		                         .fd = {-1, -1}};
	}
	if (rc == 0)
		rc = run_all(procs, n, o, errbuf);
	free(procs);
	if (results_finish(res, n) < 0 && rc == 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

int rt_launch_local(char *const *argv, uint64_t timeout_ns, size_t max_output,
                    struct rt_launch_result *res, char *errbuf)
{
	result_init(res);
	struct proc p = {.res = res, .argv = argv,
	                 .cap = max_output ? max_output : RT_LAUNCH_MAX_OUTPUT, .fd = {-1, -1}};
	struct rt_launch_opts o = {.timeout_ns = timeout_ns, .max_parallel = 1};
	int rc = run_all(&p, 1, &o, errbuf);
	if (results_finish(res, 1) < 0 && rc == 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

void rt_launch_result_free(struct rt_launch_result *r)
{
	free(r->command);
	free(r->out);
	free(r->err);
	r->command = r->out = r->err = NULL;
	r->out_len = r->err_len = 0;
}

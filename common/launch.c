/* Parallel command runner: one process group per command, pipes read with poll(), timeout by SIGTERM then SIGKILL; sessions the caller drives. */
#include "common/clock.h"
#include "common/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL_GRACE_NS 2000000000ull /* SIGTERM → SIGKILL */
#define DRAIN_GRACE_NS                                                                             \
	2000000000ull /* after the command exits, wait this long for its pipes to close */
#define TICK_MS 50    /* poll wake-up for exits, timeouts and the stop flag */

struct proc {
	struct rt_launch_result *res;
	size_t index;      /* its host's position */
	char *const *argv; /* exec'ed directly when cmdline is NULL */
	const char *cmdline;
	size_t cap;
	pid_t pid;
	int fd[2];          /* stdout, stderr; -1 once at end of file */
	int in_fd;          /* the write end of its standard input (stdin_pipe), or -1 */
	int out_to;         /* where its standard output goes instead of fd[0], or -1 */
	size_t line_off[2]; /* output up to here was handed to on_line */
	bool started, exited, done, term_sent, kill_sent;
	uint64_t start_ns, deadline_ns, kill_ns, exit_ns;
};

struct rt_launch_session {
	struct rt_launch_opts o;
	struct proc *procs;
	size_t n, next, running, started_ok;
	int last_err;
	char errbuf[RT_ERRBUF_SIZE];
	struct pollfd *pfd;
	struct proc **owner;
	int *which;
};

static bool word_is_plain(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!strchr(
		        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,@%+-",
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

static void child_exec(struct proc *p, int in_r, int out_w, int err_w, int report_w)
{
	/* a process group of its own, so a timeout reaches every process the command started */
	setpgid(0, 0);
	int in = in_r >= 0 ? in_r : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || dup2(in, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
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

static void close_pair(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

static int start(struct proc *p, bool stdin_pipe, char *errbuf)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, rep[2] = {-1, -1};
	int rc = 0;
	if ((stdin_pipe && pipe2(in, O_CLOEXEC) < 0) ||
	    (p->out_to < 0 && pipe2(out, O_CLOEXEC) < 0) || pipe2(err, O_CLOEXEC) < 0 ||
	    pipe2(rep, O_CLOEXEC) < 0) {
		rc = -errno;
		goto out;
	}
	p->start_ns = rt_mono_ns();
	pid_t pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0)
		child_exec(p, in[0], p->out_to >= 0 ? p->out_to : out[1], err[1], rep[1]);
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
	p->in_fd = in[1];
	out[0] = err[0] = in[1] = -1;
	for (int i = 0; i < 2; i++)
		if (p->fd[i] >= 0)
			fcntl(p->fd[i], F_SETFL, O_NONBLOCK);
out:
	close_pair(in);
	close_pair(out);
	close_pair(err);
	close_pair(rep);
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

/* Complete lines of stream `which` not yet handed to on_line. */
static void hand_lines(struct proc *p, int which, const struct rt_launch_opts *o)
{
	char *buf = which == 0 ? p->res->out : p->res->err;
	size_t len = which == 0 ? p->res->out_len : p->res->err_len;
	while (o->on_line && buf && p->line_off[which] < len) {
		char *start = buf + p->line_off[which];
		char *nl = memchr(start, '\n', len - p->line_off[which]);
		if (!nl)
			return;
		*nl = '\0';
		o->on_line(o->ctx, p->index, which + 1, start);
		*nl = '\n';
		p->line_off[which] = (size_t)(nl - buf) + 1;
	}
}

/* Read what one pipe holds; keep up to p->cap bytes of it. */
static void drain(struct proc *p, int which, const struct rt_launch_opts *o)
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
			break;
		if (n <= 0) {
			close(p->fd[which]);
			p->fd[which] = -1;
			break;
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
	hand_lines(p, which, o);
}

static void signal_group(struct proc *p, int sig)
{
	if (p->pid > 0 && kill(-p->pid, sig) < 0)
		kill(p->pid, sig);
}

/* Send SIGTERM now and SIGKILL after the grace period. */
static void terminate(struct proc *p, uint64_t now)
{
	signal_group(p, SIGTERM);
	p->term_sent = true;
	p->kill_ns = now + KILL_GRACE_NS;
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
			p->res->status = WIFEXITED(st)     ? WEXITSTATUS(st)
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
		terminate(p, now);
	}
	if (!p->exited && p->term_sent && !p->kill_sent && now >= p->kill_ns) {
		signal_group(p, SIGKILL);
		p->kill_sent = true;
	}
	/* exited, but something it started still holds the pipes: give it a moment, then end it */
	if (p->exited && (p->fd[0] >= 0 || p->fd[1] >= 0) && now >= p->exit_ns + DRAIN_GRACE_NS) {
		signal_group(p, SIGKILL);
		for (int i = 0; i < 2; i++) {
			if (p->fd[i] >= 0)
				drain(p, i, o);
			if (p->fd[i] >= 0) {
				close(p->fd[i]);
				p->fd[i] = -1;
			}
		}
	}
	if (p->exited && p->fd[0] < 0 && p->fd[1] < 0) {
		p->done = true;
		if (p->in_fd >= 0) {
			close(p->in_fd);
			p->in_fd = -1;
		}
	}
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

static void session_free(struct rt_launch_session *s)
{
	if (!s)
		return;
	free(s->procs);
	free(s->pfd);
	free(s->owner);
	free(s->which);
	free(s);
}

static struct rt_launch_session *session_new(const struct rt_launch_opts *o, size_t n,
                                             struct rt_launch_result *res)
{
	struct rt_launch_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->o = *o;
	s->n = n;
	s->procs = calloc(n ? n : 1, sizeof(*s->procs));
	s->pfd = calloc(2 * n + 1, sizeof(*s->pfd));
	s->owner = calloc(2 * n + 1, sizeof(*s->owner));
	s->which = calloc(2 * n + 1, sizeof(*s->which));
	if (!s->procs || !s->pfd || !s->owner || !s->which) {
		session_free(s);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		result_init(&res[i]);
		s->procs[i] =
		    (struct proc){.res = &res[i],
		                  .index = i,
		                  .cap = o->max_output ? o->max_output : RT_LAUNCH_MAX_OUTPUT,
		                  .fd = {-1, -1},
		                  .in_fd = -1,
		                  .out_to = o->stdout_fds ? o->stdout_fds[i] : -1};
	}
	return s;
}

/* Start what the parallel limit allows. */
static void start_more(struct rt_launch_session *s)
{
	size_t limit = s->o.max_parallel ? s->o.max_parallel : s->n;
	while (s->running < limit && s->next < s->n && !(s->o.stop && *s->o.stop)) {
		struct proc *p = &s->procs[s->next++];
		int rc = start(p, s->o.stdin_pipe, s->errbuf);
		if (rc < 0) {
			s->last_err = rc;
			continue;
		}
		if (s->o.timeout_ns)
			p->deadline_ns = p->start_ns + s->o.timeout_ns;
		s->running++;
		s->started_ok++;
	}
}

size_t rt_launch_poll(struct rt_launch_session *s, int timeout_ms)
{
	start_more(s);
	nfds_t nf = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct proc *p = &s->procs[i];
		if (!p->started || p->done)
			continue;
		for (int k = 0; k < 2; k++) {
			if (p->fd[k] < 0)
				continue;
			s->pfd[nf].fd = p->fd[k];
			s->pfd[nf].events = POLLIN;
			s->owner[nf] = p;
			s->which[nf] = k;
			nf++;
		}
	}
	if (s->running) {
		/* exits show up as closed pipes, or within a tick */
		int pr = poll(s->pfd, nf, timeout_ms < TICK_MS ? timeout_ms : TICK_MS);
		if (pr < 0 && errno != EINTR) {
			s->last_err = -errno;
			snprintf(s->errbuf, RT_ERRBUF_SIZE, "poll: %s", strerror(errno));
			/* keep supervising: the processes still need reaping */
		}
		for (nfds_t k = 0; pr > 0 && k < nf; k++)
			if (s->pfd[k].revents)
				drain(s->owner[k], s->which[k], &s->o);
	}
	uint64_t now = rt_mono_ns();
	for (size_t i = 0; i < s->n; i++) {
		struct proc *p = &s->procs[i];
		if (!p->started || p->done)
			continue;
		supervise(p, &s->o, now);
		if (p->done)
			s->running--;
	}
	start_more(s);
	bool stopped = s->o.stop && *s->o.stop;
	return s->running + (stopped ? 0 : s->n - s->next);
}

int rt_launch_start(struct rt_launch_session **out, const struct rt_launch_opts *o,
                    const char *const *hosts, size_t n, struct rt_launch_result *res, char *errbuf)
{
	struct rt_launch_session *s = session_new(o, n, res);
	if (!s) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(res[i].host, sizeof(res[i].host), "%s", hosts[i]);
		res[i].command = rt_launch_command_line(o->launcher, hosts[i],
		                                        o->host_argv ? o->host_argv[i] : o->argv);
		if (!res[i].command) {
			for (size_t k = 0; k <= i; k++) {
				free(res[k].command);
				res[k].command = NULL;
			}
			session_free(s);
			snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
			return -ENOMEM;
		}
		s->procs[i].cmdline = res[i].command;
	}
	start_more(s);
	*out = s;
	return 0;
}

void rt_launch_close_stdin(struct rt_launch_session *s, size_t i)
{
	struct proc *p = &s->procs[i];
	if (p->in_fd >= 0) {
		close(p->in_fd);
		p->in_fd = -1;
	}
}

int rt_launch_write_stdin(struct rt_launch_session *s, size_t i, const char *line)
{
	struct proc *p = &s->procs[i];
	size_t len = strlen(line);
	if (p->in_fd < 0 || !p->started || p->exited)
		return -EPIPE;
	int fl = fcntl(p->in_fd, F_GETFL);
	if (fl < 0 || (!(fl & O_NONBLOCK) && fcntl(p->in_fd, F_SETFL, fl | O_NONBLOCK) < 0))
		return -errno;
	ssize_t n;
	while ((n = write(p->in_fd, line, len)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EAGAIN;
}

void rt_launch_signal(struct rt_launch_session *s, size_t i, int sig)
{
	struct proc *p = &s->procs[i];
	if (p->started && !p->exited)
		signal_group(p, sig);
}

bool rt_launch_done(const struct rt_launch_session *s, size_t i)
{
	return s->procs[i].done;
}

int rt_launch_end(struct rt_launch_session *s, char *errbuf)
{
	uint64_t now = rt_mono_ns();
	for (size_t i = 0; i < s->n; i++) {
		struct proc *p = &s->procs[i];
		rt_launch_close_stdin(s, i);
		if (p->started && !p->exited && !p->term_sent) {
			p->res->stopped = true;
			terminate(p, now);
		}
	}
	bool stopped = s->o.stop && *s->o.stop;
	s->next = s->n; /* nothing more starts */
	while (s->running)
		rt_launch_poll(s, TICK_MS);
	/* never started: the stop flag, or the end came first */
	for (size_t i = 0; i < s->n; i++) {
		struct proc *p = &s->procs[i];
		if (p->started || p->res->error[0])
			continue;
		p->res->status = -1;
		p->res->stopped = true;
		snprintf(p->res->error, sizeof(p->res->error), "not started: stopped");
	}
	int rc =
	    s->started_ok || s->n == 0 || stopped ? 0 : (s->last_err ? s->last_err : -ECANCELED);
	if (rc < 0)
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s", s->errbuf);
	struct rt_launch_result *res = s->n ? s->procs[0].res : NULL;
	size_t n = s->n;
	session_free(s);
	if (res && results_finish(res, n) < 0 && rc == 0) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

int rt_launch_hosts(const struct rt_launch_opts *o, const char *const *hosts, size_t n,
                    struct rt_launch_result *res, char *errbuf)
{
	struct rt_launch_session *s;
	int rc = rt_launch_start(&s, o, hosts, n, res, errbuf);
	if (rc < 0)
		return rc;
	while (rt_launch_poll(s, TICK_MS))
		;
	return rt_launch_end(s, errbuf);
}

int rt_launch_local(char *const *argv, uint64_t timeout_ns, size_t max_output,
                    struct rt_launch_result *res, char *errbuf)
{
	struct rt_launch_opts o = {
	    .timeout_ns = timeout_ns, .max_parallel = 1, .max_output = max_output};
	struct rt_launch_session *s = session_new(&o, 1, res);
	if (!s) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "out of memory");
		return -ENOMEM;
	}
	s->procs[0].argv = argv;
	while (rt_launch_poll(s, TICK_MS))
		;
	return rt_launch_end(s, errbuf);
}

void rt_launch_result_free(struct rt_launch_result *r)
{
	free(r->command);
	free(r->out);
	free(r->err);
	r->command = r->out = r->err = NULL;
	r->out_len = r->err_len = 0;
}

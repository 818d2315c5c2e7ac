/* Capture on many hosts at once through a launcher: start together (each ready), stop together,
 * bring the files home. */
#include "capture/hosts.h"
#include "capture/hosts_internal.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/launch.h"

#define TICK_MS         50
#define KILL_TIMEOUT_NS 10000000000ull /* `LAUNCHER kill PID` of a capture that does not stop */
#define READY_MARK      "rocetrace capture: ready: pid "
#define MAX_WORDS       64 /* words of the remote command */

/* What host i said last: its last line, else why its launcher did not run, else its exit status (in buf). */
static const char *last_words(const struct rt_hostcap *hc, size_t i, char *buf, size_t size)
{
	if (hc->last[i])
		return hc->last[i];
	if (hc->res[i].error[0])
		return hc->res[i].error;
	snprintf(buf, size, "its launcher ended with status %d and printed nothing",
	         hc->res[i].status);
	return buf;
}

/* Each line a host's capture prints: its ready line, its closing counts, the rest for the user. */
static void on_line(void *ctx, size_t i, int stream, const char *line)
{
	struct rt_hostcap *hc = ctx;
	struct rt_hostcap_host *h = &hc->hosts[i];
	const char *m = strstr(line, READY_MARK);
	(void)stream;
	if (m && !h->ready) {
		h->pid = strtol(m + strlen(READY_MARK), NULL, 10);
		h->ready = true;
		return;
	}
	/* its closing line: "rocetrace capture: [ERROR (stopped after ]R received, D dropped, W
	 * written" */
	const char *counts = strstr(line, " received, ");
	if (counts && strstr(line, "rocetrace capture: ")) {
		while (counts > line && isdigit((unsigned char)counts[-1]))
			counts--;
		unsigned long long rx, dropped, w;
		if (sscanf(counts, "%llu received, %llu dropped, %llu written", &rx, &dropped,
		           &w) == 3) {
			h->written = w;
			h->dropped = dropped;
		}
	}
	const char *said = strstr(line, "rocetrace capture: ");
	char *copy = strdup(said ? said + 19 : line);
	if (copy) {
		free(hc->last[i]);
		hc->last[i] = copy;
	}
	hc_events_line(hc, i, line);
	if (hc->cfg.on_line)
		hc->cfg.on_line(hc->cfg.ctx, h, line);
}

/* Split the remote command into words (at spaces and tabs), as doctor --remote does. */
static int split_remote(struct rt_hostcap *hc, char **words, size_t *nw)
{
	hc->words = strdup(hc->cfg.remote ? hc->cfg.remote : "rocetrace");
	if (!hc->words)
		return -ENOMEM;
	*nw = 0;
	char *save = NULL;
	for (char *w = strtok_r(hc->words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (*nw == MAX_WORDS)
			return -E2BIG;
		words[(*nw)++] = w;
	}
	return *nw ? 0 : -EINVAL;
}

static int build(struct rt_hostcap *hc, char *errbuf)
{
	char *words[MAX_WORDS];
	size_t nw, nargs = 0;
	int rc = split_remote(hc, words, &nw);
	hc->nwords = nw;
	if (rc == -EINVAL)
		return rt_errmsg(errbuf, EINVAL, "--remote: no command given");
	if (rc < 0)
		return rt_errorf(errbuf, -rc, "--remote");
	while (hc->cfg.args && hc->cfg.args[nargs])
		nargs++;
	hc->names = calloc(hc->n, sizeof(*hc->names));
	hc->res = calloc(hc->n, sizeof(*hc->res));
	hc->argv = calloc(hc->n, sizeof(*hc->argv));
	hc->last = calloc(hc->n, sizeof(*hc->last));
	if (hc->cfg.events && !(hc->ev = calloc(hc->n, sizeof(*hc->ev))))
		return rt_errorf(errbuf, ENOMEM, "starting the captures");
	if (!hc->names || !hc->res || !hc->argv || !hc->last)
		return rt_errorf(errbuf, ENOMEM, "starting the captures");
	const char *rdir = hc->cfg.remote_dir ? hc->cfg.remote_dir : "/tmp";
	for (size_t i = 0; i < hc->n; i++) {
		struct rt_hostcap_host *h = &hc->hosts[i];
		char part[256];
		hc_file_part(h->name, part, sizeof(part));
		snprintf(h->remote, sizeof(h->remote), "%s/rocetrace-%s-%s%s", rdir, hc->cfg.tag,
		         part, hc->cfg.events ? ".events" : hc->cfg.ext);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(hc->hosts[k].remote, h->remote))
				return rt_errmsg(errbuf, EINVAL,
				                 "%s and %s would share one file name: rename one",
				                 hc->hosts[k].name, h->name);
		h->file[0] = '\0';
		h->pid = 0;
		h->ready = h->ended = h->failed = h->fetched = h->partial_home = false;
		h->partial[0] = '\0';
		h->partial_bytes = 0;
		h->status = -1;
		h->written = h->dropped = UINT64_MAX;
		h->frames = 0;
		h->error[0] = '\0';
		hc->names[i] = h->name;
		char **av = calloc(nw + 9 + nargs, sizeof(*av));
		if (!av)
			return rt_errorf(errbuf, ENOMEM, "starting the captures");
		hc->argv[i] = av;
		size_t k = 0;
		for (size_t w = 0; w < nw; w++)
			av[k++] = words[w];
		av[k++] = "capture";
		av[k++] = "-i";
		av[k++] = (char *)h->dev;
		av[k++] = "-w";
		av[k++] = h->remote;
		av[k++] = "--stop-at-eof";
		av[k++] = "--notify-ready";
		for (size_t a = 0; a < nargs; a++)
			av[k++] = hc->cfg.args[a];
		av[k] = NULL;
	}
	return 0;
}

/* Wait until every capture has ended or `until` (monotonic ns) passes. */
static void wait_ended(struct rt_hostcap *hc, uint64_t until)
{
	while (rt_hostcap_poll(hc, TICK_MS) && rt_mono_ns() < until)
		;
}

/* `LAUNCHER kill -TERM PID` on every host whose capture still runs. */
static void kill_remaining(struct rt_hostcap *hc)
{
	size_t *which = calloc(hc->n, sizeof(*which)), m = 0;
	char ***argv = calloc(hc->n, sizeof(*argv));
	char(*pids)[24] = calloc(hc->n, sizeof(*pids));
	struct rt_launch_result *res = calloc(hc->n, sizeof(*res));
	char errbuf[RT_ERRBUF_SIZE];
	for (size_t i = 0; which && argv && pids && res && i < hc->n; i++) {
		if (hc->hosts[i].ended || hc->hosts[i].pid <= 0)
			continue;
		if (!(argv[m] = calloc(4, sizeof(**argv))))
			break;
		snprintf(pids[m], sizeof(pids[m]), "%ld", hc->hosts[i].pid);
		argv[m][0] = "kill";
		argv[m][1] = "-TERM";
		argv[m][2] = pids[m];
		which[m++] = i;
	}
	if (m && hc_run_on(hc, which, m, (char *const *const *)argv, NULL, KILL_TIMEOUT_NS, res,
	                   errbuf) == 0)
		for (size_t k = 0; k < m; k++)
			rt_launch_result_free(&res[k]);
	for (size_t k = 0; argv && k < m; k++)
		free(argv[k]);
	free(argv);
	free(pids);
	free(res);
	free(which);
}

/* End the launchers (SIGTERM, SIGKILL) and take each capture's status. */
static int end_session(struct rt_hostcap *hc, char *errbuf)
{
	if (!hc->s)
		return 0;
	int rc = rt_launch_end(hc->s, errbuf);
	hc->s = NULL;
	for (size_t i = 0; i < hc->n; i++) {
		struct rt_hostcap_host *h = &hc->hosts[i];
		struct rt_launch_result *r = &hc->res[i];
		h->status = r->status;
		h->ended = true;
		char said[80];
		const char *last = last_words(hc, i, said, sizeof(said));
		if (r->stopped)
			hc_host_fail(
			    h, "its capture did not stop and was killed; its last line: ", last);
		else if (r->status != 0 && !h->ready)
			hc_host_fail(h, "could not start the capture: ", last);
		else if (r->status != 0)
			hc_host_fail(h, "its capture failed: ", last);
	}
	return rc;
}

size_t rt_hostcap_poll(struct rt_hostcap *hc, int timeout_ms)
{
	if (!hc->s)
		return 0;
	rt_launch_poll(hc->s, timeout_ms);
	size_t running = 0;
	for (size_t i = 0; i < hc->n; i++) {
		struct rt_hostcap_host *h = &hc->hosts[i];
		if (!rt_launch_done(hc->s, i)) {
			running++;
			continue;
		}
		if (h->ended)
			continue;
		h->ended = true;
		h->status = hc->res[i].status;
		char said[80];
		const char *last = last_words(hc, i, said, sizeof(said));
		if (h->status != 0)
			hc_host_fail(
			    h, h->ready ? "its capture failed: " : "could not start the capture: ",
			    last);
	}
	return running;
}

/* Stop every capture at once: input closed (launchers of hosts never ready ended), then by pid,
 * then the launchers. */
static int stop_all(struct rt_hostcap *hc, char *errbuf)
{
	if (!hc->s)
		return 0;
	for (size_t i = 0; i < hc->n; i++) {
		rt_launch_close_stdin(hc->s, i);
		if (!hc->hosts[i].ready && !hc->hosts[i].ended)
			rt_launch_signal(hc->s, i, SIGTERM);
	}
	wait_ended(hc, rt_mono_ns() + hc->cfg.stop_timeout_ns);
	if (rt_hostcap_poll(hc, 0)) {
		/* a launcher that does not pass the end of input on: stop them by their pid */
		kill_remaining(hc);
		wait_ended(hc, rt_mono_ns() + hc->cfg.stop_timeout_ns);
	}
	return end_session(hc, errbuf);
}

int rt_hostcap_stop(struct rt_hostcap *hc, char *errbuf)
{
	int rc = stop_all(hc, errbuf);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < hc->n; i++)
		if (hc->hosts[i].failed)
			return rt_errmsg(errbuf, EIO, "%s: %s", hc->hosts[i].name,
			                 hc->hosts[i].error);
	return 0;
}

/* A start that failed or was stopped: stop what started, remove its files, say which host failed
 * first. */
static int abort_start(struct rt_hostcap *hc, int err, char *errbuf)
{
	char ebuf[RT_ERRBUF_SIZE];
	/* a host still starting may have created its file: every host not failed is cleaned */
	size_t *which = calloc(hc->n, sizeof(*which)), m = 0;
	for (size_t i = 0; which && i < hc->n; i++)
		if (!hc->hosts[i].failed)
			which[m++] = i;
	stop_all(hc, ebuf);
	if (m)
		hc_remove_remote(hc, which, m, HC_CAPTURE);
	free(which);
	for (size_t i = 0; i < hc->n; i++)
		if (hc->hosts[i].failed && err != -EINTR)
			return rt_errmsg(errbuf, EIO, "%s: %s", hc->hosts[i].name,
			                 hc->hosts[i].error);
	return rt_errmsg(errbuf, -err,
	                 err == -EINTR ? "stopped before every host was capturing"
	                               : "the captures could not start");
}

/* The soft limit on open files raised to the hard one: every capture holds three pipes here. */
static void open_files_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int rt_hostcap_start(struct rt_hostcap **out, const struct rt_hostcap_config *cfg,
                     struct rt_hostcap_host *hosts, size_t n, char *errbuf)
{
	open_files_limit();
	struct rt_hostcap *hc = calloc(1, sizeof(*hc));
	if (!hc)
		return rt_errorf(errbuf, ENOMEM, "starting the captures");
	hc->cfg = *cfg;
	hc->hosts = hosts;
	hc->n = n;
	*out = hc;
	int rc = build(hc, errbuf);
	if (rc < 0)
		return rc;
	struct rt_launch_opts o = {.launcher = cfg->launcher,
	                           .host_argv = (char *const *const *)hc->argv,
	                           .stdin_pipe = true,
	                           .on_line = on_line,
	                           .ctx = hc};
	if ((rc = rt_launch_start(&hc->s, &o, hc->names, n, hc->res, errbuf)) < 0)
		return rc;
	uint64_t deadline = rt_mono_ns() + cfg->ready_timeout_ns;
	for (;;) {
		rt_hostcap_poll(hc, TICK_MS);
		size_t ready = 0, failed = 0;
		for (size_t i = 0; i < n; i++) {
			char said[80];
			if (hosts[i].ended && !hosts[i].ready)
				hc_host_fail(&hosts[i], "could not start the capture: ",
				             last_words(hc, i, said, sizeof(said)));
			ready += hosts[i].ready;
			failed += hosts[i].failed && !hosts[i].ready;
		}
		if (cfg->stopping && cfg->stopping())
			return abort_start(hc, -EINTR, errbuf);
		if (ready + failed < n && rt_mono_ns() < deadline)
			continue;
		/* the hosts still starting have failed: end their launchers */
		char secs[32];
		snprintf(secs, sizeof(secs), "%llu s",
		         (unsigned long long)(cfg->ready_timeout_ns / 1000000000u));
		for (size_t i = 0; i < n; i++)
			if (!hosts[i].ready && !hosts[i].failed) {
				hc_host_fail(&hosts[i], "not capturing after ", secs);
				rt_launch_signal(hc->s, i, SIGTERM);
			}
		return ready ? 0 : abort_start(hc, -EIO, errbuf);
	}
}

void rt_hostcap_free(struct rt_hostcap *hc)
{
	if (!hc)
		return;
	char errbuf[RT_ERRBUF_SIZE];
	if (hc->s)
		rt_launch_end(hc->s, errbuf);
	for (size_t i = 0; i < hc->n; i++) {
		if (hc->res)
			rt_launch_result_free(&hc->res[i]);
		if (hc->argv)
			free(hc->argv[i]);
		if (hc->last)
			free(hc->last[i]);
	}
	free(hc->res);
	free(hc->argv);
	free(hc->last);
	free(hc->names);
	free(hc->words);
	hc_events_free(hc);
	free(hc);
}

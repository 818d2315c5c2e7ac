/* capture --hosts: the wiring of a capture on every host of a job (capture/hosts.c), its workload
 * and its analysis. */
#include "common/clock.h"
#include "tools/capture_hosts.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/partial.h"
#include "analyze/types.h"
#include "capture/hosts.h"
#include "capture/pump.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/spawn.h"

#define CMD       "capture"
#define MAX_HOSTS 4096
#define TICK_MS   50
#define DRAIN_NS  100000000u /* after CMD exits, the hosts capture this much longer */
#define STOP_TIMEOUT_NS                                                                            \
	15000000000ull /* a stopped capture ends within this (its last block, the file closed) */
#define SAFETY_S                                                                                   \
	60 /* the hosts' own --duration: ours plus this, should the stop never reach them */

/* The workload, for the signal hook to pass SIGTERM on (set while signals are blocked). */
static volatile sig_atomic_t g_child_pid;

/* Signals so far; the second stops bringing the files home (they stay on the hosts). */
static volatile sig_atomic_t g_signals, g_abort;

/* SIGTERM or SIGHUP to us stops the workload too; Ctrl-C reaches it from the terminal. */
static void on_signal(int sig)
{
	if (++g_signals > 1)
		g_abort = 1;
	if ((sig == SIGTERM || sig == SIGHUP) && g_child_pid > 0)
		kill((pid_t)g_child_pid, SIGTERM);
}

/* The hosts of --hosts (HOST or HOST=DEV, comma-separated, HOST a Slurm hostlist expression);
 * 0 or the usage exit status. */
static int parse_hosts(const struct rt_capture_hosts_args *a, struct rt_hostlist *hl,
                       struct rt_hostcap_host **out, size_t *n)
{
	int rc = rt_cli_hosts_expand(CMD, a->specs, a->nspecs, true, MAX_HOSTS, hl);
	if (rc)
		return rc;
	*n = hl->n;
	if (!(*out = calloc(hl->n, sizeof(**out))))
		return rt_cli_fail(CMD, "out of memory");
	for (size_t i = 0; !rc && i < *n; i++) {
		char *h = hl->names[i], *eq = strchr(h, '=');
		if (eq)
			*eq++ = '\0';
		const char *dev = eq && *eq ? eq : a->dev;
		if (!dev)
			rc = rt_cli_usage_error(
			    CMD, "--hosts: %s: no device (give -i DEV, or %s=DEV)", h, h);
		else if (!rt_cli_plain_word(dev))
			rc = rt_cli_usage_error(
			    CMD, "--hosts: %s: '%s' cannot be passed to the host safely", h, dev);
		(*out)[i].name = h;
		(*out)[i].dev = dev;
	}
	return rc;
}

/*
 * Where the files come home, as the start of their names: OUT/ when OUT is a
 * folder or ends with '/' (then created when missing), else OUT- (OUT as it
 * is when it ends with '-', '_' or '.'). 0 or the exit status.
 */
static int out_prefix(const char *out, char *prefix, size_t size)
{
	struct stat st;
	size_t len = strlen(out);
	char last = len ? out[len - 1] : '/';
	bool folder = last == '/' || (stat(out, &st) == 0 && S_ISDIR(st.st_mode));
	if (folder && mkdir(out, 0755) < 0 && errno != EEXIST)
		return rt_cli_fail(CMD, "%s: %s", out, strerror(errno));
	const char *sep = folder ? (last == '/' ? "" : "/") : strchr("-_.", last) ? "" : "-";
	if ((size_t)snprintf(prefix, size, "%s%s", out, sep) >= size)
		return rt_cli_usage_error(CMD, "-w: '%s' is too long", out);
	return 0;
}

/* What a host's capture says, passed on with its name. */
static void host_line(void *ctx, const struct rt_hostcap_host *h, const char *line)
{
	static const char prefix[] = "rocetrace capture: ";
	const char *p = strstr(line, prefix);
	(void)ctx;
	fprintf(stderr, "rocetrace capture: %s: %s\n", h->name, p ? p + sizeof(prefix) - 1 : line);
}

/* The options the hosts' captures get: ours, a safety --duration, then the filter word by word. */
static char **host_args(const struct rt_capture_hosts_args *a, char *dur, size_t dur_len,
                        char **bpf_copy)
{
	size_t n = 0, words = 0;
	while (a->forward && a->forward[n])
		n++;
	*bpf_copy = a->bpf ? strdup(a->bpf) : NULL;
	for (const char *c = a->bpf; c && *c; c++)
		words += *c == ' ';
	char **av = calloc(n + words + 4, sizeof(*av));
	if (!av || (a->bpf && !*bpf_copy))
		return av;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		av[k++] = a->forward[i];
	if (a->duration_ns) {
		snprintf(dur, dur_len, "--duration=%llu",
		         (unsigned long long)(a->duration_ns / 1000000000u + SAFETY_S));
		av[k++] = dur;
	}
	char *save = NULL;
	for (char *w = *bpf_copy ? strtok_r(*bpf_copy, " ", &save) : NULL; w;
	     w = strtok_r(NULL, " ", &save))
		av[k++] = w;
	av[k] = NULL;
	return av;
}

/* The workload has ended (or, when `block`, once it has): *status set, 1; still running: 0. */
static int child_ended(pid_t pid, bool block, int *status)
{
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	int rc;
	while ((rc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG))) <
	           0 &&
	       errno == EINTR)
		;
	if (rc < 0 || info.si_pid == 0)
		return 0;
	g_child_pid = 0; /* before it is reaped: no signal reaches a reused pid */
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st)     ? WEXITSTATUS(st)
	          : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
	                            : RT_EXIT_ERROR;
	return 1;
}

/*
 * Capture until the workload ends (then 100 ms more), --duration passes, or
 * without a workload a signal comes or every capture ended by itself (-c N).
 * A workload still running is left running (g_child_pid).
 */
static void capture_while(const struct rt_capture_hosts_args *a, struct rt_hostcap *hc,
                          int *cmd_status)
{
	uint64_t start = rt_mono_ns();
	if (a->cmd) {
		fflush(NULL);
		struct rt_spawn sp = {
		    .argv = a->cmd,
		    .pid = &g_child_pid,
		    .cancelled = rt_pump_stopping,
		    .child_signals = rt_pump_release_signals,
		};
		char errbuf[RT_ERRBUF_SIZE];
		bool exec_failed;
		int rc = rt_spawn(&sp, &exec_failed, errbuf);
		if (rc < 0) {
			if (rc != -ECANCELED)
				rt_cli_fail(CMD, "%s", errbuf);
			*cmd_status = rc == -ECANCELED ? -1
			              : exec_failed    ? rt_spawn_exit_status(-rc)
			                               : RT_EXIT_ERROR;
			return;
		}
	}
	for (;;) {
		if (a->duration_ns && rt_mono_ns() - start >= a->duration_ns)
			return;
		if (a->cmd && child_ended((pid_t)g_child_pid, false, cmd_status))
			break;
		if (!a->cmd && rt_pump_stopping())
			return;
		if (!rt_hostcap_poll(hc, TICK_MS) && !a->cmd)
			return;
	}
	for (uint64_t drained = rt_mono_ns() + DRAIN_NS;
	     rt_mono_ns() < drained && !rt_pump_stopping();)
		rt_hostcap_poll(hc, TICK_MS);
}

/* A count of frames, or "unknown". */
static const char *count(uint64_t v, char *buf, size_t size)
{
	if (v == UINT64_MAX)
		return "unknown";
	snprintf(buf, size, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * One line on what became of a host analyzed where it captured: its frames
 * and drops, where its capture is (here, or HOST:PATH on its host), its
 * partial here and its size, or why it failed; whether its partial came home.
 */
static bool report_there(const struct rt_hostcap_host *h)
{
	char frames[32], dropped[32];
	fprintf(stderr, "    %s: %s frames, %s dropped: ", h->name,
	        count(h->fetched ? h->frames : h->written, frames, sizeof(frames)),
	        count(h->dropped, dropped, sizeof(dropped)));
	if (h->fetched)
		fputs(h->file, stderr);
	else
		fprintf(stderr, "%s:%s", h->name, h->remote);
	if (h->partial_home)
		fprintf(stderr, "; partial %s (%llu bytes)", h->partial,
		        (unsigned long long)h->partial_bytes);
	if (h->failed)
		fprintf(stderr, "; failed: %s", h->error);
	fputc('\n', stderr);
	return h->partial_home;
}

/* A partial that came home reads whole, as the merge will read it: 0, or why not. */
static int check_partial(const char *path, char *errbuf)
{
	struct rt_partial *p = NULL;
	int rc = rt_partial_read(path, &p, errbuf);
	rt_partial_free(p);
	return rc;
}

/* One line on what became of a host; whether its file (its partial, when `there`) came home. */
static bool report(const struct rt_hostcap_host *h, bool there)
{
	char buf[32];
	const char *dropped = count(h->dropped, buf, sizeof(buf));
	if (there && h->ready)
		return report_there(h);
	if (h->fetched && !h->failed && h->events)
		fprintf(stderr, "    %s: %u event%s, %llu frames, %s dropped: %s\n", h->name,
		        h->events, h->events == 1 ? "" : "s", (unsigned long long)h->frames,
		        dropped, h->file);
	else if (h->fetched && !h->failed && h->file[0])
		fprintf(stderr, "    %s: %llu frames, %s dropped: %s\n", h->name,
		        (unsigned long long)h->frames, dropped, h->file);
	else if (h->fetched && !h->failed)
		fprintf(stderr, "    %s: no event, %s dropped\n", h->name, dropped);
	else if (h->fetched)
		fprintf(stderr, "    %s: %llu frames, %s dropped: %s; failed: %s\n", h->name,
		        (unsigned long long)h->frames, dropped, h->file, h->error);
	else
		fprintf(stderr, "    %s: failed: %s\n", h->name, h->error);
	return there ? false : h->fetched;
}

/*
 * `rocetrace analyze` over what came home, its exit status: the files, each
 * host a vantage point, or (`there`) the hosts' partials merged, the hosts
 * whose partial did not come home named as missing.
 */
static int analyze(const struct rt_hostcap_host *hosts, size_t n, bool there)
{
	char **argv = calloc(2 * n + 2, sizeof(*argv));
	char(*vantage)[4700] = calloc(n, sizeof(*vantage));
	int argc = 0, status = RT_EXIT_ERROR;
	if (!argv || !vantage) {
		rt_cli_fail(CMD, "out of memory");
		goto out;
	}
	size_t missing = 0;
	for (size_t i = 0; there && i < n; i++)
		if (!hosts[i].partial_home)
			fprintf(stderr, "%s %s",
			        missing++
			            ? ","
			            : "rocetrace capture: missing from the analysis (no partial):",
			        hosts[i].name);
	if (missing)
		fputc('\n', stderr);
	argv[argc++] = "analyze";
	fprintf(stderr, "rocetrace capture: the analysis: rocetrace analyze");
	for (size_t i = 0; i < n; i++) {
		if (there && hosts[i].partial_home) {
			argv[argc++] = (char *)hosts[i].partial;
			fprintf(stderr, " %s", hosts[i].partial);
		}
		if (there || !hosts[i].fetched)
			continue;
		snprintf(vantage[i], sizeof(vantage[i]), "%s=%s", hosts[i].name, hosts[i].file);
		argv[argc++] = "--vantage";
		argv[argc++] = vantage[i];
		fprintf(stderr, " --vantage %s", vantage[i]);
	}
	fputc('\n', stderr);
	fflush(NULL);
	status = rt_cmd_analyze(argc, argv);
out:
	free(argv);
	free(vantage);
	return status;
}

int rt_capture_hosts(const struct rt_capture_hosts_args *a)
{
	char *bpf_copy = NULL, dur[48], tag[96], self[64] = "", prefix[4096];
	struct rt_hostcap_host *hosts = NULL;
	struct rt_hostlist hl = {0};
	struct rt_hostcap *hc = NULL;
	char **args = NULL;
	size_t n = 0;
	int status = parse_hosts(a, &hl, &hosts, &n);
	/* refused before anything runs: the merge would refuse the partials after it all */
	if (!status && a->analyze_there && n > RT_PARTIAL_MERGE_MAX)
		status =
		    rt_cli_usage_error(CMD,
		                       "--analyze-there: %zu hosts, and at most %d partials merge "
		                       "(a vantage point each): give --hosts at most %d hosts a "
		                       "run",
		                       n, RT_PARTIAL_MERGE_MAX, RT_PARTIAL_MERGE_MAX);
	/* the files that come home are analyzed in one pass, which follows 8 points */
	if (!status && !a->analyze_there && a->analyze && !a->ring && n > RT_AN_VANTAGE_MAX)
		fprintf(stderr,
		        "rocetrace capture: %zu hosts: the analysis here follows %d vantage points "
		        "(paths leave out the hosts after the %dth); --analyze-there merges all\n",
		        n, RT_AN_VANTAGE_MAX, RT_AN_VANTAGE_MAX);
	if (!status)
		status = out_prefix(a->out, prefix, sizeof(prefix));
	if (status)
		goto out;
	if (!(args = host_args(a, dur, sizeof(dur), &bpf_copy))) {
		status = rt_cli_fail(CMD, "out of memory");
		goto out;
	}
	/* the hosts' files are named after this run, so two runs never meet */
	gethostname(self, sizeof(self) - 1);
	for (char *c = self; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
		            *c))
			*c = '_';
	snprintf(tag, sizeof(tag), "%s-%ld", self[0] ? self : "here", (long)getpid());
	struct rt_hostcap_config cfg = {
	    .launcher = a->launcher,
	    .remote = a->remote,
	    .remote_dir = a->remote_dir,
	    .prefix = prefix,
	    .ext = a->pcap ? ".pcap" : ".pcapng",
	    .tag = tag,
	    .args = args,
	    .counters = a->counters,
	    .events = a->ring,
	    .ready_timeout_ns = a->timeout_ns,
	    .stop_timeout_ns = STOP_TIMEOUT_NS,
	    .on_line = host_line,
	    .stopping = rt_pump_stopping,
	    .abort = &g_abort,
	    .check_partial = check_partial,
	    .partial_bucket_ns = a->bucket_ns,
	};
	char errbuf[RT_ERRBUF_SIZE];
	rt_pump_catch_signals(on_signal);
	int rc = rt_hostcap_start(&hc, &cfg, hosts, n, errbuf);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			if (hosts[i].failed)
				fprintf(stderr, "rocetrace capture: %s: %s\n", hosts[i].name,
				        hosts[i].error);
		status = rc == -EINTR ? rt_cli_interrupted(CMD, 0, ": %s", errbuf)
		                      : rt_cli_fail(CMD, "no capture ran: %s", errbuf);
		goto out;
	}
	size_t capturing = 0;
	for (size_t i = 0; i < n; i++)
		capturing += hosts[i].ready;
	fprintf(stderr, "rocetrace capture: capturing on %zu of %zu host%s:", capturing, n,
	        n == 1 ? "" : "s");
	for (size_t i = 0, k = 0; i < n; i++)
		if (hosts[i].ready)
			fprintf(stderr, "%s %s (%s)", k++ ? "," : "", hosts[i].name, hosts[i].dev);
	fputc('\n', stderr);
	for (size_t i = 0; i < n; i++)
		if (hosts[i].failed)
			fprintf(stderr, "rocetrace capture: %s: %s\n", hosts[i].name,
			        hosts[i].error);
	int cmd_status = -1;
	capture_while(a, hc, &cmd_status);
	bool failed = rt_hostcap_stop(hc, errbuf) < 0;
	if (g_child_pid > 0) {
		/* --duration ended the captures first: the workload runs to its end, as with one
		 * capture */
		fprintf(
		    stderr,
		    "rocetrace capture: the captures stopped after --duration; waiting for CMD\n");
		child_ended((pid_t)g_child_pid, true, &cmd_status);
	}
	/* the analysis where the captures are, before they leave (--fetch) */
	if (a->analyze_there)
		failed |= rt_hostcap_analyze(hc, errbuf) < 0;
	if (!a->analyze_there || a->fetch)
		failed |= rt_hostcap_fetch(hc, errbuf) < 0;
	size_t home = 0;
	fprintf(stderr, "rocetrace capture: %zu host%s:\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		home += report(&hosts[i], a->analyze_there);
	if (a->analyze_there && !a->fetch)
		fprintf(stderr,
		        "rocetrace capture: the captures stay on the hosts (HOST:PATH above; "
		        "--fetch brings them home)\n");
	rt_pump_release_signals();
	/* event files are windows of their own: analyze each as needed */
	int an_status =
	    a->analyze && home && !a->ring ? analyze(hosts, n, a->analyze_there) : RT_EXIT_OK;
	if (a->analyze_there && !home)
		fprintf(stderr, "rocetrace capture: no partial came home: nothing to analyze\n");
	status = failed ? RT_EXIT_ERROR : cmd_status >= 0 ? cmd_status : an_status;
out:
	rt_pump_release_signals();
	rt_hostcap_free(hc);
	free(args);
	free(bpf_copy);
	free(hosts);
	rt_hostlist_free(&hl);
	return status;
}

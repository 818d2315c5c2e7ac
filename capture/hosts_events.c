/* capture --hosts --ring: an event on one host told to the others, every host's event files brought home. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/hosts_internal.h"

#define EVENT_MARK   "rocetrace capture: event "
#define WRITING_MARK ": writing "
#define REMOTE_MARK  " on host " /* an event another host's asked for */

/* "20261127T114631.123456789Z" (rt_recorder_time) back to ns since the epoch; 0 when it is not one. */
static uint64_t parse_time(const char *s)
{
	struct tm tm = {0};
	unsigned ns;
	int n = 0;
	if (sscanf(s, "%4d%2d%2dT%2d%2d%2d.%9uZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
	           &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ns, &n) != 7 ||
	    n != 26)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm);
	return t < 0 ? 0 : (uint64_t)t * 1000000000u + ns;
}

/* The event file `path` of host i, to come home. */
static void remember(struct rt_hostcap *hc, size_t i, const char *path)
{
	struct hc_events *e = &hc->ev[i];
	char **np = realloc(e->remote, (e->n + 1) * sizeof(*np));
	if (!np)
		return;
	e->remote = np;
	if ((e->remote[e->n] = strdup(path))) {
		e->n++;
		hc->hosts[i].events++;
	}
}

/* Tell every other host capturing: "event TIME_NS CODE HOST TRIGGER". */
static void tell_others(struct rt_hostcap *hc, size_t i, const char *trigger, const char *when,
                        const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *t = strstr(base, when), *dot = strrchr(base, '.');
	uint64_t ns = parse_time(when);
	char msg[512];
	if (!ns || !t || !dot || t + strlen(when) + 1 >= dot)
		return;
	const char *code = t + strlen(when) + 1;
	int len = snprintf(msg, sizeof(msg), "event %llu %.*s %s %s\n", (unsigned long long)ns,
	                   (int)(dot - code), code, hc->hosts[i].name, trigger);
	if (len < 0 || (size_t)len >= sizeof(msg))
		return;
	for (size_t k = 0; k < hc->n; k++)
		if (k != i && hc->hosts[k].ready && !hc->hosts[k].ended)
			rt_launch_write_stdin(hc->s, k, msg);
}

void hc_events_line(struct rt_hostcap *hc, size_t i, const char *line)
{
	const char *m = strstr(line, EVENT_MARK), *w = m ? strstr(m, WRITING_MARK) : NULL;
	if (!hc->cfg.events || !w || !hc->ev)
		return;
	char path[4200], trigger[96], when[40];
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(w + strlen(WRITING_MARK), "\r\n"),
	         w + strlen(WRITING_MARK));
	remember(hc, i, path);
	/* its own trigger: "event N: TRIGGER at TIME (FIGURES): writing FILE" */
	if (strstr(m, REMOTE_MARK) ||
	    sscanf(m + strlen(EVENT_MARK), "%*u: %95s at %39s", trigger, when) != 2)
		return;
	tell_others(hc, i, trigger, when, path);
}

/* One event file of host i home as PREFIX NAME-BASENAME, checked. 0 or -1 (the host failed). */
static int fetch_one(struct rt_hostcap *hc, size_t i, const char *remote)
{
	struct rt_hostcap_host *h = &hc->hosts[i];
	const char *base = strrchr(remote, '/') ? strrchr(remote, '/') + 1 : remote;
	char name[256], final[4700], part[4800], errbuf[RT_ERRBUF_SIZE];
	struct rt_launch_result res = {0};
	uint64_t frames;
	hc_file_part(h->name, name, sizeof(name));
	snprintf(final, sizeof(final), "%s%s-%s", hc->cfg.prefix, name, base);
	snprintf(part, sizeof(part), "%s.part", final);
	int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		hc_host_fail(h, "cannot write here: ", strerror(errno));
		return -1;
	}
	char *argv0[] = {"cat", (char *)remote, NULL};
	char *const *argv[] = {argv0};
	int rc = hc_run_on(hc, &i, 1, argv, &fd, hc->cfg.fetch_timeout_ns, &res, errbuf);
	close(fd);
	if (rc == 0 && res.status != 0)
		snprintf(errbuf, sizeof(errbuf), "%.*s", (int)strcspn(res.err, "\n"),
		         res.err[0] ? res.err : "cat failed");
	if (rc < 0 || res.status != 0 || hc_count_frames(part, &frames, errbuf) < 0 ||
	    rename(part, final) < 0) {
		char why[RT_ERRBUF_SIZE + 4300];
		snprintf(why, sizeof(why), "%s: %s", remote, errbuf);
		hc_host_fail(h, "cannot bring its event file home: ", why);
		unlink(part);
		rt_launch_result_free(&res);
		return -1;
	}
	rt_launch_result_free(&res);
	h->frames += frames;
	h->events_home++;
	if (!h->file[0]) /* the folder they came home to, for the closing list */
		snprintf(h->file, sizeof(h->file), "%s%s-event*", hc->cfg.prefix, name);
	return 0;
}

void hc_events_fetch(struct rt_hostcap *hc)
{
	for (size_t i = 0; i < hc->n; i++) {
		struct rt_hostcap_host *h = &hc->hosts[i];
		if (!h->ready)
			continue;
		bool ok = true;
		for (size_t k = 0; k < hc->ev[i].n && ok; k++)
			ok = fetch_one(hc, i, hc->ev[i].remote[k]) == 0;
		if (!ok)
			continue; /* what did not come home stays on its host */
		h->fetched = true;
		char *rm[] = {"rm", "-rf", h->remote, NULL};
		char *const *argv[] = {rm};
		struct rt_launch_result res = {0};
		char errbuf[RT_ERRBUF_SIZE];
		if (hc_run_on(hc, &i, 1, argv, NULL, hc->cfg.fetch_timeout_ns, &res, errbuf) == 0)
			rt_launch_result_free(&res);
	}
}

void hc_events_free(struct rt_hostcap *hc)
{
	for (size_t i = 0; hc->ev && i < hc->n; i++) {
		for (size_t k = 0; k < hc->ev[i].n; k++)
			free(hc->ev[i].remote[k]);
		free(hc->ev[i].remote);
	}
	free(hc->ev);
	hc->ev = NULL;
}

/* What capture on many hosts brings home: the captures, their counters files, and the partials of an analysis run where the captures are. */
#include "capture/hosts.h"
#include "capture/hosts_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/launch.h"

#define RM_TIMEOUT_NS 10000000000ull /* `LAUNCHER rm -f FILE...` */
#define PARTIAL_EXT   ".rtpart"

/* Where file `what` of host h is on its host (remote) and comes home (home; NULL: not needed). */
static void file_names(const struct rt_hostcap *hc, const struct rt_hostcap_host *h,
                       enum hc_file what, char *remote, size_t rsize, char *home, size_t hsize)
{
	char name[256];
	size_t stem = strlen(h->remote), ext = strlen(hc->cfg.ext);
	const char *suffix = what == HC_COUNTERS  ? ".counters.jsonl"
	                     : what == HC_PARTIAL ? PARTIAL_EXT
	                                          : "";
	/* the partial is named after the capture, its extension replaced */
	if (what == HC_PARTIAL && stem >= ext)
		stem -= ext;
	snprintf(remote, rsize, "%.*s%s", (int)stem, h->remote, suffix);
	if (!home)
		return;
	hc_file_part(h->name, name, sizeof(name));
	snprintf(home, hsize, "%s%s%s%s", hc->cfg.prefix, name,
	         what == HC_PARTIAL ? "" : hc->cfg.ext, suffix);
}

void hc_remove_remote(struct rt_hostcap *hc, const size_t *which, size_t m, enum hc_file what)
{
	char ***argv = calloc(m ? m : 1, sizeof(*argv));
	char(*paths)[2][4300] = calloc(m ? m : 1, sizeof(*paths));
	struct rt_launch_result *res = calloc(m ? m : 1, sizeof(*res));
	char errbuf[RT_ERRBUF_SIZE];
	for (size_t k = 0; argv && paths && res && k < m; k++) {
		struct rt_hostcap_host *h = &hc->hosts[which[k]];
		file_names(hc, h, what, paths[k][0], sizeof(paths[k][0]), NULL, 0);
		file_names(hc, h, HC_COUNTERS, paths[k][1], sizeof(paths[k][1]), NULL, 0);
		if (!(argv[k] = calloc(5, sizeof(**argv))))
			goto out;
		argv[k][0] = "rm";
		argv[k][1] = "-f";
		argv[k][2] = paths[k][0];
		argv[k][3] = what == HC_CAPTURE && hc->cfg.counters ? paths[k][1] : NULL;
	}
	if (argv && paths && res &&
	    hc_run_on(hc, which, m, (char *const *const *)argv, NULL, RM_TIMEOUT_NS, res, errbuf) ==
	        0)
		for (size_t k = 0; k < m; k++)
			rt_launch_result_free(&res[k]);
out:
	for (size_t k = 0; argv && k < m; k++)
		free(argv[k]);
	free(argv);
	free(paths);
	free(res);
}

/* The first line of what a command said, or why it did not run or end. */
static const char *why_failed(const struct rt_launch_result *r, const char *otherwise)
{
	return r->stopped ? "stopped" : r->err[0] ? r->err : r->error[0] ? r->error : otherwise;
}

/*
 * A file of host h arrived whole in `part`: check it (a capture holds the
 * frames its capture wrote, a partial reads as one), then name it `home`.
 * False for a capture that came home with fewer frames than it wrote, on a
 * first try (`again`: the host fails).
 */
static bool arrived(const struct rt_hostcap_config *cfg, struct rt_hostcap_host *h,
                    enum hc_file what, const char *part, const char *home, bool again)
{
	char errbuf[RT_ERRBUF_SIZE];
	if (what == HC_PARTIAL && cfg->check_partial && cfg->check_partial(part, errbuf) < 0) {
		char why[2 * RT_ERRBUF_SIZE + 4500];
		snprintf(why, sizeof(why), "%s (kept as %s, and on the host)", errbuf, part);
		hc_host_fail(h, "its partial came home unreadable: ", why);
		return true;
	}
	if (what == HC_CAPTURE) {
		uint64_t frames;
		int rc = hc_count_frames(part, &frames, errbuf);
		h->frames = frames;
		if (rc < 0 || (h->written != UINT64_MAX && frames != h->written)) {
			if (!again)
				return false;
			char why[RT_ERRBUF_SIZE + 128];
			if (rc < 0)
				snprintf(why, sizeof(why), "%s", errbuf);
			else
				snprintf(why, sizeof(why), "%llu frames, its capture wrote %llu",
				         (unsigned long long)frames,
				         (unsigned long long)h->written);
			hc_host_fail(h, "its file came home incomplete, twice: ", why);
			return true; /* kept as .part, and on the host */
		}
	}
	if (rename(part, home) < 0) {
		hc_host_fail(h, "cannot name its file: ", strerror(errno));
		return true;
	}
	struct stat st;
	if (what == HC_CAPTURE) {
		snprintf(h->file, sizeof(h->file), "%s", home);
		h->fetched = true;
	} else if (what == HC_PARTIAL) {
		snprintf(h->partial, sizeof(h->partial), "%s", home);
		h->partial_bytes = stat(home, &st) == 0 ? (uint64_t)st.st_size : 0;
		h->partial_home = true;
	}
	return true;
}

/*
 * Bring file `what` of the hosts in which[] home (`LAUNCHER cat FILE` into
 * HOME.part), checked; a capture that came home with fewer frames than it
 * wrote is brought once more (`again` set: the second time), for the copy
 * may have been cut on its way (a launcher's forwarding under load, seen
 * once in some thirty runs through srun) while the file on its host is whole.
 */
static void fetch_files(struct rt_hostcap *hc, const size_t *which, size_t m, enum hc_file what,
                        bool again)
{
	char ***argv = calloc(m, sizeof(*argv));
	char(*remote)[4300] = calloc(m, sizeof(*remote));
	char(*home)[4400] = calloc(m, sizeof(*home));
	char(*part)[4410] = calloc(m, sizeof(*part));
	int *fds = calloc(m, sizeof(*fds));
	struct rt_launch_result *res = calloc(m, sizeof(*res));
	size_t *cut = calloc(m, sizeof(*cut)), ncut = 0; /* those brought again */
	char errbuf[RT_ERRBUF_SIZE];
	if (!argv || !remote || !home || !part || !fds || !res || !cut) {
		for (size_t k = 0; k < m; k++)
			hc_host_fail(&hc->hosts[which[k]], "",
			             "out of memory bringing its file home");
		goto out;
	}
	for (size_t k = 0; k < m; k++)
		fds[k] = -1;
	for (size_t k = 0; k < m; k++) {
		struct rt_hostcap_host *h = &hc->hosts[which[k]];
		file_names(hc, h, what, remote[k], sizeof(remote[k]), home[k], sizeof(home[k]));
		snprintf(part[k], sizeof(part[k]), "%s.part", home[k]);
		fds[k] = open(part[k], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
		argv[k] = calloc(3, sizeof(**argv));
		if (fds[k] < 0 || !argv[k]) {
			hc_host_fail(h, "cannot write here: ", strerror(errno));
			for (size_t j = 0; j < m; j++) /* none is brought: each says so */
				hc_host_fail(
				    &hc->hosts[which[j]], "cannot bring its file home: ",
				    "another host's file cannot be written here (it stays on "
				    "the host)");
			goto out;
		}
		argv[k][0] = "cat";
		argv[k][1] = remote[k];
	}
	if (hc_run_on(hc, which, m, (char *const *const *)argv, fds, hc->cfg.fetch_timeout_ns, res,
	              errbuf) < 0) {
		for (size_t k = 0; k < m; k++)
			hc_host_fail(&hc->hosts[which[k]], "cannot bring its file home: ", errbuf);
		goto out;
	}
	for (size_t k = 0; k < m; k++) {
		struct rt_hostcap_host *h = &hc->hosts[which[k]];
		close(fds[k]);
		fds[k] = -1;
		if (res[k].status != 0) {
			char why[RT_ERRBUF_SIZE + 4400];
			const char *msg = why_failed(&res[k], "cat failed");
			snprintf(why, sizeof(why), "%.*s (it stays on the host as %s)",
			         (int)strcspn(msg, "\n"), msg, remote[k]);
			hc_host_fail(h, "cannot bring its file home: ", why);
			unlink(part[k]);
			continue;
		}
		if (!arrived(&hc->cfg, h, what, part[k], home[k], again))
			cut[ncut++] = which[k];
	}
out:
	for (size_t k = 0; k < m; k++) {
		if (fds && fds[k] >= 0) { /* a file not brought: no half of it is left here */
			close(fds[k]);
			unlink(part[k]);
		}
		if (argv)
			free(argv[k]);
		if (res)
			rt_launch_result_free(&res[k]);
	}
	free(argv);
	free(remote);
	free(home);
	free(part);
	free(fds);
	free(res);
	if (ncut)
		fetch_files(hc, cut, ncut, what, true);
	free(cut);
}

/* The hosts that captured (their file is on the host) into which[]; how many. */
static size_t captured(const struct rt_hostcap *hc, size_t *which)
{
	size_t m = 0;
	for (size_t i = 0; i < hc->n; i++)
		if (hc->hosts[i].ready)
			which[m++] = i;
	return m;
}

int rt_hostcap_fetch(struct rt_hostcap *hc, char *errbuf)
{
	size_t *which = calloc(hc->n ? hc->n : 1, sizeof(*which));
	if (!which)
		return rt_errorf(errbuf, ENOMEM, "bringing the files home");
	size_t m = captured(hc, which);
	if (hc->cfg.events) { /* no capture file: the event files, and each folder removed */
		hc_events_fetch(hc);
		m = 0;
	}
	if (m)
		fetch_files(hc, which, m, HC_CAPTURE, false);
	if (m && hc->cfg.counters)
		fetch_files(hc, which, m, HC_COUNTERS, false);
	/* what came home complete leaves its host */
	size_t done = 0;
	for (size_t k = 0; k < m; k++)
		if (hc->hosts[which[k]].fetched)
			which[done++] = which[k];
	if (done)
		hc_remove_remote(hc, which, done, HC_CAPTURE);
	free(which);
	for (size_t i = 0; i < hc->n; i++)
		if (hc->hosts[i].ready && !hc->hosts[i].fetched)
			return rt_errmsg(errbuf, EIO, "%s: %s", hc->hosts[i].name,
			                 hc->hosts[i].error);
	return 0;
}

/*
 * The line of said[0..len-1] that says why a command failed: the last that
 * rocetrace wrote ("rocetrace analyze: ..."; a launcher such as srun adds
 * lines of its own after it), else the last.
 */
static const char *last_line(const char *said, size_t len)
{
	const char *last = NULL, *ours = NULL;
	for (const char *line = said; line < said + len;) {
		last = line;
		if (!strncmp(line, "rocetrace ", 10))
			ours = line;
		const char *nl = memchr(line, '\n', (size_t)(said + len - line));
		line = nl ? nl + 1 : said + len;
	}
	return ours ? ours : last ? last : said;
}

/* Run `REMOTE analyze [--bucket Dns] --partial RPART --point NAME FILE` on the hosts in which[];
 * those whose analysis failed are marked so and dropped from which[]. How many remain. */
static size_t analyze_there(struct rt_hostcap *hc, size_t *which, size_t m)
{
	char ***argv = calloc(m ? m : 1, sizeof(*argv));
	char(*rpart)[4300] = calloc(m ? m : 1, sizeof(*rpart));
	struct rt_launch_result *res = calloc(m ? m : 1, sizeof(*res));
	char errbuf[RT_ERRBUF_SIZE], bucket[32];
	size_t ok = 0;
	int rc = argv && rpart && res ? 0 : rt_errorf(errbuf, ENOMEM, "analyzing on the hosts");
	snprintf(bucket, sizeof(bucket), "%lluns", (unsigned long long)hc->cfg.partial_bucket_ns);
	for (size_t k = 0; !rc && k < m; k++) {
		struct rt_hostcap_host *h = &hc->hosts[which[k]];
		file_names(hc, h, HC_PARTIAL, rpart[k], sizeof(rpart[k]), NULL, 0);
		if (!(argv[k] = calloc(hc->nwords + 9, sizeof(**argv)))) {
			rc = rt_errorf(errbuf, ENOMEM, "analyzing on the hosts");
			break;
		}
		size_t w = 0;
		for (; w < hc->nwords; w++)
			argv[k][w] = hc->argv[which[k]][w];
		argv[k][w++] = "analyze";
		if (hc->cfg.partial_bucket_ns) {
			argv[k][w++] = "--bucket";
			argv[k][w++] = bucket;
		}
		char *const tail[] = {"--partial", rpart[k], "--point", (char *)h->name, h->remote};
		memcpy(&argv[k][w], tail, sizeof(tail));
	}
	if (!rc)
		rc = hc_run_on(hc, which, m, (char *const *const *)argv, NULL, 0, res, errbuf);
	for (size_t k = 0; k < m; k++) {
		struct rt_hostcap_host *h = &hc->hosts[which[k]];
		if (rc < 0) {
			hc_host_fail(h, "could not run its analysis there: ", errbuf);
			continue;
		}
		if (res[k].status == 0) {
			which[ok++] = which[k];
		} else {
			/* its last line says why (analyze's own error line) */
			char msg[RT_ERRBUF_SIZE];
			const char *said = why_failed(&res[k], "it printed nothing");
			size_t len = strlen(said);
			while (len && said[len - 1] == '\n')
				len--;
			const char *from = last_line(said, len);
			int cut =
			    snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(from, "\n"), from);
			if (!res[k].stopped && res[k].status > 0 && cut > 0 &&
			    (size_t)cut < sizeof(msg))
				snprintf(msg + cut, sizeof(msg) - (size_t)cut, " (exit %d)",
				         res[k].status);
			hc_host_fail(h, "its analysis there failed: ", msg);
		}
		rt_launch_result_free(&res[k]);
	}
	for (size_t k = 0; argv && k < m; k++)
		free(argv[k]);
	free(argv);
	free(rpart);
	free(res);
	return ok;
}

int rt_hostcap_analyze(struct rt_hostcap *hc, char *errbuf)
{
	if (hc->cfg.events)
		return rt_errmsg(errbuf, EINVAL, "event files are analyzed where they come home");
	size_t *which = calloc(hc->n ? hc->n : 1, sizeof(*which)),
	       *ran = calloc(hc->n ? hc->n : 1, sizeof(*ran));
	if (!which || !ran) {
		free(which);
		free(ran);
		return rt_errorf(errbuf, ENOMEM, "analyzing on the hosts");
	}
	size_t m = captured(hc, which);
	memcpy(ran, which, m * sizeof(*which));
	size_t ok = m ? analyze_there(hc, which, m) : 0;
	if (ok)
		fetch_files(hc, which, ok, HC_PARTIAL, false);
	/*
	 * a failed analysis may have left its partial behind: cleaned; a partial that did not come
	 * home stays where it is (its host's line says so), the others are home
	 */
	size_t clean = 0;
	for (size_t k = 0; k < m; k++) {
		bool analyzed = false;
		for (size_t j = 0; j < ok && !analyzed; j++)
			analyzed = which[j] == ran[k];
		if (!analyzed || hc->hosts[ran[k]].partial_home)
			ran[clean++] = ran[k];
	}
	if (clean)
		hc_remove_remote(hc, ran, clean, HC_PARTIAL);
	free(which);
	free(ran);
	for (size_t i = 0; i < hc->n; i++)
		if (hc->hosts[i].ready && !hc->hosts[i].partial_home)
			return rt_errmsg(errbuf, EIO, "%s: %s", hc->hosts[i].name,
			                 hc->hosts[i].error);
	return 0;
}

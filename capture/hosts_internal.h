/* Inside capture on many hosts (capture/hosts.c, hosts_events.c, hosts_remote.c): the session and its helpers. */
#ifndef RT_HOSTS_INTERNAL_H
#define RT_HOSTS_INTERNAL_H

#include "capture/hosts.h"
#include "common/launch.h"

/* One host's event files (rt_hostcap_config.events), as its capture named them. */
struct hc_events {
	char **remote; /* on the host */
	size_t n;
};

struct rt_hostcap {
	struct rt_hostcap_config cfg;
	struct rt_hostcap_host *hosts;
	size_t n;
	const char **names;
	struct rt_launch_session *s;
	struct rt_launch_result *res;
	char ***argv;         /* per host */
	char *words;          /* the remote command, split */
	size_t nwords;        /* its words: the first of each argv[i] */
	char **last;          /* per host: its last line that was not the ready line */
	struct hc_events *ev; /* per host, with cfg.events */
};

/* A host name as part of a file name: what is not a letter, digit, '.', '_' or '-' becomes '_'. */
void hc_file_part(const char *name, char *out, size_t size);
/* Host h failed: `what` and `detail` (cut to fit), unless it failed before. */
void hc_host_fail(struct rt_hostcap_host *h, const char *what, const char *detail);
/* Run one short command on some hosts (kill, rm, cat); per host argv; stdout into fds when given. */
int hc_run_on(struct rt_hostcap *hc, const size_t *which, size_t m, char *const *const *argv,
              const int *fds, uint64_t timeout_ns, struct rt_launch_result *res, char *errbuf);
/* What a host has to bring home or remove. */
enum hc_file {
	HC_CAPTURE,  /* its capture file (with --counters, its counters file too when removed) */
	HC_COUNTERS, /* its capture's counters file (FILE.counters.jsonl) */
	HC_PARTIAL,  /* the partial its analysis there wrote (rt_hostcap_analyze) */
};
/* Remove those files of the hosts in which[] from their hosts (`LAUNCHER rm -f FILE...`). */
void hc_remove_remote(struct rt_hostcap *hc, const size_t *which, size_t m, enum hc_file what);
/* Read a capture file to its end: its frames, or why it is not a complete capture. */
int hc_count_frames(const char *path, uint64_t *frames, char *errbuf);

/*
 * A line host i's capture printed (cfg.events): an event line of its own
 * ("rocetrace capture: event N: TRIGGER at TIME (...): writing FILE") is
 * told to every other host capturing ("event TIME_NS CODE HOST TRIGGER" on
 * its standard input), and each event's file is remembered to come home.
 */
void hc_events_line(struct rt_hostcap *hc, size_t i, const char *line);
/* Bring every event file home (PREFIX NAME-FILE), then remove each host's folder. */
void hc_events_fetch(struct rt_hostcap *hc);
void hc_events_free(struct rt_hostcap *hc);

#endif

/* Capture on many hosts at once through a launcher: start together (each ready), stop together,
 * bring the files home. */
#ifndef RT_HOSTS_H
#define RT_HOSTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errbuf.h"

/* One host of the capture, and what became of it. */
struct rt_hostcap_host {
	const char *name; /* as the launcher takes it ({host}) */
	const char *dev;  /* what its capture reads (-i) */
	/* filled by the calls below */
	char file[4400];   /* its capture here once fetched: PREFIX NAME EXT */
	char remote[4200]; /* its capture file on the host */
	long pid;          /* its capture's pid there (from its ready line), 0 before */
	bool ready;        /* it reported capturing */
	bool ended;        /* its capture has ended (stopped, or by itself) */
	bool failed;  /* it could not start, its capture failed, or its file could not be brought
	                 home */
	bool fetched; /* its file is here, complete */
	int status;   /* its capture's exit status through the launcher (-1: none) */
	uint64_t
	    written; /* frames its capture wrote, from its closing line (UINT64_MAX: unknown) */
	uint64_t dropped; /* frames its capture dropped, likewise */
	uint64_t frames;  /* frames read back from the file(s) brought home */
	/* rt_hostcap_analyze: its partial here once home (PREFIX NAME .rtpart), and its size */
	char partial[4400];
	uint64_t partial_bytes;
	bool partial_home;
	unsigned events, events_home; /* cfg.events: event files it wrote, and those here now */
	char error[RT_ERRBUF_SIZE];   /* why it failed */
};

struct rt_hostcap_config {
	const char *launcher;   /* prefix with {host} (NULL: ssh {host}) */
	const char *remote;     /* the rocetrace command on the hosts, words split at spaces (NULL:
	                           rocetrace) */
	const char *remote_dir; /* where the hosts write their capture (NULL: /tmp) */
	const char *prefix;     /* the files come home as PREFIX NAME EXT ("out/", "out/run1-") */
	const char *ext;        /* ".pcapng" or ".pcap" */
	const char
	    *tag; /* in the remote file names, so runs do not collide (e.g. this host and pid) */
	/* capture options for every host, put after "capture -i DEV -w FILE --stop-at-eof
	 * --notify-ready" */
	char *const *args;
	bool counters; /* bring FILE.counters.jsonl home too (capture --counters) */
	/*
	 * capture --ring: each host writes event files into a folder
	 * (REMOTE_DIR/rocetrace-TAG-NAME.events) instead of one capture; an
	 * event on one host is told to the others, which write the same window;
	 * the event files come home as PREFIX NAME-FILE
	 */
	bool events;
	uint64_t ready_timeout_ns; /* a host that is not capturing by then has failed */
	uint64_t
	    stop_timeout_ns; /* how long a stopped capture may take to end before it is killed */
	uint64_t fetch_timeout_ns; /* per file brought home */
	/* each line a host's capture prints but its ready line (NULL: none) */
	void (*on_line)(void *ctx, const struct rt_hostcap_host *h, const char *line);
	void *ctx;
	bool (*stopping)(void); /* true when the user asked to stop (a signal); NULL: never */
	/* when it becomes non-zero (a second signal), what runs on the hosts after the stop
	 * (bringing the files home) is stopped */
	const volatile sig_atomic_t *abort;
	/*
	 * rt_hostcap_analyze: a partial that came home is read with it before
	 * it is named PREFIX NAME .rtpart (NULL: taken as it came). It returns
	 * 0, or a negative errno with errbuf saying why; a partial it refuses
	 * fails its host, and stays as .part here and on the host.
	 */
	int (*check_partial)(const char *path, char *errbuf);
	/* rt_hostcap_analyze: the time buckets of the partials (analyze --bucket), 0: their default */
	uint64_t partial_bucket_ns;
};

struct rt_hostcap;

/*
 * The hosts' commands after the captures (the analyses there, the files
 * brought home, removed, a capture killed) run this many at once at most:
 * the launchers here stay bounded whatever the hosts. The captures start
 * all at once (they must run together).
 */
#define RT_HOSTCAP_AT_ONCE 256

/*
 * Start `rocetrace capture` on every host through the launcher, each
 * writing REMOTE_DIR/rocetrace-TAG-NAME.EXT, and wait until each one
 * reports capturing or fails (unreachable, capture refused, its launcher
 * ended, not ready within ready_timeout: its launcher is then ended). The
 * hosts that failed say why in their struct; the others go on capturing.
 * Returns 0 when at least one host captures; -EIO when none does, and
 * -EINTR when `stopping` said so first (what started is then stopped and
 * its files removed). The hosts stay the caller's. Each capture holds
 * three descriptors here while it runs: the soft limit on open files is
 * raised to the hard one first.
 */
int rt_hostcap_start(struct rt_hostcap **out, const struct rt_hostcap_config *cfg,
                     struct rt_hostcap_host *hosts, size_t n, char *errbuf);
/*
 * While the traffic runs: wait up to timeout_ms for the captures' output
 * (on_line) and ends (a capture that ends by itself, -c N, is marked
 * ended; failed when its status is not 0). Returns how many still capture.
 */
size_t rt_hostcap_poll(struct rt_hostcap *hc, int timeout_ms);
/*
 * Stop every capture at once (their standard input closed), wait up to
 * stop_timeout for each to end, then `LAUNCHER kill -TERM PID` on those
 * still running, then end their launchers. 0, or -EIO when some capture
 * failed (their structs say why).
 */
int rt_hostcap_stop(struct rt_hostcap *hc, char *errbuf);
/*
 * Bring every capture home through the launcher (`LAUNCHER cat FILE` into
 * PREFIX NAME EXT, through PREFIX NAME EXT.part), check each is a complete capture holding the
 * frames its capture wrote, then remove the hosts' files. 0, or -EIO when some file could not be
 * brought home (it is left on its host, named in the error).
 */
int rt_hostcap_fetch(struct rt_hostcap *hc, char *errbuf);
/*
 * Analyze every capture where it is (not with cfg.events): each host that
 * captured runs `REMOTE analyze --partial REMOTE_DIR/rocetrace-TAG-NAME.rtpart
 * --point NAME ITS_FILE` through the launcher, all at once; each partial
 * comes home into PREFIX NAME .rtpart (through .part) and is removed from
 * its host. The captures stay on the hosts (rt_hostcap_fetch brings them
 * home). A host whose analysis failed, or whose partial could not come home,
 * is marked failed with why (so is one that cfg.check_partial refuses); the
 * others' partials are home (partial_home).
 * 0, or -EIO when some host failed so.
 */
int rt_hostcap_analyze(struct rt_hostcap *hc, char *errbuf);
void rt_hostcap_free(struct rt_hostcap *hc);

#endif

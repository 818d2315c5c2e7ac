/* capture --ring: the flight recorder wired into a capture (its ring, its triggers, its events said). */
#ifndef RT_TOOLS_CAPTURE_RING_H
#define RT_TOOLS_CAPTURE_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/analyze.h"
#include "capture/recorder.h"
#include "capture/source.h"
#include "capture/trigger.h"
#include "tools/capture_triggers.h"

#define RT_RING_DEFAULT_BYTES   (256ull << 20) /* --ring-size */
#define RT_RING_DEFAULT_SNAPLEN 128            /* -s with --ring: every RoCE header */
#define RT_RING_DEFAULT_POST_NS 1000000000ull  /* --post */
#define RT_RING_REMOTE_MAX      16             /* remote triggers waiting for the capture thread */

/* What capture's command line asks of the flight recorder. */
struct rt_ring_args {
	uint64_t span_ns;     /* --ring D; 0: off */
	uint64_t bytes;       /* --ring-size */
	uint64_t post_ns;     /* --post */
	uint64_t hold_off_ns; /* --hold-off (default: --post) */
	bool hold_off_given, bytes_given, post_given;
	uint64_t max_events;     /* --max-events, 0: no limit */
	const char *json_events; /* --json-events FILE, or NULL */
	struct rt_trigger triggers[64];
	unsigned ntriggers;
};

/* A trigger that fired on another host, waiting for the capture thread. */
struct rt_ring_remote {
	uint64_t ts_ns;
	char trigger[96], code[64], host[128];
};

/* One capture's flight recorder. */
struct rt_capture_ring {
	const struct rt_ring_args *a;
	struct rt_recorder *rec;
	struct rt_triggers *tr;
	FILE *json;
	bool live;          /* a live source: the --post of an idle link ends by the clock */
	uint64_t hold_ns;   /* how late a live source hands frames over */
	int error;          /* a failure from inside the frame loop (negative errno) */
	bool findings;      /* a finding:CODE trigger: the live analysis is judged once a second */
	uint64_t judged_ns; /* the capture time it was judged at last */
	char errbuf[256];
	/* remote triggers (capture --hosts), from the thread reading standard input */
	pthread_mutex_t lock;
	struct rt_ring_remote remote[RT_RING_REMOTE_MAX];
	unsigned nremote;
};

/*
 * Allocate the ring, open --json-events, and say on standard error how much
 * memory the ring holds and where events go. `dir`: -w. 0 or the exit
 * status after one line on stderr.
 */
int rt_capture_ring_start(struct rt_capture_ring *cr, const struct rt_ring_args *a, const char *dir,
                          const struct rt_source *src, uint32_t snaplen, bool live,
                          const char *application, uint64_t storm_ns);
/* The recorder's pump sink (after the one that feeds the analyzer). */
int rt_capture_ring_sink(struct rt_capture_ring *cr, struct rt_pump_sink *out, char *errbuf);
/*
 * One record into the analyzer (noted), then the triggers (finding:CODE
 * on the findings of the analysis as it stands, judged at most once a
 * second of capture time); an event is started when one fires.
 */
void rt_capture_ring_record(struct rt_capture_ring *cr, struct rt_analyzer *an,
                            const struct rt_record *rec);
/*
 * Before each read: the capture's drops so far (drop), remote triggers,
 * the --post of an idle link. 0 or a negative errno with errbuf filled.
 */
int rt_capture_ring_tick(struct rt_capture_ring *cr, uint64_t dropped, char *errbuf);
/*
 * A line from standard input (capture --hosts): "event TIME_NS CODE HOST
 * TRIGGER" asks for the same window as an event on HOST; other lines are
 * ignored. Any thread.
 */
void rt_capture_ring_remote_line(struct rt_capture_ring *cr, const char *line);
/* Close the event under way and --json-events; 0 or a negative errno with errbuf filled. */
int rt_capture_ring_finish(struct rt_capture_ring *cr, char *errbuf);
void rt_capture_ring_free(struct rt_capture_ring *cr);
/* Events started and triggers held so far (for --metrics). */
void rt_capture_ring_counts(const struct rt_capture_ring *cr, uint64_t *events, uint64_t *held);

#endif

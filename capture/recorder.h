/* The flight recorder: the last seconds of frames in a ring of fixed memory, written out around an event. */
#ifndef RT_CAPTURE_RECORDER_H
#define RT_CAPTURE_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/pump.h"
#include "capture/writer.h"

/* The smallest ring: room for some frames of any snap length up to 64 KiB. */
#define RT_RECORDER_MIN_BYTES (1u << 20)
/* Bytes a frame of caplen bytes takes in the ring (its header and its bytes, 8-aligned). */
#define RT_RECORDER_FRAME_BYTES(caplen) (16u + (((uint64_t)(caplen) + 7u) & ~(uint64_t)7u))

struct rt_recorder_event;

struct rt_recorder_config {
	uint64_t span_ns; /* --ring D: the frames of the last D are kept ... */
	uint64_t
	    late_ns; /* ... and this much longer: an event told late (another host's) finds its D */
	size_t bytes;         /* ... in this much memory at most (allocated at once) */
	uint64_t post_ns;     /* --post: an event file also holds this long after its trigger */
	uint64_t hold_off_ns; /* a trigger within this long of the last event's starts none */
	unsigned max_events;  /* events written at most (0: no limit) */
	const char *dir;      /* where event files go (created when missing) */
	enum rt_write_format format;
	const char *application; /* the files' writer (shb_userappl) */
	/* the capture's interface, as each event file describes it */
	const char *if_name;
	int linktype;
	uint32_t snaplen;
	enum rt_ts_source ts_source;
	/* each event once its file is complete (NULL: none) */
	void (*on_closed)(void *ctx, const struct rt_recorder_event *ev);
	void *ctx;
};

/* What fires an event. */
struct rt_recorder_fire {
	uint64_t ts_ns;      /* the trigger's time (capture clock, ns since the epoch) */
	const char *trigger; /* the expression, as written back ("cnp_rate>100/s") */
	const char *code;    /* its part of the file name ("cnp_rate") */
	const char *figures; /* what the trigger saw, for people ("130 CNPs in the last second") */
	const char *host; /* the host it fired on, when another one (capture --hosts); else NULL */
};

/* One event: its file, its window and what it holds. */
struct rt_recorder_event {
	unsigned number; /* 1, 2, ... */
	uint64_t ts_ns;  /* the trigger's time */
	char trigger[96], code[64], figures[160], host[128];
	char path[4200];
	uint64_t from_ns;       /* the first frame before the trigger written (0: none) */
	uint64_t frames_before; /* frames from the ring (up to the trigger's time) */
	uint64_t frames_after;  /* frames after it, up to --post */
	uint64_t to_ns;         /* the last frame written (0: none) */
};

/* Why a trigger started no event. */
enum rt_recorder_held {
	RT_RECORDER_STARTED, /* it did */
	RT_RECORDER_HOLD_OFF, /* within --hold-off of the last event (or while its file is written) */
	RT_RECORDER_MAX,      /* --max-events written */
};

/* What the ring holds and has done so far. */
struct rt_recorder_stats {
	uint64_t events;     /* event files started */
	uint64_t held_off;   /* triggers that started none (hold-off, --max-events) */
	uint64_t frames;     /* frames in the ring now ... */
	uint64_t bytes_used; /* ... the bytes they take ... */
	uint64_t span_ns;    /* ... and the time from the oldest to the newest */
	uint64_t too_big;    /* frames larger than the whole ring (not kept) */
	size_t bytes;        /* the ring's memory */
};

struct rt_recorder;

/*
 * A ring of cfg->bytes (at least RT_RECORDER_MIN_BYTES), allocated and
 * touched now, and cfg->dir created when missing. 0 or a negative errno
 * with errbuf filled. cfg's strings must outlive the recorder.
 */
int rt_recorder_new(struct rt_recorder **out, const struct rt_recorder_config *cfg, char *errbuf);
/* Close the event under way (rt_recorder_finish) and free everything. */
void rt_recorder_free(struct rt_recorder *r);

/*
 * A pump sink (capture/pump.h) that keeps each frame in the ring (one copy:
 * the source's buffer is reused on its next read) and, while an event is
 * written, writes it to the event's file until its --post ends. It takes
 * no records. The recorder stays the caller's.
 */
int rt_recorder_sink(struct rt_pump_sink *out, struct rt_recorder *r, char *errbuf);

/*
 * A trigger fired: unless held, start an event file (DIR/eventN-TIME-CODE
 * and the format's extension) holding the ring's frames from the trigger's
 * time less the ring's span on, with a comment saying the trigger, its
 * figures and its time; the frames that follow, up to the trigger's time
 * plus --post, are added as they come. *held says what became of it
 * (RT_RECORDER_STARTED: *ev describes the event). 0 or a negative errno
 * with errbuf filled.
 */
int rt_recorder_trigger(struct rt_recorder *r, const struct rt_recorder_fire *f,
                        enum rt_recorder_held *held, struct rt_recorder_event *ev, char *errbuf);
/*
 * Time passes without frames (a live source that is idle): the event under
 * way ends when `now_ns` (capture clock) is past its --post. 0 or a
 * negative errno.
 */
int rt_recorder_tick(struct rt_recorder *r, uint64_t now_ns, char *errbuf);
/* Close the event under way, if any (the capture ends). 0 or a negative errno. */
int rt_recorder_finish(struct rt_recorder *r, char *errbuf);
void rt_recorder_stats(const struct rt_recorder *r, struct rt_recorder_stats *st);

/* An event's time as its file name and comment write it: 20261127T114631.123456789Z. */
void rt_recorder_time(uint64_t ts_ns, char *buf, size_t size);

#endif

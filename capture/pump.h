/* The one frame loop of every command: read batches from a capture source, decode, hand each frame
 * and its capture point to the sinks. */
#ifndef RT_PUMP_H
#define RT_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/files.h"
#include "dissect/dissect.h"

/*
 * A capture point as the pump announces it to its sinks: a place the
 * frames were captured at (capture/files.h, docs/CAPTURE.md "Capture
 * points"; file sources only, live sources have none). Pointers are valid
 * during the call.
 */
struct rt_pump_point {
	unsigned id;      /* the rt_record.point of its frames */
	const char *name; /* as reports name it */
	unsigned vantage; /* its vantage point (the files it was captured in), numbered ... */
	const char *vantage_name; /* ... and named */
	unsigned nfiles;          /* its vantage point's files so far, in the order read: ... */
	const unsigned *files;    /* ... as rt_frame.file numbers them ... */
	const char *const *paths; /* ... and as given ("-": standard input) */
	uint64_t frames;          /* its frames read so far (after the filter) */
	bool alone;               /* no other point can ever come (one classic pcap file) */
};

struct rt_pump_result;

/* Frames the pump reads at once, at most. */
#define RT_PUMP_BATCH 64

/*
 * A sink: where the pump hands what it reads (the text and JSON printers,
 * totals, the pcap/pcapng writer, the analyzer: capture/sinks.h,
 * analyze/feed.h). Callbacks return 0 to go on, 1 to stop (a normal end),
 * or a negative errno with errbuf filled (a failure); a NULL one is
 * skipped. In this order:
 *
 *   point()  a capture point is new, or its name or files changed (a new
 *            point may rename the others), before the first frame that
 *            comes after the change; at the end, every point once more
 *            (with its final frame count, and the vantage points of files
 *            no frame came from, numbered after the others);
 *   frame()  each frame, with its record: decoded (rt_dissect), its
 *            capture point set (rt_record.point; RT_POINT_NONE when the
 *            source tells none apart). Every sink gets each frame, then
 *            the pump stops if one asked to or failed;
 *   frames() instead of frame(), where a sink has it and the batch comes
 *            without records: the batch's frames at once (see below);
 *   end()    once, after the last frame and point: how the reading ended
 *            (its result, rt_source_stats included).
 */
struct rt_pump_sink {
	int (*point)(void *ctx, const struct rt_pump_point *pt, char *errbuf);
	int (*frame)(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
	             char *errbuf);
	/*
	 * Optional: a batch's n frames at once, in their order, instead of
	 * frame() for each, when this sink is the only one with a frame() and
	 * the batch's frames come without records (takes_records false, or
	 * frames_only); returns as frame() does, for the whole batch: the
	 * frames the pump counts (rt_pump_result.frames) are the whole batch's,
	 * even when it stops or fails part way.
	 */
	int (*frames)(void *ctx, const struct rt_frame *frames, unsigned n, char *errbuf);
	/*
	 * Optional, with frames(): before the first batch handed over in one
	 * call, when the source holds its frames' bytes that lie in [base,
	 * base + len) until it is closed, after end() (rt_source_hold: a
	 * file's private mapping; the sink may release the pages it is done
	 * with, MADV_DONTNEED, and map those ahead, MADV_POPULATE_READ: the
	 * source then does neither).
	 */
	void (*in_place)(void *ctx, const uint8_t *base, size_t len);
	int (*end)(void *ctx, const struct rt_pump_result *res, char *errbuf);
	/*
	 * Non-NULL (one sink of a pump at most): room for the next n records
	 * (n <= RT_PUMP_BATCH, one after the other), asked for each batch the
	 * pump reads: its records are decoded there, so that they need no copy
	 * (the analyzer's feeder batch). This sink's frame() comes after every
	 * other's, and the record is its own after it; the room of records
	 * never handed over (the pump stopped) is the sink's again.
	 */
	struct rt_record *(*record_room)(void *ctx, unsigned n);
	/*
	 * With record_room (NULL: always true): asked before each batch, before
	 * record_room; false: this batch's frames come without records (the
	 * sink decodes them itself), unless another sink takes records.
	 */
	bool (*takes_records)(void *ctx);
	/* takes no record: frame() gets NULL unless another sink takes them (the pump then decodes nothing) */
	bool frames_only;
	void (*free)(void *ctx); /* rt_pump_sink_free() */
	void *ctx;
};

/* Free what a sink holds (its free(ctx)); a sink with no free is left alone. */
void rt_pump_sink_free(struct rt_pump_sink *sink);

/*
 * What the pump does around its loop. Callbacks return 0 to go on, 1 to
 * stop (a normal end), or a negative errno with errbuf filled (a failure).
 */
struct rt_pump_config {
	/* how records are decoded for the sinks that take them (NULL: rt_dissect_opts_init()'s) */
	const struct rt_dissect_opts *decode;
	uint64_t max_frames;              /* stop after handing over this many; 0 = all */
	const struct rt_pump_sink *sinks; /* where each frame goes, in this order */
	unsigned nsinks;
	/*
	 * Before each read, with CLOCK_MONOTONIC now and whether the read
	 * before found the live source idle (NULL: none).
	 */
	int (*on_tick)(void *ctx, uint64_t now_ns, bool idle, char *errbuf);
	/* About once a second while reading, with the frames so far and the time since the start
	 * (NULL: none). */
	void (*on_progress)(void *ctx, uint64_t frames, uint64_t elapsed_ns);
	void *ctx; /* on_tick's and on_progress' */
};

enum rt_pump_end {
	RT_PUMP_EOF,         /* the source ended */
	RT_PUMP_STOPPED,     /* max_frames, or a callback returned 1 */
	RT_PUMP_INTERRUPTED, /* SIGINT/SIGTERM/SIGHUP (rt_pump_catch_signals) or rt_pump_stop() */
	RT_PUMP_FAILED,      /* reading or a callback failed: errbuf says what */
};

struct rt_pump_result {
	enum rt_pump_end end;
	uint64_t frames;              /* handed to the sinks */
	bool read_failed;             /* RT_PUMP_FAILED came from the source, not a callback */
	int signal;                   /* RT_PUMP_INTERRUPTED by this signal; 0 for rt_pump_stop() */
	struct rt_source_stats stats; /* the source's counters at the end (zero when it has none) */
};

/*
 * Run the loop over `src` until it ends, is stopped or interrupted, or
 * fails, then the sinks' end(). Fills *res; returns 0, or the negative
 * errno of RT_PUMP_FAILED with errbuf filled (a sink's end() that fails
 * makes the run fail with its error). Frames already handed over stay
 * handed over. After an interruption or an on_tick stop, frames the
 * source still holds (src->hold_ns) are read and handed over first, for
 * at most hold_ns.
 */
int rt_pump_run(struct rt_source *src, const struct rt_pump_config *cfg, struct rt_pump_result *res,
                char *errbuf);

/*
 * Open saved captures (pcap/pcapng, "-" for standard input; several are
 * merged by time into one stream: rt_source_open_files()) with filter
 * `bpf` (NULL: none) as a pump source; a file whose link type the
 * dissector does not know is refused. Returns 0 or a negative errno with
 * errbuf filled: -EINTR when a stop signal (rt_pump_catch_signals()) came
 * while a pipe or FIFO held back its header or first frames.
 */
int rt_pump_open_files(struct rt_source **out, const struct rt_source_file_spec *files, size_t n,
                       const char *bpf, char *errbuf);

/*
 * SIGINT, SIGTERM and SIGHUP (unless the caller ignored it, as nohup does)
 * end the running pump (the read under way returns early; what was read is
 * handed over), then call `hook` (async-signal-safe, may be NULL) with the
 * signal. SIGPIPE is ignored, so a reader that goes away shows up as EPIPE
 * on write. Returns 0 or -errno.
 */
int rt_pump_catch_signals(void (*hook)(int sig));
/* Put back what rt_pump_catch_signals() replaced (async-signal-safe: a forked child may call it). */
void rt_pump_release_signals(void);
/* End the running pump as a signal would (async-signal-safe; from another thread too). */
void rt_pump_stop(void);
/* True once a signal or rt_pump_stop() asked the pump to end. */
bool rt_pump_stopping(void);
/* The signal that asked the pump to end (0: none, or rt_pump_stop()). */
int rt_pump_stop_signal(void);
/* How many stop requests (signals, rt_pump_stop()) came so far: a later one shows as a new count. */
unsigned rt_pump_stop_requests(void);

#endif

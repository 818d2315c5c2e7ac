/* The one frame loop of every command: read batches from a capture source, dissect, hand each frame
 * on. */
#ifndef RT_PUMP_H
#define RT_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/files.h"
#include "dissect/dissect.h"

/*
 * What the pump does around its loop. Callbacks return 0 to go on, 1 to
 * stop (a normal end), or a negative errno with errbuf filled (a failure).
 */
struct rt_pump_config {
	/* dissect each frame with these options; NULL: frames go undissected (rec is NULL) */
	const struct rt_dissect_opts *dissect;
	uint64_t max_frames; /* stop after handing over this many; 0 = all */
	/* each frame, with its record when dissecting */
	int (*on_frame)(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
	                char *errbuf);
	/*
	 * Before each read, with CLOCK_MONOTONIC now and whether the read
	 * before found the live source idle (NULL: none).
	 */
	int (*on_tick)(void *ctx, uint64_t now_ns, bool idle, char *errbuf);
	/* About once a second while reading, with the frames so far and the time since the start
	 * (NULL: none). */
	void (*on_progress)(void *ctx, uint64_t frames, uint64_t elapsed_ns);
	void *ctx;
};

enum rt_pump_end {
	RT_PUMP_EOF,         /* the source ended */
	RT_PUMP_STOPPED,     /* max_frames, or a callback returned 1 */
	RT_PUMP_INTERRUPTED, /* SIGINT/SIGTERM/SIGHUP (rt_pump_catch_signals) or rt_pump_stop() */
	RT_PUMP_FAILED,      /* reading or a callback failed: errbuf says what */
};

struct rt_pump_result {
	enum rt_pump_end end;
	uint64_t frames;              /* handed to on_frame */
	bool read_failed;             /* RT_PUMP_FAILED came from the source, not a callback */
	int signal;                   /* RT_PUMP_INTERRUPTED by this signal; 0 for rt_pump_stop() */
	struct rt_source_stats stats; /* the source's counters at the end (zero when it has none) */
};

/*
 * Run the loop over `src` until it ends, is stopped or interrupted, or
 * fails. Fills *res; returns 0, or the negative errno of RT_PUMP_FAILED
 * with errbuf filled. Frames already handed over stay handed over. After
 * an interruption or an on_tick stop, frames the source still holds
 * (src->hold_ns) are read and handed over first, for at most hold_ns.
 */
int rt_pump_run(struct rt_source *src, const struct rt_pump_config *cfg, struct rt_pump_result *res,
                char *errbuf);

/*
 * Open saved captures (pcap/pcapng, "-" for standard input; several are
 * merged by time into one stream: rt_source_open_files()) with filter
 * `bpf` (NULL: none) as a pump source; a file whose link type the
 * dissector does not know is refused. Returns 0 or a negative errno with
 * errbuf filled.
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
/* How many stop requests (signals, rt_pump_stop()) came so far: a later one shows as a new count. */
unsigned rt_pump_stop_requests(void);

#endif

/* The one frame loop of every command: read batches from a capture source, dissect, hand each frame
 * on. */
#include "capture/pump.h"
#include "common/clock.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#define BATCH       64
#define PROGRESS_NS 1000000000u

/* Lock-free, so the signal handler may touch them: the stop request and the source to wake. */
static atomic_int stop_signal;    /* 0, the signal that stopped, or -1 for rt_pump_stop() */
static atomic_uint stop_requests; /* signals and rt_pump_stop() calls so far */
static _Atomic(struct rt_source *) running;
static void (*volatile signal_hook)(int sig);
static struct sigaction old_int, old_term, old_hup, old_pipe;
static bool caught;

static void request_stop(int sig)
{
	int none = 0;
	struct rt_source *src;

	atomic_compare_exchange_strong(&stop_signal, &none, sig);
	atomic_fetch_add(&stop_requests, 1);
	src = atomic_load(&running);
	if (src)
		rt_source_break(src);
}

static void on_signal(int sig)
{
	void (*hook)(int) = signal_hook;

	request_stop(sig);
	if (hook)
		hook(sig);
}

int rt_pump_catch_signals(void (*hook)(int sig))
{
	struct sigaction sa, ign;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked read returns EINTR and the loop sees the stop */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	signal_hook = hook;
	atomic_store(&stop_signal, 0);
	if (sigaction(SIGINT, &sa, &old_int) < 0 || sigaction(SIGTERM, &sa, &old_term) < 0 ||
	    sigaction(SIGHUP, NULL, &old_hup) < 0 || sigaction(SIGPIPE, &ign, &old_pipe) < 0)
		return -errno;
	caught = true;
	/* a hang-up the caller chose to ignore (nohup) stays ignored */
	if (old_hup.sa_handler != SIG_IGN && sigaction(SIGHUP, &sa, NULL) < 0)
		return -errno;
	return 0;
}

void rt_pump_release_signals(void)
{
	if (!caught)
		return;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	signal_hook = NULL;
	caught = false;
}

void rt_pump_stop(void)
{
	request_stop(-1);
}

bool rt_pump_stopping(void)
{
	return atomic_load(&stop_signal) != 0;
}

unsigned rt_pump_stop_requests(void)
{
	return atomic_load(&stop_requests);
}

int rt_pump_open_files(struct rt_source **out, const struct rt_source_file_spec *files, size_t n,
                       const char *bpf, char *errbuf)
{
	struct rt_source_config cfg = {.bpf = bpf};
	struct rt_source *src;
	int rc = rt_source_open_files(&src, files, n, &cfg, errbuf);

	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < rt_source_file_count(src); i++) {
		struct rt_source_file_info fi;
		rt_source_file_info(src, i, &fi);
		if (rt_linktype_supported(fi.linktype))
			continue;
		rc =
		    rt_errmsg(errbuf, EPROTONOSUPPORT,
		              "%s: link type %d is not supported (Ethernet, Linux SLL/SLL2 and raw "
		              "IP are)",
		              strcmp(fi.path, "-") ? fi.path : "stdin", fi.linktype);
		rt_source_close(src);
		return rc;
	}
	*out = src;
	return 0;
}

/* Hand one batch over; returns RT_PUMP_EOF to go on, else the end (RT_PUMP_STOPPED or
 * RT_PUMP_FAILED). */
static int hand_over(const struct rt_pump_config *cfg, struct rt_frame *frames, int n,
                     struct rt_pump_result *res, int *err, char *errbuf)
{
	struct rt_record rec;

	for (int i = 0; i < n; i++) {
		if (cfg->dissect)
			rt_dissect(cfg->dissect, &frames[i], &rec);
		int rc = cfg->on_frame(cfg->ctx, &frames[i], cfg->dissect ? &rec : NULL, errbuf);
		res->frames++;
		if (rc < 0) {
			*err = rc;
			return RT_PUMP_FAILED;
		}
		if (rc > 0 || (cfg->max_frames && res->frames >= cfg->max_frames))
			return RT_PUMP_STOPPED;
	}
	return RT_PUMP_EOF;
}

/* Frames to ask the source for: a batch, or what is left of -c (a file source then reads no further than it). */
static int batch_for(const struct rt_pump_config *cfg, const struct rt_pump_result *res)
{
	if (cfg->max_frames && cfg->max_frames - res->frames < BATCH)
		return (int)(cfg->max_frames - res->frames);
	return BATCH;
}

/*
 * After a stop: frames that arrived before it but still wait inside the
 * source (src->hold_ns) are read and handed over, until a frame from after
 * the stop shows up, hold_ns passes, or another stop signal comes.
 * Returns RT_PUMP_EOF when done, else the end hand_over() gave.
 */
static int drain_held(struct rt_source *src, const struct rt_pump_config *cfg,
                      struct rt_frame *frames, struct rt_pump_result *res, int *err, char *errbuf)
{
	uint64_t stop_real = rt_real_ns(), deadline = rt_mono_ns() + src->hold_ns;
	unsigned requests = atomic_load(&stop_requests);

	while (rt_mono_ns() < deadline) {
		int got = rt_source_next(src, frames, batch_for(cfg, res), errbuf);
		/* the stop's own wake-up may still be pending: only a later request ends the drain */
		if (got == -EAGAIN || (got == -EINTR && atomic_load(&stop_requests) == requests))
			continue;
		if (got <= 0) /* the end, another stop request, or a failure: what was read stays */
			break;
		int end = hand_over(cfg, frames, got, res, err, errbuf);
		if (end != RT_PUMP_EOF)
			return end;
		if (frames[got - 1].ts_ns > stop_real)
			break;
	}
	return RT_PUMP_EOF;
}

int rt_pump_run(struct rt_source *src, const struct rt_pump_config *cfg, struct rt_pump_result *res,
                char *errbuf)
{
	struct rt_frame frames[BATCH];
	char serr[RT_ERRBUF_SIZE];
	uint64_t start = rt_mono_ns(), last_progress = start;
	bool idle = false;
	int err = 0, end = RT_PUMP_EOF;

	memset(res, 0, sizeof(*res));
	atomic_store(&running, src);
	for (;;) {
		if (rt_pump_stopping()) {
			end = RT_PUMP_INTERRUPTED;
			break;
		}
		if (cfg->on_tick) {
			int rc = cfg->on_tick(cfg->ctx, rt_mono_ns(), idle, errbuf);
			if (rc) {
				end = rc < 0 ? RT_PUMP_FAILED : RT_PUMP_STOPPED;
				err = rc < 0 ? rc : 0;
				if (rc > 0 && src->hold_ns) {
					int dend = drain_held(src, cfg, frames, res, &err, errbuf);
					if (dend == RT_PUMP_FAILED)
						end = dend;
				}
				break;
			}
		}
		int got = rt_source_next(src, frames, batch_for(cfg, res), errbuf);
		if (got == 0)
			break;
		idle = got == -EAGAIN || got == -EINTR;
		if (idle)
			continue;
		if (got < 0) {
			if (rt_pump_stopping()) /* a read cut short by the signal */
				continue;
			end = RT_PUMP_FAILED;
			err = got;
			res->read_failed = true;
			break;
		}
		if ((end = hand_over(cfg, frames, got, res, &err, errbuf)) != RT_PUMP_EOF)
			break;
		if (cfg->on_progress && (res->frames & 0xffff) < (uint64_t)got) {
			uint64_t t = rt_mono_ns();
			if (t - last_progress >= PROGRESS_NS) {
				last_progress = t;
				cfg->on_progress(cfg->ctx, res->frames, t - start);
			}
		}
	}
	if (end == RT_PUMP_INTERRUPTED && src->hold_ns) {
		int dend = drain_held(src, cfg, frames, res, &err, errbuf);
		if (dend == RT_PUMP_FAILED)
			end = dend;
	}
	atomic_store(&running, NULL);
	res->end = (enum rt_pump_end)end;
	if (end == RT_PUMP_INTERRUPTED)
		res->signal = atomic_load(&stop_signal) > 0 ? atomic_load(&stop_signal) : 0;
	if (rt_source_stats(src, &res->stats, serr) < 0)
		memset(&res->stats, 0, sizeof(res->stats));
	return end == RT_PUMP_FAILED ? err : 0;
}

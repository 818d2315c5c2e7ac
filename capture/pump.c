/* The one frame loop of every command: read batches from a capture source, dissect, hand each frame
 * on. */
#include "capture/pump.h"
#include "common/clock.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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

int rt_pump_stop_signal(void)
{
	int sig = atomic_load(&stop_signal);
	return sig > 0 ? sig : 0;
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

void rt_pump_sink_free(struct rt_pump_sink *sink)
{
	if (sink && sink->free)
		sink->free(sink->ctx);
}

/* ---- capture points: set in the records, announced to the sinks ---- */

/* What the sinks were told of one capture point. */
struct told {
	char *name;
	unsigned nfiles;
};

/* Frames of interfaces below this (and no SLL2 interface index) find their point in a table. */
#define BY_IF 64

/* One run's capture points: those told, those frames came from, where recent frames' points are. */
struct points {
	bool on;       /* the source tells points apart (a file source) */
	bool announce; /* some sink takes point() */
	bool alone;    /* the source can have one point only */
	struct told *told;
	unsigned ntold, cap;
	uint8_t *came; /* by point: a frame came from it */
	unsigned ncame;
	unsigned nfiles;    /* the source's files ... */
	uint8_t *file_seen; /* ... those a frame came from */
	unsigned files_seen;
	const char **paths;    /* scratch: a point's files' paths */
	uint16_t by_if[BY_IF]; /* interface_id -> point, RT_POINT_NONE: not looked up yet */
};

static int points_init(struct points *pt, struct rt_source *src, const struct rt_pump_config *cfg,
                       char *errbuf)
{
	memset(pt, 0, sizeof(*pt));
	for (unsigned i = 0; i < BY_IF; i++)
		pt->by_if[i] = RT_POINT_NONE;
	pt->nfiles = rt_source_file_count(src);
	pt->on = pt->nfiles > 0;
	pt->alone = pt->on && rt_source_one_point(src);
	for (unsigned i = 0; i < cfg->nsinks; i++)
		pt->announce |= cfg->sinks[i].point != NULL;
	pt->announce &= pt->on;
	if (!pt->announce)
		return 0;
	pt->file_seen = calloc(pt->nfiles, 1);
	pt->paths = calloc(pt->nfiles, sizeof(*pt->paths));
	if (!pt->file_seen || !pt->paths) {
		pt->announce = false;
		return rt_errorf(errbuf, ENOMEM, "capture points");
	}
	return 0;
}

static void points_free(struct points *pt)
{
	for (unsigned i = 0; i < pt->ntold; i++)
		free(pt->told[i].name);
	free(pt->told);
	free(pt->came);
	free(pt->file_seen);
	free(pt->paths);
}

/*
 * The capture point of a decoded frame looked up (a point once numbered
 * keeps its interface and index: the answer holds for good). *first: the
 * first frame of that point, when points are announced.
 */
static uint16_t look_up_point(struct points *pt, struct rt_source *src, const struct rt_record *rec,
                              bool *first)
{
	int p = rt_source_point_of(src, rec->interface_id, rec->sll_ifindex);
	if (p < 0 || p >= RT_POINT_NONE)
		return RT_POINT_NONE;
	if (!rec->sll_ifindex && rec->interface_id < BY_IF)
		pt->by_if[rec->interface_id] = (uint16_t)p;
	if (pt->announce && (unsigned)p >= pt->ncame) {
		uint8_t *c = realloc(pt->came, (size_t)p + 1);
		if (!c) /* told again at the next frame of it */
			return (uint16_t)p;
		memset(c + pt->ncame, 0, (size_t)p + 1 - pt->ncame);
		pt->came = c;
		pt->ncame = (unsigned)p + 1;
	}
	*first = pt->announce && !pt->came[p];
	if (*first)
		pt->came[p] = 1;
	return (uint16_t)p;
}

static inline uint16_t point_of(struct points *pt, struct rt_source *src,
                                const struct rt_record *rec, bool *first)
{
	if (!pt->on)
		return RT_POINT_NONE;
	if (pt->alone) /* its frames are all of point 0, numbered at the first of them */
		return 0;
	if (!rec->sll_ifindex && rec->interface_id < BY_IF &&
	    pt->by_if[rec->interface_id] != RT_POINT_NONE)
		return pt->by_if[rec->interface_id];
	return look_up_point(pt, src, rec, first);
}

/* Point i to every sink that takes points (final: the end's, told whether it changed or not). */
static int tell_point(struct points *pt, struct rt_source *src, const struct rt_pump_config *cfg,
                      unsigned i, bool final, char *errbuf)
{
	struct rt_vantage_point p, v;
	if (rt_source_point(src, i, &p) < 0 || rt_source_vantage_point(src, p.vantage, &v) < 0)
		return 0;
	if (i >= pt->cap) {
		unsigned cap = pt->cap ? 2 * pt->cap : 16;
		while (cap <= i)
			cap *= 2;
		struct told *t = realloc(pt->told, cap * sizeof(*t));
		if (!t)
			return rt_errorf(errbuf, ENOMEM, "capture points");
		memset(t + pt->cap, 0, (cap - pt->cap) * sizeof(*t));
		pt->told = t;
		pt->cap = cap;
	}
	struct told *t = &pt->told[i];
	bool same = t->name && !strcmp(t->name, p.name) && t->nfiles == p.nfiles;
	if (same && !final)
		return 0;
	if (!same) {
		char *name = strdup(p.name);
		if (!name)
			return rt_errorf(errbuf, ENOMEM, "capture points");
		free(t->name);
		t->name = name;
		t->nfiles = p.nfiles;
	}
	if (i >= pt->ntold)
		pt->ntold = i + 1;
	for (unsigned k = 0; k < p.nfiles; k++) {
		struct rt_source_file_info fi;
		pt->paths[k] = rt_source_file_info(src, p.files[k], &fi) == 0 ? fi.path : "";
	}
	struct rt_pump_point ann = {.id = i,
	                            .name = p.name,
	                            .vantage = p.vantage,
	                            .vantage_name = v.name,
	                            .nfiles = p.nfiles,
	                            .files = p.files,
	                            .paths = pt->paths,
	                            .frames = p.frames,
	                            .alone = pt->alone};
	for (unsigned k = 0; k < cfg->nsinks; k++) {
		const struct rt_pump_sink *s = &cfg->sinks[k];
		int rc = s->point ? s->point(s->ctx, &ann, errbuf) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Before a batch is handed over (and at the first frame of a point): the
 * points that came (and those a new point renamed), and those whose files
 * grew (a frame of a file not seen before); all of them when `changed`.
 * 0 or a negative errno.
 */
static int tell_new_points(struct points *pt, struct rt_source *src,
                           const struct rt_pump_config *cfg, const struct rt_frame *frames, int n,
                           bool changed, char *errbuf)
{
	if (!pt->announce)
		return 0;
	for (int i = 0; i < n && pt->files_seen < pt->nfiles; i++)
		if (frames[i].file < pt->nfiles && !pt->file_seen[frames[i].file]) {
			pt->file_seen[frames[i].file] = 1;
			pt->files_seen++;
			changed = true;
		}
	unsigned count = rt_source_capture_points(src);
	if (count == pt->ntold && !changed)
		return 0;
	for (unsigned i = 0; i < count; i++) {
		int rc = tell_point(pt, src, cfg, i, false, errbuf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* At the end: every point once more, as it ended. */
static int tell_final_points(struct points *pt, struct rt_source *src,
                             const struct rt_pump_config *cfg, char *errbuf)
{
	unsigned count = pt->announce ? rt_source_point_count(src) : 0;
	for (unsigned i = 0; i < count; i++) {
		int rc = tell_point(pt, src, cfg, i, true, errbuf);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the loop ---- */

/* One run: its configuration, the sinks' frame() in the order they are called, its points. */
struct run {
	const struct rt_pump_config *cfg;
	struct rt_source *src;
	struct rt_dissect_opts decode;
	bool records; /* some sink takes them */
	bool others;  /* a sink other than the room's takes them */
	const struct rt_pump_sink *room;
	const struct rt_pump_sink **to; /* the sinks with a frame(), the room's last */
	unsigned nto;
	struct points pt;
	bool asked_hold; /* the one sink of batches was offered the source's mapping (in_place) */
};

/* A frame decoded into *rec, its capture point set (a first frame of a point told); 0 or a negative errno. */
static inline int decode(struct run *r, const struct rt_frame *frame, struct rt_record *rec,
                         char *errbuf)
{
	bool first = false;
	rt_dissect(&r->decode, frame, rec);
	rec->point = point_of(&r->pt, r->src, rec, &first);
	return first ? tell_new_points(&r->pt, r->src, r->cfg, NULL, 0, true, errbuf) : 0;
}

/*
 * Hand one batch over; returns RT_PUMP_EOF to go on, else the end (RT_PUMP_STOPPED or
 * RT_PUMP_FAILED, *err its errno). What the loop reads is kept in locals: the sinks' calls may
 * write anywhere, as far as the compiler knows.
 */
static int hand_over(struct run *r, struct rt_frame *frames, int n, struct rt_pump_result *res,
                     int *err, char *errbuf)
{
	const struct rt_pump_sink *const *to = r->to;
	const unsigned nto = r->nto;
	const uint64_t limit = r->cfg->max_frames ? r->cfg->max_frames : UINT64_MAX;
	uint64_t done = res->frames;
	struct rt_record own, *room = NULL, *rec = NULL;
	char later[RT_ERRBUF_SIZE]; /* the messages of failures after the first */
	char *eb = errbuf;
	int e = tell_new_points(&r->pt, r->src, r->cfg, frames, n, false, errbuf),
	    end = RT_PUMP_EOF;

	/* the room's sink may decode this batch itself (no other sink needs records) */
	const bool records = r->records && (r->others || !r->room || !r->room->takes_records ||
	                                    r->room->takes_records(r->room->ctx));
	if (!e && records && r->room)
		room = r->room->record_room(r->room->ctx, (unsigned)n);
	if (!e && !records && nto == 1 && to[0]->frames && n > 0) { /* the batch in one call */
		if (to[0]->in_place && !r->asked_hold) {
			const uint8_t *base;
			size_t len;
			r->asked_hold = true;
			if (rt_source_hold(r->src, &base, &len) == 0)
				to[0]->in_place(to[0]->ctx, base, len);
		}
		int rc = to[0]->frames(to[0]->ctx, frames, (unsigned)n, eb);
		res->frames = done + (uint64_t)n;
		*err = rc < 0 ? rc : 0;
		return rc < 0 ? RT_PUMP_FAILED : rc || res->frames >= limit ? RT_PUMP_STOPPED : end;
	}
	for (int i = 0; i < n && !e; i++) {
		bool stop = false;
		if (records &&
		    (e = decode(r, &frames[i], rec = room ? &room[i] : &own, errbuf)) < 0)
			break;
		for (unsigned k = 0; k < nto; k++) {
			int rc = to[k]->frame(to[k]->ctx, &frames[i], rec, eb);
			if (rc) {
				stop = true;
				if (rc < 0 && !e) {
					e = rc;
					eb = later;
				}
			}
		}
		if (++done >= limit || stop) {
			end = RT_PUMP_STOPPED;
			break;
		}
	}
	res->frames = done;
	*err = e;
	return e ? RT_PUMP_FAILED : end;
}

/* Frames to ask the source for: a batch, or what is left of -c (a file source then reads no further than it). */
static int batch_for(const struct rt_pump_config *cfg, const struct rt_pump_result *res)
{
	if (cfg->max_frames && cfg->max_frames - res->frames < RT_PUMP_BATCH)
		return (int)(cfg->max_frames - res->frames);
	return RT_PUMP_BATCH;
}

/*
 * After a stop: frames that arrived before it but still wait inside the
 * source (src->hold_ns) are read and handed over, until a frame from after
 * the stop shows up, hold_ns passes, or another stop signal comes.
 * Returns RT_PUMP_EOF when done, else the end hand_over() gave.
 */
static int drain_held(struct run *r, struct rt_frame *frames, struct rt_pump_result *res, int *err,
                      char *errbuf)
{
	struct rt_source *src = r->src;
	uint64_t stop_real = rt_real_ns(), deadline = rt_mono_ns() + src->hold_ns;
	unsigned requests = atomic_load(&stop_requests);

	while (rt_mono_ns() < deadline) {
		int got = rt_source_next(src, frames, batch_for(r->cfg, res), errbuf);
		/* the stop's own wake-up may still be pending: only a later request ends the drain */
		if (got == -EAGAIN || (got == -EINTR && atomic_load(&stop_requests) == requests))
			continue;
		if (got <= 0) /* the end, another stop request, or a failure: what was read stays */
			break;
		int end = hand_over(r, frames, got, res, err, errbuf);
		if (end != RT_PUMP_EOF)
			return end;
		if (frames[got - 1].ts_ns > stop_real)
			break;
	}
	return RT_PUMP_EOF;
}

/* Read and hand over until the end, a stop or a failure; returns the end (*err: its errno). */
static int loop(struct run *r, struct rt_pump_result *res, int *err, char *errbuf)
{
	const struct rt_pump_config *cfg = r->cfg;
	struct rt_source *src = r->src;
	struct rt_frame frames[RT_PUMP_BATCH];
	uint64_t start = rt_mono_ns(), last_progress = start;
	bool idle = false;
	int end = RT_PUMP_EOF;

	for (;;) {
		if (rt_pump_stopping()) {
			end = RT_PUMP_INTERRUPTED;
			break;
		}
		if (cfg->on_tick) {
			int rc = cfg->on_tick(cfg->ctx, rt_mono_ns(), idle, errbuf);
			if (rc) {
				end = rc < 0 ? RT_PUMP_FAILED : RT_PUMP_STOPPED;
				*err = rc < 0 ? rc : 0;
				if (rc > 0 && src->hold_ns &&
				    drain_held(r, frames, res, err, errbuf) == RT_PUMP_FAILED)
					end = RT_PUMP_FAILED;
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
			*err = got;
			res->read_failed = true;
			return RT_PUMP_FAILED;
		}
		if ((end = hand_over(r, frames, got, res, err, errbuf)) != RT_PUMP_EOF)
			break;
		if (cfg->on_progress && (res->frames & 0xffff) < (uint64_t)got) {
			uint64_t t = rt_mono_ns();
			if (t - last_progress >= PROGRESS_NS) {
				last_progress = t;
				cfg->on_progress(cfg->ctx, res->frames, t - start);
			}
		}
	}
	if (end == RT_PUMP_INTERRUPTED && src->hold_ns &&
	    drain_held(r, frames, res, err, errbuf) == RT_PUMP_FAILED)
		end = RT_PUMP_FAILED;
	return end;
}

/* How the run decodes and in which order it calls the sinks' frame(). 0 or -ENOMEM. */
static int plan(struct run *r, char *errbuf)
{
	const struct rt_pump_config *cfg = r->cfg;
	if (cfg->decode)
		r->decode = *cfg->decode;
	else
		rt_dissect_opts_init(&r->decode);
	for (unsigned k = 0; k < cfg->nsinks; k++) {
		r->records |= !cfg->sinks[k].frames_only;
		if (cfg->sinks[k].record_room && !r->room)
			r->room = &cfg->sinks[k];
	}
	for (unsigned k = 0; k < cfg->nsinks; k++)
		r->others |= !cfg->sinks[k].frames_only && &cfg->sinks[k] != r->room;
	if (!(r->to = calloc(cfg->nsinks ? cfg->nsinks : 1, sizeof(*r->to))))
		return rt_errorf(errbuf, ENOMEM, "frame sinks");
	for (unsigned k = 0; k < cfg->nsinks; k++)
		if (cfg->sinks[k].frame && &cfg->sinks[k] != r->room)
			r->to[r->nto++] = &cfg->sinks[k];
	if (r->room && r->room->frame)
		r->to[r->nto++] = r->room;
	return 0;
}

/* The sinks' end(): 0, or the first failure (errbuf filled). */
static int end_sinks(const struct rt_pump_config *cfg, const struct rt_pump_result *res,
                     char *errbuf)
{
	int first = 0;
	for (unsigned k = 0; k < cfg->nsinks; k++) {
		const struct rt_pump_sink *s = &cfg->sinks[k];
		char eb[RT_ERRBUF_SIZE];
		int rc = s->end ? s->end(s->ctx, res, eb) : 0;
		if (rc < 0 && !first) {
			first = rc;
			memcpy(errbuf, eb, RT_ERRBUF_SIZE);
		}
	}
	return first;
}

int rt_pump_run(struct rt_source *src, const struct rt_pump_config *cfg, struct rt_pump_result *res,
                char *errbuf)
{
	struct run r = {.cfg = cfg, .src = src};
	char serr[RT_ERRBUF_SIZE];
	int err = 0, end = RT_PUMP_FAILED;

	memset(res, 0, sizeof(*res));
	if ((err = plan(&r, errbuf)) == 0 && (err = points_init(&r.pt, src, cfg, errbuf)) == 0) {
		atomic_store(&running, src);
		end = loop(&r, res, &err, errbuf);
		atomic_store(&running, NULL);
	}
	res->end = (enum rt_pump_end)end;
	if (end == RT_PUMP_INTERRUPTED)
		res->signal = rt_pump_stop_signal();
	if (rt_source_stats(src, &res->stats, serr) < 0)
		memset(&res->stats, 0, sizeof(res->stats));
	/* what the sinks were told stays told: a failure now is the run's unless it failed before */
	int rc = tell_final_points(&r.pt, src, cfg, end == RT_PUMP_FAILED ? serr : errbuf);
	if (rc < 0 && end != RT_PUMP_FAILED) {
		res->end = RT_PUMP_FAILED;
		end = RT_PUMP_FAILED;
		err = rc;
	}
	rc = end_sinks(cfg, res, end == RT_PUMP_FAILED ? serr : errbuf);
	if (rc < 0 && end != RT_PUMP_FAILED) {
		res->end = RT_PUMP_FAILED;
		end = RT_PUMP_FAILED;
		err = rc;
	}
	points_free(&r.pt);
	free(r.to);
	return end == RT_PUMP_FAILED ? err : 0;
}

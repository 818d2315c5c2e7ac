/* The analysis as a sink of the frame pump: records to the analyzer and a fan-out by point, capture points to the report. */
#include "analyze/feed.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/feeder.h"
#include "analyze/stage.h"

_Static_assert(RT_PUMP_BATCH <= RT_AN_FEEDER_BATCH, "a batch of the pump fits in the feeder's");

/* A capture point as last announced (rt_pump_point). */
struct point {
	char *name;
	unsigned nfiles;
	char **paths;
	uint64_t frames;
};

struct rt_an_feed {
	struct rt_analyzer *an;
	struct rt_an_fanout *fanout;         /* or NULL */
	unsigned threads;                    /* --threads */
	bool started;                        /* the first record came (and the threads with it) */
	struct rt_an_feeder *feeder;         /* NULL: fed on the pump's thread ... */
	struct rt_an_stage *stage;           /* ... or split among threads by host pair */
	struct rt_record own[RT_PUMP_BATCH]; /* the records' room without a feeder */
	uint64_t records;
	/* the points announced; names are read on the analysis' thread too, under lock */
	pthread_mutex_t lock;
	struct point *pts;
	unsigned npts;
};

int rt_an_feed_new(struct rt_an_feed **out, struct rt_analyzer *an, unsigned threads, char *errbuf)
{
	struct rt_an_feed *f = calloc(1, sizeof(*f));
	if (!f)
		return rt_errorf(errbuf, ENOMEM, "analyzer");
	int err = pthread_mutex_init(&f->lock, NULL);
	if (err) {
		free(f);
		return rt_errorf(errbuf, err, "analyzer");
	}
	f->an = an;
	f->threads = threads;
	*out = f;
	return 0;
}

void rt_an_feed_fanout(struct rt_an_feed *f, struct rt_an_fanout *fanout)
{
	f->fanout = fanout;
}

static void point_clear(struct point *p)
{
	for (unsigned k = 0; k < p->nfiles; k++)
		free(p->paths[k]);
	free(p->paths);
	free(p->name);
	memset(p, 0, sizeof(*p));
}

/* Point pt->id as pt announces it. 0 or -ENOMEM. */
static int learn(struct rt_an_feed *f, const struct rt_pump_point *pt)
{
	if (pt->id >= f->npts) {
		struct point *np = realloc(f->pts, ((size_t)pt->id + 1) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		memset(np + f->npts, 0, ((size_t)pt->id + 1 - f->npts) * sizeof(*np));
		f->pts = np;
		f->npts = pt->id + 1;
	}
	struct point p = {.name = strdup(pt->name),
	                  .nfiles = pt->nfiles,
	                  .paths = calloc(pt->nfiles ? pt->nfiles : 1, sizeof(char *)),
	                  .frames = pt->frames};
	bool ok = p.name && p.paths;
	for (unsigned k = 0; ok && k < pt->nfiles; k++)
		ok = (p.paths[k] = strdup(pt->paths[k])) != NULL;
	if (!ok) {
		point_clear(&p);
		return -ENOMEM;
	}
	point_clear(&f->pts[pt->id]);
	f->pts[pt->id] = p;
	return 0;
}

static int feed_point(void *ctx, const struct rt_pump_point *pt, char *errbuf)
{
	struct rt_an_feed *f = ctx;
	/* before the first record: the analysis has not started */
	if (pt->alone && !f->started)
		rt_analyzer_one_point(f->an);
	pthread_mutex_lock(&f->lock);
	int rc = learn(f, pt);
	pthread_mutex_unlock(&f->lock);
	return rc < 0 ? rt_errorf(errbuf, ENOMEM, "vantage point %u", pt->id) : 0;
}

/* The threads, at the first record: the analysis split by host pair, else one feeder thread, else none. */
static void start_threads(struct rt_an_feed *f)
{
	char eb[RT_ERRBUF_SIZE];
	f->started = true;
	if (f->threads < 2)
		return;
	/* threads that cannot start: fewer of them, or fed on this one */
	if (!f->fanout && rt_an_stage_fits(f->an) &&
	    rt_an_stage_start(&f->stage, f->an, f->threads, 0, eb) == 0)
		return;
	f->stage = NULL;
	if (rt_an_feeder_start(&f->feeder, f->an, f->fanout, eb) < 0)
		f->feeder = NULL;
}

/* Before each batch: records, unless the analysis is split (its threads decode); the threads start with the first. */
static bool feed_takes_records(void *ctx)
{
	struct rt_an_feed *f = ctx;
	if (!f->started)
		start_threads(f);
	return !f->stage;
}

/* Where the pump decodes a batch of records: the feeder's batch, else our own. */
static struct rt_record *feed_room(void *ctx, unsigned n)
{
	struct rt_an_feed *f = ctx;
	if (!f->started)
		start_threads(f);
	return f->feeder ? rt_an_feeder_room(f->feeder, n) : f->own;
}

/* The first failure of the analysis (0 or a negative errno), as it stands on the feeding thread. */
static int status(const struct rt_an_feed *f)
{
	int rc = f->stage ? rt_an_stage_status(f->stage) : rt_analyzer_status(f->an, NULL);
	if (!rc && f->fanout)
		rc = rt_an_fanout_status(f->fanout, NULL);
	return rc;
}

static int feed_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                      char *errbuf)
{
	struct rt_an_feed *f = ctx;
	if (f->stage) { /* an undecoded frame */
		if (rt_an_stage_frame(f->stage, frame) < 0)
			return rt_errorf(errbuf, ENOMEM, "the analysis' threads");
	} else if (f->feeder) {
		rt_an_feeder_commit(f->feeder); /* rec is the next of its room */
	} else {
		rt_analyzer_feed(f->an, rec);
		if (f->fanout)
			rt_an_fanout_feed(f->fanout, rec);
	}
	/* now and then: a sink that failed (a reader that went away, a refused bucket) ends the run */
	if ((++f->records & 0xfff) != 0)
		return 0;
	return (f->feeder ? rt_an_feeder_status(f->feeder) : status(f)) ? 1 : 0;
}

/* A batch of undecoded frames: the analysis is split (feed_takes_records), its threads decode them. */
static int feed_frames(void *ctx, const struct rt_frame *frames, unsigned n, char *errbuf)
{
	struct rt_an_feed *f = ctx;
	if (!f->stage)
		return rt_errorf(errbuf, EINVAL,
		                 "frames without records for an analysis on one thread");
	for (unsigned i = 0; i < n; i++)
		if (rt_an_stage_frame(f->stage, &frames[i]) < 0)
			return rt_errorf(errbuf, ENOMEM, "the analysis' threads");
	f->records += n;
	return rt_an_stage_status(f->stage) ? 1 : 0;
}

/*
 * The source holds its mapping: the frames go in place. The pump offers it
 * only on the batches' path, which feed_takes_records takes when the
 * analysis is split.
 */
static void feed_in_place(void *ctx, const uint8_t *base, size_t len)
{
	struct rt_an_feed *f = ctx;
	if (f->stage)
		rt_an_stage_in_place(f->stage, base, len);
}

static void stop_feeder(struct rt_an_feed *f)
{
	if (f->feeder)
		rt_an_feeder_stop(f->feeder);
	f->feeder = NULL;
}

/* The points as the report names them (at most RT_AN_VANTAGE_MAX). 0 or -ENOMEM. */
static int describe(struct rt_an_feed *f, char *errbuf)
{
	struct rt_an_vantage vp[RT_AN_VANTAGE_MAX];
	unsigned n = f->npts < RT_AN_VANTAGE_MAX ? f->npts : RT_AN_VANTAGE_MAX;
	for (unsigned i = 0; i < n; i++)
		vp[i] = (struct rt_an_vantage){.name = f->pts[i].name ? f->pts[i].name : "",
		                               .nfiles = f->pts[i].nfiles,
		                               .files = (const char *const *)f->pts[i].paths,
		                               .frames = f->pts[i].frames};
	return rt_analyzer_vantage_points(f->an, vp, n, errbuf);
}

static int feed_end(void *ctx, const struct rt_pump_result *res, char *errbuf)
{
	struct rt_an_feed *f = ctx;
	stop_feeder(f);
	if (f->stage) /* its threads touch `an` no more */
		rt_an_stage_drain(f->stage);
	/* frames the capture itself lost, as the file recorded them (pcapng ISBs) */
	if (res->stats.drops_known)
		rt_analyzer_capture_drops(f->an, res->stats.if_dropped, res->stats.dropped);
	return describe(f, errbuf);
}

void rt_an_feed_sink(struct rt_an_feed *f, struct rt_pump_sink *out)
{
	*out = (struct rt_pump_sink){.point = feed_point,
	                             .frame = feed_frame,
	                             .frames = feed_frames,
	                             .in_place = feed_in_place,
	                             .end = feed_end,
	                             .record_room = feed_room,
	                             .takes_records = feed_takes_records,
	                             .ctx = f};
}

uint64_t rt_an_feed_flows(const struct rt_an_feed *f)
{
	return f->stage    ? rt_an_stage_flows(f->stage)
	       : f->feeder ? rt_an_feeder_flows(f->feeder)
	                   : rt_analyzer_flow_count(f->an);
}

int rt_an_feed_point_name(void *feed, unsigned point, char *name, size_t size)
{
	struct rt_an_feed *f = feed;
	int rc = -ENOENT;
	pthread_mutex_lock(&f->lock);
	if (point < f->npts && f->pts[point].name) {
		snprintf(name, size, "%s", f->pts[point].name);
		rc = 0;
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

int rt_an_feed_finish(struct rt_an_feed *f, char *errbuf)
{
	char feb[RT_ERRBUF_SIZE] = "";
	stop_feeder(f);
	int frc = f->fanout ? rt_an_fanout_finish(f->fanout, feb) : 0;
	struct rt_an_stage *st = f->stage;
	f->stage = NULL; /* finished and freed by the finish */
	int rc = st ? rt_an_stage_finish(st, errbuf) : rt_analyzer_finish(f->an, errbuf);
	if (rc < 0 && rc != -EINTR)
		return rc;
	if (frc < 0)
		return rt_errmsg(errbuf, -frc, "%s", feb);
	return rc;
}

void rt_an_feed_free(struct rt_an_feed *f)
{
	if (!f)
		return;
	stop_feeder(f);
	rt_an_stage_free(f->stage);
	rt_an_fanout_free(f->fanout);
	for (unsigned i = 0; i < f->npts; i++)
		point_clear(&f->pts[i]);
	free(f->pts);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

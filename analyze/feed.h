/* The analysis as a sink of the frame pump: records to the analyzer and a fan-out by point, capture points to the report. */
#ifndef RT_ANALYZE_FEED_H
#define RT_ANALYZE_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "analyze/fanout.h"
#include "capture/pump.h"

/*
 * What `analyze`, `timeline` and `report` add to the pump (capture/pump.h):
 * each record goes to the analyzer, then to the fan-out by capture point
 * when there is one (timeline --by-vantage). With `threads` 2 or more, at
 * the first record: split among that many threads by host pair when the
 * analysis allows it (analyze/stage.h, rt_an_stage_fits(): one capture
 * point, no side files, no flow limit; and no fan-out), else on one thread of its own (analyze/feeder.h:
 * the pump's thread reads and decodes beside the analysis); each record is
 * decoded straight into their batch. With 1, on the pump's thread. The capture points announced become the report's vantage
 * points at the end (rt_analyzer_vantage_points()), with the drops the
 * capture recorded (rt_analyzer_capture_drops()); a source with one point
 * only tells the analyzer so (rt_analyzer_one_point()). Every 4096 records
 * (split: every batch, as the analysis stood at its last batch made
 * global) a failure of the analysis (a sink's) stops the pump.
 */
struct rt_an_feed;

/* A feed of `an` (which stays the caller's). 0 or -ENOMEM with errbuf filled. */
int rt_an_feed_new(struct rt_an_feed **out, struct rt_analyzer *an, unsigned threads, char *errbuf);
/* Also feed `fanout` (before the pump runs; the feed owns it from now on). */
void rt_an_feed_fanout(struct rt_an_feed *f, struct rt_an_fanout *fanout);
/* The sink to add to the pump (no free: rt_an_feed_free() frees what it holds). */
void rt_an_feed_sink(struct rt_an_feed *f, struct rt_pump_sink *out);
/* Flows the analyzer found so far (split: as of its last batch made global; on the pump's thread, while it runs: a progress line). */
uint64_t rt_an_feed_flows(const struct rt_an_feed *f);
/*
 * The name of capture point `point` as last announced into name (cut to
 * size): 0, or -ENOENT while none was. Safe on the analysis' thread while
 * the pump announces (rt_an_timeline_opts.vantage_name takes it, feed as ctx).
 */
int rt_an_feed_point_name(void *feed, unsigned point, char *name, size_t size);
/*
 * End of input, after the pump's: the fan-out's analyzers finish, then the
 * analyzer (rt_analyzer_finish()). Returns 0, the analyzer's sinks' failure,
 * else the fan-out's, else -EINTR when rt_analyzer_interrupt() cut its end
 * phase short (errbuf filled).
 */
int rt_an_feed_finish(struct rt_an_feed *f, char *errbuf);
/* Frees the feed and its fan-out (a feeder thread still running is stopped first). */
void rt_an_feed_free(struct rt_an_feed *f);

#endif

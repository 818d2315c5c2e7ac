/* A feeder thread: records handed over in batches are fed to an analyzer on a thread of its own, in order. */
#ifndef RT_ANALYZE_FEEDER_H
#define RT_ANALYZE_FEEDER_H

#include <stdint.h>

#include "analyze/analyze.h"

/*
 * Reading and dissecting a capture take about as long as analyzing it: with
 * a second CPU the two run side by side. The producer (the frame pump's
 * thread) dissects each frame straight into the next slot of a batch; full
 * batches go to the feeder thread, which feeds them to the analyzer in the
 * order they came. While the feeder runs, only it touches the analyzer; the
 * producer reads what it needs through the calls below.
 */
struct rt_an_feeder;

/* Start feeding `an` on a new thread. Returns 0 or a negative errno with errbuf filled. */
int rt_an_feeder_start(struct rt_an_feeder **out, struct rt_analyzer *an, char *errbuf);

/* The record the next frame is dissected into (valid until rt_an_feeder_commit()). */
struct rt_record *rt_an_feeder_slot(struct rt_an_feeder *fd);
/* The slot holds the next record: it goes to the analyzer, in order (waits while the thread is every batch behind). */
void rt_an_feeder_commit(struct rt_an_feeder *fd);

/* What the thread knew after its latest batch: rt_analyzer_status() (0 or a negative errno), the flow count. */
int rt_an_feeder_status(const struct rt_an_feeder *fd);
uint64_t rt_an_feeder_flows(const struct rt_an_feeder *fd);

/* Feed what is left, end the thread and free the feeder; the analyzer is the caller's again. */
void rt_an_feeder_stop(struct rt_an_feeder *fd);

#endif

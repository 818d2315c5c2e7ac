/* A feeder thread: records handed over in batches are fed to an analyzer (and a fan-out) on a thread of its own, in order. */
#ifndef RT_ANALYZE_FEEDER_H
#define RT_ANALYZE_FEEDER_H

#include <stdint.h>

#include "analyze/analyze.h"
#include "analyze/fanout.h"

/*
 * Reading and dissecting a capture take about as long as analyzing it: with
 * a second CPU the two run side by side. The producer (the frame pump's
 * thread) dissects each frame straight into the next slot of a batch; full
 * batches go to the feeder thread, which feeds them to the analyzer in the
 * order they came (each record to the analyzer, then to the fan-out when there
 * is one). While the feeder runs, only it touches them; the producer reads
 * what it needs through the calls below.
 */
struct rt_an_feeder;

/* Start feeding `an` and `fanout` (NULL: none) on a new thread. Returns 0 or a negative errno with errbuf filled. */
int rt_an_feeder_start(struct rt_an_feeder **out, struct rt_analyzer *an,
                       struct rt_an_fanout *fanout, char *errbuf);

/* Records a batch holds: a room asked for holds at most this many. */
#define RT_AN_FEEDER_BATCH 256u
/*
 * Room for the next n records (n <= RT_AN_FEEDER_BATCH), one after the
 * other, that frames are dissected into: the first is the next record
 * rt_an_feeder_commit() hands over (valid until it is handed over, or the
 * room asked for again). Hands the batch being filled over first when it
 * has less room (waits while the thread is every batch behind).
 */
struct rt_record *rt_an_feeder_room(struct rt_an_feeder *fd, unsigned n);
/* The next record of the room holds a record: it goes to the analyzer, in order (waits as above). */
void rt_an_feeder_commit(struct rt_an_feeder *fd);

/*
 * What the thread knew after its latest batch: the first failure
 * (rt_analyzer_status(), else rt_an_fanout_status(): 0 or a negative
 * errno), the analyzer's flow count.
 */
int rt_an_feeder_status(const struct rt_an_feeder *fd);
uint64_t rt_an_feeder_flows(const struct rt_an_feeder *fd);

/* Feed what is left, end the thread and free the feeder; the analyzer and the fan-out are the caller's again. */
void rt_an_feeder_stop(struct rt_an_feeder *fd);

#endif

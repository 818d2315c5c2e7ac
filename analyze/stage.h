/* The analysis of one capture split among threads by host pair, its global parts made in frame order: output as one thread's. */
#ifndef RT_ANALYZE_STAGE_H
#define RT_ANALYZE_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"

/*
 * analyze/README.md, "Threads". The reading thread copies frames into
 * batches. Each batch is staged: each frame given its part (the shard of its
 * unordered host pair, from its addresses; frames without IP: part 0), its
 * frame number, the clock (the highest time so far), the time order and the
 * pauses running at it; each part decodes its frames and feeds them to an
 * analyzer of its own (a part: analyze/internal.h), the threads going
 * through the parts' batches (the reading thread too, when it would wait);
 * once every part is through a batch, it is made global: the global parts
 * of `an` in frame order, the tallies, PFC/PAUSE, the episodes (the parts'
 * events, their flows numbered as one analyzer numbers them), the buckets
 * (the parts' rows of each in id order). With fewer than 4 threads the
 * reading thread stages and makes global; from 4 a staging thread does, so
 * that the reading thread only reads (and helps), and a sink whose buckets
 * cost (rt_an_sink.bucket_apart) gets them on an output thread.
 * rt_an_stage_finish() finishes the parts and `an`, and merges the parts
 * into `an` (rt_analyzer_merge): `an` then reports what one analyzer fed
 * every record reports.
 */
struct rt_an_stage;

/*
 * Whether `an` (before its first record) can be split and give the same
 * answer: one capture point (rt_analyzer_one_point), no side files, no
 * --max-flows (analyze/README.md, "Threads").
 */
bool rt_an_stage_fits(const struct rt_analyzer *an);
/*
 * Split `an` into `parts` (0: STAGE_PARTS_PER_THREAD for each thread) that
 * `threads` (2 or more: the reading thread and threads - 1 started here)
 * go through. 0 or a negative errno with errbuf filled.
 */
int rt_an_stage_start(struct rt_an_stage **out, struct rt_analyzer *an, unsigned threads,
                      unsigned parts, char *errbuf);
/*
 * The next frame: to its part, its bytes copied unless they lie in the
 * held mapping (rt_an_stage_in_place). The analysis' own decoding: the
 * pump hands the frames over undecoded (rt_pump_sink's takes_records). 0
 * or -ENOMEM.
 */
int rt_an_stage_frame(struct rt_an_stage *st, const struct rt_frame *frame);
/*
 * The frames whose bytes lie in [base, base + len), a file's private
 * mapping held until the stage is drained (rt_source_hold), go to the
 * parts where they lie, uncopied; the workers release its pages behind the
 * batches made global (MADV_DONTNEED). Before the first frame.
 */
void rt_an_stage_in_place(struct rt_an_stage *st, const uint8_t *base, size_t len);
/* The analysis' first failure as of the last batch made global (rt_analyzer_status), for the reading thread. */
int rt_an_stage_status(const struct rt_an_stage *st);
/* Flows numbered as of the last batch made global (in frame order, as one analyzer numbers them). */
uint64_t rt_an_stage_flows(const struct rt_an_stage *st);
/*
 * Hand over what is left and wait until every batch is made global: from
 * then on `an` is the caller's thread's alone until rt_an_stage_finish()
 * (the drops the capture recorded, the points' descriptions go in).
 */
void rt_an_stage_drain(struct rt_an_stage *st);
/*
 * Hand over what is left, wait for the parts, end the threads, finish the
 * parts and `an` (rt_analyzer_finish) and merge the parts into `an`; frees
 * the stage. Returns rt_analyzer_finish()'s result, or -ENOMEM with errbuf
 * filled.
 */
int rt_an_stage_finish(struct rt_an_stage *st, char *errbuf);
/* End the threads and free the stage without finishing (NULL: nothing). */
void rt_an_stage_free(struct rt_an_stage *st);

#endif

/* capture --trigger: the live figures each trigger watches, evaluated frame by frame as the analysis goes. */
#ifndef RT_TOOLS_CAPTURE_TRIGGERS_H
#define RT_TOOLS_CAPTURE_TRIGGERS_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "capture/trigger.h"

/* The figures are kept in slots of this long; "the last second" is the last ten. */
#define RT_TRIGGERS_SLOT_NS 100000000u
#define RT_TRIGGERS_SLOTS   10

/* A trigger that fired. */
struct rt_trigger_hit {
	const struct rt_trigger *t;
	uint64_t ts_ns;    /* when (the record's time, or the clock for drop) */
	char figures[160]; /* what it saw, for people */
};

struct rt_triggers;

/*
 * The state of n triggers (t[] stays the caller's); storm_ns: pfc_storm's
 * threshold (the analyzer's storm_ns). NULL when out of memory.
 */
struct rt_triggers *rt_triggers_new(const struct rt_trigger *t, unsigned n, uint64_t storm_ns);
void rt_triggers_free(struct rt_triggers *tr);

/*
 * One record, after the analyzer was fed it with rt_analyzer_feed_note()
 * (`note`; `an` for the paused time so far). True when a trigger fired
 * (*hit: the first of them).
 */
bool rt_triggers_record(struct rt_triggers *tr, const struct rt_record *rec,
                        const struct rt_an_note *note, const struct rt_analyzer *an,
                        struct rt_trigger_hit *hit);
/* The capture's own drops so far (`dropped`) at `now_ns`: true when drop fired. */
bool rt_triggers_drops(struct rt_triggers *tr, uint64_t dropped, uint64_t now_ns,
                       struct rt_trigger_hit *hit);
/*
 * The findings hook: the live analysis calls it with the codes of the
 * findings it reports now (their full list each time) at capture time
 * `ts_ns`. A finding:CODE trigger fires when CODE is reported and was not
 * at the previous call. True when one fired.
 */
bool rt_triggers_findings(struct rt_triggers *tr, const char *const *codes, unsigned n,
                          uint64_t ts_ns, struct rt_trigger_hit *hit);

#endif

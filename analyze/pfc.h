/* PFC (802.1Qbb) and PAUSE (802.3x): XOFF/XON per class and sending MAC, paused time, storms. */
#ifndef RT_ANALYZE_PFC_H
#define RT_ANALYZE_PFC_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/episodes.h"
#include "analyze/types.h"

/* PFC/PAUSE state of one class of one sending MAC. */
struct an_pfc_class {
	bool paused;
	uint64_t run_start, until; /* continuous pause start; ends at */
	uint64_t xoff, xon, storms;
	uint64_t paused_ns;  /* of the pauses that ended (a running one counts when it ends) */
	uint64_t first_xoff; /* its first XOFF (xoff > 0) */
	uint64_t longest_start, longest_ns; /* its longest continuous pause that ended */
	/* its part in the class's pause incident inc_seq: first XOFF, paused time and longest
	 * pause of the pauses that ended (a running one counts when it ends) */
	uint32_t inc_seq;
	uint64_t inc_first, inc_paused, inc_longest;
	/* the latest frame for the class (rt_an_note): its number, time and pause asked for */
	uint64_t note_frame, note_ts, note_ns;
	uint32_t run_at; /* while paused: its place in struct an_pfc's runs */
};
/* Sending MACs told apart; beyond this the last entry collects the rest. */
#define AN_PFC_MACS 4096
struct an_pfc_mac {
	uint8_t mac[6];
	uint8_t points;    /* bit p: its frames were seen at vantage point p */
	uint64_t first_ts; /* the time of its first frame (the order a merge lists MACs in) */
	struct an_pfc_class cls[RT_AN_PFC_CLASSES];
};
struct an_storm {
	uint8_t mac[6];
	uint8_t cls;
	uint64_t start, end;
};

/*
 * A pause incident of one class: from the moment one MAC pauses it while
 * no other does to the moment none does. Those holding a storm are kept:
 * which MACs paused in it, when each began, how long.
 */
#define AN_INC_MACS      16 /* MACs an incident names (the first to pause; the longest too) */
#define AN_INCIDENTS_MAX 64 /* storm incidents kept */
struct an_inc_mac {
	uint8_t mac[6];
	uint64_t first, paused,
	    longest; /* its first XOFF in the incident; paused time; longest pause */
};
struct an_incident {
	uint8_t cls;
	bool ongoing; /* still running at the time it was taken (a live view) */
	uint64_t start, end;
	uint32_t nmacs, macs_total; /* named; all that paused in it */
	struct an_inc_mac macs[AN_INC_MACS];
};
/*
 * The incident of a class under way: its MACs are listed as they join, so
 * that taking it passes over them only, never over every sender.
 */
struct an_pfc_run {
	uint32_t active, seq; /* its pauses not yet ended; the incident's number */
	uint64_t start, end;  /* its first XOFF; the latest end of its pauses that ended */
	bool storm;           /* a pause of it lasted the storm threshold */
	uint32_t *members;    /* its MACs (indices into macs) in the order they joined */
	uint32_t nmembers, cap_members, joined; /* joined: all, listed or not (out of memory) */
};

/*
 * Every figure of a PFC frame is found without a pass over the senders or
 * the classes: the sending MAC through a hash table, the running pauses in a
 * heap by their end, and paused time counted per class (each running pause
 * of a class adds the same time, up to `accounted`).
 */
struct an_pfc {
	uint64_t link_speed_bps, storm_ns;
	struct an_pfc_mac *macs;
	uint32_t nmacs, cap_macs;
	uint32_t *mac_slots; /* open addressing: index + 1 into macs, 0 empty */
	uint32_t nslots;     /* a power of two, at least twice nmacs */
	uint32_t active;     /* classes paused now (entries of runs) */
	/* the running pauses: a heap by end (an_pfc_class.until), each mac index * classes + class */
	uint32_t *runs, *ended; /* ended: scratch for those one an_pfc_advance() ends */
	uint32_t cap_runs;
	uint32_t running[RT_AN_PFC_CLASSES]; /* running pauses per class */
	uint16_t running_classes;            /* bit c: running[c] > 0 */
	uint64_t accounted;                  /* paused time is counted up to here */
	uint64_t next_expiry;                /* the earliest end of a running pause */
	struct an_storm *storms;
	uint32_t nstorms, cap_storms;
	uint64_t pfc_frames, pause_frames;
	/* per class, summed over sending MACs: XOFF and XON entries, paused time so far */
	uint64_t xoff[RT_AN_PFC_CLASSES], xon[RT_AN_PFC_CLASSES], paused_ns[RT_AN_PFC_CLASSES];
	struct an_episodes *ep; /* told when pauses start, run and end */
	uint64_t last_run_end;  /* the latest end of a pause */
	struct an_pfc_run run[RT_AN_PFC_CLASSES];
	struct an_incident *inc; /* the storm incidents that ended */
	uint32_t ninc, cap_inc;
	uint64_t inc_beyond; /* storm incidents past AN_INCIDENTS_MAX */
};

/* ep: the episodes its pauses count in (NULL: none, a staged analysis' reading thread's) */
void an_pfc_init(struct an_pfc *p, uint64_t link_speed_bps, uint64_t storm_ns,
                 struct an_episodes *ep);
void an_pfc_free(struct an_pfc *p);
/*
 * A PFC or PAUSE frame at `now`, seen at vantage point `point` (-1: unknown;
 * note: filled for per-frame displays, may be NULL).
 */
void an_pfc_frame(struct an_pfc *p, const struct rt_record *rec, uint64_t now, int point,
                  struct rt_an_note *note);
/* Account running pauses up to `now`; pauses that expired by then end. */
void an_pfc_advance(struct an_pfc *p, uint64_t now);
/*
 * Paused time per class as an_pfc_advance(p, at) would count it, without
 * counting it: running pauses up to min(at, their end). Changes nothing.
 */
void an_pfc_paused_at(const struct an_pfc *p, uint64_t at, uint64_t out[RT_AN_PFC_CLASSES]);
/* When the last running pause ends (0 when none runs); a pass over the running pauses. */
uint64_t an_pfc_last_expiry(const struct an_pfc *p);
/* Whether a pause ran at some time after `since` (up to now). */
static inline bool an_pfc_paused_since(const struct an_pfc *p, uint64_t since)
{
	return p->active > 0 || p->last_run_end > since;
}
/*
 * The storm incidents still under way at `at` (a live view: pauses running
 * up to then), up to `max` into out; returns how many. A pass over the
 * MACs of the incidents under way.
 */
unsigned an_pfc_ongoing(const struct an_pfc *p, uint64_t at, struct an_incident *out, unsigned max);

/*
 * Merge a finished PFC part (src) into another (analyze/README.md, "Split
 * and merge" has the rules and where they equal one pass):
 * - sending MACs: those of both, each part's in its own order, the two
 *   interleaved by the time of their first frames (dst's first on a tie);
 * - per MAC and class: XOFF, XON, storms and paused time summed, the first
 *   XOFF the earlier, the longest pause the longer (the earlier start on a
 *   tie), the vantage points united, the note (rt_an_note) the later
 *   frame's; per class the sums, and the frame counts, summed; the latest
 *   end of a pause the later;
 * - storms: both lists, interleaved by their ends (dst's first on a tie);
 * - storm incidents: one of dst and one of src, of one class, that overlap
 *   in time (one starts before the other ends) are one, joined as
 *   an incident joins its MACs (earlier start, later end, a MAC both name
 *   with the earlier first XOFF, its paused time summed, the longer of its
 *   longest pauses; the first AN_INC_MACS by their first XOFF named and the
 *   longest pauser among them; macs_total the MACs of both less those both
 *   name); each part's in its own order, the two interleaved by their ends
 *   (dst's first on a tie), the first AN_INCIDENTS_MAX kept, the others
 *   counted with both parts' inc_beyond.
 * 0, -EINVAL (a pause of either still runs: not finished) or -ENOMEM (dst
 * unchanged).
 */
int an_pfc_merge(struct an_pfc *dst, const struct an_pfc *src);
/*
 * (pfc.c and pfc_merge.c) The entry of sending MAC `mac`, added when new
 * (first seen at ts); with AN_PFC_MACS MACs, or out of memory, the last
 * entry (later MACs count with it); NULL when there is none.
 */
struct an_pfc_mac *an_pfc_mac_get(struct an_pfc *p, const uint8_t mac[6], uint64_t ts);
/* (pfc.c and pfc_merge.c) e into an incident's named MACs, kept in order of their first XOFF, the earliest AN_INC_MACS. */
void an_pfc_inc_name(struct an_incident *out, const struct an_inc_mac *e);
/* (pfc.c and pfc_merge.c) The MAC that paused longest named: in place of the last named when it is not among them. */
void an_pfc_inc_name_longest(struct an_incident *out, const struct an_inc_mac *longest);
/* Storms of class c over sending MACs. */
uint64_t an_pfc_class_storms(const struct an_pfc *p, unsigned c);

#endif

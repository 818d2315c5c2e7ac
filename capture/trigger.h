/* The flight recorder's trigger expressions (capture --trigger): the grammar, parsed and named. */
#ifndef RT_CAPTURE_TRIGGER_H
#define RT_CAPTURE_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

/* What a trigger watches (docs/CAPTURE.md, "Flight recorder"). */
enum rt_trigger_kind {
	RT_TRIG_CNP,        /* cnp: any CNP */
	RT_TRIG_CNP_RATE,   /* cnp_rate>N/s: more than N CNPs in the last second */
	RT_TRIG_CE_SHARE,   /* ce_share>P%: CE-marked share of the last second's RoCE packets */
	RT_TRIG_PFC_PAUSED, /* pfc_paused[:C]>P%: paused share of the last second */
	RT_TRIG_PFC_STORM, /* pfc_storm[:C]: a class paused without a break longer than the storm threshold */
	RT_TRIG_NAK,     /* nak: a NAK (RNR NAKs aside) */
	RT_TRIG_RNR,     /* rnr: an RNR NAK */
	RT_TRIG_TIMEOUT, /* timeout: a resend after an idle wait (no NAK asked for it) */
	RT_TRIG_DROP,    /* drop: the capture itself lost frames */
	RT_TRIG_FINDING, /* finding:CODE: the live analysis reports that finding */
};

/* A trigger's class: any class (pfc_paused, pfc_storm without ':C'). */
#define RT_TRIGGER_ANY_CLASS (-1)
/* Longest finding code taken. */
#define RT_TRIGGER_CODE_MAX 48

/* One parsed --trigger. */
struct rt_trigger {
	enum rt_trigger_kind kind;
	int pclass;       /* pfc_*: 0..7, 8 for 802.3x PAUSE, or RT_TRIGGER_ANY_CLASS */
	double threshold; /* cnp_rate: CNPs per second; ce_share, pfc_paused: percent (0..100) */
	char finding[RT_TRIGGER_CODE_MAX]; /* finding:CODE */
	char text[96];                     /* the expression as written back (spaces dropped) */
	char word
	    [96]; /* the same in words (".gt." for '>', "pct" for '%'), for a launcher's shell */
	char code[64]; /* for file names: "cnp_rate", "pfc_paused-3", "finding-np_silent" */
};

/*
 * Parse one expression into *t. Returns 0, or -EINVAL with errbuf saying
 * what is wrong and *at the 0-based offset in expr where it went wrong.
 */
int rt_trigger_parse(const char *expr, struct rt_trigger *t, size_t *at, char *errbuf);

/*
 * The one-line message capture prints for a bad expression into buf:
 * "--trigger 'EXPR': at character N ('REST'): WHAT" (N 1-based).
 */
void rt_trigger_error_line(const char *expr, size_t at, const char *what, char *buf, size_t size);

#endif

/* DCQCN reaction point: rate cut on CNP, alpha update and decay, timer and byte-counter recovery. */
#ifndef RT_GEN_DCQCN_H
#define RT_GEN_DCQCN_H

#include <stdint.h>

struct rt_dcqcn_params {
	double g; /* alpha gain (paper: 1/256) */
	uint64_t
	    alpha_period_ns; /* alpha decays by (1-g) after each such period without CNP (55 us) */
	uint64_t timer_ns;   /* rate-increase timer period (55 us) */
	uint64_t byte_counter; /* rate-increase byte counter B (10 MB) */
	unsigned f;            /* fast-recovery steps F (5) */
	double rai_mbps;       /* additive increase R_AI (40 Mb/s) */
	double rhai_mbps;      /* hyper increase R_HAI (100 Mb/s) */
	double line_mbps;      /* maximum (line) rate */
	double min_mbps;       /* floor of the current rate (10 Mb/s) */
};

/* Why the rate last changed. */
enum rt_dcqcn_reason {
	RT_DCQCN_NONE = 0,
	RT_DCQCN_CNP,
	RT_DCQCN_TIMER,
	RT_DCQCN_BYTE,
};

struct rt_dcqcn {
	struct rt_dcqcn_params p;
	double rc, rt, alpha;       /* current rate, target rate (Mb/s), alpha */
	uint64_t alpha_due_ns;      /* next alpha decay */
	uint64_t timer_due_ns;      /* next timer stage */
	uint64_t bytes;             /* bytes sent since the byte counter last fired */
	unsigned t_stage, bc_stage; /* timer and byte-counter expirations since the last cut */
	uint64_t cuts;              /* CNPs reacted to */
};

/* The paper's defaults with line rate `line_mbps`. */
void rt_dcqcn_params_default(struct rt_dcqcn_params *p, double line_mbps);

/* Start at line rate with alpha = 1, timers running from `now_ns`. */
void rt_dcqcn_init(struct rt_dcqcn *s, const struct rt_dcqcn_params *p, uint64_t now_ns);

/*
 * A CNP arrived at now_ns: Rt = Rc, Rc = Rc(1 - alpha/2), alpha = (1-g)alpha + g;
 * both recovery counters and the alpha and rate timers restart.
 */
void rt_dcqcn_on_cnp(struct rt_dcqcn *s, uint64_t now_ns);

/*
 * Let time pass to now_ns: every alpha period without CNP decays alpha, every
 * timer period is one timer stage (an increase event). Returns the number of
 * increase events applied.
 */
unsigned rt_dcqcn_on_time(struct rt_dcqcn *s, uint64_t now_ns);

/* Account `n` bytes sent; each B bytes is one byte-counter stage. Returns increase events applied. */
unsigned rt_dcqcn_on_bytes(struct rt_dcqcn *s, uint64_t n);

/* The earliest time rt_dcqcn_on_time() has something to do. */
uint64_t rt_dcqcn_next_due(const struct rt_dcqcn *s);

#endif

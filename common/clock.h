/* The clocks as nanoseconds: monotonic for intervals and deadlines, real time for timestamps. */
#ifndef RT_CLOCK_H
#define RT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* A timespec as nanoseconds (a time before the epoch, or a negative field, is not one). */
static inline uint64_t rt_timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* Clock `clk` now, in nanoseconds. */
static inline uint64_t rt_clock_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return rt_timespec_ns(&ts);
}

/* CLOCK_MONOTONIC: for durations, deadlines and rates; not a time of day. */
static inline uint64_t rt_mono_ns(void)
{
	return rt_clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_REALTIME: nanoseconds since the epoch, for timestamps people read. */
static inline uint64_t rt_real_ns(void)
{
	return rt_clock_ns(CLOCK_REALTIME);
}

#endif

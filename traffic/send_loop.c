/* The run loop both backends' senders share: the message sizes, each run to its end, the peak slices, the interval lines, the waits. */
#include <errno.h>
#include <string.h>

#include "common/clock.h"
#include "traffic/internal.h"
#include "traffic/perf.h"

/* Peak: the payload rate of the slice that ends at now, when a slice is over. */
static void peak_slice(struct rt_gen_sender *snd, uint64_t now, uint64_t *slice_start,
                       uint64_t *slice_bytes, struct rt_perf_run *res)
{
	if (now - *slice_start < RT_PERF_PEAK_SLICE_NS)
		return;
	uint64_t b = snd->ops->run_payload(snd->backend);
	double bps = (double)(b - *slice_bytes) * 8e9 / (double)(now - *slice_start);
	if (bps > res->peak_bps)
		res->peak_bps = bps;
	*slice_start = now;
	*slice_bytes = b;
}

/*
 * One run of `size`-byte messages on every QP: until each QP completed
 * cfg->iters messages (or cfg->bytes), or cfg->duration_s passed and the
 * messages in flight completed. With `intervals`, one line (and one event
 * per QP) each cfg->interval_s.
 */
static int run(struct rt_gen_sender *snd, uint32_t size, bool intervals, struct rt_perf_run *res,
               char *errbuf)
{
	const struct rt_gen_send_ops *ops = snd->ops;
	const struct rt_gen_config *cfg = snd->cfg;
	uint64_t t0 = rt_mono_ns();
	uint64_t stop_at =
	    cfg->duration_s > 0 ? t0 + (uint64_t)(cfg->duration_s * 1e9) : UINT64_MAX;
	uint64_t iv_ns = (uint64_t)(cfg->interval_s * 1e9);
	uint64_t next_iv = intervals ? t0 + iv_ns : UINT64_MAX, last_iv = t0;
	uint64_t drain_deadline = UINT64_MAX;
	uint64_t slice_start = t0, slice_bytes = 0;
	bool stopping = false;
	snd->nlat = 0;
	memset(res, 0, sizeof(*res));
	res->t0 = res->t_last = t0;
	ops->run_begin(snd->backend, size, intervals, t0);
	for (;;) {
		uint64_t now = rt_mono_ns();
		bool interrupted, done;
		if (!stopping && rt_perf_run_over(cfg, now, stop_at, snd->nlat, &interrupted)) {
			stopping = true;
			res->stopped = interrupted;
			drain_deadline = ops->stop(snd->backend, now);
		}
		if (ops->receive)
			ops->receive(snd->backend, res);
		peak_slice(snd, now, &slice_start, &slice_bytes, res);
		int rc = ops->step(snd->backend, now, stopping, res, &done, errbuf);
		if (rc)
			return rc;
		if (now >= next_iv) {
			ops->interval(snd->backend, (double)(now - t0) / 1e9,
			              (double)(now - last_iv) / 1e9, now);
			last_iv = now;
			next_iv += iv_ns;
			if (next_iv <= now)
				next_iv = now + iv_ns;
		}
		if (done)
			break;
		if (stopping && now >= drain_deadline) {
			return rt_errmsg(
			    errbuf, ETIMEDOUT,
			    "gave up waiting for the last acknowledgements after the run");
		}
		/* latency: poll without sleeping, as perftest does (a wake-up would be measured) */
		if (!ops->wait || cfg->latency)
			continue;
		uint64_t due = stopping ? drain_deadline : stop_at;
		if (next_iv < due)
			due = next_iv;
		if (slice_start + RT_PERF_PEAK_SLICE_NS < due)
			due = slice_start + RT_PERF_PEAK_SLICE_NS;
		ops->wait(snd->backend, now, due);
	}
	uint64_t now = rt_mono_ns();
	/* a last, partial interval for whatever the intervals have not yet counted */
	if (intervals && ops->interval_left(snd->backend, now, last_iv, iv_ns))
		ops->interval(snd->backend, (double)(now - t0) / 1e9, (double)(now - last_iv) / 1e9,
		              now);
	res->msgs = ops->run_end(snd->backend);
	return 0;
}

int rt_gen_send_runs(struct rt_gen_sender *snd, char *errbuf)
{
	const struct rt_gen_config *cfg = snd->cfg;
	uint64_t t0 = rt_mono_ns();
	uint32_t first = cfg->sweep ? RT_PERF_SWEEP_MIN : cfg->msg_size;
	uint32_t last = cfg->msg_size; /* a sweep's largest, 2^23 */
	bool intervals = !cfg->sweep && !cfg->latency;
	snd->ops->start(snd->backend, t0);
	if (rt_perf_begin(snd->report, cfg, intervals, &snd->lat) < 0)
		return rt_errmsg(errbuf, ENOMEM, "out of memory for latency samples");
	struct rt_perf_run r;
	for (uint64_t size = first; size <= last; size *= 2) {
		int rc = run(snd, (uint32_t)size, intervals, &r, errbuf);
		if (rc)
			return rc;
		rt_perf_row(snd->report, cfg, intervals, (uint32_t)size, &r, snd->lat, snd->nlat);
		if (r.stopped)
			break;
	}
	snd->ops->finish(snd->backend, t0);
	return 0;
}

/* The traffic source's JSON Lines event log (docs/FORMATS.md): one object per event, ns timestamps. */
#include "capture/gen/evlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rt_gen_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int rt_evlog_open(struct rt_evlog *log, const char *path, char *errbuf)
{
	memset(log, 0, sizeof(*log));
	if (!path)
		return 0;
	log->fp = fopen(path, "w");
	if (!log->fp) {
		int e = errno;
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s: %s", path, strerror(e));
		return -e;
	}
	log->out = malloc(sizeof(*log->out));
	if (!log->out) {
		fclose(log->fp);
		log->fp = NULL;
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s: out of memory", path);
		return -ENOMEM;
	}
	rt_out_init(log->out, log->fp);
	log->real_minus_mono = (int64_t)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
	return 0;
}

int rt_evlog_close(struct rt_evlog *log, char *errbuf)
{
	if (!log->out)
		return 0;
	int err = rt_out_flush(log->out);
	if (fclose(log->fp) != 0 && !err)
		err = errno ? errno : EIO;
	free(log->out);
	log->out = NULL;
	log->fp = NULL;
	if (err) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "event log: %s", strerror(err));
		return -err;
	}
	return 0;
}

void rt_evlog_flush(struct rt_evlog *log)
{
	if (log->out)
		rt_out_flush(log->out);
}

void rt_evlog_begin(struct rt_evlog *log, uint64_t mono_ns, const char *event)
{
	if (!log->out)
		return;
	rt_out_str(log->out, "{\"ts\":\"");
	rt_out_ts(log->out, (uint64_t)((int64_t)mono_ns + log->real_minus_mono));
	rt_out_str(log->out, "\",\"event\":");
	rt_out_json_str(log->out, event);
}

void rt_evlog_begin_flow(struct rt_evlog *log, uint64_t mono_ns, const char *event,
			 const struct rt_evflow *flow)
{
	rt_evlog_begin(log, mono_ns, event);
	rt_evlog_str(log, "src", flow->src);
	rt_evlog_str(log, "dst", flow->dst);
	rt_evlog_u64(log, "dest_qp", flow->dest_qp);
}

static void key(struct rt_evlog *log, const char *k)
{
	rt_out_char(log->out, ',');
	rt_out_json_str(log->out, k);
	rt_out_char(log->out, ':');
}

void rt_evlog_str(struct rt_evlog *log, const char *k, const char *value)
{
	if (!log->out)
		return;
	key(log, k);
	rt_out_json_str(log->out, value);
}

void rt_evlog_u64(struct rt_evlog *log, const char *k, uint64_t value)
{
	if (!log->out)
		return;
	key(log, k);
	rt_out_u64(log->out, value);
}

void rt_evlog_double(struct rt_evlog *log, const char *k, double value, int decimals)
{
	if (!log->out)
		return;
	key(log, k);
	rt_out_double(log->out, value, decimals);
}

void rt_evlog_bool(struct rt_evlog *log, const char *k, bool value)
{
	if (!log->out)
		return;
	key(log, k);
	rt_out_str(log->out, value ? "true" : "false");
}

void rt_evlog_end(struct rt_evlog *log)
{
	if (log->out)
		rt_out_str(log->out, "}\n");
}

/* The traffic source's JSON Lines event log (docs/FORMATS.md): one object per event, ns timestamps. */
#include "common/clock.h"
#include "traffic/evlog.h"
#include "common/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rt_evlog_open(struct rt_evlog *log, const char *path, char *errbuf)
{
	memset(log, 0, sizeof(*log));
	if (!path)
		return 0;
	int rc = rt_fopen_output(&log->fp, path, errbuf);
	if (rc < 0)
		return rc;
	log->out = malloc(sizeof(*log->out));
	if (!log->out) {
		fclose(log->fp);
		log->fp = NULL;
		return rt_errmsg(errbuf, ENOMEM, "%s: out of memory", path);
	}
	rt_out_init(log->out, log->fp);
	log->real_minus_mono = (int64_t)(rt_real_ns() - rt_mono_ns());
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
		return rt_errorf(errbuf, err, "event log");
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
	rt_json_init(&log->json, log->out);
	rt_json_obj(&log->json);
	uint64_t ts = (uint64_t)((int64_t)mono_ns + log->real_minus_mono);
	RT_JSON_KEY(&log->json, "ts");
	rt_json_ts(&log->json, ts);
	RT_JSON_U64(&log->json, "ts_ns", ts);
	RT_JSON_STR(&log->json, "event", event);
}

void rt_evlog_begin_flow(struct rt_evlog *log, uint64_t mono_ns, const char *event,
                         const struct rt_evflow *flow)
{
	rt_evlog_begin(log, mono_ns, event);
	rt_evlog_str(log, "src", flow->src);
	rt_evlog_str(log, "dst", flow->dst);
	rt_evlog_u64(log, "dest_qp", flow->dest_qp);
}

void rt_evlog_str(struct rt_evlog *log, const char *k, const char *value)
{
	if (!log->out)
		return;
	rt_json_key(&log->json, k);
	rt_json_str(&log->json, value);
}

void rt_evlog_u64(struct rt_evlog *log, const char *k, uint64_t value)
{
	if (!log->out)
		return;
	rt_json_key(&log->json, k);
	rt_json_u64(&log->json, value);
}

void rt_evlog_double(struct rt_evlog *log, const char *k, double value, int decimals)
{
	if (!log->out)
		return;
	rt_json_key(&log->json, k);
	rt_json_double(&log->json, value, decimals);
}

void rt_evlog_bool(struct rt_evlog *log, const char *k, bool value)
{
	if (!log->out)
		return;
	rt_json_key(&log->json, k);
	rt_json_bool(&log->json, value);
}

void rt_evlog_end(struct rt_evlog *log)
{
	if (!log->out)
		return;
	rt_json_obj_end(&log->json);
	rt_out_char(log->out, '\n');
}

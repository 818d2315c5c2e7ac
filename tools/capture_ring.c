/* capture --ring: the flight recorder wired into a capture (its ring, its triggers, its events said). */
#include "tools/capture_ring.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/results.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/outbuf.h"
#include "common/outfile.h"
#include "common/textfmt.h"
#include "tools/cli.h"

#define CMD "capture"

/* A line on stderr, wrapped at 100 columns (the rest indented), flushed. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	rt_text_fill(stderr, line, len, 0, RT_TEXT_WIDTH, 4);
	fflush(stderr);
}

/* One JSON line per event, once its file is complete (--json-events). */
static void json_event(void *ctx, const struct rt_recorder_event *ev)
{
	struct rt_capture_ring *cr = ctx;
	struct rt_outbuf o;
	struct rt_json j;
	if (!cr->json)
		return;
	rt_out_init(&o, cr->json);
	rt_json_init(&j, &o);
	rt_json_obj(&j);
	RT_JSON_KEY(&j, "event");
	rt_json_u64(&j, ev->number);
	RT_JSON_KEY(&j, "trigger");
	rt_out_json_str(&o, ev->trigger);
	RT_JSON_KEY(&j, "code");
	rt_out_json_str(&o, ev->code);
	char when[48];
	rt_recorder_time(ev->ts_ns, when, sizeof(when));
	RT_JSON_KEY(&j, "time");
	rt_out_json_str(&o, when);
	RT_JSON_KEY(&j, "time_ns");
	rt_json_u64(&j, ev->ts_ns);
	RT_JSON_KEY(&j, "figures");
	rt_out_json_str(&o, ev->figures);
	RT_JSON_KEY(&j, "host");
	if (ev->host[0])
		rt_out_json_str(&o, ev->host);
	else
		rt_out_str(&o, "null");
	RT_JSON_KEY(&j, "file");
	rt_out_json_str(&o, ev->path);
	RT_JSON_KEY(&j, "first_frame_ns");
	rt_json_u64(&j, ev->from_ns);
	RT_JSON_KEY(&j, "last_frame_ns");
	rt_json_u64(&j, ev->to_ns);
	RT_JSON_KEY(&j, "frames_before");
	rt_json_u64(&j, ev->frames_before);
	RT_JSON_KEY(&j, "frames_after");
	rt_json_u64(&j, ev->frames_after);
	rt_json_obj_end(&j);
	rt_out_char(&o, '\n');
	if (rt_out_flush(&o) != 0 || fflush(cr->json) != 0) {
		cr->error = -EIO;
		snprintf(cr->errbuf, sizeof(cr->errbuf), "--json-events: cannot write");
	}
}

int rt_capture_ring_start(struct rt_capture_ring *cr, const struct rt_ring_args *a, const char *dir,
                          const struct rt_source *src, uint32_t snaplen, bool live,
                          const char *application, uint64_t storm_ns)
{
	char errbuf[RT_ERRBUF_SIZE];
	memset(cr, 0, sizeof(*cr));
	cr->a = a;
	cr->live = live;
	cr->hold_ns = src->hold_ns;
	pthread_mutex_init(&cr->lock, NULL);
	struct rt_recorder_config rc = {
	    .span_ns = a->span_ns,
	    /* with --hosts an event reaches the other hosts a moment later: up to 1 s is kept for it */
	    .late_ns = a->span_ns < 1000000000u ? a->span_ns : 1000000000u,
	    .bytes = (size_t)a->bytes,
	    .post_ns = a->post_ns,
	    .hold_off_ns = a->hold_off_given ? a->hold_off_ns : a->post_ns,
	    .max_events = (unsigned)a->max_events,
	    .dir = dir,
	    .format = RT_FORMAT_PCAPNG,
	    .application = application,
	    .if_name = src->name,
	    .linktype = src->linktype,
	    .snaplen = snaplen,
	    .ts_source = src->ts_source,
	    .on_closed = json_event,
	    .ctx = cr,
	};
	for (unsigned i = 0; i < a->ntriggers; i++)
		cr->findings |= a->triggers[i].kind == RT_TRIG_FINDING;
	if (!(cr->tr = rt_triggers_new(a->triggers, a->ntriggers, storm_ns)))
		return rt_cli_fail(CMD, "--ring: out of memory");
	if (rt_recorder_new(&cr->rec, &rc, errbuf) < 0)
		return rt_cli_fail(CMD, "--ring: %s", errbuf);
	if (a->json_events) {
		int fd = rt_open_output(a->json_events, errbuf);
		if (fd < 0 || !(cr->json = fdopen(fd, "w"))) {
			if (fd >= 0)
				close(fd);
			return rt_cli_fail(CMD, "--json-events: %s",
			                   fd < 0 ? errbuf : strerror(errno));
		}
	}
	struct rt_recorder_stats st;
	rt_recorder_stats(cr->rec, &st);
	say("rocetrace capture: flight recorder: the last %.3f s of frames (cut to %u bytes) in "
	    "%.1f MiB allocated now; %u trigger%s; events into %s",
	    (double)a->span_ns / 1e9, snaplen, (double)st.bytes / 1048576.0, a->ntriggers,
	    a->ntriggers == 1 ? "" : "s", dir);
	return 0;
}

int rt_capture_ring_sink(struct rt_capture_ring *cr, struct rt_pump_sink *out, char *errbuf)
{
	return rt_recorder_sink(out, cr->rec, errbuf);
}

/* A trigger fired (here, or on another host): an event, said in one line, unless held. */
static void fire(struct rt_capture_ring *cr, const struct rt_recorder_fire *f)
{
	enum rt_recorder_held held;
	struct rt_recorder_event ev;
	char when[48], errbuf[RT_ERRBUF_SIZE];
	if (cr->error)
		return;
	int rc = rt_recorder_trigger(cr->rec, f, &held, &ev, errbuf);
	if (rc < 0) {
		cr->error = rc;
		snprintf(cr->errbuf, sizeof(cr->errbuf), "%s", errbuf);
		return;
	}
	if (held != RT_RECORDER_STARTED)
		return;
	rt_recorder_time(f->ts_ns, when, sizeof(when));
	/* one line, unwrapped: capture --hosts reads each host's (capture/hosts_events.c) */
	fprintf(stderr, "rocetrace capture: event %u: %s at %s (%s%s%s): writing %s\n", ev.number,
	        f->trigger, when, f->figures, f->host ? " on host " : "", f->host ? f->host : "",
	        ev.path);
	fflush(stderr);
}

static void fire_hit(struct rt_capture_ring *cr, const struct rt_trigger_hit *hit)
{
	struct rt_recorder_fire f = {.ts_ns = hit->ts_ns,
	                             .trigger = hit->t->text,
	                             .code = hit->t->code,
	                             .figures = hit->figures};
	fire(cr, &f);
}

/* The codes of the findings the live analysis reports now, at capture time ts_ns (finding:CODE triggers). */
static void ring_findings(struct rt_capture_ring *cr, const char *const *codes, unsigned n,
                          uint64_t ts_ns)
{
	struct rt_trigger_hit hit;
	if (rt_triggers_findings(cr->tr, codes, n, ts_ns, &hit))
		fire_hit(cr, &hit);
}

void rt_capture_ring_record(struct rt_capture_ring *cr, struct rt_analyzer *an,
                            const struct rt_record *rec)
{
	struct rt_an_note note;
	struct rt_trigger_hit hit;
	rt_analyzer_feed_note(an, rec, &note);
	if (rt_triggers_record(cr->tr, rec, &note, an, &hit))
		fire_hit(cr, &hit);
	/* once a second of capture time (a time going backwards waits for it to come back) */
	if (cr->findings && rec->ts_ns >= cr->judged_ns + 1000000000u) {
		struct rt_finding_tag tags[RT_FINDINGS_MAX];
		const char *codes[RT_FINDINGS_MAX];
		int n = rt_analyzer_live_findings(an, 0, tags, RT_FINDINGS_MAX);
		for (int i = 0; i < n; i++)
			codes[i] = tags[i].code;
		if (n >= 0) { /* out of memory: judged again at the next record */
			cr->judged_ns = rec->ts_ns;
			ring_findings(cr, codes, (unsigned)n, rec->ts_ns);
		}
	}
}

void rt_capture_ring_remote_line(struct rt_capture_ring *cr, const char *line)
{
	struct rt_ring_remote r = {0};
	unsigned long long ts;
	if (sscanf(line, "event %llu %63s %127s %95s", &ts, r.code, r.host, r.trigger) != 4)
		return;
	r.ts_ns = ts;
	pthread_mutex_lock(&cr->lock);
	if (cr->nremote < RT_RING_REMOTE_MAX)
		cr->remote[cr->nremote++] = r;
	pthread_mutex_unlock(&cr->lock);
}

int rt_capture_ring_tick(struct rt_capture_ring *cr, uint64_t dropped, char *errbuf)
{
	struct rt_ring_remote remote[RT_RING_REMOTE_MAX];
	struct rt_trigger_hit hit;
	uint64_t now = rt_real_ns();
	unsigned n;
	if (rt_triggers_drops(cr->tr, dropped, now, &hit))
		fire_hit(cr, &hit);
	pthread_mutex_lock(&cr->lock);
	n = cr->nremote;
	memcpy(remote, cr->remote, n * sizeof(*remote));
	cr->nremote = 0;
	pthread_mutex_unlock(&cr->lock);
	for (unsigned i = 0; i < n; i++) {
		struct rt_recorder_fire f = {.ts_ns = remote[i].ts_ns,
		                             .trigger = remote[i].trigger,
		                             .code = remote[i].code,
		                             .figures = "the same window as the event",
		                             .host = remote[i].host};
		fire(cr, &f);
	}
	/* an idle link: the --post window ends by the clock, less what the source may still hold */
	if (!cr->error && cr->live) {
		int rc = rt_recorder_tick(cr->rec, now - cr->hold_ns, errbuf);
		if (rc < 0)
			return rc;
	}
	if (cr->error) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s", cr->errbuf);
		return cr->error;
	}
	return 0;
}

int rt_capture_ring_finish(struct rt_capture_ring *cr, char *errbuf)
{
	int rc = cr->rec ? rt_recorder_finish(cr->rec, errbuf) : 0;
	if (!rc && cr->error) {
		snprintf(errbuf, RT_ERRBUF_SIZE, "%s", cr->errbuf);
		rc = cr->error;
	}
	if (cr->json && fclose(cr->json) != 0 && !rc)
		rc = rt_errorf(errbuf, errno, "--json-events: %s", cr->a->json_events);
	cr->json = NULL;
	return rc;
}

void rt_capture_ring_counts(const struct rt_capture_ring *cr, uint64_t *events, uint64_t *held)
{
	struct rt_recorder_stats st = {0};
	if (cr->rec)
		rt_recorder_stats(cr->rec, &st);
	*events = st.events;
	*held = st.held_off;
}

void rt_capture_ring_free(struct rt_capture_ring *cr)
{
	if (cr->json)
		fclose(cr->json);
	rt_recorder_free(cr->rec);
	rt_triggers_free(cr->tr);
	pthread_mutex_destroy(&cr->lock);
	memset(cr, 0, sizeof(*cr));
}

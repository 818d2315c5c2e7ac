/* The flight recorder: the last seconds of frames in a ring of fixed memory, written out around an event. */
#include "capture/recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/errbuf.h"

/* A frame in the ring: this header, then its bytes, 8-aligned. */
struct entry {
	uint64_t ts_ns;
	uint32_t caplen, wirelen;
};

/*
 * The ring: one block of `size` bytes. Used: [tail, head) unwrapped, or
 * [tail, wrap_end) then [0, head) once wrapped. Frames are evicted from
 * the tail when older than the span or when room is needed.
 */
struct rt_recorder {
	struct rt_recorder_config cfg;
	uint8_t *buf;
	size_t size, head, tail, wrap_end;
	bool wrapped;
	uint64_t count, used;
	uint64_t newest_ts;
	/* the event under way */
	struct rt_writer *w;
	int if_id;
	uint64_t end_ns; /* its trigger's time plus --post */
	struct rt_recorder_event ev;
	char comment[1024];
	bool any_event;
	uint64_t last_ts; /* the trigger time of the latest event */
	struct rt_recorder_stats st;
};

static struct entry *at(const struct rt_recorder *r, size_t off)
{
	return (struct entry *)(void *)(r->buf + off);
}

/* The oldest frame leaves the ring. */
static void pop(struct rt_recorder *r)
{
	const struct entry *e = at(r, r->tail);
	uint64_t n = RT_RECORDER_FRAME_BYTES(e->caplen);
	r->tail += (size_t)n;
	r->used -= n;
	if (--r->count == 0) {
		r->head = r->tail = 0;
		r->wrapped = false;
	} else if (r->wrapped && r->tail >= r->wrap_end) {
		r->tail = 0;
		r->wrapped = false;
	}
}

/* Where `need` bytes go, room made by evicting the oldest frames (need <= size). */
static size_t place(struct rt_recorder *r, size_t need)
{
	for (;;) {
		if (!r->wrapped) {
			if (r->size - r->head >= need)
				return r->head;
			if (r->count && r->tail >= need) {
				r->wrap_end = r->head;
				r->wrapped = true;
				r->head = 0;
				return 0;
			}
		} else if (r->tail - r->head >= need) {
			return r->head;
		}
		pop(r);
		if (!r->count)
			return 0;
	}
}

/* Keep one frame: frames older than the span go first. */
static void keep(struct rt_recorder *r, const struct rt_frame *f)
{
	uint64_t need = RT_RECORDER_FRAME_BYTES(f->caplen);
	if (need > r->size) {
		r->st.too_big++;
		return;
	}
	while (r->count && at(r, r->tail)->ts_ns + r->cfg.span_ns + r->cfg.late_ns < f->ts_ns)
		pop(r);
	size_t off = place(r, (size_t)need);
	struct entry *e = at(r, off);
	e->ts_ns = f->ts_ns;
	e->caplen = f->caplen;
	e->wirelen = f->wirelen;
	memcpy(e + 1, f->data, f->caplen);
	r->head = off + (size_t)need;
	r->count++;
	r->used += need;
	if (f->ts_ns > r->newest_ts)
		r->newest_ts = f->ts_ns;
}

void rt_recorder_time(uint64_t ts_ns, char *buf, size_t size)
{
	time_t secs = (time_t)(ts_ns / 1000000000u);
	struct tm tm;
	char day[32] = "";
	if (gmtime_r(&secs, &tm))
		strftime(day, sizeof(day), "%Y%m%dT%H%M%S", &tm);
	snprintf(buf, size, "%s.%09uZ", day, (unsigned)(ts_ns % 1000000000u));
}

int rt_recorder_new(struct rt_recorder **out, const struct rt_recorder_config *cfg, char *errbuf)
{
	struct rt_recorder *r = calloc(1, sizeof(*r));
	size_t size = cfg->bytes < RT_RECORDER_MIN_BYTES ? RT_RECORDER_MIN_BYTES : cfg->bytes;
	size &= ~(size_t)7;
	if (!r)
		return rt_errorf(errbuf, ENOMEM, "the flight recorder");
	if (mkdir(cfg->dir, 0755) < 0 && errno != EEXIST) {
		free(r);
		return rt_errorf(errbuf, errno, "%s", cfg->dir);
	}
	struct stat sb;
	if (stat(cfg->dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		free(r);
		return rt_errmsg(errbuf, ENOTDIR, "%s: not a folder", cfg->dir);
	}
	if (!(r->buf = malloc(size))) {
		free(r);
		return rt_errorf(errbuf, ENOMEM, "the flight recorder's %zu bytes", size);
	}
	memset(r->buf, 0, size); /* every page of it now, not during a burst */
	r->cfg = *cfg;
	r->size = size;
	r->st.bytes = size;
	*out = r;
	return 0;
}

/* The event's file is complete: closed, told. */
static int close_event(struct rt_recorder *r, char *errbuf)
{
	if (!r->w)
		return 0;
	int rc = rt_writer_close(r->w, errbuf);
	r->w = NULL;
	if (rc == 0 && r->cfg.on_closed)
		r->cfg.on_closed(r->cfg.ctx, &r->ev);
	return rc;
}

/* A frame into the event's file: before the trigger (from the ring) or after it. */
static int write_frame(struct rt_recorder *r, const struct rt_frame *f, char *errbuf)
{
	int rc = rt_writer_write(r->w, r->if_id, f, errbuf);
	if (rc < 0)
		return rc;
	if (!r->ev.from_ns)
		r->ev.from_ns = f->ts_ns;
	r->ev.to_ns = f->ts_ns;
	if (f->ts_ns <= r->ev.ts_ns)
		r->ev.frames_before++;
	else
		r->ev.frames_after++;
	return 0;
}

/* The ring's frames from `from_ns` on into the event's file, oldest first. */
static int dump(struct rt_recorder *r, uint64_t from_ns, char *errbuf)
{
	size_t off = r->tail;
	bool wrapped = r->wrapped;
	for (uint64_t k = 0; k < r->count; k++) {
		if (wrapped && off >= r->wrap_end) {
			off = 0;
			wrapped = false;
		}
		const struct entry *e = at(r, off);
		struct rt_frame f = {.data = (const uint8_t *)(e + 1),
		                     .caplen = e->caplen,
		                     .wirelen = e->wirelen,
		                     .ts_ns = e->ts_ns};
		int rc;
		if (e->ts_ns >= from_ns && e->ts_ns <= r->end_ns &&
		    (rc = write_frame(r, &f, errbuf)) < 0)
			return rc;
		off += (size_t)RT_RECORDER_FRAME_BYTES(e->caplen);
	}
	return 0;
}

/* The event's file, its comment and its interface. */
static int open_event(struct rt_recorder *r, const struct rt_recorder_fire *f, char *errbuf)
{
	struct rt_recorder_event *ev = &r->ev;
	char when[48];
	rt_recorder_time(f->ts_ns, when, sizeof(when));
	int n = snprintf(ev->path, sizeof(ev->path), "%s%sevent%u-%s-%s.%s", r->cfg.dir,
	                 r->cfg.dir[strlen(r->cfg.dir) - 1] == '/' ? "" : "/", ev->number, when,
	                 f->code, r->cfg.format == RT_FORMAT_PCAP_NS ? "pcap" : "pcapng");
	if (n < 0 || (size_t)n >= sizeof(ev->path))
		return rt_errmsg(errbuf, ENAMETOOLONG, "%s: the event file's name is too long",
		                 r->cfg.dir);
	snprintf(r->comment, sizeof(r->comment),
	         "rocetrace flight recorder event %u: trigger %s fired at %s%s%s: %s. This file "
	         "holds the frames from %.3f s before the trigger (the ring's span, as far as its "
	         "%zu bytes held them) to %.3f s after it (--post).",
	         ev->number, f->trigger, when, f->host ? " on host " : "", f->host ? f->host : "",
	         f->figures, (double)r->cfg.span_ns / 1e9, r->size, (double)r->cfg.post_ns / 1e9);
	struct rt_writer_config wc = {.format = r->cfg.format,
	                              .path = ev->path,
	                              .application = r->cfg.application,
	                              .comment = r->comment};
	int rc = rt_writer_open(&r->w, &wc, errbuf);
	if (rc < 0)
		return rc;
	r->if_id = rt_writer_add_interface(r->w, r->cfg.if_name, r->cfg.linktype, r->cfg.snaplen,
	                                   r->cfg.ts_source, errbuf);
	if (r->if_id < 0) {
		rc = r->if_id;
		rt_writer_close(r->w, errbuf);
		r->w = NULL;
	}
	return rc;
}

int rt_recorder_trigger(struct rt_recorder *r, const struct rt_recorder_fire *f,
                        enum rt_recorder_held *held, struct rt_recorder_event *ev, char *errbuf)
{
	if (r->w || (r->any_event && f->ts_ns < r->last_ts + r->cfg.hold_off_ns)) {
		*held = RT_RECORDER_HOLD_OFF;
	} else if (r->cfg.max_events && r->st.events >= r->cfg.max_events) {
		*held = RT_RECORDER_MAX;
	} else {
		*held = RT_RECORDER_STARTED;
	}
	if (*held != RT_RECORDER_STARTED) {
		r->st.held_off++;
		return 0;
	}
	r->any_event = true;
	r->last_ts = f->ts_ns;
	r->ev = (struct rt_recorder_event){.number = (unsigned)++r->st.events, .ts_ns = f->ts_ns};
	snprintf(r->ev.trigger, sizeof(r->ev.trigger), "%s", f->trigger);
	snprintf(r->ev.code, sizeof(r->ev.code), "%s", f->code);
	snprintf(r->ev.figures, sizeof(r->ev.figures), "%s", f->figures);
	snprintf(r->ev.host, sizeof(r->ev.host), "%s", f->host ? f->host : "");
	r->end_ns = f->ts_ns + r->cfg.post_ns;
	int rc = open_event(r, f, errbuf);
	uint64_t from = f->ts_ns > r->cfg.span_ns ? f->ts_ns - r->cfg.span_ns : 0;
	if (rc == 0)
		rc = dump(r, from, errbuf);
	*ev = r->ev;
	return rc;
}

static int recorder_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                          char *errbuf)
{
	struct rt_recorder *r = ctx;
	int rc;
	(void)rec;
	keep(r, frame);
	if (!r->w)
		return 0;
	if (frame->ts_ns > r->end_ns)
		return close_event(r, errbuf);
	return (rc = write_frame(r, frame, errbuf)) < 0 ? rc : 0;
}

int rt_recorder_sink(struct rt_pump_sink *out, struct rt_recorder *r, char *errbuf)
{
	(void)errbuf;
	*out = (struct rt_pump_sink){.frame = recorder_frame, .frames_only = true, .ctx = r};
	return 0;
}

int rt_recorder_tick(struct rt_recorder *r, uint64_t now_ns, char *errbuf)
{
	return r->w && now_ns > r->end_ns ? close_event(r, errbuf) : 0;
}

int rt_recorder_finish(struct rt_recorder *r, char *errbuf)
{
	return close_event(r, errbuf);
}

void rt_recorder_stats(const struct rt_recorder *r, struct rt_recorder_stats *st)
{
	*st = r->st;
	st->frames = r->count;
	st->bytes_used = r->used;
	st->span_ns = r->count ? r->newest_ts - at(r, r->tail)->ts_ns : 0;
}

void rt_recorder_free(struct rt_recorder *r)
{
	char errbuf[RT_ERRBUF_SIZE];
	if (!r)
		return;
	r->cfg.on_closed = NULL; /* its owner may be gone */
	close_event(r, errbuf);
	free(r->buf);
	free(r);
}

/* rocetrace capture: netdev, RDMA NIC or file into pcapng/pcap, optionally around a command. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/counters.h"
#include "analyze/analyze.h"
#include "capture/pump.h"
#include "capture/sinks.h"
#include "common/textfmt.h"
#include "common/clock.h"
#include "capture/rewrite.h"
#include "capture/writer.h"
#include "tools/capture_command.h"
#include "common/outbuf.h"
#include "common/satmath.h"
#include "dissect/dissect.h"
#include "dissect/print.h"
#include "rt_config.h"
#include "tools/capture_devices.h"
#include "tools/capture_hosts.h"
#include "tools/capture_metrics.h"
#include "tools/capture_options.h"
#include "tools/capture_ring.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/privileges.h"
#include "tools/spawn.h"

#define DRAIN_NS         100000000u /* after CMD exits, keep capturing this long */
#define CMD              "capture"
#define HOSTS_TIMEOUT_NS 30000000000ull /* --timeout: a host capturing by then */

/* The --stats ticker: the analyzer's running totals, printed and reset once a second. */
struct ticker {
	struct rt_analyzer *an;
	uint64_t last_ns;
};

/*
 * Times of the capture loop (CLOCK_MONOTONIC); frame_at: the first tick
 * after the latest frame came; idle: the read before found the live source
 * idle.
 */
struct loop_clock {
	uint64_t start, last_flush, frame_at, frames_seen;
	bool idle;
};

struct capture {
	const struct rt_capture_args *args;
	struct rt_source *src;
	struct rt_writer *writer;
	int if_id;
	struct rt_rewrite rewrite; /* -r: each frame under its file's interface */
	struct ticker tick;
	struct loop_clock clock;
	struct rt_dissect_opts dopts;
	struct rt_outbuf *print;           /* without -w: the decoded lines, else NULL */
	struct rt_pump_sink out;           /* where frames go: the writer, or the decoded lines */
	uint64_t frames;                   /* handed over by the pump */
	struct rt_capture_metrics metrics; /* --metrics, else zeroed */
	struct rt_capture_ring ring;       /* --ring, else zeroed (ring.rec NULL) */
	struct rt_cli_progress progress;   /* -r FILE -w OUT on a terminal: the progress line */
	int rc;                            /* 0 or the first error (negative errno) */
	char errbuf[RT_ERRBUF_SIZE];
	/*
	 * The source's counts when the loop stopped: frames that reach the
	 * socket later (a command still running after Ctrl-C) are neither
	 * captured nor lost, so they count as neither.
	 */
	struct rt_source_stats final;
	bool stopped;
	/* the capture thread (with -- CMD) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started; /* the capture thread is in its loop (never reset) */
};

/*
 * --ring: the recorder the thread reading standard input passes remote
 * triggers to, NULL once it is gone (that thread may outlive the capture).
 */
static pthread_mutex_t g_ring_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_capture_ring *g_ring;

/* The command run with -- CMD, for the signal hook to pass SIGTERM on (set while signals are blocked). */
static volatile sig_atomic_t g_child_pid;

/*
 * After the pump stopped for a signal: SIGTERM or SIGHUP (a closed
 * session) stops CMD with SIGTERM (async-signal-safe). Ctrl-C reaches CMD
 * from the terminal by itself.
 */
static void on_signal(int sig)
{
	if ((sig == SIGTERM || sig == SIGHUP) && g_child_pid > 0)
		kill((pid_t)g_child_pid, SIGTERM);
}

/* The source's counts: live while the loop runs, as they were at its stop afterwards. */
static void writer_stats(void *ctx, int if_id, struct rt_source_stats *st)
{
	struct capture *cap = ctx;
	char errbuf[RT_ERRBUF_SIZE];
	if (if_id != cap->if_id) { /* the capture's counts go with its first interface */
		memset(st, 0, sizeof(*st));
		return;
	}
	if (cap->stopped)
		*st = cap->final;
	else if (rt_source_stats(cap->src, st, errbuf) < 0)
		memset(st, 0, sizeof(*st));
}

/* The last line of the counters file: the capture's own received and dropped counts. */
static void counters_capture(void *ctx, struct rt_source_stats *st)
{
	writer_stats(ctx, 0, st);
}

static void tick_print(struct capture *cap, uint64_t now)
{
	struct ticker *t = &cap->tick;
	struct rt_an_counts c;
	struct rt_source_stats st;
	char errbuf[RT_ERRBUF_SIZE], pfc[128] = "";
	double secs = (double)(now - t->last_ns) / 1e9;
	rt_analyzer_interval(t->an, &c, true);
	rt_source_stats(cap->src, &st, errbuf);
	size_t len = 0;
	for (int p = 0; p < 8; p++)
		if (c.pfc_xoff[p] && len < sizeof(pfc))
			len += (size_t)snprintf(pfc + len, sizeof(pfc) - len, " p%d:%llu", p,
			                        (unsigned long long)c.pfc_xoff[p]);
	char rate[RT_RATE_TEXT_MAX];
	rt_fmt_rate(rate, sizeof(rate), secs > 0 ? (double)c.bytes * 8 / secs : 0.0);
	fprintf(stderr, "%llu pkts  %s  CE %llu  CNP %llu  NAK %llu  PFC%s  drops %llu\n",
	        (unsigned long long)c.packets, rate, (unsigned long long)c.ce,
	        (unsigned long long)c.cnp, (unsigned long long)c.nak, len ? pfc : " 0",
	        (unsigned long long)rt_sat_add_u64(st.dropped, st.if_dropped));
	t->last_ns = now;
}

static void set_error(struct capture *cap, int rc, const char *msg)
{
	if (!cap->rc) {
		cap->rc = rc;
		snprintf(cap->errbuf, sizeof(cap->errbuf), "%s", msg);
	}
}

/* --metrics: the capture's figures into the store the server reads (final: waits for a scrape's copy). */
static void metrics_publish(struct capture *cap, uint64_t now, bool final)
{
	struct rt_source_stats st;
	writer_stats(cap, 0, &st);
	/*
	 * While a live source is idle, pauses still running count up to the
	 * capture clock now: the time since the latest frame, measured from the
	 * first tick after it came (it came no later), less what the source may
	 * still hold (frames with earlier times can still come). Never ahead of
	 * the frames to come, so what is counted live is counted by them too.
	 */
	uint64_t idle = now - cap->clock.frame_at, hold = cap->src->hold_ns;
	if (final || !cap->clock.idle || idle < hold)
		idle = 0;
	else
		idle -= hold;
	if (cap->ring.rec) {
		uint64_t events, held;
		rt_capture_ring_counts(&cap->ring, &events, &held);
		rt_metrics_set_recorder(cap->metrics.store, events, held);
	}
	rt_capture_metrics_publish(&cap->metrics, cap->tick.an, idle, cap->frames,
	                           rt_sat_add_u64(st.dropped, st.if_dropped), now, final);
}

/* The capture's live figures (--stats, --metrics): frames counted, each record to their analyzer. */
static int figures_frame(void *ctx, const struct rt_frame *frame, const struct rt_record *rec,
                         char *errbuf)
{
	struct capture *cap = ctx;

	(void)errbuf;
	cap->frames++;
	if (!rec || !cap->tick.an || !rt_linktype_supported(frame->linktype))
		return 0;
	if (cap->ring.rec) /* the triggers look at each record as the analyzer notes it */
		rt_capture_ring_record(&cap->ring, cap->tick.an, rec);
	else
		rt_analyzer_feed(cap->tick.an, rec);
	return 0;
}

/*
 * Before each read: the duration, the once-a-second ticker, and what was
 * written made visible in the file (every 100 ms while the source is idle,
 * every second while it delivers).
 */
static int on_tick(void *ctx, uint64_t now, bool idle, char *errbuf)
{
	struct capture *cap = ctx;
	const struct rt_capture_args *a = cap->args;
	int rc;

	if (a->duration_ns && now - cap->clock.start >= a->duration_ns)
		return 1;
	if (cap->frames != cap->clock.frames_seen) {
		cap->clock.frames_seen = cap->frames;
		cap->clock.frame_at = now;
	}
	cap->clock.idle = idle;
	if (a->stats && now - cap->tick.last_ns >= 1000000000u)
		tick_print(cap, now);
	if (cap->metrics.store && now - cap->metrics.published >= RT_CAPTURE_METRICS_PUBLISH_NS)
		metrics_publish(cap, now, false);
	if (cap->print) { /* lines are for a person: shown as they come */
		rt_out_flush(cap->print);
		return cap->print->error ? 1 : 0;
	}
	if (cap->ring.rec) {
		struct rt_source_stats st;
		writer_stats(cap, cap->if_id, &st);
		return rt_capture_ring_tick(&cap->ring, rt_sat_add_u64(st.dropped, st.if_dropped),
		                            errbuf);
	}
	if (now - cap->clock.last_flush >= (idle ? 100000000u : 1000000000u)) {
		if ((rc = rt_writer_flush(cap->writer, errbuf)) < 0)
			return rc;
		cap->clock.last_flush = now;
	}
	return 0;
}

static void on_progress(void *ctx, uint64_t frames, uint64_t elapsed_ns)
{
	struct capture *cap = ctx;
	rt_cli_progress_line(&cap->progress, frames, NULL, elapsed_ns);
}

/*
 * A file read into files (-r FILE -w OUT, or --ring) shows its progress
 * where stderr is a terminal: nothing else is printed meanwhile (no decoded
 * lines, no --stats, no command's output).
 */
static bool shows_progress(const struct capture *cap)
{
	const struct rt_capture_args *a = cap->args;
	return a->file && !cap->print && !a->stats && !a->cmd &&
	       rt_cli_progress_wanted(a->out && !strcmp(a->out, "-"));
}

/* The capture loop: frames into the writer until a stop condition. */
static void run_loop(struct capture *cap)
{
	/* the figures first, then the output; records are decoded only for a sink that takes them */
	struct rt_pump_sink sinks[] = {
	    {.frame = figures_frame, .frames_only = !cap->tick.an, .ctx = cap},
	    cap->out,
	};
	struct rt_pump_config pc = {
	    .decode = &cap->dopts,
	    .max_frames = cap->args->max_count,
	    .sinks = sinks,
	    .nsinks = 2,
	    .on_tick = on_tick,
	    .on_progress = shows_progress(cap) ? on_progress : NULL,
	    .ctx = cap,
	};
	struct rt_pump_result res;
	char errbuf[RT_ERRBUF_SIZE];
	int rc;

	cap->clock.start = cap->clock.last_flush = cap->clock.frame_at = cap->tick.last_ns =
	    rt_mono_ns();
	if ((rc = rt_pump_run(cap->src, &pc, &res, errbuf)) < 0)
		set_error(cap, rc, errbuf);
	rt_cli_progress_end(&cap->progress);
	cap->final = res.stats;
	cap->stopped = true;
}

static void *capture_thread(void *arg)
{
	struct capture *cap = arg;
	pthread_mutex_lock(&cap->lock);
	cap->started = true;
	pthread_cond_signal(&cap->cond);
	pthread_mutex_unlock(&cap->lock);
	run_loop(cap);
	return NULL;
}

/* Start the loop in a thread, run CMD once it runs, stop a drain period after CMD exits. */
static int run_with_command(struct capture *cap, int *cmd_status)
{
	pthread_t th;
	sigset_t all, old;
	/* created with every signal blocked: they go to this thread, which passes them on to CMD */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&th, NULL, capture_thread, cap);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		set_error(cap, -err, "cannot start the capture thread");
		return -1;
	}
	pthread_mutex_lock(&cap->lock);
	while (!cap->started)
		pthread_cond_wait(&cap->cond, &cap->lock);
	pthread_mutex_unlock(&cap->lock);

	fflush(NULL);
	struct rt_spawn sp = {
	    .argv = cap->args->cmd,
	    /* with -w - our standard output is the capture: the command writes to stderr */
	    .stdout_to_stderr = cap->args->out && !strcmp(cap->args->out, "-"),
	    .pid = &g_child_pid,
	    .cancelled = rt_pump_stopping, /* a signal before the fork: no command */
	    .child_signals = rt_pump_release_signals,
	};
	char errbuf[RT_ERRBUF_SIZE];
	bool exec_failed;
	int rc = rt_spawn(&sp, &exec_failed, errbuf);
	if (rc == 0) {
		*cmd_status = rt_capture_wait_command((pid_t)g_child_pid, &g_child_pid);
		struct timespec drain = {0, DRAIN_NS};
		while (!rt_pump_stopping() && nanosleep(&drain, &drain) < 0 && errno == EINTR)
			;
	} else if (exec_failed) {
		rt_cli_fail(CMD, "%s", errbuf);
		*cmd_status = rt_spawn_exit_status(-rc);
	} else if (rc != -ECANCELED) {
		set_error(cap, rc, errbuf);
	}
	rt_pump_stop();
	pthread_join(th, NULL);
	return 0;
}

/*
 * --stop-at-eof: read standard input to its end, then stop the capture.
 * With --ring its lines may ask for an event another host had (g_ring).
 */
static void *watch_stdin(void *arg)
{
	char buf[512];
	size_t len = 0;
	ssize_t n;
	(void)arg;
	for (;;) {
		n = read(STDIN_FILENO, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			pthread_mutex_lock(&g_ring_lock);
			if (g_ring)
				rt_capture_ring_remote_line(g_ring, line);
			pthread_mutex_unlock(&g_ring_lock);
			line = nl + 1;
		}
		len = line == buf && len == sizeof(buf) - 1 ? 0 : len - (size_t)(line - buf);
		memmove(buf, line, len);
	}
	rt_pump_stop();
	return NULL;
}

/* The thread watching standard input, signals blocked (they go to the capture). 0 or -errno. */
static int start_stdin_watch(void)
{
	pthread_t th;
	pthread_attr_t attr;
	sigset_t all, old;
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&th, &attr, watch_stdin, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return -err;
}

/* The writer of -w and what goes beside it (interface, counters); sets cap->rc on failure. */
static void open_output(struct capture *cap, struct rt_counters **counters, char *cpath,
                        size_t cpath_len)
{
	const struct rt_capture_args *a = cap->args;
	static char rdev[RT_DEVNAME_MAX], netdev[RT_DEVNAME_MAX];
	char errbuf[RT_ERRBUF_SIZE];
	int rc;
	uint32_t snaplen = cap->src->snaplen;
	if (a->snaplen && (!snaplen || a->snaplen < snaplen))
		snaplen = a->snaplen;
	rt_writer_set_stats_fn(cap->writer, writer_stats, cap);
	/* -r: the file's interfaces are described as their first frames come (the first gets 0) */
	cap->rewrite = (struct rt_rewrite){.src = cap->src, .w = cap->writer, .cut = a->snaplen};
	cap->if_id = a->file
	                 ? 0
	                 : rt_writer_add_interface(cap->writer, cap->src->name, cap->src->linktype,
	                                           snaplen, cap->src->ts_source, errbuf);
	if (cap->if_id < 0) {
		set_error(cap, cap->if_id, errbuf);
		return;
	}
	if (!a->counters_ns)
		return;
	struct rt_counters_config cc = {
	    .path = cpath, .sysfs_root = a->sysfs_root, .interval_ns = a->counters_ns};
	snprintf(cpath, cpath_len, "%s.counters.jsonl", a->out);
	rt_counters_targets(a->dev, a->sysfs_root, &cc, rdev, netdev);
	if ((rc = rt_counters_open(counters, &cc, errbuf)) < 0) {
		set_error(cap, rc, errbuf);
		return;
	}
	rt_counters_set_capture(*counters, a->dev, counters_capture, cap);
	if (cap->metrics.store)
		rt_counters_set_sample_fn(*counters, rt_capture_metrics_nic_sample, &cap->metrics);
	if ((rc = rt_counters_start(*counters, errbuf)) < 0)
		set_error(cap, rc, errbuf);
}

/* The options of the capture's own analysis (--stats, --metrics, --ring): --storm-threshold, else the default. */
static void analyzer_opts(const struct rt_capture_args *a, struct rt_analyzer_opts *aopts)
{
	rt_analyzer_opts_init(aopts);
	if (a->storm_ns)
		aopts->storm_ns = a->storm_ns;
}

/* --ring: the flight recorder where the writer would be (-w is its folder). 0 or the exit status. */
static int start_ring(struct capture *cap)
{
	const struct rt_capture_args *a = cap->args;
	struct rt_analyzer_opts aopts;
	char errbuf[RT_ERRBUF_SIZE];
	uint32_t snaplen = cap->src->snaplen;
	if (a->snaplen && (!snaplen || a->snaplen < snaplen))
		snaplen = a->snaplen;
	analyzer_opts(a, &aopts);
	int rc = rt_capture_ring_start(&cap->ring, &a->ring, a->out, cap->src, snaplen, !a->file,
	                               "rocetrace " RT_VERSION, aopts.storm_ns);
	if (rc == 0 && rt_capture_ring_sink(&cap->ring, &cap->out, errbuf) < 0)
		rc = rt_cli_fail(CMD, "%s", errbuf);
	if (rc) {
		rt_capture_ring_free(&cap->ring);
		return rc;
	}
	pthread_mutex_lock(&g_ring_lock);
	g_ring = &cap->ring;
	pthread_mutex_unlock(&g_ring_lock);
	return 0;
}

/* Before the capture started: what was opened closed; returns the exit status rc. */
static int give_up(struct capture *cap, int rc)
{
	rt_capture_metrics_stop(&cap->metrics);
	rt_source_close(cap->src);
	return rc;
}

/* One line on stderr: the error, or the final counts. */
static void summary(const struct capture *cap, const struct rt_source_stats *st, uint64_t written)
{
	if (cap->rc)
		fprintf(stderr, "rocetrace capture: %s (stopped after ", cap->errbuf);
	else
		fputs("rocetrace capture: ", stderr);
	fprintf(stderr, "%llu received, %llu dropped, %llu %s", (unsigned long long)st->received,
	        (unsigned long long)rt_sat_add_u64(st->dropped, st->if_dropped),
	        (unsigned long long)written,
	        cap->writer               ? "written"
	        : cap->args->ring.span_ns ? "events written"
	                                  : "printed");
	if (st->if_dropped)
		fprintf(stderr, " (%llu by the interface)", (unsigned long long)st->if_dropped);
	if (st->ring_empty)
		fprintf(stderr, " (receive ring ran empty %llu times: raise -B)",
		        (unsigned long long)st->ring_empty);
	fputs(cap->rc ? ")\n" : "\n", stderr);
}

/* Open the source and the output, capture until a stop, close; returns the exit status. */
static int run_capture(const struct rt_capture_args *a)
{
	static struct rt_outbuf print;
	char errbuf[RT_ERRBUF_SIZE];
	int rc;
	struct rt_user user;
	if (a->user && rt_user_lookup(a->user, &user, errbuf) < 0)
		return rt_cli_usage_error(CMD, "-Z: %s", errbuf);
	struct capture cap = {.args = a, .progress = {.cmd = CMD}};
	rt_dissect_opts_init(&cap.dopts);
	/* the ticker needs no ICRC; printed lines show it, as dissect's do */
	cap.dopts.verify_icrc = !a->out;

	struct rt_source_config scfg = {
	    .snaplen = a->snaplen,
	    .buffer_count = a->buffers,
	    .bpf = a->bpf,
	    .sysfs_root = a->sysfs_root,
	    .immediate = !a->out, /* printed lines are read as they come */
	};
	/* Ctrl-C, SIGTERM and SIGHUP stop the loop, and a file's wait for its header (a FIFO) */
	if (a->file)
		rt_pump_catch_signals(on_signal);
	if ((rc = a->file ? rt_source_open_file(&cap.src, a->file, &scfg, errbuf)
	                  : rt_source_open(&cap.src, a->dev, &scfg, errbuf)) < 0)
		return rc == -EINTR && rt_pump_stopping()
		           ? rt_cli_interrupted(CMD, rt_pump_stop_signal(),
		                                " before the first frame")
		           : rt_cli_fail(CMD, "%s", errbuf);
	/* the server binds its port as the caller (a port below 1024 needs root) */
	if (a->metrics && (rc = rt_capture_metrics_start(&cap.metrics, a->metrics,
	                                                 (unsigned)a->metrics_top)) != 0) {
		rt_source_close(cap.src);
		return rc;
	}
	/* the device is open: the files are created by USER, and CMD runs as USER */
	if (a->user && rt_drop_privileges(&user, errbuf) < 0)
		return give_up(&cap, rt_cli_fail(CMD, "-Z: %s", errbuf));
	if (!a->out && !rt_linktype_supported(cap.src->linktype))
		return give_up(&cap,
		               rt_cli_fail(CMD, "%s: link type %d cannot be decoded: give -w OUT",
		                           cap.src->name, cap.src->linktype));
	struct rt_writer_config wcfg = {
	    .format = a->format,
	    .path = a->out,
	    .rotate_seconds = a->rotate_seconds,
	    .rotate_bytes = a->rotate_bytes,
	    .application = "rocetrace " RT_VERSION,
	};
	if (a->out && !a->ring.span_ns && rt_writer_open(&cap.writer, &wcfg, errbuf) < 0)
		return give_up(&cap, rt_cli_fail(CMD, "%s", errbuf));
	if (a->ring.span_ns && (rc = start_ring(&cap)) != 0)
		return give_up(&cap, rc);
	pthread_mutex_init(&cap.lock, NULL);
	pthread_cond_init(&cap.cond, NULL);
	struct rt_counters *counters = NULL;
	char cpath[4200];
	if (cap.writer) {
		open_output(&cap, &counters, cpath, sizeof(cpath));
		if (!cap.rc && (rc = rt_writer_sink(&cap.out, cap.writer, cap.if_id,
		                                    a->file ? &cap.rewrite : NULL, errbuf)) < 0)
			set_error(&cap, rc, errbuf);
	} else if (!a->ring.span_ns) {
		rt_out_init(&print, stdout);
		cap.print = &print;
		if ((rc = rt_text_sink(&cap.out, &print, &a->text, false, errbuf)) < 0)
			set_error(&cap, rc, errbuf);
	}

	if ((a->stats || a->metrics || a->ring.span_ns) && !cap.rc) {
		struct rt_analyzer_opts aopts;
		analyzer_opts(a, &aopts);
		if (!(cap.tick.an = rt_analyzer_new(&aopts, errbuf)))
			set_error(&cap, -ENOMEM, errbuf);
	}

	/* a reader of -w - (or of the printed lines) that goes away (| head) shows up as EPIPE */
	if (!a->file)
		rt_pump_catch_signals(on_signal);
	bool to_stdout = !a->out || !strcmp(a->out, "-");

	int cmd_status = -1;
	if (!cap.rc && a->stop_at_eof && (rc = start_stdin_watch()) < 0)
		set_error(&cap, rc, "--stop-at-eof: cannot watch standard input");
	if (!cap.rc && a->notify_ready) {
		fprintf(stderr, "rocetrace capture: ready: pid %ld, capturing from %s %s %s\n",
		        (long)getpid(), cap.src->name, a->out ? "into" : "printing",
		        !a->out               ? "lines"
		        : strcmp(a->out, "-") ? a->out
		                              : "standard output");
		fflush(stderr);
	}
	if (!cap.rc) {
		if (a->cmd)
			run_with_command(&cap, &cmd_status);
		else
			run_loop(&cap);
		if (a->stats) /* the last, partial interval */
			tick_print(&cap, rt_mono_ns());
	}

	if (counters && (rc = rt_counters_stop(counters, errbuf)) < 0)
		set_error(&cap, rc, errbuf);
	if (cap.metrics.store) {
		/* the pauses still running end as analyze ends them: the figures are the file's */
		if (cap.tick.an && !cap.rc && (rc = rt_analyzer_finish(cap.tick.an, errbuf)) < 0)
			set_error(&cap, rc, errbuf);
		metrics_publish(&cap, rt_mono_ns(), true);
	}
	struct rt_source_stats st;
	writer_stats(&cap, cap.if_id, &st);
	if (cap.writer && a->file && !cap.rc && (rc = rt_rewrite_finish(&cap.rewrite, errbuf)) < 0)
		set_error(&cap, rc, errbuf);
	if (cap.writer && (rc = rt_writer_finish(cap.writer, errbuf)) < 0)
		set_error(&cap, rc, errbuf);
	if (cap.ring.rec && (rc = rt_capture_ring_finish(&cap.ring, errbuf)) < 0)
		set_error(&cap, rc, errbuf);
	uint64_t written = cap.writer ? rt_writer_count(cap.writer) : cap.frames, held = 0;
	if (cap.ring.rec)
		rt_capture_ring_counts(&cap.ring, &written, &held);
	if (cap.writer)
		rt_writer_close(cap.writer, errbuf);
	if (cap.print && (rc = rt_out_flush(cap.print)) != 0 && rc != EPIPE)
		set_error(&cap, -rc, "writing the decoded lines");
	rt_source_close(cap.src);
	rt_analyzer_free(cap.tick.an);
	rt_rewrite_free(&cap.rewrite);
	rt_pump_sink_free(&cap.out);
	if (cap.ring.rec) {
		pthread_mutex_lock(&g_ring_lock);
		g_ring = NULL;
		pthread_mutex_unlock(&g_ring_lock);
		rt_capture_ring_free(&cap.ring);
	}
	if (to_stdout && cap.rc == -EPIPE)
		cap.rc = 0; /* the reader of standard output went away: a normal stop */
	pthread_cond_destroy(&cap.cond);
	pthread_mutex_destroy(&cap.lock);

	summary(&cap, &st, written);
	if (cap.metrics.store)
		rt_capture_metrics_linger(&cap.metrics, a->metrics_linger_ns);
	rt_pump_release_signals();
	if (cap.rc)
		return RT_EXIT_ERROR;
	return cmd_status >= 0 ? cmd_status : RT_EXIT_OK;
}

int rt_cmd_capture(int argc, char **argv)
{
	struct rt_capture_args a = {0};
	int rc = rt_capture_parse_args(argc, argv, &a);
	if (rc < 0)
		return RT_EXIT_OK; /* --help */
	if (rc == 0 && a.list)
		return rt_capture_list_devices(a.sysfs_root);
	/* what is open now was handed down by the caller: CMD inherits that, nothing of ours */
	if (rc == 0 && a.cmd && (rc = rt_spawn_note_inherited()) < 0)
		rc = rt_cli_fail(CMD, "cannot list open descriptors: %s", strerror(-rc));
	if (rc == 0 && a.hosts.names.n) {
		struct rt_capture_hosts_args h = {
		    .specs = a.hosts.names.v,
		    .nspecs = a.hosts.names.n,
		    .dev = a.dev,
		    .out = a.out,
		    .launcher = a.hosts.launcher,
		    .remote = a.hosts.remote,
		    .remote_dir = a.remote_dir,
		    .forward = a.forward.argv,
		    .bpf = a.bpf,
		    .duration_ns = a.duration_ns,
		    .timeout_ns = a.hosts.timeout_ns ? a.hosts.timeout_ns : HOSTS_TIMEOUT_NS,
		    .pcap = a.format == RT_FORMAT_PCAP_NS,
		    .counters = a.counters_ns != 0,
		    .analyze = !a.no_analyze,
		    .analyze_there = a.analyze_there,
		    .fetch = a.fetch,
		    .bucket_ns = a.bucket_ns,
		    .ring = a.ring.span_ns != 0,
		    .cmd = a.cmd,
		};
		rc = rt_capture_hosts(&h);
		free(a.bpf_joined);
		return rc;
	}
	if (rc == 0)
		rc = rt_capture_device_by_index(&a);
	if (rc == 0)
		rc = run_capture(&a);
	free(a.bpf_joined);
	return rc;
}

/* Unit tests of capturing on many hosts: a launcher script plays the hosts (ready, unreachable,
 * refused, hanging, deaf to the stop, short file, an event told to the others). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/hosts.h"

#define FRAMES 3
#define S      1000000000ull

static char dir[] = "/tmp/rt-hosts-XXXXXX";
static char launcher[128], remote[128], remote_dir[128], prefix[128];

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/*
 * The launcher: host "down" is unreachable as ssh says it; host "flaky"
 * hands the first file brought home cut (100 bytes); the others run the
 * command here. The capture on a host plays what its device (-i) says:
 * lo captures until its input ends; nodev is refused; hang never gets ready;
 * deaf ignores the end of its input (stopped by its pid); short claims more
 * frames than its file holds; count ends by itself (-c N).
 */
static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(launcher, sizeof(launcher), "%s/launch {host}", dir);
	snprintf(remote, sizeof(remote), "%s/capture-here", dir);
	snprintf(remote_dir, sizeof(remote_dir), "%s/remote", dir);
	snprintf(prefix, sizeof(prefix), "%s/home/", dir);
	char path[160], text[4096];
	snprintf(path, sizeof(path), "%s/launch", dir);
	write_file(path,
	           "#!/bin/sh\n"
	           "host=$1\n"
	           "shift\n"
	           "case $host in down) echo \"ssh: connect to host down port 22: Connection "
	           "refused\" >&2; "
	           "exit 255 ;; mute) exit 3 ;;\n"
	           "flaky) if [ \"$1\" = cat ] && [ ! -e \"$2.cut\" ]; then\n"
	           "  : >\"$2.cut\"; exec head -c 100 \"$2\"; fi ;; esac\n"
	           "exec \"$@\"\n",
	           0755);
	/* a nanosecond pcap of FRAMES 60-byte Ethernet frames */
	snprintf(path, sizeof(path), "%s/frames.pcap", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint32_t hdr[6] = {0xA1B23C4D, 2 | 4u << 16, 0, 0, 256, 1};
	fwrite(hdr, sizeof(hdr), 1, f);
	for (uint32_t k = 0; k < FRAMES; k++) {
		uint32_t rec[4] = {1000 + k, 0, 60, 60};
		uint8_t frame[60] = {0};
		fwrite(rec, sizeof(rec), 1, f);
		fwrite(frame, sizeof(frame), 1, f);
	}
	assert_int_equal(fclose(f), 0);
	snprintf(
	    text, sizeof(text),
	    "#!/bin/sh\n"
	    "# analyze [--bucket D] --partial OUT --point NAME FILE: point broken fails, leaving\n"
	    "# a file, and its launcher adds a line of its own after analyze's, as srun does\n"
	    "if [ \"$1\" = analyze ]; then\n"
	    "  shift; bucket=\n"
	    "  if [ \"$1\" = --bucket ]; then bucket=\" --bucket $2\"; shift 2; fi\n"
	    "  if [ \"$4\" = broken ]; then\n"
	    "    : >\"$2\"; echo \"rocetrace analyze: $5: not a capture\" >&2\n"
	    "    echo 'srun: error: broken: task 0: Exited with exit code 1' >&2; exit 1\n"
	    "  fi\n"
	    "  { printf 'RTPART\\r\\n'; echo \"$4 $5$bucket\"; } >\"$2\"; exit 0\n"
	    "fi\n"
	    "# capture -i DEV -w FILE --stop-at-eof --notify-ready [OPTIONS]\n"
	    "dev=$3 file=$5 written=%d\n"
	    "case $dev in\n"
	    "nodev) echo \"rocetrace capture: nodev: No such device exists\" >&2; exit 1 ;;\n"
	    "hang) exec sleep 60 ;;\n"
	    "short) written=5 ;;\n"
	    "event|listen) mkdir -p \"$file\" || exit 1\n"
	    "  echo \"rocetrace capture: ready: pid $$, capturing from $dev into $file\" >&2\n"
	    "  ev=\"$file/event1-20231114T221320.000000000Z-cnp.pcapng\"\n"
	    "  if [ $dev = event ]; then\n"
	    "    sleep 1; cp %s \"$ev\"\n"
	    "    echo \"rocetrace capture: event 1: cnp at 20231114T221320.000000000Z (a CNP): "
	    "writing $ev\" >&2\n"
	    "    cat >/dev/null\n"
	    "  else\n"
	    "    while read -r w ts code host trig; do\n"
	    "      echo \"$w $ts $code $host $trig\" >\"$file.heard\"; cp %s \"$ev\"\n"
	    "      echo \"rocetrace capture: event 1: $trig at 20231114T221320.000000000Z (the "
	    "same "
	    "window as the event on host $host): writing $ev\" >&2\n"
	    "    done\n"
	    "  fi\n"
	    "  echo \"rocetrace capture: 0 received, 0 dropped, 1 events written\" >&2; exit 0 ;;\n"
	    "esac\n"
	    "cp %s \"$file\" || exit 1\n"
	    "echo \"rocetrace capture: ready: pid $$, capturing from $dev into $file\" >&2\n"
	    "echo \"a line of its own\" >&2\n"
	    "case $dev in\n"
	    "count) ;;\n"
	    "deaf) trap 'kill $!; echo \"rocetrace capture: $written received, 1 dropped, $written "
	    "written\" >&2; exit 0' TERM\n"
	    "      sleep 60 </dev/null >/dev/null 2>&1 &\n"
	    "      wait ;;\n"
	    "*) cat >/dev/null ;;\n"
	    "esac\n"
	    "echo \"rocetrace capture: $written received, 1 dropped, $written written\" >&2\n",
	    FRAMES, path, path, path);
	write_file(remote, text, 0755);
	return mkdir(remote_dir, 0755);
}

static int teardown(void **state)
{
	char cmd[160];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static unsigned lines_seen;

static void count_line(void *ctx, const struct rt_hostcap_host *h, const char *line)
{
	(void)ctx;
	(void)h;
	if (strstr(line, "a line of its own"))
		lines_seen++;
}

static struct rt_hostcap_config config(const char *tag)
{
	struct rt_hostcap_config cfg = {
	    .launcher = launcher,
	    .remote = remote,
	    .remote_dir = remote_dir,
	    .prefix = prefix,
	    .ext = ".pcap",
	    .tag = tag,
	    .ready_timeout_ns = 60 * S,
	    .stop_timeout_ns = 60 * S,
	    .on_line = count_line,
	};
	return cfg;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void test_all_capture(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "alpha", .dev = "lo"},
	                                  {.name = "beta", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("all");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	lines_seen = 0;
	mkdir(prefix, 0755);
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), 0);
	for (int i = 0; i < 2; i++) {
		assert_true(hosts[i].ready);
		assert_true(hosts[i].pid > 0);
		assert_false(hosts[i].failed);
		assert_true(exists(hosts[i].remote));
	}
	/* they capture until stopped */
	assert_int_equal(rt_hostcap_poll(hc, 10), 2);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	for (int i = 0; i < 2; i++) {
		char want[256];
		snprintf(want, sizeof(want), "%s%s.pcap", prefix, hosts[i].name);
		assert_true(hosts[i].ended);
		assert_int_equal(hosts[i].status, 0);
		assert_true(hosts[i].fetched);
		assert_false(hosts[i].failed);
		assert_string_equal(hosts[i].file, want);
		assert_int_equal(hosts[i].written, FRAMES);
		assert_int_equal(hosts[i].dropped, 1);
		assert_int_equal(hosts[i].frames, FRAMES);
		assert_true(exists(want));
		assert_false(exists(hosts[i].remote)); /* brought home, removed there */
	}
	assert_int_equal(lines_seen, 2);
	rt_hostcap_free(hc);
}

static void test_ends_by_itself(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "c1", .dev = "count"}};
	struct rt_hostcap_config cfg = config("count");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 1, errbuf), 0);
	size_t running = 1;
	for (int k = 0; k < 1200 && running; k++) /* at most a minute */
		running = rt_hostcap_poll(hc, 50);
	assert_int_equal(running, 0);
	assert_true(hosts[0].ended);
	assert_false(hosts[0].failed);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	assert_int_equal(hosts[0].frames, FRAMES);
	rt_hostcap_free(hc);
}

/* An unreachable host, a refused device and one that never gets ready fail; the others capture. */
static void test_some_fail(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "ok", .dev = "lo"},
	                                  {.name = "down", .dev = "lo"},
	                                  {.name = "refused", .dev = "nodev"},
	                                  {.name = "slow", .dev = "hang"}};
	struct rt_hostcap_config cfg = config("some");
	cfg.ready_timeout_ns = 2 * S;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 4, errbuf), 0);
	assert_true(hosts[0].ready);
	assert_false(hosts[0].failed);
	for (int i = 1; i < 4; i++) {
		assert_false(hosts[i].ready);
		assert_true(hosts[i].failed);
	}
	assert_non_null(
	    strstr(hosts[1].error, "could not start the capture: ssh: connect to host down"));
	assert_string_equal(hosts[2].error,
	                    "could not start the capture: nodev: No such device exists");
	assert_string_equal(hosts[3].error, "not capturing after 2 s");
	/* the stop says some host failed; what captured still comes home */
	assert_int_equal(rt_hostcap_stop(hc, errbuf), -EIO);
	assert_true(hosts[3].ended);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	assert_true(hosts[0].fetched);
	assert_int_equal(hosts[0].frames, FRAMES);
	for (int i = 1; i < 4; i++)
		assert_false(hosts[i].fetched);
	rt_hostcap_free(hc);
}

static void test_none_capture(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "down", .dev = "lo"},
	                                  {.name = "refused", .dev = "nodev"}};
	struct rt_hostcap_config cfg = config("none");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), -EIO);
	assert_non_null(strstr(errbuf, "down: could not start the capture"));
	assert_true(hosts[0].failed && hosts[1].failed);
	rt_hostcap_free(hc);
}

/* A launcher that fails at once and says nothing: its exit status is the reason. */
static void test_mute_launcher(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "mute", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("mute");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 1, errbuf), -EIO);
	assert_true(hosts[0].failed);
	assert_string_equal(hosts[0].error, "could not start the capture: its launcher ended "
	                                    "with status 3 and printed nothing");
	rt_hostcap_free(hc);
}

/* A capture that does not stop when its input ends is stopped by its pid through the launcher. */
static void test_deaf(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "deaf", .dev = "deaf"}};
	struct rt_hostcap_config cfg = config("deaf");
	cfg.stop_timeout_ns = S;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 1, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(hosts[0].status, 0);
	assert_int_equal(hosts[0].written, FRAMES);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	assert_true(hosts[0].fetched);
	rt_hostcap_free(hc);
}

/* A file holding fewer frames than its capture wrote is not taken: it stays on its host. */
static void test_incomplete(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "short", .dev = "short"}};
	struct rt_hostcap_config cfg = config("short");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], home[256];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 1, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), -EIO);
	assert_false(hosts[0].fetched);
	assert_true(hosts[0].failed);
	assert_string_equal(hosts[0].error,
	                    "its file came home incomplete, twice: 3 frames, its capture wrote 5");
	assert_true(exists(hosts[0].remote));
	snprintf(home, sizeof(home), "%sshort.pcap", prefix);
	assert_false(exists(home));
	rt_hostcap_free(hc);
}

/* A file cut on its way home (the launcher's copy, not the file on the host) is brought again. */
static void test_cut_on_its_way(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "flaky", .dev = "lo"},
	                                  {.name = "alpha", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("flaky");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], cut[4300];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	for (unsigned k = 0; k < 2; k++) {
		assert_true(hosts[k].fetched);
		assert_false(hosts[k].failed);
		assert_int_equal(hosts[k].frames, FRAMES);
		assert_true(exists(hosts[k].file));
		assert_false(exists(hosts[k].remote)); /* home whole: it left its host */
	}
	snprintf(cut, sizeof(cut), "%s.cut", hosts[0].remote);
	assert_true(exists(cut)); /* (the first copy was cut) */
	rt_hostcap_free(hc);
}

/*
 * --ring: host alpha's event is told to beta on its standard input; both
 * event files come home as PREFIX HOST-FILE, and the hosts' folders go.
 */
static void test_events(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "alpha", .dev = "event"},
	                                  {.name = "beta", .dev = "listen"}};
	struct rt_hostcap_config cfg = config("events");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], heard[4400], line[128] = "";
	cfg.events = true;
	mkdir(prefix, 0755);
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), 0);
	snprintf(heard, sizeof(heard), "%s.heard", hosts[1].remote);
	for (int k = 0; k < 200 && (hosts[1].events == 0 || !exists(heard)); k++)
		rt_hostcap_poll(hc, 50);
	FILE *f = fopen(heard, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "event 1700000000000000000 cnp alpha cnp\n");
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	for (int i = 0; i < 2; i++) {
		char want[256];
		snprintf(want, sizeof(want), "%s%s-event1-20231114T221320.000000000Z-cnp.pcapng",
		         prefix, hosts[i].name);
		assert_true(exists(want));
		assert_true(hosts[i].fetched);
		assert_int_equal(hosts[i].events, 1);
		assert_int_equal(hosts[i].events_home, 1);
		assert_int_equal(hosts[i].frames, FRAMES);
		assert_false(exists(hosts[i].remote)); /* the folder is removed */
	}
	rt_hostcap_free(hc);
}

/* Bringing the files home stopped (a second Ctrl-C): they stay on their hosts, named. */
static void test_fetch_stopped(void **state)
{
	(void)state;
	static volatile sig_atomic_t abort_now = 1;
	struct rt_hostcap_host hosts[] = {{.name = "kept", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("kept");
	cfg.abort = &abort_now;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], want[sizeof(hosts[0].remote) + 128];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 1, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), -EIO);
	assert_false(hosts[0].fetched);
	snprintf(want, sizeof(want),
	         "cannot bring its file home: stopped (it stays on the host as %s)",
	         hosts[0].remote);
	assert_string_equal(hosts[0].error, want);
	assert_true(exists(hosts[0].remote));
	rt_hostcap_free(hc);
}

/* A partial's name where host h made it: its capture's, .rtpart for .pcap. */
static void remote_partial(const struct rt_hostcap_host *h, char *out, size_t size)
{
	snprintf(out, size, "%.*s.rtpart", (int)(strlen(h->remote) - strlen(".pcap")), h->remote);
}

/*
 * --analyze-there --bucket 10ms --fetch: each host analyzes its capture
 * (its partial keeping 10 ms buckets); the partial comes home and leaves the
 * host, the capture stays there until fetched. A host whose analysis fails
 * says why; its capture still comes home.
 */
static void test_analyze_there(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "alpha", .dev = "lo"},
	                                  {.name = "broken", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("there");
	cfg.partial_bucket_ns = 10000000;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], want[4600], text[4600] = "", rpart[4300];
	mkdir(prefix, 0755);
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_analyze(hc, errbuf), -EIO);
	assert_non_null(strstr(errbuf, "broken: its analysis there failed"));
	/* alpha's partial is home: what its analysis wrote, byte for byte */
	snprintf(want, sizeof(want), "%salpha.rtpart", prefix);
	assert_true(hosts[0].partial_home);
	assert_false(hosts[0].failed);
	assert_string_equal(hosts[0].partial, want);
	FILE *f = fopen(want, "rb");
	assert_non_null(f);
	assert_int_equal(fread(text, 1, sizeof(text) - 1, f), hosts[0].partial_bytes);
	fclose(f);
	snprintf(want, sizeof(want), "RTPART\r\nalpha %s --bucket 10000000ns\n", hosts[0].remote);
	assert_string_equal(text, want);
	/* broken says why, in analyze's words (not its launcher's after them) */
	assert_false(hosts[1].partial_home);
	assert_true(hosts[1].failed);
	snprintf(want, sizeof(want),
	         "its analysis there failed: rocetrace analyze: %s: not a capture (exit 1)",
	         hosts[1].remote);
	assert_string_equal(hosts[1].error, want);
	snprintf(want, sizeof(want), "%sbroken.rtpart", prefix);
	assert_false(exists(want));
	for (int i = 0; i < 2; i++) {
		remote_partial(&hosts[i], rpart, sizeof(rpart));
		assert_false(exists(rpart)); /* partials leave the hosts, even a failed one's */
		assert_true(exists(hosts[i].remote)); /* the captures stay */
		assert_false(hosts[i].fetched);
	}
	/* --fetch: both captures come home after all */
	assert_int_equal(rt_hostcap_fetch(hc, errbuf), 0);
	for (int i = 0; i < 2; i++) {
		assert_true(hosts[i].fetched);
		assert_int_equal(hosts[i].frames, FRAMES);
		assert_false(exists(hosts[i].remote));
	}
	rt_hostcap_free(hc);
}

/*
 * A partial that cannot come home (its place here is taken by a folder)
 * stays on its host, as its line says, and so do the others' that were not
 * brought: nothing half-written is left here.
 */
static void test_partial_kept_there(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "alpha", .dev = "lo"},
	                                  {.name = "gamma", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("kept_there");
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], blocked[4400], rpart[4300];
	mkdir(prefix, 0755);
	snprintf(blocked, sizeof(blocked), "%sgamma.rtpart.part", prefix);
	assert_int_equal(mkdir(blocked, 0755), 0);
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_analyze(hc, errbuf), -EIO);
	for (int i = 0; i < 2; i++) {
		assert_false(hosts[i].partial_home);
		assert_true(hosts[i].failed);
		remote_partial(&hosts[i], rpart, sizeof(rpart));
		assert_true(exists(rpart)); /* it stays on the host, as said */
	}
	assert_non_null(strstr(hosts[1].error, "cannot write here"));
	assert_non_null(strstr(hosts[0].error, "it stays on the host"));
	snprintf(rpart, sizeof(rpart), "%salpha.rtpart.part", prefix);
	assert_false(exists(rpart));
	rmdir(blocked);
	rt_hostcap_free(hc);
}

/* The partial check of capture --analyze-there, standing in: a partial naming host "mangled" is refused. */
static int refuse_mangled(const char *path, char *errbuf)
{
	char text[4600] = "";
	FILE *f = fopen(path, "rb");
	if (!f)
		return rt_errorf(errbuf, errno, "%s", path);
	size_t got = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[got] = '\0';
	return strstr(text, "mangled") ? rt_errmsg(errbuf, EPROTO, "%s: bad section", path) : 0;
}

/*
 * A partial the check refuses fails its host: kept as .part here and on
 * its host, the line saying so; the others come home.
 */
static void test_partial_refused(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "alpha", .dev = "lo"},
	                                  {.name = "mangled", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("refused");
	cfg.check_partial = refuse_mangled;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE], want[4600], rpart[4300];
	mkdir(prefix, 0755);
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_analyze(hc, errbuf), -EIO);
	assert_true(hosts[0].partial_home);
	assert_false(hosts[0].failed);
	assert_false(hosts[1].partial_home);
	assert_true(hosts[1].failed);
	snprintf(want, sizeof(want),
	         "its partial came home unreadable: %smangled.rtpart.part: bad section (kept as "
	         "%smangled.rtpart.part, and on the host)",
	         prefix, prefix);
	assert_string_equal(hosts[1].error, want);
	snprintf(want, sizeof(want), "%smangled.rtpart.part", prefix);
	assert_true(exists(want));
	unlink(want);
	snprintf(want, sizeof(want), "%smangled.rtpart", prefix);
	assert_false(exists(want));
	remote_partial(&hosts[1], rpart, sizeof(rpart));
	assert_true(exists(rpart));
	unlink(rpart);
	remote_partial(&hosts[0], rpart, sizeof(rpart));
	assert_false(exists(rpart));
	rt_hostcap_free(hc);
}

/* A second Ctrl-C before the analysis there: nothing comes home, the captures stay. */
static void test_analyze_stopped(void **state)
{
	(void)state;
	static volatile sig_atomic_t abort_now = 1;
	struct rt_hostcap_host hosts[] = {{.name = "kept", .dev = "lo"}};
	struct rt_hostcap_config cfg = config("kept-there");
	cfg.abort = &abort_now;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 1, errbuf), 0);
	assert_int_equal(rt_hostcap_stop(hc, errbuf), 0);
	assert_int_equal(rt_hostcap_analyze(hc, errbuf), -EIO);
	assert_false(hosts[0].partial_home);
	assert_string_equal(hosts[0].error, "its analysis there failed: stopped");
	assert_true(exists(hosts[0].remote));
	rt_hostcap_free(hc);
}

static bool stop_now(void)
{
	return true;
}

/* A stop asked for while the hosts start: what started is stopped and its file removed. */
static void test_interrupted(void **state)
{
	(void)state;
	struct rt_hostcap_host hosts[] = {{.name = "quick", .dev = "lo"},
	                                  {.name = "slow", .dev = "hang"}};
	struct rt_hostcap_config cfg = config("intr");
	cfg.stopping = stop_now;
	struct rt_hostcap *hc = NULL;
	char errbuf[RT_ERRBUF_SIZE];
	assert_int_equal(rt_hostcap_start(&hc, &cfg, hosts, 2, errbuf), -EINTR);
	assert_true(hosts[0].ended && hosts[1].ended);
	assert_false(exists(hosts[0].remote));
	rt_hostcap_free(hc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_capture),
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_ends_by_itself),
	    cmocka_unit_test(test_some_fail),
	    cmocka_unit_test(test_none_capture),
	    cmocka_unit_test(test_mute_launcher),
	    cmocka_unit_test(test_deaf),
	    cmocka_unit_test(test_incomplete),
	    cmocka_unit_test(test_cut_on_its_way),
	    cmocka_unit_test(test_fetch_stopped),
	    cmocka_unit_test(test_interrupted),
	    cmocka_unit_test(test_analyze_there),
	    cmocka_unit_test(test_analyze_stopped),
	    cmocka_unit_test(test_partial_kept_there),
	    cmocka_unit_test(test_partial_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

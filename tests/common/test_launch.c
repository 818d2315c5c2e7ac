/* Unit tests of the launcher: command lines, parallel runs through a prefix, output, exit status, timeout, stop. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/launch.h"

static void test_command_line(void **state)
{
	(void)state;
	char *argv[] = {"rocetrace", "doctor", "--json", NULL};
	char *s = rt_launch_command_line(NULL, "node1", argv);
	assert_string_equal(s, "ssh node1 rocetrace doctor --json");
	free(s);
	s = rt_launch_command_line("srun -N1 -w {host}", "node-2.example", argv);
	assert_string_equal(s, "srun -N1 -w node-2.example rocetrace doctor --json");
	free(s);
	/* no {host}: appended to the prefix */
	s = rt_launch_command_line("ssh -p 2222", "n3", argv);
	assert_string_equal(s, "ssh -p 2222 n3 rocetrace doctor --json");
	free(s);
	/* every {host}, and words the shell would split or expand are quoted */
	char *odd[] = {"echo", "a b", "it's", "$HOME", "", NULL};
	s = rt_launch_command_line("env A={host} B={host}", "x y", odd);
	assert_string_equal(s, "env A='x y' B='x y' echo 'a b' 'it'\\''s' '$HOME' ''");
	free(s);
}

static void test_hosts(void **state)
{
	(void)state;
	char *argv[] = {"sh", "-c", "echo out-$RT_TEST_HOST; echo err-$RT_TEST_HOST >&2; exit 3",
	                NULL};
	const char *hosts[] = {"alpha", "beta", "gamma"};
	struct rt_launch_result res[3];
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_launch_opts o = {.launcher = "env RT_TEST_HOST={host}",
	                           .argv = argv,
	                           .timeout_ns = 60000000000ull,
	                           .max_parallel = 2};
	assert_int_equal(rt_launch_hosts(&o, hosts, 3, res, errbuf), 0);
	for (int i = 0; i < 3; i++) {
		char want[32];
		assert_string_equal(res[i].host, hosts[i]);
		assert_int_equal(res[i].status, 3);
		assert_false(res[i].timed_out);
		snprintf(want, sizeof(want), "out-%s\n", hosts[i]);
		assert_string_equal(res[i].out, want);
		assert_int_equal(res[i].out_len, strlen(want));
		snprintf(want, sizeof(want), "err-%s\n", hosts[i]);
		assert_string_equal(res[i].err, want);
		assert_non_null(strstr(res[i].command, hosts[i]));
		rt_launch_result_free(&res[i]);
	}
}

static void test_failures(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_launch_result res[2];
	/* a launcher that cannot reach the host: its status and message are the result */
	char *argv[] = {"true", NULL};
	const char *hosts[] = {"up", "down"};
	struct rt_launch_opts o = {
	    .launcher =
	        "sh -c 'test \"$0\" = up || { echo \"no route to $0\" >&2; exit 255; }; exec "
	        "\"$@\"' {host}",
	    .argv = argv};
	assert_int_equal(rt_launch_hosts(&o, hosts, 2, res, errbuf), 0);
	assert_int_equal(res[0].status, 0);
	assert_int_equal(res[1].status, 255);
	assert_string_equal(res[1].err, "no route to down\n");
	assert_string_equal(res[1].out, "");
	rt_launch_result_free(&res[0]);
	rt_launch_result_free(&res[1]);

	/* the timeout ends the whole process group */
	char *slow[] = {"sh", "-c", "sleep 60 & sleep 60", NULL};
	o = (struct rt_launch_opts){
	    .launcher = "env X={host}", .argv = slow, .timeout_ns = 200000000u};
	assert_int_equal(rt_launch_hosts(&o, hosts, 1, res, errbuf), 0);
	assert_true(res[0].timed_out);
	assert_int_equal(res[0].status, 128 + SIGTERM);
	rt_launch_result_free(&res[0]);

	/* output beyond max_output is read and dropped */
	char *big[] = {"sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo done >&2", NULL};
	o = (struct rt_launch_opts){.launcher = "env X={host}", .argv = big, .max_output = 1000};
	assert_int_equal(rt_launch_hosts(&o, hosts, 1, res, errbuf), 0);
	assert_int_equal(res[0].out_len, 1000);
	assert_true(res[0].out_truncated);
	assert_int_equal(res[0].out[999], 'x');
	assert_string_equal(res[0].err, "done\n");
	assert_int_equal(res[0].status, 0);
	rt_launch_result_free(&res[0]);

	/* a command that exits but leaves a child holding its output: collected, then ended */
	char *bg[] = {"sh", "-c", "sleep 60 & echo started", NULL};
	o = (struct rt_launch_opts){.launcher = "env X={host}", .argv = bg};
	assert_int_equal(rt_launch_hosts(&o, hosts, 1, res, errbuf), 0);
	assert_string_equal(res[0].out, "started\n");
	assert_int_equal(res[0].status, 0);
	rt_launch_result_free(&res[0]);

	/* stopped before anything ran */
	static volatile sig_atomic_t stop = 1;
	o = (struct rt_launch_opts){.launcher = "env X={host}", .argv = argv, .stop = &stop};
	assert_int_equal(rt_launch_hosts(&o, hosts, 2, res, errbuf), 0);
	assert_int_equal(res[0].status, -1);
	assert_true(res[0].stopped);
	assert_true(res[1].stopped);
	rt_launch_result_free(&res[0]);
	rt_launch_result_free(&res[1]);
}

static void test_local(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_launch_result r;
	char *argv[] = {"/bin/sh", "-c", "printf 'pfc-cap 8\\n'; exit 1", NULL};
	assert_int_equal(rt_launch_local(argv, 10000000000ull, 0, &r, errbuf), 0);
	assert_string_equal(r.out, "pfc-cap 8\n");
	assert_int_equal(r.status, 1);
	rt_launch_result_free(&r);
	char *missing[] = {"/nonexistent/dcb", "pfc", NULL};
	assert_int_equal(rt_launch_local(missing, 0, 0, &r, errbuf), -ENOENT);
	assert_int_equal(r.status, -1);
	assert_non_null(strstr(errbuf, "/nonexistent/dcb"));
	rt_launch_result_free(&r);
}

struct lines {
	char seen[4][64];
	unsigned n;
};

static void on_line(void *ctx, size_t host, int stream, const char *line)
{
	struct lines *l = ctx;
	if (l->n < 4)
		snprintf(l->seen[l->n++], sizeof(l->seen[0]), "%zu/%d:%s", host, stream, line);
}

/* A session: lines as they come, standard input held open until closed, standard output into a file. */
static void test_session(void **state)
{
	(void)state;
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_launch_result res[2];
	struct lines l = {0};
	char path[] = "/tmp/rt-launch-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	int fds[] = {-1, fd};
	/* host 0 says it is ready, then waits for the end of its input; host 1 writes to its file */
	char *argv[] = {"sh", "-c",
	                "echo ready-$H >&2; if [ $H = a ]; then cat >/dev/null; echo eof >&2; "
	                "else echo data; fi",
	                NULL};
	const char *hosts[] = {"a", "b"};
	struct rt_launch_opts o = {.launcher = "env H={host}",
	                           .argv = argv,
	                           .stdin_pipe = true,
	                           .stdout_fds = fds,
	                           .on_line = on_line,
	                           .ctx = &l};
	struct rt_launch_session *s;
	assert_int_equal(rt_launch_start(&s, &o, hosts, 2, res, errbuf), 0);
	close(fd); /* the child has its copy */
	/* host 1 ends by itself; host 0 waits for its input */
	for (int i = 0; i < 200 && !rt_launch_done(s, 1); i++)
		rt_launch_poll(s, 50);
	assert_true(rt_launch_done(s, 1));
	for (int i = 0; i < 10; i++)
		assert_int_equal(rt_launch_poll(s, 20), 1);
	assert_false(rt_launch_done(s, 0));
	rt_launch_close_stdin(s, 0);
	for (int i = 0; i < 200 && rt_launch_poll(s, 50); i++)
		;
	assert_true(rt_launch_done(s, 0));
	assert_int_equal(rt_launch_end(s, errbuf), 0);
	assert_int_equal(res[0].status, 0);
	assert_false(res[0].stopped);
	assert_string_equal(res[0].err, "ready-a\neof\n");
	assert_string_equal(res[1].out, ""); /* it went to the file */
	FILE *f = fopen(path, "r");
	char got[32] = "";
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	unlink(path);
	assert_string_equal(got, "data\n");
	/* every line, once, in order per host */
	assert_int_equal(l.n, 3);
	unsigned a = 0;
	for (unsigned i = 0; i < l.n; i++)
		if (l.seen[i][0] == '0')
			assert_string_equal(l.seen[i], a++ ? "0/2:eof" : "0/2:ready-a");
	assert_int_equal(a, 2);
	rt_launch_result_free(&res[0]);
	rt_launch_result_free(&res[1]);

	/* the end stops what still runs */
	char *forever[] = {"sleep", "60", NULL};
	o = (struct rt_launch_opts){
	    .launcher = "env H={host}", .argv = forever, .stdin_pipe = true};
	assert_int_equal(rt_launch_start(&s, &o, hosts, 1, res, errbuf), 0);
	rt_launch_poll(s, 10);
	assert_int_equal(rt_launch_end(s, errbuf), 0);
	assert_true(res[0].stopped);
	assert_int_equal(res[0].status, 128 + SIGTERM);
	rt_launch_result_free(&res[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_command_line), cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_failures),     cmocka_unit_test(test_local),
	    cmocka_unit_test(test_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

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

#include <cmocka.h>

#include "doctor/launch.h"

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
	char *argv[] = {"sh", "-c", "echo out-$RT_TEST_HOST; echo err-$RT_TEST_HOST >&2; exit 3", NULL};
	const char *hosts[] = {"alpha", "beta", "gamma"};
	struct rt_launch_result res[3];
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_launch_opts o = {.launcher = "env RT_TEST_HOST={host}", .argv = argv,
	                           .timeout_ns = 60000000000ull, .max_parallel = 2};
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
	    .launcher = "sh -c 'test \"$0\" = up || { echo \"no route to $0\" >&2; exit 255; }; exec "
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
	o = (struct rt_launch_opts){.launcher = "env X={host}", .argv = slow,
	                            .timeout_ns = 200000000u};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_command_line),
	    cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_failures),
	    cmocka_unit_test(test_local),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

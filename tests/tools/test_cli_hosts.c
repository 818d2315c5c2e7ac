/* Unit tests of --hosts (hostlists, =DEV, refusals) and --slurm (the allocation's nodes, srun, this
 * binary) as capture and doctor read them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/tools/stderr_capture.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/slurm.h"

static const char *joined(const struct rt_hostlist *hl)
{
	static char buf[1024];
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < hl->n; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? " " : "",
		                       hl->names[i]);
	return buf;
}

static void test_hosts(void **state)
{
	(void)state;
	struct rt_hostlist hl = {0};
	const char *capture[] = {"node[01-03]=mlx5_1,login", "gpu[8-9]"};
	assert_int_equal(rt_cli_hosts_expand("capture", capture, 2, true, 64, &hl), 0);
	assert_string_equal(joined(&hl),
	                    "node01=mlx5_1 node02=mlx5_1 node03=mlx5_1 login gpu8 gpu9");
	rt_hostlist_free(&hl);
	/* doctor takes no devices: '=' is part of the name, brackets still expand */
	const char *doctor[] = {"a[1-2],b"};
	assert_int_equal(rt_cli_hosts_expand("doctor", doctor, 1, false, 64, &hl), 0);
	assert_string_equal(joined(&hl), "a1 a2 b");
	rt_hostlist_free(&hl);
}

static void test_refused(void **state)
{
	(void)state;
	static const struct {
		const char *value, *said;
		bool devices;
	} cases[] = {
	    {"n[1-2]=mlx5_0,n2=mlx5_1", "rocetrace capture: --hosts: n2 given twice", true},
	    {"n[1-2],n1", "rocetrace capture: --hosts: n1 given twice", false},
	    {",, ,", "rocetrace capture: --hosts: no host given", true},
	    {"=mlx5_0", "rocetrace capture: --hosts: an empty host name", true},
	    {"n[3-1]", "rocetrace capture: --hosts: 'n[3-1]': the range 3-1 goes down", true},
	    {"n[1-65]", "rocetrace capture: --hosts: 'n[1-65]': more than 64 hosts", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_hostlist hl = {0};
		capture_begin();
		int rc =
		    rt_cli_hosts_expand("capture", &cases[i].value, 1, cases[i].devices, 64, &hl);
		const char *msg = capture_end();
		if (rc != RT_EXIT_USAGE || strncmp(msg, cases[i].said, strlen(cases[i].said)) ||
		    strchr(msg, '\n') != msg + strlen(msg) - 1)
			fail_msg("%s: %d, '%s'", cases[i].value, rc, msg);
		rt_hostlist_free(&hl);
	}
}

static void test_slurm(void **state)
{
	(void)state;
	struct rt_cli_hosts h = {0};
	/* without --slurm nothing changes */
	unsetenv("SLURM_JOB_NODELIST");
	assert_int_equal(rt_cli_slurm("capture", &h), 0);
	assert_int_equal(h.names.n, 0);
	assert_null(h.launcher);
	h.slurm = true;
	capture_begin();
	assert_int_equal(rt_cli_slurm("capture", &h), RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "--slurm: not inside a Slurm allocation"));
	setenv("SLURM_JOB_NODELIST", "gpu[01-04]", 1);
	h.names.v[h.names.n++] = "node1";
	capture_begin();
	assert_int_equal(rt_cli_slurm("capture", &h), RT_EXIT_USAGE);
	assert_non_null(strstr(capture_end(), "--slurm and --hosts both name the hosts"));
	h.names.n = 0;
	assert_int_equal(rt_cli_slurm("capture", &h), 0);
	assert_int_equal(h.names.n, 1);
	assert_string_equal(h.names.v[0], "gpu[01-04]");
	assert_string_equal(h.launcher, "srun --overlap -N1 -n1 -w {host}");
	/* this test's own path, as the remote command */
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(len > 0);
	self[len] = '\0';
	assert_string_equal(h.remote, self);
	/* what was given stays */
	h = (struct rt_cli_hosts){.slurm = true,
	                          .launcher = "srun -N1 -w {host} ip netns exec {host}",
	                          .remote = "/opt/rocetrace"};
	assert_int_equal(rt_cli_slurm("capture", &h), 0);
	assert_string_equal(h.launcher, "srun -N1 -w {host} ip netns exec {host}");
	assert_string_equal(h.remote, "/opt/rocetrace");
	unsetenv("SLURM_JOB_NODELIST");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_slurm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

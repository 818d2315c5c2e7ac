/* Unit tests of tools/spawn.c and tools/privileges.c: the command capture runs, and -Z USER. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/errbuf.h"
#include "tools/privileges.h"
#include "tools/spawn.h"

static volatile sig_atomic_t child;

/* Run argv and return its wait status (or -errno when it did not start). */
static int run(char *const argv[], bool *exec_failed, char *errbuf)
{
	struct rt_spawn s = {.argv = argv, .pid = &child};
	int rc = rt_spawn(&s, exec_failed, errbuf), status = 0;
	if (rc < 0)
		return rc;
	assert_true(child > 0);
	assert_int_equal(waitpid((pid_t)child, &status, 0), (pid_t)child);
	return status;
}

static void test_status_and_exec_errors(void **state)
{
	char errbuf[RT_ERRBUF_SIZE], exe[] = "/tmp/rt-spawn-XXXXXX";
	bool failed;
	(void)state;

	char *exit3[] = {"sh", "-c", "exit 3", NULL};
	int st = run(exit3, &failed, errbuf);
	assert_false(failed);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);

	char *missing[] = {"/nonexistent/command", NULL};
	assert_int_equal(run(missing, &failed, errbuf), -ENOENT);
	assert_true(failed);
	assert_int_equal(child, 0);
	assert_non_null(strstr(errbuf, "cannot run '/nonexistent/command'"));
	assert_int_equal(rt_spawn_exit_status(ENOENT), 127);

	/* found but not executable: 126, as a shell says */
	int fd = mkstemp(exe);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	char *noexec[] = {exe, NULL};
	assert_int_equal(run(noexec, &failed, errbuf), -EACCES);
	assert_true(failed);
	assert_int_equal(rt_spawn_exit_status(EACCES), 126);
	unlink(exe);
}

static bool always(void)
{
	return true;
}

static void test_cancelled(void **state)
{
	char errbuf[RT_ERRBUF_SIZE];
	char *argv[] = {"true", NULL};
	bool failed;
	struct rt_spawn s = {.argv = argv, .pid = &child, .cancelled = always};
	(void)state;

	child = 0;
	assert_int_equal(rt_spawn(&s, &failed, errbuf), -ECANCELED);
	assert_false(failed);
	assert_int_equal(child, 0);
}

/* What the caller handed down reaches the command; what was opened afterwards does not. */
static void test_descriptors(void **state)
{
	char errbuf[RT_ERRBUF_SIZE], cmd[160];
	bool failed;
	int given[2], ours[2];
	(void)state;

	assert_int_equal(pipe(given), 0); /* no close-on-exec: as a shell's 3>file */
	assert_int_equal(rt_spawn_note_inherited(), 0);
	assert_int_equal(pipe(ours), 0); /* opened later, no close-on-exec either */
	snprintf(cmd, sizeof(cmd),
	         "[ -e /proc/$$/fd/%d ] && [ ! -e /proc/$$/fd/%d ] && [ ! -e /proc/$$/fd/%d ]",
	         given[1], ours[0], ours[1]);
	char *argv[] = {"sh", "-c", cmd, NULL};
	int st = run(argv, &failed, errbuf);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* ours stay open here */
	assert_true(fcntl(ours[0], F_GETFD) >= 0);
	for (int i = 0; i < 2; i++) {
		close(given[i]);
		close(ours[i]);
	}
	assert_int_equal(rt_spawn_note_inherited(), 0);
}

static void restore_pipe(void)
{
	signal(SIGPIPE, SIG_DFL);
}

/* child_signals runs in the child: an ignored SIGPIPE (ours) is not passed on. */
static void test_child_signals(void **state)
{
	char errbuf[RT_ERRBUF_SIZE];
	char *argv[] = {"sh", "-c", "kill -PIPE $$; exit 0", NULL};
	bool failed;
	int st;
	(void)state;

	signal(SIGPIPE, SIG_IGN);
	struct rt_spawn s = {.argv = argv, .pid = &child};
	assert_int_equal(rt_spawn(&s, &failed, errbuf), 0);
	assert_int_equal(waitpid((pid_t)child, &st, 0), (pid_t)child);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* inherited the ignore */
	s.child_signals = restore_pipe;
	assert_int_equal(rt_spawn(&s, &failed, errbuf), 0);
	assert_int_equal(waitpid((pid_t)child, &st, 0), (pid_t)child);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
	signal(SIGPIPE, SIG_DFL);
}

/* Standard output onto standard error (capture -w -). */
static void test_stdout_to_stderr(void **state)
{
	char errbuf[RT_ERRBUF_SIZE];
	char *argv[] = {"sh", "-c", "[ /proc/$$/fd/1 -ef /proc/$$/fd/2 ]", NULL};
	bool failed;
	int st, null = open("/dev/null", O_WRONLY), saved = dup(STDOUT_FILENO);
	(void)state;

	/* our standard output elsewhere than standard error */
	assert_true(null >= 0 && saved >= 0);
	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	struct rt_spawn s = {.argv = argv, .pid = &child, .stdout_to_stderr = true};
	assert_int_equal(rt_spawn(&s, &failed, errbuf), 0);
	assert_int_equal(waitpid((pid_t)child, &st, 0), (pid_t)child);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_user_lookup(void **state)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_user u;
	(void)state;

	assert_int_equal(rt_user_lookup("root", &u, errbuf), 0);
	assert_int_equal(u.uid, 0);
	assert_string_equal(u.name, "root");
	assert_int_equal(rt_user_lookup("no-such-user-rt", &u, errbuf), -ENOENT);
	assert_non_null(strstr(errbuf, "no user 'no-such-user-rt'"));
	char long_name[200];
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(rt_user_lookup(long_name, &u, errbuf), -ENAMETOOLONG);
}

/* In a child (the test keeps root): groups, group and user become nobody's, for good. */
static void test_drop_privileges(void **state)
{
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_user u;
	(void)state;

	if (geteuid() != 0) {
		/* without root, becoming another user is refused; becoming ourselves is nothing */
		assert_int_equal(rt_user_lookup("root", &u, errbuf), 0);
		assert_int_equal(rt_drop_privileges(&u, errbuf), -EPERM);
		skip();
	}
	if (rt_user_lookup("nobody", &u, errbuf) < 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		gid_t groups[64];
		if (rt_drop_privileges(&u, errbuf) < 0)
			_exit(10);
		if (getuid() != u.uid || geteuid() != u.uid || getgid() != u.gid ||
		    getegid() != u.gid)
			_exit(11);
		int n = getgroups(64, groups);
		for (int i = 0; i < n; i++)
			if (groups[i] == 0)
				_exit(12);
		if (setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0)
			_exit(13);
		/* already nobody: nothing to do */
		if (rt_drop_privileges(&u, errbuf) < 0)
			_exit(14);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_and_exec_errors),
	    cmocka_unit_test(test_cancelled),
	    cmocka_unit_test(test_descriptors),
	    cmocka_unit_test(test_child_signals),
	    cmocka_unit_test(test_stdout_to_stderr),
	    cmocka_unit_test(test_user_lookup),
	    cmocka_unit_test(test_drop_privileges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

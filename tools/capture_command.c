/* capture -- CMD: waiting for the workload command and the exit status it leaves. */
#include <errno.h>
#include <sys/wait.h>

#include "tools/capture_command.h"
#include "tools/commands.h"

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return RT_EXIT_ERROR;
}

int rt_capture_wait_command(pid_t pid, volatile sig_atomic_t *child_pid)
{
	siginfo_t info;
	int status = 0;

	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	*child_pid = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return exit_status_of(status);
}

/* capture -- CMD: waiting for the workload command and the exit status it leaves. */
#ifndef RT_TOOLS_CAPTURE_COMMAND_H
#define RT_TOOLS_CAPTURE_COMMAND_H

#include <signal.h>
#include <sys/types.h>

/*
 * Wait for the command `pid`; *child_pid (what the signal handler forwards
 * SIGTERM to) is cleared before it is reaped, so no signal reaches a reused
 * pid. Its exit status, or 128 + the signal that ended it.
 */
int rt_capture_wait_command(pid_t pid, volatile sig_atomic_t *child_pid);

#endif

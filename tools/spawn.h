/* The command `capture -- CMD` runs: forked with signals held until its pid is known, with the caller's descriptors only. */
#ifndef RT_TOOLS_SPAWN_H
#define RT_TOOLS_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * Remember the descriptors open now, above standard error: the ones the
 * caller handed down (a shell's `3>file`). Call it before opening
 * anything; every descriptor opened later (capture sockets, files, and
 * whatever the libraries open) is closed when a command starts. Returns 0
 * or a negative errno.
 */
int rt_spawn_note_inherited(void);

struct rt_spawn {
	char *const *argv;     /* argv[0] is looked up in PATH */
	bool stdout_to_stderr; /* the child's standard output is our standard error */
	/*
	 * Where the child's pid is stored while SIGINT, SIGTERM and SIGHUP are
	 * blocked, so a handler that passes a signal on never misses the child.
	 */
	volatile sig_atomic_t *pid;
	/* Checked with those signals blocked, before the fork: true means do not start (may be NULL). */
	bool (*cancelled)(void);
	/* In the child before exec: put back the signal dispositions the caller had (async-signal-safe). */
	void (*child_signals)(void);
};

/*
 * Start the command. Returns 0 when it runs (*s->pid set: wait for it with
 * waitpid), or a negative errno with errbuf filled: -ECANCELED when
 * s->cancelled() said so, the exec error when the command could not be
 * run (the child is already reaped: rt_spawn_exit_status() gives the shell's
 * status for it), or why the fork failed.
 */
int rt_spawn(const struct rt_spawn *s, bool *exec_failed, char *errbuf);

/* The shell's status for a command exec failed with error err: 127 not found, 126 found but not runnable. */
int rt_spawn_exit_status(int err);

#endif

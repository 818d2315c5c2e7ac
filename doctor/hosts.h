/* doctor on several hosts: run `rocetrace doctor --json` on each through a launcher and print one table of hosts × checks. */
#ifndef RT_DOCTOR_HOSTS_H
#define RT_DOCTOR_HOSTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rt_doctor_hosts_opts {
	const char *launcher; /* template with {host}; NULL: "ssh {host}" */
	const char *
	    remote; /* the rocetrace command on the hosts, words split at spaces; NULL: "rocetrace" */
	char *const
	    *args; /* more words for the remote doctor (options, targets), NULL-terminated */
	uint64_t timeout_ns;   /* per host */
	unsigned max_parallel; /* 0: every host at once */
	unsigned width;        /* text table width; 0: 100 */
	bool json; /* one JSON object holding every host's report instead of the table */
	const volatile sig_atomic_t *stop;
};

/*
 * Run doctor on hosts[0..n) and print the result to fp. Returns the exit
 * status (0: no host failed a check, 1: a check failed or a host gave no
 * report), or a negative errno with errbuf set when nothing could run.
 */
int rt_doctor_hosts(const struct rt_doctor_hosts_opts *o, const char *const *hosts, size_t n,
                    FILE *fp, char *errbuf);

#endif

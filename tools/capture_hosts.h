/* capture --hosts: the wiring of a capture on every host of a job (capture/hosts.c), its workload
 * and its analysis. */
#ifndef RT_TOOLS_CAPTURE_HOSTS_H
#define RT_TOOLS_CAPTURE_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_capture_hosts_args {
	const char *const *specs; /* --hosts values: HOST[=DEV] separated by commas */
	size_t nspecs;
	const char *dev;      /* -i: every host's device unless HOST=DEV */
	const char *out;      /* -w: a folder the files come home to, or the start of their names */
	const char *launcher; /* NULL: ssh {host} */
	const char *remote;   /* NULL: rocetrace */
	const char *remote_dir; /* NULL: /tmp */
	char *const *forward;   /* capture options for the hosts (plain words) */
	const char *bpf;        /* the filter, passed on word by word */
	uint64_t duration_ns;   /* 0: until CMD ends or a signal */
	uint64_t timeout_ns;    /* how long a host may take to be capturing */
	bool pcap;              /* --format pcap */
	bool counters;          /* --counters: bring the counters files home too */
	bool analyze;           /* run the analysis over the files at the end */
	/* each host analyzes its own capture (analyze --partial) and only the partials come home
	 * to be merged; the captures stay on the hosts unless `fetch` */
	bool analyze_there, fetch;
	uint64_t bucket_ns; /* with analyze_there: the partials' time buckets (0: their default) */
	bool ring;          /* --ring: the hosts write event files, told of each other's events */
	char **cmd;         /* the workload, run here, or NULL */
};

/* Run it; returns the exit status (one line on stderr per failure). */
int rt_capture_hosts(const struct rt_capture_hosts_args *a);

#endif

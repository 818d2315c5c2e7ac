/* --slurm (capture, doctor): the hosts of the Slurm allocation rocetrace runs in, reached with srun. */
#ifndef RT_TOOLS_SLURM_H
#define RT_TOOLS_SLURM_H

#include <stddef.h>

/* How --slurm reaches a host: one task, beside the job's own steps. */
#define RT_SLURM_LAUNCHER "srun --overlap -N1 -n1 -w {host}"

/*
 * --slurm: *nodelist becomes the allocation's SLURM_JOB_NODELIST (a
 * hostlist expression), *launcher RT_SLURM_LAUNCHER unless one was given
 * and *remote this rocetrace's own path unless one was given (the nodes of
 * a cluster share their software paths). `nhosts`: the --hosts given, which
 * --slurm replaces. 0, or the usage exit status after one line on stderr
 * (--hosts given too, or not inside an allocation).
 */
int rt_cli_slurm(const char *cmd, size_t nhosts, const char **nodelist, const char **launcher,
                 const char **remote);

#endif

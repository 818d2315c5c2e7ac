/* --slurm (capture, doctor): the hosts of the Slurm allocation rocetrace runs in, reached with srun. */
#ifndef RT_TOOLS_SLURM_H
#define RT_TOOLS_SLURM_H

#include "tools/cli.h"

/* How --slurm reaches a host: one task, beside the job's own steps. */
#define RT_SLURM_LAUNCHER "srun --overlap -N1 -n1 -w {host}"

/*
 * Once the options are read, --slurm (h->slurm) becomes --hosts: h->names
 * the allocation's SLURM_JOB_NODELIST (a hostlist expression), h->launcher
 * RT_SLURM_LAUNCHER unless one was given and h->remote this rocetrace's own
 * path unless one was given (the nodes of a cluster share their software
 * paths). Without --slurm nothing changes. 0, or the usage exit status
 * after one line on stderr (--hosts given too, or not inside an
 * allocation).
 */
int rt_cli_slurm(const char *cmd, struct rt_cli_hosts *h);

#endif

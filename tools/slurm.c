/* --slurm: the allocation's nodes from SLURM_JOB_NODELIST, srun as the launcher, this binary as the
 * remote command. */
#include "tools/slurm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rt_cli_slurm(const char *cmd, struct rt_cli_hosts *h)
{
	static char self[PATH_MAX];
	if (!h->slurm)
		return 0;
	if (h->names.n)
		return rt_cli_usage_error(cmd, "--slurm and --hosts both name the hosts: give one");
	const char *list = getenv("SLURM_JOB_NODELIST");
	if (!list || !*list)
		return rt_cli_usage_error(
		    cmd, "--slurm: not inside a Slurm allocation (SLURM_JOB_NODELIST "
		         "is not set): run it under salloc or sbatch, or give --hosts");
	h->names.v[0] = list;
	h->names.n = 1;
	if (!h->launcher)
		h->launcher = RT_SLURM_LAUNCHER;
	if (!h->remote) {
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		/* --remote is split at blanks: a path holding one stays "rocetrace" */
		if (len > 0 && !memchr(self, ' ', (size_t)len) &&
		    !memchr(self, '\t', (size_t)len)) {
			self[len] = '\0';
			h->remote = self;
		}
	}
	return 0;
}

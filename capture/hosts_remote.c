/* What capture on many hosts and its event files share: a host's file name and failure, short commands on hosts, a file's frames. */
#include "capture/hosts_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capture/files.h"
#include "common/launch.h"

/* A host name as part of a file name: what is not a letter, digit, '.', '_' or '-' becomes '_'. */
void hc_file_part(const char *name, char *out, size_t size)
{
	size_t k = 0;
	for (; name[k] && k + 1 < size; k++) {
		char c = name[k];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[k] = ok && !(k == 0 && c == '.') ? c : '_';
	}
	out[k] = '\0';
}

/* Host h failed: `what` and `detail` (cut to fit), unless it failed before. */
void hc_host_fail(struct rt_hostcap_host *h, const char *what, const char *detail)
{
	if (h->failed)
		return;
	h->failed = true;
	size_t a = strlen(what), b = strlen(detail), room = sizeof(h->error) - 1;
	if (a > room)
		a = room;
	if (b > room - a)
		b = room - a;
	memcpy(h->error, what, a);
	memcpy(h->error + a, detail, b);
	h->error[a + b] = '\0';
}

/* Run one short command on some hosts (kill, rm, cat); per host argv; stdout into fds when given.
 */
int hc_run_on(struct rt_hostcap *hc, const size_t *which, size_t m, char *const *const *argv,
              const int *fds, uint64_t timeout_ns, struct rt_launch_result *res, char *errbuf)
{
	const char **names = calloc(m ? m : 1, sizeof(*names));
	if (!names)
		return rt_errorf(errbuf, ENOMEM, "running on the hosts");
	for (size_t k = 0; k < m; k++)
		names[k] = hc->hosts[which[k]].name;
	struct rt_launch_opts o = {.launcher = hc->cfg.launcher,
	                           .host_argv = argv,
	                           .stop = hc->cfg.abort,
	                           .timeout_ns = timeout_ns,
	                           .max_parallel = RT_HOSTCAP_AT_ONCE,
	                           .stdout_fds = fds};
	int rc = rt_launch_hosts(&o, names, m, res, errbuf);
	free(names);
	return rc;
}

/* Read the file brought home to its end: its frames, or why it is not a complete capture. */
int hc_count_frames(const char *path, uint64_t *frames, char *errbuf)
{
	struct rt_source_file_spec spec = {.path = path};
	struct rt_source *src;
	struct rt_frame fr[64];
	int rc = rt_source_open_files(&src, &spec, 1, NULL, errbuf);
	*frames = 0;
	if (rc < 0)
		return rc;
	while ((rc = rt_source_next(src, fr, 64, errbuf)) > 0 || rc == -EINTR)
		if (rc > 0)
			*frames += (uint64_t)rc;
	rt_source_close(src);
	return rc;
}

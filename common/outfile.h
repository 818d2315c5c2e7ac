/* Output files: never written through a symbolic link; replaced whole, on success only. */
#ifndef RT_OUTFILE_H
#define RT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Open `path` for writing: created (0666 less the umask) or truncated,
 * close-on-exec, never through a symbolic link (one planted in a shared
 * folder cannot redirect a root's output onto another file). Returns the
 * descriptor, or a negative errno with errbuf set ("PATH: is a symbolic
 * link, not written through" for ELOOP).
 */
int rt_open_output(const char *path, char *errbuf);

/* rt_open_output() as a stdio stream in *fp. Returns 0 or a negative errno with errbuf set. */
int rt_fopen_output(FILE **fp, const char *path, char *errbuf);

/*
 * Whether writing `path` would replace the file `in`: path is an existing
 * regular file and the same file as in (its name, or a link to it).
 */
bool rt_output_replaces(const char *path, const char *in);

/*
 * A file replaced whole: written under a temporary name in its folder and
 * renamed over `path` by rt_outfile_commit(), so a run that fails leaves
 * the file as it was. A path that is a device or a pipe (/dev/null) is
 * written directly; a symbolic link is refused.
 */
struct rt_outfile {
	FILE *fp;
	char path[4096];
	char tmp[4096 + 32]; /* "" when writing path directly */
};

/* Returns 0 (of->fp open) or a negative errno with errbuf set. */
int rt_outfile_open(struct rt_outfile *of, const char *path, char *errbuf);
/* Close and put the file in place. Returns 0 or a negative errno with errbuf set (the old file stays). */
int rt_outfile_commit(struct rt_outfile *of, char *errbuf);
/* Close and remove the temporary file: `path` stays as it was. */
void rt_outfile_abort(struct rt_outfile *of);

#endif

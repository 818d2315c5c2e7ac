/* Output files: never written through a symbolic link; replaced whole, on success only. */
#include "common/outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/errbuf.h"

/* Tries at a free temporary name. */
#define TMP_TRIES 100

static int output_error(const char *path, int err, char *errbuf)
{
	struct stat st;
	if (err == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return rt_errmsg(errbuf, ELOOP, "%s: is a symbolic link, not written through",
		                 path);
	return rt_errorf(errbuf, err, "%s", path);
}

int rt_open_output(const char *path, char *errbuf)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
	return fd >= 0 ? fd : output_error(path, errno, errbuf);
}

bool rt_output_replaces(const char *path, const char *in)
{
	struct stat so, si;
	return stat(path, &so) == 0 && S_ISREG(so.st_mode) && stat(in, &si) == 0 &&
	       si.st_dev == so.st_dev && si.st_ino == so.st_ino;
}

/* A stdio stream on fd (closed on failure). Returns 0 or a negative errno with errbuf set. */
static int stream(FILE **fp, int fd, const char *path, char *errbuf)
{
	if (fd < 0)
		return fd;
	*fp = fdopen(fd, "w");
	if (*fp)
		return 0;
	int rc = rt_errorf(errbuf, errno, "%s", path);
	close(fd);
	return rc;
}

int rt_fopen_output(FILE **fp, const char *path, char *errbuf)
{
	return stream(fp, rt_open_output(path, errbuf), path, errbuf);
}

/* A new file next to the final one: "DIR/.NAME.XXXXXXXX.tmp", created exclusively. */
static int create_tmp(struct rt_outfile *of, char *errbuf)
{
	const char *slash = strrchr(of->path, '/');
	int dir_len = slash ? (int)(slash - of->path + 1) : 0;
	const char *name = of->path + dir_len;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned seed = (unsigned)ts.tv_nsec ^ (unsigned)getpid() << 16;
	for (int i = 0; i < TMP_TRIES; i++) {
		seed = seed * 1103515245u + 12345u;
		snprintf(of->tmp, sizeof(of->tmp), "%.*s.%s.%08x.tmp", dir_len, of->path, name,
		         seed);
		int fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : rt_errorf(errbuf, errno, "%s", of->path);
	}
	return rt_errmsg(errbuf, EEXIST, "%s: no free temporary name next to it", of->path);
}

int rt_outfile_open(struct rt_outfile *of, const char *path, char *errbuf)
{
	struct stat st;
	int fd;

	memset(of, 0, sizeof(*of));
	if (!*path)
		return rt_errmsg(errbuf, EINVAL, "empty output file name");
	if (strlen(path) >= sizeof(of->path))
		return rt_errorf(errbuf, ENAMETOOLONG, "%.64s...", path);
	snprintf(of->path, sizeof(of->path), "%s", path);
	bool exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return rt_errorf(errbuf, errno, "%s", path);
	if (exists && S_ISLNK(st.st_mode))
		return output_error(path, ELOOP, errbuf);
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device or a pipe: there is nothing to replace */
		fd = rt_open_output(path, errbuf);
		of->tmp[0] = '\0';
	} else {
		fd = create_tmp(of, errbuf);
	}
	int rc = stream(&of->fp, fd, path, errbuf);
	if (rc < 0 && of->tmp[0])
		unlink(of->tmp);
	return rc;
}

int rt_outfile_commit(struct rt_outfile *of, char *errbuf)
{
	int err = fflush(of->fp) != 0 || ferror(of->fp) ? (errno ? errno : EIO) : 0;
	if (fclose(of->fp) != 0 && !err)
		err = errno ? errno : EIO;
	of->fp = NULL;
	if (!err && of->tmp[0] && rename(of->tmp, of->path) < 0)
		err = errno;
	if (err && of->tmp[0])
		unlink(of->tmp);
	return err ? rt_errorf(errbuf, err, "%s", of->path) : 0;
}

void rt_outfile_abort(struct rt_outfile *of)
{
	if (of->fp)
		fclose(of->fp);
	of->fp = NULL;
	if (of->tmp[0])
		unlink(of->tmp);
}

/* Unit tests of common/outfile.c: no writing through symbolic links, files replaced whole or left as they were. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/errbuf.h"
#include "common/outfile.h"

static char dir[] = "/tmp/rt-outfile-XXXXXX";

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void put_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* The file's text (at most 255 bytes). */
static const char *file_text(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* Entries of the test folder (besides . and ..). */
static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_open_output_refuses_symlinks(void **state)
{
	char target[256], link[256], plain[256], errbuf[RT_ERRBUF_SIZE];
	struct stat st;
	(void)state;

	path_in_dir(target, sizeof(target), "target");
	path_in_dir(link, sizeof(link), "link");
	path_in_dir(plain, sizeof(plain), "plain");
	put_file(target, "precious\n");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(rt_open_output(link, errbuf), -ELOOP);
	assert_non_null(strstr(errbuf, "is a symbolic link"));
	assert_string_equal(file_text(target), "precious\n");
	FILE *fp = NULL;
	assert_int_equal(rt_fopen_output(&fp, link, errbuf), -ELOOP);
	assert_null(fp);
	/* a dangling link is refused too (it would create its target) */
	unlink(target);
	assert_int_equal(rt_open_output(link, errbuf), -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
	/* a plain file: created with the umask applied, truncated, close-on-exec */
	mode_t old = umask(022);
	int fd = rt_open_output(plain, errbuf);
	umask(old);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	fd = rt_open_output(plain, errbuf);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(plain, &st), 0);
	assert_int_equal(st.st_size, 0);
	unlink(plain);
	unlink(link);
}

/* rows.csv holds "yesterday"; of is open on it with `text` written. */
static void start_rows(struct rt_outfile *of, char *path, size_t size, const char *text)
{
	char errbuf[RT_ERRBUF_SIZE];
	path_in_dir(path, size, "rows.csv");
	put_file(path, "yesterday\n");
	assert_int_equal(rt_outfile_open(of, path, errbuf), 0);
	fputs(text, of->fp);
}

static void test_outfile_replaces_on_commit(void **state)
{
	char path[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_outfile of;
	(void)state;

	start_rows(&of, path, sizeof(path), "today\n");
	/* until the commit, the old file is what readers see */
	assert_string_equal(file_text(path), "yesterday\n");
	assert_int_equal(entries(), 2);
	assert_int_equal(rt_outfile_commit(&of, errbuf), 0);
	assert_string_equal(file_text(path), "today\n");
	assert_int_equal(entries(), 1);
	/* a new file */
	unlink(path);
	assert_int_equal(rt_outfile_open(&of, path, errbuf), 0);
	fputs("new\n", of.fp);
	assert_int_equal(rt_outfile_commit(&of, errbuf), 0);
	assert_string_equal(file_text(path), "new\n");
	unlink(path);
}

static void test_outfile_abort_leaves_it(void **state)
{
	char path[256];
	struct rt_outfile of;
	(void)state;

	start_rows(&of, path, sizeof(path), "half a run\n");
	rt_outfile_abort(&of);
	assert_string_equal(file_text(path), "yesterday\n");
	assert_int_equal(entries(), 1);
	unlink(path);
}

static void test_outfile_refusals(void **state)
{
	char path[256], target[256], errbuf[RT_ERRBUF_SIZE];
	struct rt_outfile of;
	(void)state;

	path_in_dir(target, sizeof(target), "target");
	path_in_dir(path, sizeof(path), "link.csv");
	put_file(target, "precious\n");
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(rt_outfile_open(&of, path, errbuf), -ELOOP);
	assert_non_null(strstr(errbuf, "symbolic link"));
	assert_string_equal(file_text(target), "precious\n");
	unlink(path);
	unlink(target);
	assert_int_equal(rt_outfile_open(&of, "", errbuf), -EINVAL);
	/* a folder that does not exist: nothing created */
	path_in_dir(path, sizeof(path), "no/such.csv");
	assert_int_equal(rt_outfile_open(&of, path, errbuf), -ENOENT);
	assert_int_equal(entries(), 0);
	/* the message names the file asked for, never the temporary one */
	assert_non_null(strstr(errbuf, "no/such.csv: "));
	assert_null(strstr(errbuf, ".tmp"));
	/* a folder as the file */
	assert_int_equal(rt_outfile_open(&of, dir, errbuf), -EISDIR);
}

/* A pipe is written as it is: there is no file to replace (nor to rename over it). */
static void test_outfile_pipe_written_directly(void **state)
{
	char path[256], errbuf[RT_ERRBUF_SIZE], buf[16];
	struct rt_outfile of;
	struct stat st;
	(void)state;

	path_in_dir(path, sizeof(path), "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	int rd = open(path, O_RDWR | O_NONBLOCK); /* a reader, so opening to write does not block */
	assert_true(rd >= 0);
	assert_int_equal(rt_outfile_open(&of, path, errbuf), 0);
	fputs("rows\n", of.fp);
	assert_int_equal(rt_outfile_commit(&of, errbuf), 0);
	assert_int_equal(read(rd, buf, sizeof(buf)), 5);
	assert_memory_equal(buf, "rows\n", 5);
	close(rd);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(entries(), 1);
	unlink(path);
}

/* An output that is an input (by its name or through a link) would replace it; /dev/null or a missing file would not. */
static void test_output_replaces(void **state)
{
	char input[256], link[256], other[256];
	(void)state;

	path_in_dir(input, sizeof(input), "input.pcap");
	path_in_dir(link, sizeof(link), "input-link");
	path_in_dir(other, sizeof(other), "other.pcap");
	put_file(input, "capture\n");
	put_file(other, "capture\n");
	assert_int_equal(symlink(input, link), 0);
	assert_true(rt_output_replaces(input, input));
	assert_true(rt_output_replaces(link, input));
	assert_false(rt_output_replaces(other, input));
	assert_false(rt_output_replaces("/dev/null", "/dev/null"));
	unlink(other);
	assert_false(rt_output_replaces(other, input));
	unlink(link);
	unlink(input);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_output_refuses_symlinks),
	    cmocka_unit_test(test_outfile_replaces_on_commit),
	    cmocka_unit_test(test_outfile_abort_leaves_it),
	    cmocka_unit_test(test_outfile_refusals),
	    cmocka_unit_test(test_outfile_pipe_written_directly),
	    cmocka_unit_test(test_output_replaces),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

/* For the tests of tools/: standard error sent to a temporary file between capture_begin() and
 * capture_end(), which returns what was written (at most 511 bytes). */
#ifndef RT_TESTS_STDERR_CAPTURE_H
#define RT_TESTS_STDERR_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char captured[512];
static FILE *capture_file;
static int saved_fd = -1;

static void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	assert_non_null(capture_file);
	saved_fd = dup(STDERR_FILENO);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(capture_file), STDERR_FILENO) >= 0);
}

static const char *capture_end(void)
{
	fflush(stderr);
	assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
	close(saved_fd);
	rewind(capture_file);
	size_t n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	return captured;
}

#endif

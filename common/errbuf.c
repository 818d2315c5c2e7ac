/* The error buffer a failing call fills for its caller, and the helpers that format into it. */
#include "common/errbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rt_errorf(char *errbuf, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(errbuf, RT_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
	if (err && n >= 0 && n < RT_ERRBUF_SIZE)
		snprintf(errbuf + n, (size_t)(RT_ERRBUF_SIZE - n), ": %s", strerror(err));
	return err ? -err : -EINVAL;
}

int rt_errmsg(char *errbuf, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, RT_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
	return -err;
}

/* Bounded string building for doctor's messages: copy and append, always cut to fit and NUL-terminated. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor/facts.h"

void rt_doc_copy(char *dst, size_t size, const char *src)
{
	size_t l = strnlen(src, size - 1);
	memcpy(dst, src, l);
	dst[l] = '\0';
}

void rt_doc_appendf(char *dst, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(dst, size);
	if (len + 1 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst + len, size - len, fmt, ap);
	va_end(ap);
}

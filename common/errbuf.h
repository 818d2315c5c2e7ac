/* The error buffer a failing call fills for its caller, and the helpers that format into it. */
#ifndef RT_ERRBUF_H
#define RT_ERRBUF_H

/* Size of every caller-owned error buffer (char errbuf[RT_ERRBUF_SIZE]). */
#define RT_ERRBUF_SIZE 256

/*
 * "MESSAGE: strerror(err)" into errbuf (MESSAGE alone when err is 0).
 * Returns -err, or -EINVAL when err is 0, so a failing path can end in
 * `return rt_errorf(errbuf, errno, "%s", path);`.
 */
int rt_errorf(char *errbuf, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* MESSAGE alone into errbuf (no errno text); returns -err. */
int rt_errmsg(char *errbuf, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

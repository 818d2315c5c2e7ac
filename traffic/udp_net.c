/* Sockets and the TCP setup exchange shared by the udp backend's sender and server. */
#include "traffic/internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rt_gen_resolve4(const char *host, struct in_addr *addr, char *errbuf)
{
	if (inet_pton(AF_INET, host, addr) == 1)
		return 0;
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || !res) {
		return rt_errmsg(errbuf, EHOSTUNREACH, "%s: %s", host, gai_strerror(rc));
	}
	*addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

int rt_gen_route_src(struct in_addr dst, struct in_addr *src, char *errbuf)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "socket");
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr = dst};
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &len) < 0) {
		int e = errno;
		char a[INET_ADDRSTRLEN];
		rt_errorf(errbuf, e, "no route to %s", inet_ntop(AF_INET, &dst, a, sizeof(a)));
		close(fd);
		return -e;
	}
	close(fd);
	*src = me.sin_addr;
	return 0;
}

int rt_gen_udp_socket(struct in_addr addr, uint16_t port, int tos, bool reuse, char *errbuf)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		return rt_errorf(errbuf, e, "socket");
	}
	int one = 1, pmtu = IP_PMTUDISC_DO, buf = 4 << 20;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = addr};
	const char *what = NULL;
	if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		what = "SO_REUSEADDR";
	else if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
		what = "IP_MTU_DISCOVER";
	else if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) < 0)
		what = "IP_TOS";
	else if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		what = "bind";
	if (what) {
		int e = errno;
		char a[INET_ADDRSTRLEN];
		rt_errorf(errbuf, e, "%s %s:%u", what, inet_ntop(AF_INET, &addr, a, sizeof(a)),
		          port);
		close(fd);
		return -e;
	}
	/* best effort: the kernel caps these at net.core.[rw]mem_max */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	return fd;
}

int rt_gen_write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = send(fd, s, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = {.fd = fd, .events = POLLOUT};
				poll(&pfd, 1, 100);
				continue;
			}
			return -errno;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

int rt_gen_read_line(int fd, char *line, size_t cap, int timeout_ms)
{
	size_t len = 0;
	while (len + 1 < cap) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int rc = poll(&pfd, 1, timeout_ms);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (rc == 0)
			return -ETIMEDOUT;
		char c;
		ssize_t n = recv(fd, &c, 1, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		if (c == '\n') {
			line[len] = '\0';
			return 0;
		}
		line[len++] = c;
	}
	return -EMSGSIZE;
}

/* The escaped form of byte c into tok (at most 4 characters); returns its length. */
static size_t escape_byte(unsigned char c, char tok[4])
{
	static const char hex[] = "0123456789abcdef";
	const char *named = c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\n' ? "\\n" : NULL;
	if (named) {
		memcpy(tok, named, 2);
		return 2;
	}
	if (c == '\\' || c == '"') {
		tok[0] = '\\';
		tok[1] = (char)c;
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		tok[0] = (char)c;
		return 1;
	}
	tok[0] = '\\';
	tok[1] = 'x';
	tok[2] = hex[c >> 4];
	tok[3] = hex[c & 15];
	return 4;
}

char *rt_gen_escape(char *dst, size_t cap, const char *src, size_t len)
{
	char tok[4];
	size_t total = 0;
	for (size_t i = 0; i < len; i++)
		total += escape_byte((unsigned char)src[i], tok);
	/* all of it, or as much as leaves room for "..." and the NUL */
	size_t room = total < cap ? cap - 1 : cap - 4, o = 0;
	for (size_t i = 0; i < len; i++) {
		size_t n = escape_byte((unsigned char)src[i], tok);
		if (o + n > room)
			break;
		memcpy(dst + o, tok, n);
		o += n;
	}
	if (total >= cap) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
	return dst;
}

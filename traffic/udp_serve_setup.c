/* udp backend server's setup connections: HELLO into a session, DONE, timeouts, notices. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "traffic/internal.h"

/* Setup notices printed per second; the rest are counted and reported in one line. */
#define NOTICE_BURST 10
/* Room for the quoted part of a peer's line in a notice: 64 escaped characters and the NUL. */
#define QUOTE_MAX 65

/* A line on the operator's report about a setup connection; at most NOTICE_BURST a second. */
__attribute__((format(printf, 3, 4))) static void notice(struct rt_gen_srv *s, uint64_t now,
                                                         const char *fmt, ...)
{
	if (now - s->notice_ns >= 1000000000u) {
		if (s->suppressed)
			fprintf(s->report, "(%llu more setup notices not shown)\n",
			        (unsigned long long)s->suppressed);
		s->notice_ns = now;
		s->notices = 0;
		s->suppressed = 0;
	}
	if (s->notices >= NOTICE_BURST) {
		s->suppressed++;
		return;
	}
	s->notices++;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(s->report, fmt, ap);
	va_end(ap);
	fputc('\n', s->report);
	fflush(s->report);
}

/* One reply line, sent without waiting: a peer that does not read loses its line, not our time. */
static bool conn_reply(struct rt_gen_srv_conn *c, const char *line)
{
	size_t len = strlen(line);
	return send(c->fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len;
}

static void log_end(struct rt_gen_srv *s, struct rt_gen_srv_qp *q, uint64_t now)
{
	rt_evlog_begin_flow(&s->log, now, "end", &q->flow);
	rt_evlog_u64(&s->log, "packets", q->packets);
	rt_evlog_u64(&s->log, "bytes", q->bytes);
	rt_evlog_u64(&s->log, "retransmitted", q->dups);
	rt_evlog_u64(&s->log, "cnp_handled", 0);
	rt_evlog_u64(&s->log, "naks", q->naks);
	rt_evlog_u64(&s->log, "cnp_sent", q->cnps);
	rt_evlog_u64(&s->log, "ce", q->ce);
	rt_evlog_u64(&s->log, "messages", q->messages);
	rt_evlog_u64(&s->log, "out_of_order", q->ooo);
	rt_evlog_u64(&s->log, "acks_sent", q->acks);
	rt_evlog_end(&s->log);
}

static void add_qp(struct rt_gen_srv_totals *t, const struct rt_gen_srv_qp *q)
{
	t->packets += q->packets;
	t->bytes += q->bytes;
	t->messages += q->messages;
	t->ce += q->ce;
	t->cnps += q->cnps;
	t->naks += q->naks;
	t->acks += q->acks;
	t->dups += q->dups;
	t->ooo += q->ooo;
}

/* The gone QPs plus the live ones. */
struct rt_gen_srv_totals rt_gen_srv_totals(const struct rt_gen_srv *s)
{
	struct rt_gen_srv_totals t = s->gone;
	for (unsigned i = 0; i < rt_gen_srv_slots_used(s); i++)
		if (s->qp[i].active)
			add_qp(&t, &s->qp[i]);
	return t;
}

/* Log a QP's traffic since the last interval (dt seconds); returns its new frame bytes. */
uint64_t rt_gen_srv_qp_interval(struct rt_gen_srv *s, struct rt_gen_srv_qp *q, double dt,
                                uint64_t now)
{
	uint64_t dp = q->packets - q->iv_packets, db = q->bytes - q->iv_bytes;
	if (dp) {
		rt_evlog_begin_flow(&s->log, now, "interval", &q->flow);
		rt_evlog_u64(&s->log, "packets", dp);
		rt_evlog_u64(&s->log, "bytes", db);
		rt_evlog_double(&s->log, "gbps", (double)db * 8 / dt / 1e9, 6);
		rt_evlog_end(&s->log);
	}
	q->iv_packets = q->packets;
	q->iv_bytes = q->bytes;
	return db;
}

/* A free slot as the QP after the last one: a late packet of an ended session finds no QP. */
static struct rt_gen_srv_qp *alloc_qp(struct rt_gen_srv *s, unsigned owner)
{
	for (;;) {
		uint32_t qpn = s->next_qpn;
		s->next_qpn = qpn == RT_GEN_SRV_QPN_MAX ? RT_GEN_SRV_QP_BASE : qpn + 1;
		struct rt_gen_srv_qp *q = &s->qp[(qpn - RT_GEN_SRV_QP_BASE) % RT_GEN_MAX_QPS];
		if (q->active)
			continue;
		memset(q, 0, sizeof(*q));
		q->active = true;
		q->owner = owner;
		q->flow.dest_qp = qpn;
		s->nqp++;
		s->qp_in_use++;
		return q;
	}
}

/*
 * Close connection i. A session's QPs log their last interval (and, when it said
 * DONE, their end), go into the totals and free their slots.
 */
static void conn_close(struct rt_gen_srv *s, unsigned i, uint64_t now, bool done)
{
	struct rt_gen_srv_conn *c = &s->conns[i];
	if (c->session) {
		double dt = now > s->last_iv_ns ? (double)(now - s->last_iv_ns) / 1e9 : 1e-9;
		for (unsigned k = 0; k < rt_gen_srv_slots_used(s); k++) {
			struct rt_gen_srv_qp *q = &s->qp[k];
			if (!q->active || q->owner != i)
				continue;
			s->iv_gone_bytes += rt_gen_srv_qp_interval(s, q, dt, now);
			if (done)
				log_end(s, q, now);
			add_qp(&s->gone, q);
			q->active = false;
			s->qp_in_use--;
		}
		s->nsessions--;
		if (done)
			s->finished++;
		else
			s->dropped++;
	} else {
		s->nwaiting--;
		s->refused++;
	}
	close(c->fd);
	c->fd = -1;
	c->session = false;
}

/* Refuse a setup line: an ERROR reply to the peer, a notice quoting the line to the operator. */
static void refuse(struct rt_gen_srv *s, struct rt_gen_srv_conn *c, uint64_t now, const char *reply,
                   const char *why, const char *line, size_t len)
{
	char quote[QUOTE_MAX];
	conn_reply(c, reply);
	notice(s, now, "setup connection from %s: %s \"%s\": closed", c->name, why,
	       rt_gen_escape(quote, sizeof(quote), line, len));
}

/* A waiting connection's first line: a valid HELLO makes it a session. False: close it. */
static bool on_hello(struct rt_gen_srv *s, unsigned ci, const char *line, size_t len, uint64_t now)
{
	struct rt_gen_srv_conn *c = &s->conns[ci];
	char opname[16];
	enum rt_gen_op op;
	unsigned ver, msg, mtu, n;
	int used = 0;
	if (sscanf(line, "HELLO %u %15s %u %u %u%n", &ver, opname, &msg, &mtu, &n, &used) != 5 ||
	    ver != 1 || n == 0 || rt_gen_op_parse(opname, &op)) {
		refuse(s, c, now, "ERROR bad HELLO\n", "not a HELLO line:", line, len);
		return false;
	}
	if (n > RT_GEN_MAX_QPS - s->qp_in_use) { /* not in_use + n: that wraps for a huge n */
		conn_reply(c, "ERROR too many QPs\n");
		notice(s, now, "setup connection from %s: asks for %u QPs, %u free: closed",
		       c->name, n, RT_GEN_MAX_QPS - s->qp_in_use);
		return false;
	}
	if (s->nsessions >= RT_GEN_SRV_MAX_SESSIONS) {
		conn_reply(c, "ERROR server full\n");
		notice(s, now, "setup connection from %s: %d senders are running: closed", c->name,
		       RT_GEN_SRV_MAX_SESSIONS);
		return false;
	}
	uint32_t qpn[RT_GEN_MAX_QPS], psn[RT_GEN_MAX_QPS];
	uint16_t sport[RT_GEN_MAX_QPS];
	const char *p = line + used;
	for (unsigned i = 0; i < n; i++) {
		unsigned a, b, d;
		int k = 0;
		if (sscanf(p, " %u:%u:%u%n", &a, &b, &d, &k) != 3) {
			refuse(s, c, now, "ERROR bad QP list\n", "bad QP list in", line, len);
			return false;
		}
		p += k;
		qpn[i] = a & 0xffffff;
		psn[i] = b;
		sport[i] = (uint16_t)d;
	}
	c->session = true;
	c->active_ns = now;
	s->nwaiting--;
	s->nsessions++;
	char reply[RT_GEN_CTL_MAX];
	int rlen = snprintf(reply, sizeof(reply), "READY");
	struct rt_gen_srv_qp *qs[RT_GEN_MAX_QPS];
	for (unsigned i = 0; i < n; i++) {
		struct rt_gen_srv_qp *q = qs[i] = alloc_qp(s, ci);
		q->client_qp = qpn[i];
		q->client_sport = sport[i];
		q->client = c->peer;
		rt_resp_init(&q->rs, psn[i]);
		inet_ntop(AF_INET, &c->peer, q->flow.src, sizeof(q->flow.src));
		inet_ntop(AF_INET, &c->local, q->flow.dst, sizeof(q->flow.dst));
		if (rlen < (int)sizeof(reply) - 12)
			rlen += snprintf(reply + rlen, sizeof(reply) - (size_t)rlen, " %u",
			                 q->flow.dest_qp);
	}
	if (!s->started) {
		s->started = true;
		rt_evlog_begin(&s->log, now, "start");
		rt_evlog_str(&s->log, "role", "serve");
		rt_evlog_str(&s->log, "backend", "udp");
		rt_evlog_str(&s->log, "op", rt_gen_op_name(op));
		rt_evlog_u64(&s->log, "msg_size", msg);
		rt_evlog_u64(&s->log, "qps", n);
		rt_evlog_end(&s->log);
	}
	for (unsigned i = 0; i < n; i++) {
		rt_evlog_begin_flow(&s->log, now, "qp", &qs[i]->flow);
		rt_evlog_u64(&s->log, "local_qp", qs[i]->flow.dest_qp);
		rt_evlog_u64(&s->log, "udp_sport", qs[i]->client_sport);
		rt_evlog_u64(&s->log, "peer_qp", qs[i]->client_qp);
		rt_evlog_end(&s->log);
	}
	reply[rlen++] = '\n';
	reply[rlen] = '\0';
	if (!conn_reply(c, reply)) {
		notice(s, now, "client %s: cannot send READY: dropped", c->name);
		return false;
	}
	notice(s, now, "client %s: %s, %u QPs, %u-byte messages, MTU %u", c->name,
	       rt_gen_op_name(op), n, msg, mtu);
	return true;
}

enum line_result { LINE_KEEP, LINE_DONE, LINE_CLOSE };

/* Handle one setup line of connection ci. */
static enum line_result on_line(struct rt_gen_srv *s, unsigned ci, const char *line, size_t len,
                                uint64_t now)
{
	struct rt_gen_srv_conn *c = &s->conns[ci];
	if (!c->session)
		return on_hello(s, ci, line, len, now) ? LINE_KEEP : LINE_CLOSE;
	if (strcmp(line, "DONE") != 0 || len != 4) {
		char quote[QUOTE_MAX];
		conn_reply(c, "ERROR expected DONE\n");
		notice(s, now, "client %s: \"%s\" instead of DONE: dropped", c->name,
		       rt_gen_escape(quote, sizeof(quote), line, len));
		return LINE_CLOSE;
	}
	/* the sender had every packet acknowledged: our counts are final */
	rt_gen_srv_flush_replies(s);
	conn_reply(c, "BYE\n");
	return LINE_DONE;
}

void rt_gen_srv_on_conn_readable(struct rt_gen_srv *s, unsigned i, uint64_t now)
{
	struct rt_gen_srv_conn *c = &s->conns[i];
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->session)
			notice(s, now, "client %s left without DONE", c->name);
		else
			notice(s, now, "setup connection from %s closed before its HELLO", c->name);
		conn_close(s, i, now, false);
		return;
	}
	if (c->session)
		c->active_ns = now;
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	char *nl;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		*nl = '\0';
		size_t used = (size_t)(nl - c->buf) + 1;
		enum line_result r = on_line(s, i, c->buf, used - 1, now);
		if (r != LINE_KEEP) {
			conn_close(s, i, now, r == LINE_DONE);
			return;
		}
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
	}
	if (c->len >= sizeof(c->buf) - 1) {
		conn_reply(c, "ERROR line too long\n");
		notice(s, now, "%s %s: %zu bytes without a line end: %s",
		       c->session ? "client" : "setup connection from", c->name, c->len,
		       c->session ? "dropped" : "closed");
		conn_close(s, i, now, false);
	}
}

/* Close the connection that has waited longest for its HELLO. */
static void evict_oldest(struct rt_gen_srv *s, uint64_t now)
{
	unsigned oldest = RT_GEN_SRV_MAX_CONNS;
	for (unsigned i = 0; i < RT_GEN_SRV_MAX_CONNS; i++) {
		struct rt_gen_srv_conn *c = &s->conns[i];
		if (c->fd >= 0 && !c->session &&
		    (oldest == RT_GEN_SRV_MAX_CONNS || c->opened_ns < s->conns[oldest].opened_ns))
			oldest = i;
	}
	notice(s, now, "setup connection from %s: longest of %d waiting for a HELLO: closed",
	       s->conns[oldest].name, RT_GEN_SRV_MAX_WAITING);
	conn_close(s, oldest, now, false);
}

/*
 * Accept what is pending, half the waiting budget per call at most, so a
 * connection accepted now has its HELLO read before a flood could evict it.
 */
void rt_gen_srv_on_accept(struct rt_gen_srv *s, uint64_t now)
{
	for (unsigned k = 0; k < RT_GEN_SRV_MAX_WAITING / 2; k++) {
		struct sockaddr_in peer, local;
		socklen_t plen = sizeof(peer), llen = sizeof(local);
		int fd =
		    accept4(s->lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (s->nwaiting >= RT_GEN_SRV_MAX_WAITING)
			evict_oldest(s, now);
		/* waiting <= RT_GEN_SRV_MAX_WAITING - 1 and sessions <= RT_GEN_SRV_MAX_SESSIONS: a
		 * slot is free */
		unsigned i = 0;
		while (s->conns[i].fd >= 0)
			i++;
		struct rt_gen_srv_conn *c = &s->conns[i];
		memset(c, 0, offsetof(struct rt_gen_srv_conn, buf));
		getsockname(fd, (struct sockaddr *)&local, &llen);
		c->fd = fd;
		c->opened_ns = now;
		c->peer = peer.sin_addr;
		c->local = local.sin_addr;
		inet_ntop(AF_INET, &c->peer, c->name, sizeof(c->name));
		s->nwaiting++;
	}
}

/* Close connections past their HELLO timeout and silent sessions; returns the next deadline. */
uint64_t rt_gen_srv_sweep(struct rt_gen_srv *s, uint64_t now)
{
	const struct rt_gen_config *cfg = s->cfg;
	uint64_t next = UINT64_MAX;
	for (unsigned i = 0; i < RT_GEN_SRV_MAX_CONNS; i++) {
		struct rt_gen_srv_conn *c = &s->conns[i];
		if (c->fd < 0)
			continue;
		uint64_t limit = c->session ? cfg->idle_timeout_ns : cfg->hello_timeout_ns;
		uint64_t due = (c->session ? c->active_ns : c->opened_ns) + limit;
		if (now < due) {
			if (due < next)
				next = due;
			continue;
		}
		if (c->session)
			notice(s, now, "client %s: no data and no DONE for %.1f s: dropped",
			       c->name, (double)limit / 1e9);
		else
			notice(s, now, "setup connection from %s: no HELLO within %.1f s: closed",
			       c->name, (double)limit / 1e9);
		conn_close(s, i, now, false);
	}
	return next;
}

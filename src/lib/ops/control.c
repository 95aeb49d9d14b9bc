// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket: a Unix stream socket in a root-only directory,
 * served from the main loop.  Only uid 0 may ask (SO_PEERCRED).  Each
 * client has its own bounded request buffer and a deadline; sockets are
 * non-blocking, replies go out as the client reads them, and a loop timer
 * is armed only while a client is connected, so an idle daemon does not
 * wake up.  One request per connection: one reply, then close.  When
 * every slot is taken, the client that has waited longest without a whole
 * request makes room for a new one: idle clients cannot keep the operator
 * out.
 *
 * Also the client side, bpftune -q.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ops/control.h"
#include "core/loop.h"
#include "core/operate.h"

/* most connections accepted per wake-up, so one flood cannot starve events */
#define ACCEPT_BATCH	16
#define CLIENT_TIMEOUT_S	30	/* bpftune -q: whole exchange */

struct client {
	struct client *next;
	int fd;
	bool replying;
	uint64_t accepted_ms;
	uint64_t deadline_ms;
	size_t in_len;
	char in[BPFTUNE_CTL_MAX_REQUEST + 1];
	struct bpftune_buf out;
	size_t out_off;
};

static int listen_fd = -1;
static struct bpftune_timer *timer;	/* the next client deadline */
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static struct stat sock_st;
static struct client *clients;
static unsigned int num_clients;
static struct bpftune_daemon_info daemon_info;
static uint64_t refused, timeouts, evicted;

static void rearm(void)
{
	uint64_t when = 0;
	struct client *c;

	for (c = clients; c; c = c->next)
		if (!when || c->deadline_ms < when)
			when = c->deadline_ms;
	bpftune_loop_timer_at(timer, when);
}

/*
 * Read and drop what the client sent beyond its request (a bounded
 * amount): closing a Unix socket with unread data makes the peer's next
 * read fail with ECONNRESET, which could hide the reply it has not read.
 */
static void drain(int fd)
{
	char buf[4096];
	int i;

	for (i = 0; i < 16; i++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
}

static void client_close(struct client *c)
{
	struct client **p;

	for (p = &clients; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	bpftune_loop_del(c->fd);
	drain(c->fd);
	close(c->fd);
	bpftune_buf_free(&c->out);
	free(c);
	num_clients--;
	rearm();
}

/* Best effort, never blocks: for refusals that fit in the socket buffer. */
static void send_line(int fd, const char *msg)
{
	ssize_t n = send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);

	(void)n;
}

/* Write what the client will take; true when the reply is gone (or lost). */
static bool flush(struct client *c)
{
	while (c->out_off < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->out_off,
				 c->out.len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (n <= 0)
			return true;
		c->out_off += n;
		/* a reader making progress gets more time */
		c->deadline_ms = bpftune_now_ms() + BPFTUNE_CTL_TIMEOUT_MS;
	}
	return true;
}

static void answer(struct client *c, size_t len)
{
	struct bpftune_request req;
	char err[160];
	int ret;

	ret = bpftune_request_parse(c->in, len, &req, err, sizeof(err));
	if (!ret) {
		if (daemon_info.drain)
			daemon_info.drain();
		ret = bpftune_query_answer(&req, &daemon_info, &c->out);
		/* netns fds opened for live reads would pin those netns */
		bpftune_netns_release();
		if (c->out.overflow) {
			bpftune_buf_reset(&c->out);
			c->out.overflow = false;
			snprintf(err, sizeof(err), "reply too large (more than %d bytes)",
				 BPFTUNE_CTL_MAX_REPLY);
			ret = -EFBIG;
		} else if (ret) {
			/* the query wrote its own error line */
			err[0] = '\0';
		}
	}
	if (ret && err[0]) {
		bpftune_buf_reset(&c->out);
		bpftune_buf_printf(&c->out, BPFTUNE_CTL_ERROR_PREFIX "%s\n", err);
	}
	if (ret)
		bpftune_log(LOG_DEBUG, "control: request refused: %s",
			    err[0] ? err : "query failed");
	c->replying = true;
	c->out_off = 0;
	c->deadline_ms = bpftune_now_ms() + BPFTUNE_CTL_TIMEOUT_MS;
	if (flush(c)) {
		client_close(c);
		return;
	}
	bpftune_loop_mod(c->fd, EPOLLOUT);
	rearm();
}

static void on_client(int fd, uint32_t events, void *ctx)
{
	struct client *c = ctx;
	char *nl;
	ssize_t n;

	(void)fd;
	if (c->replying) {
		if (flush(c) || (events & (EPOLLERR | EPOLLHUP)))
			client_close(c);
		else
			rearm();
		return;
	}
	/* read one byte more than a request may have, to see it is too long */
	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
		 MSG_DONTWAIT);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			client_close(c);
		return;
	}
	if (n == 0) {
		/* the client is done sending: what it sent is the request */
		answer(c, c->in_len);
		return;
	}
	c->in_len += n;
	nl = memchr(c->in, '\n', c->in_len);
	if (nl)
		answer(c, nl - c->in + 1);
	else if (c->in_len > BPFTUNE_CTL_MAX_REQUEST)
		answer(c, c->in_len);
}

/*
 * All slots taken: drop the client that has waited longest without a whole
 * request, if it has had BPFTUNE_CTL_GRACE_MS.  true if a slot is free now.
 */
static bool evict_idle(uint64_t now)
{
	struct client *c, *oldest = NULL;
	char msg[128];

	for (c = clients; c; c = c->next)
		if (!c->replying && (!oldest || c->accepted_ms < oldest->accepted_ms))
			oldest = c;
	if (!oldest || now - oldest->accepted_ms < BPFTUNE_CTL_GRACE_MS)
		return false;
	evicted++;
	snprintf(msg, sizeof(msg), BPFTUNE_CTL_ERROR_PREFIX
		 "dropped: no complete request after %llu ms, and another client was waiting\n",
		 (unsigned long long)(now - oldest->accepted_ms));
	send_line(oldest->fd, msg);
	bpftune_log(LOG_DEBUG, "control: dropped a client idle for %llu ms to make room",
		    (unsigned long long)(now - oldest->accepted_ms));
	client_close(oldest);
	return true;
}

static void on_accept(int fd, uint32_t events, void *ctx)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct client *c;
	char msg[128];
	int i, cfd;

	(void)events;
	(void)ctx;
	for (i = 0; i < ACCEPT_BATCH; i++) {
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
		    cred.uid != 0) {
			refused++;
			bpftune_log(LOG_NOTICE, "control: refused a query from uid %d (pid %d): only root may query",
				    len == sizeof(cred) ? (int)cred.uid : -1,
				    len == sizeof(cred) ? (int)cred.pid : -1);
			send_line(cfd, BPFTUNE_CTL_ERROR_PREFIX
				  "permission denied: only root may query bpftune\n");
			drain(cfd);
			close(cfd);
			continue;
		}
		if (num_clients >= BPFTUNE_CTL_MAX_CLIENTS &&
		    !evict_idle(bpftune_now_ms())) {
			snprintf(msg, sizeof(msg), BPFTUNE_CTL_ERROR_PREFIX
				 "busy: %d queries in progress, try again\n",
				 BPFTUNE_CTL_MAX_CLIENTS);
			send_line(cfd, msg);
			drain(cfd);
			close(cfd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c || bpftune_loop_add(cfd, on_client, c)) {
			send_line(cfd, BPFTUNE_CTL_ERROR_PREFIX "out of memory\n");
			close(cfd);
			free(c);
			continue;
		}
		c->fd = cfd;
		bpftune_buf_init(&c->out, BPFTUNE_CTL_MAX_REPLY);
		/* the whole request must arrive in time, however it trickles */
		c->accepted_ms = bpftune_now_ms();
		c->deadline_ms = c->accepted_ms + BPFTUNE_CTL_REQUEST_MS;
		c->next = clients;
		clients = c;
		num_clients++;
		/* a request sent with the connect is here already: take it now */
		on_client(cfd, EPOLLIN, c);
	}
	rearm();
}

static void on_timer(void *ctx)
{
	struct client *c, *next;
	uint64_t now = bpftune_now_ms();

	(void)ctx;
	for (c = clients; c; c = next) {
		next = c->next;
		if (c->deadline_ms > now)
			continue;
		timeouts++;
		if (!c->replying)
			send_line(c->fd, BPFTUNE_CTL_ERROR_PREFIX
				  "timed out waiting for a complete request line\n");
		bpftune_log(LOG_DEBUG, "control: client timed out %s",
			    c->replying ? "reading its reply" : "sending its request");
		client_close(c);
	}
	rearm();
}

/*
 * The socket's directory: created 0700 if missing; otherwise it must be a
 * real directory owned by root and writable by nobody else.
 */
static int check_dir(const char *path, bool is_default)
{
	char copy[sizeof(sock_path)], *dir;
	struct stat st;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		bpftune_log(LOG_ERR, "control: cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		bpftune_log(LOG_ERR, "control: %s must be a directory owned by root and writable only by it",
			    dir);
		return -EPERM;
	}
	if (is_default && (st.st_mode & 0077) && chmod(dir, 0700)) {
		bpftune_log(LOG_ERR, "control: cannot make %s root-only: %s", dir,
			    strerror(errno));
		return -errno;
	}
	return 0;
}

/* A socket file left behind: in use by another daemon, or stale? */
static int take_over(const struct sockaddr_un *addr)
{
	struct stat st;
	int fd, err;

	if (lstat(addr->sun_path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		bpftune_log(LOG_ERR, "control: %s exists and is not a socket", addr->sun_path);
		return -EEXIST;
	}
	/* non-blocking: a live daemon with a full backlog must not hang us */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) ? errno : 0;
	close(fd);
	if (!err || err == EAGAIN) {
		bpftune_log(LOG_WARNING, "control: %s is in use by another bpftune; no control socket for this one (see --socket)",
			    addr->sun_path);
		return -EADDRINUSE;
	}
	return unlink(addr->sun_path) && errno != ENOENT ? -errno : 0;
}

int bpftune_control_init(const char *path, const struct bpftune_daemon_info *info)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	mode_t old;
	int err;

	if (!path)
		path = BPFTUNE_CTL_DEFAULT_PATH;
	if (strlen(path) >= sizeof(addr.sun_path) || path[0] != '/') {
		bpftune_log(LOG_ERR, "control: socket path must be absolute and shorter than %zu bytes",
			    sizeof(addr.sun_path));
		return -ENAMETOOLONG;
	}
	daemon_info = *info;
	strcpy(addr.sun_path, path);
	err = check_dir(path, !strcmp(path, BPFTUNE_CTL_DEFAULT_PATH));
	err = err ?: take_over(&addr);
	if (err)
		return err;
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
		return -errno;
	old = umask(0177);
	err = bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ? -errno : 0;
	umask(old);
	if (!err && (chmod(path, 0600) || lstat(path, &sock_st)))
		err = -errno;
	if (!err && listen(listen_fd, 128))
		err = -errno;
	if (err) {
		bpftune_log(LOG_ERR, "control: cannot listen on %s: %s", path, strerror(-err));
		goto err;
	}
	strcpy(sock_path, path);
	timer = bpftune_loop_timer_new(on_timer, NULL);
	err = timer ? bpftune_loop_add(listen_fd, on_accept, NULL) : -errno;
	if (err)
		goto err;
	bpftune_log(LOG_INFO, "control: listening on %s (bpftune -q help)", path);
	return 0;
err:
	bpftune_control_fini();
	return err;
}

void bpftune_control_fini(void)
{
	struct stat st;

	while (clients)
		client_close(clients);
	if (listen_fd >= 0) {
		bpftune_loop_del(listen_fd);
		close(listen_fd);
		/* remove it only if it is still ours */
		if (sock_path[0] && !lstat(sock_path, &st) &&
		    st.st_ino == sock_st.st_ino && st.st_dev == sock_st.st_dev)
			unlink(sock_path);
	}
	bpftune_loop_timer_free(timer);
	timer = NULL;
	if (refused || timeouts || evicted)
		bpftune_log(LOG_INFO, "control: %llu queries refused (not root), %llu timed out, %llu idle clients dropped for others",
			    (unsigned long long)refused, (unsigned long long)timeouts,
			    (unsigned long long)evicted);
	listen_fd = -1;
	sock_path[0] = '\0';
}

/* ---- bpftune -q ------------------------------------------------------------ */

int bpftune_control_client(const char *path, const char *query, bool json)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };
	char req[BPFTUNE_CTL_MAX_REQUEST + 1], buf[65536];
	size_t len, total = 0;
	bool error = false;
	ssize_t n;
	int fd;

	if (!path)
		path = BPFTUNE_CTL_DEFAULT_PATH;
	len = snprintf(req, sizeof(req), "%s%s\n", query, json ? " --json" : "");
	if (len >= sizeof(req) || strchr(query, '\n')) {
		fprintf(stderr, "bpftune: query too long or not one line\n");
		return 1;
	}
	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "bpftune: socket path too long: %s\n", path);
		return 1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* the send timeout also bounds connect() when the backlog is full */
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "bpftune: cannot connect to %s: %s%s\n", path,
			strerror(errno), errno == EACCES ? " (queries need root)" :
			errno == ENOENT || errno == ECONNREFUSED ?
			" (is the daemon running?)" : "");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* a refusal may arrive before we have sent anything: read it anyway */
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len && errno != EPIPE &&
	    errno != ECONNRESET) {
		fprintf(stderr, "bpftune: cannot send the query: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	shutdown(fd, SHUT_WR);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		if (!total && (size_t)n >= strlen(BPFTUNE_CTL_ERROR_PREFIX) &&
		    !memcmp(buf, BPFTUNE_CTL_ERROR_PREFIX, strlen(BPFTUNE_CTL_ERROR_PREFIX)))
			error = true;
		if (fwrite(buf, 1, n, error ? stderr : stdout) != (size_t)n)
			break;
		total += n;
	}
	/* a reset after the reply (the daemon refused and closed) ends it */
	if (n < 0 && !(errno == ECONNRESET && total)) {
		fprintf(stderr, "bpftune: reading the reply: %s\n",
			errno == EAGAIN ? "timed out" : strerror(errno));
		error = true;
	} else if (!total) {
		fprintf(stderr, "bpftune: the daemon closed the connection without a reply\n");
		error = true;
	}
	close(fd);
	if (fflush(stdout))
		error = true;
	return error ? 1 : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/net/memif's control sockets: what a server finds at socket= (a
 * regular file, a live socket, a stale one), a server that never accepts
 * (starting the client never blocks), and silent peers on either side
 * (the handshake times out with its reason; the client retries). The peers
 * are raw SOCK_SEQPACKET sockets of this test.
 */

#include "test_port_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

static char sock[64];

static int setup(void **state)
{
	(void)state;
	snprintf(sock, sizeof(sock), "dvp-test-memif-socket-%d", (int)getpid());
	if (dvp_test_eal_init("--no-huge", "-m", "64", "-l", "0-1") < 0)
		return -1;
	tp_pool_create();
	return 0;
}

/* A file-system path for this test's socket named @tag. */
static void sock_path(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/dvp-test-memif-%s-%d", tag, (int)getpid());
}

/* A SOCK_SEQPACKET socket bound at @path, listening with @backlog (or only bound: -1). */
static int raw_listener(const char *path, int backlog)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	if (backlog >= 0)
		assert_int_equal(listen(fd, backlog), 0);
	return fd;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/*
 * A server replaces only a stale socket at socket=: a regular file and a
 * live socket are refused with a line saying what is there, and left as
 * they were; a stale socket (bound, its owner gone) is replaced, and our
 * own socket file goes when the port goes.
 */
static void test_server_socket_taken(void **state)
{
	char path[96], args[192], buf[16] = "";
	struct dvp_log_capture cap;
	int fd, live;

	(void)state;
	sock_path(path, sizeof(path), "taken");
	snprintf(args, sizeof(args), "net_memif_s5,role=server,socket-abstract=no,socket=%s", path);

	/* A regular file. */
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep me", 7), 7);
	close(fd);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_vdev_create(args), -EADDRINUSE);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "it is a regular file, not a socket; only a stale socket is "
				 "replaced");
	dvp_log_capture_free(&cap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 7);
	close(fd);
	assert_string_equal(buf, "keep me");
	assert_int_equal(unlink(path), 0);

	/* A live socket: still there and still listening afterwards. */
	live = raw_listener(path, 4);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_vdev_create(args), -EADDRINUSE);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "a live socket is there (a server accepts on it)");
	dvp_log_capture_free(&cap);
	assert_true(is_socket(path));
	close(live);

	/* Now stale: the listener is gone, its file is not. */
	assert_true(is_socket(path));
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_vdev_create(args), 0);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "replaced the stale socket");
	dvp_log_capture_free(&cap);
	assert_true(is_socket(path));
	assert_int_equal(dvp_dev_remove("net_memif_s5"), 0);
	assert_false(is_socket(path));
}

struct starter {
	uint16_t port;
	int ret;
	bool done;
};

static void *start_main(void *arg)
{
	struct starter *st = arg;

	st->ret = dvp_port_start(st->port);
	__atomic_store_n(&st->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A server that never accepts, its backlog full: starting the client port
 * returns at once (the connect is non-blocking: EAGAIN, retried later), and
 * so does stopping it.
 */
static void test_client_connect_never_blocks(void **state)
{
	struct starter st = { .ret = -1 };
	char path[96], args[192];
	struct dvp_log_capture cap;
	int lfd, fds[64], n = 0;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	pthread_t t;
	uint16_t c;

	(void)state;
	sock_path(path, sizeof(path), "busy");
	lfd = raw_listener(path, 0);
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	/* Fill its backlog: a blocking connect would now wait for an accept. */
	for (n = 0; n < 64; n++) {
		fds[n] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		assert_true(fds[n] >= 0);
		if (connect(fds[n], (struct sockaddr *)&un, sizeof(un)) < 0) {
			assert_int_equal(errno, EAGAIN);
			close(fds[n]);
			break;
		}
	}
	assert_true(n < 64);
	snprintf(args, sizeof(args), "net_memif_c5,role=client,socket-abstract=no,socket=%s", path);
	assert_int_equal(dvp_vdev_create(args), 0);
	c = tp_port("net_memif_c5");
	tp_port_setup(c, 1, NULL);
	st.port = c;
	dvp_log_capture_begin(&cap);
	assert_int_equal(pthread_create(&t, NULL, start_main, &st), 0);
	TP_WAIT_FOR(__atomic_load_n(&st.done, __ATOMIC_ACQUIRE));
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(st.ret, 0);
	assert_false(tp_link_is_up(c));
	assert_int_equal(dvp_port_stop(c), 0);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "its backlog is full): retrying");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_dev_remove("net_memif_c5"), 0);
	while (n-- > 0)
		close(fds[n]);
	close(lfd);
	unlink(path);
}

/*
 * Silent peers: a server that never answers the client's connect (the
 * connection waits in its backlog, no HELLO comes), and a client that
 * connects to our server and says nothing. Each side gives up after
 * handshake-timeout with the reason; the client retries.
 */
static void test_handshake_timeout(void **state)
{
	char path[96], args[224], name[96];
	uint8_t msg[256];
	struct dvp_log_capture cap;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	int lfd, fd;
	ssize_t r;
	uint16_t c;

	(void)state;
	/* Our client, a server that never accepts. */
	sock_path(path, sizeof(path), "silent");
	lfd = raw_listener(path, 8);
	snprintf(args, sizeof(args),
		 "net_memif_c6,role=client,socket-abstract=no,socket=%s,handshake-timeout=100",
		 path);
	assert_int_equal(dvp_vdev_create(args), 0);
	c = tp_port("net_memif_c6");
	dvp_log_capture_begin(&cap);
	tp_port_up(c, 1, NULL);
	TP_WAIT_FOR(tp_xstat(c, "handshakes_refused") >= 2);
	assert_int_equal(dvp_port_stop(c), 0);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf,
			"net_memif_c6: connection refused: Handshake timed out after 100 ms");
	dvp_log_capture_free(&cap);
	assert_true(tp_xstat(c, "connect_attempts") >= 2);
	assert_int_equal(dvp_dev_remove("net_memif_c6"), 0);
	close(lfd);
	unlink(path);

	/* Our server, a client that says nothing after HELLO. */
	snprintf(name, sizeof(name), "%s-silent", sock);
	snprintf(args, sizeof(args), "net_memif_s6,role=server,socket=%s,handshake-timeout=100",
		 name);
	assert_int_equal(dvp_vdev_create(args), 0);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	memcpy(un.sun_path + 1, name, strlen(name));
	dvp_log_capture_begin(&cap);
	assert_int_equal(
		connect(fd, (struct sockaddr *)&un,
			(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))),
		0);
	assert_int_equal(recv(fd, msg, sizeof(msg), 0), 128); /* HELLO */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	r = recv(fd, msg, sizeof(msg), 0);
	assert_int_equal(r, 128); /* DISCONNECT with the reason */
	assert_int_equal(msg[0], 8);
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_int_equal(recv(fd, msg, sizeof(msg), 0), 0); /* then closed */
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "a client said nothing for 100 ms: closing its channel");
	dvp_log_capture_free(&cap);
	close(fd);
	assert_int_equal(dvp_dev_remove("net_memif_s6"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_socket_taken),
		cmocka_unit_test(test_handshake_timeout),
		cmocka_unit_test(test_client_connect_never_blocks),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}

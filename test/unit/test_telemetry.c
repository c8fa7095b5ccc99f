/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/telemetry: the answer to a request (DPDK's parsing and its replies to
 * bad or unknown commands), registration, and the socket: the greeting, a
 * stale socket replaced and a live one left alone, a client that never
 * reads while another is served, the socket gone after stop.
 */

#include "dvp_test.h"
#include "json_check.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <dvp_telemetry.h>

static char out[DVP_TELEMETRY_MAX_OUTPUT + 1];

static const char *reply(const char *req)
{
	size_t n = dvp_telemetry_reply(req, strlen(req), out, sizeof(out));

	assert_int_equal(strlen(out), n);
	if (!json_valid(out, n))
		fail_msg("request '%s': reply is not JSON: %s", req, out);
	return out;
}

/* Echo the parameters (NULL: null): shows what the parser handed over. */
static int cmd_echo(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	dvp_json_str(w, NULL, params);
	return 0;
}

static int cmd_fail(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	(void)params;
	dvp_json_arr_open(w, NULL);
	dvp_json_u64(w, NULL, 1);
	return -EINVAL; /* after writing: the reply is null all the same */
}

static int cmd_nothing(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	(void)params;
	(void)w;
	return 0;
}

static int cmd_two(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	(void)params;
	dvp_json_u64(w, NULL, 1);
	dvp_json_u64(w, NULL, 2); /* a second value has no key: misuse */
	return 0;
}

/* Far more than DVP_TELEMETRY_MAX_OUTPUT. */
static int cmd_huge(const char *cmd, const char *params, struct dvp_json *w)
{
	unsigned int i;

	(void)cmd;
	(void)params;
	dvp_json_arr_open(w, NULL);
	for (i = 0; i < 10000; i++)
		dvp_json_str(w, NULL, "0123456789");
	dvp_json_arr_close(w);
	return 0;
}

static int setup_cmds(void **state)
{
	(void)state;
	assert_int_equal(dvp_telemetry_register_cmd("/test/echo", cmd_echo, "Echo"), 0);
	assert_int_equal(dvp_telemetry_register_cmd("/test/fail", cmd_fail, "Fail"), 0);
	assert_int_equal(dvp_telemetry_register_cmd("/test/nothing", cmd_nothing, "Nothing"), 0);
	assert_int_equal(dvp_telemetry_register_cmd("/test/two", cmd_two, "Two"), 0);
	assert_int_equal(dvp_telemetry_register_cmd("/test/huge", cmd_huge, "Huge"), 0);
	return 0;
}

static void test_register(void **state)
{
	char name[DVP_TELEMETRY_MAX_CMD_LEN + 1], help[DVP_TELEMETRY_MAX_HELP_LEN + 1];

	(void)state;
	assert_int_equal(dvp_telemetry_register_cmd("noslash", cmd_echo, "h"), -EINVAL);
	assert_int_equal(dvp_telemetry_register_cmd("/bad-char", cmd_echo, "h"), -EINVAL);
	assert_int_equal(dvp_telemetry_register_cmd("/sp ace", cmd_echo, "h"), -EINVAL);
	assert_int_equal(dvp_telemetry_register_cmd("/nofn", NULL, "h"), -EINVAL);
	assert_int_equal(dvp_telemetry_register_cmd("/nohelp", cmd_echo, NULL), -EINVAL);
	memset(name, 'a', sizeof(name) - 1);
	name[0] = '/';
	name[DVP_TELEMETRY_MAX_CMD_LEN] = '\0';
	assert_int_equal(dvp_telemetry_register_cmd(name, cmd_echo, "h"), -EINVAL);
	name[DVP_TELEMETRY_MAX_CMD_LEN - 1] = '\0';
	assert_int_equal(dvp_telemetry_register_cmd(name, cmd_echo, "h"), 0);
	memset(help, 'h', sizeof(help) - 1);
	help[DVP_TELEMETRY_MAX_HELP_LEN] = '\0';
	assert_int_equal(dvp_telemetry_register_cmd("/longhelp", cmd_echo, help), -EINVAL);
	/* Again: replaces, does not add. */
	assert_int_equal(dvp_telemetry_register_cmd("/test/echo", cmd_echo, "Echo again"), 0);
	assert_string_equal(reply("/help,/test/echo"),
			    "{\"/help\":{\"/test/echo\":\"Echo again\"}}");
	assert_int_equal(dvp_telemetry_register_cmd("/test/echo", cmd_echo, "Echo"), 0);
}

static void test_builtin(void **state)
{
	char want[128];

	(void)state;
	/* "/" lists every command, sorted. */
	reply("/");
	assert_true(strncmp(out, "{\"/\":[\"/\",", 9) == 0);
	assert_non_null(strstr(out, "\"/help\",\"/info\","));
	assert_non_null(strstr(out, "\"/test/echo\",\"/test/fail\",\"/test/huge\","));
	snprintf(want, sizeof(want),
		 "{\"/info\":{\"version\":\"dvpmd\",\"pid\":%d,\"max_output_len\":%d}}", getpid(),
		 DVP_TELEMETRY_MAX_OUTPUT);
	assert_string_equal(reply("/info"), want);
	assert_string_equal(
		reply("/help"),
		"{\"/help\":\"Returns help text for a command. Parameters: string command\"}");
	assert_string_equal(
		reply("/help,/info"),
		"{\"/help\":{\"/info\":\"Returns DPDK Telemetry information. Takes no parameters\"}}");
	assert_string_equal(reply("/help,/nope"), "{\"/help\":null}");
}

static void test_parse(void **state)
{
	char longcmd[200];

	(void)state;
	assert_string_equal(reply("/test/echo"), "{\"/test/echo\":null}");
	assert_string_equal(reply("/test/echo,"), "{\"/test/echo\":null}");
	assert_string_equal(reply("/test/echo,0"), "{\"/test/echo\":\"0\"}");
	/* As strtok: commas before the command are skipped, the rest is the parameter. */
	assert_string_equal(reply(",,/test/echo,a,b"), "{\"/test/echo\":\"a,b\"}");
	assert_string_equal(reply("/test/echo,,x"), "{\"/test/echo\":\",x\"}");
	assert_string_equal(reply("/test/echo,\"q\"\n"), "{\"/test/echo\":\"\\\"q\\\"\\n\"}");
	/* A request ends at a NUL byte. */
	assert_int_equal(dvp_telemetry_reply("/test/echo,ab\0cd", 16, out, sizeof(out)),
			 strlen("{\"/test/echo\":\"ab\"}"));
	assert_string_equal(out, "{\"/test/echo\":\"ab\"}");

	/* Unknown, empty or too long: null under the (escaped, cut) command. */
	assert_string_equal(reply("/nope"), "{\"/nope\":null}");
	assert_string_equal(reply("nope,1"), "{\"nope\":null}");
	assert_string_equal(reply("/a\"b\\"), "{\"/a\\\"b\\\\\":null}");
	assert_string_equal(reply("/\xff"), "{\"/\\ufffd\":null}");
	assert_string_equal(reply(",,,"), "{\"(null)\":null}");
	assert_string_equal(reply(""), "{\"(null)\":null}");
	memset(longcmd, 'x', sizeof(longcmd) - 1);
	longcmd[0] = '/';
	longcmd[sizeof(longcmd) - 1] = '\0';
	reply(longcmd);
	assert_int_equal(strlen(out), DVP_TELEMETRY_MAX_CMD_LEN + strlen("{\"\":null}"));
	/* Cut at a whole character, never inside one. */
	memset(longcmd, 0, sizeof(longcmd));
	longcmd[0] = '/';
	for (int i = 1; i < 100; i += 2)
		memcpy(longcmd + i, "\xc3\xa9", 2);
	reply(longcmd);
	assert_int_equal(strlen(out), DVP_TELEMETRY_MAX_CMD_LEN - 1 + strlen("{\"\":null}"));
}

static void test_answers(void **state)
{
	(void)state;
	assert_string_equal(reply("/test/fail"), "{\"/test/fail\":null}");
	assert_string_equal(reply("/test/nothing"), "{\"/test/nothing\":null}");
	assert_string_equal(reply("/test/two"), "{\"/test/two\":null}");
	/* Bounded: the array is cut and closed, the reply fits. */
	reply("/test/huge");
	assert_true(strlen(out) <= DVP_TELEMETRY_MAX_OUTPUT);
	assert_true(strlen(out) > DVP_TELEMETRY_MAX_OUTPUT - 32);
	assert_true(strncmp(out, "{\"/test/huge\":[\"0123456789\",", 28) == 0);
}

/* ----- the socket ----- */

static char dir[64];
static char path[96];

static int sock_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *sock_recv(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	assert_int_equal(poll(&p, 1, 60000), 1);
	n = recv(fd, out, sizeof(out) - 1, 0);
	assert_true(n > 0);
	out[n] = '\0';
	assert_true(json_valid(out, (size_t)n));
	return out;
}

static const char *ask(int fd, const char *req)
{
	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	return sock_recv(fd);
}

static int start(void)
{
	struct dvp_telemetry_conf conf = { .runtime_dir = dir, .version = "test 1" };
	char why[256] = "";
	int ret = dvp_telemetry_start(&conf, why, sizeof(why));

	if (ret < 0)
		print_message("start: %s\n", why);
	return ret;
}

static int setup_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dvp-test-telemetry.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2", dir);
	return 0;
}

static int teardown_dir(void **state)
{
	(void)state;
	dvp_telemetry_stop();
	unlink(path);
	rmdir(dir);
	return 0;
}

static void test_socket(void **state)
{
	char want[128];
	int a, b;

	(void)state;
	assert_int_equal(start(), 0);
	assert_string_equal(dvp_telemetry_path(), path);
	assert_int_equal(start(), -EALREADY);
	a = sock_connect();
	assert_true(a >= 0);
	snprintf(want, sizeof(want), "{\"version\":\"test 1\",\"pid\":%d,\"max_output_len\":%d}",
		 getpid(), DVP_TELEMETRY_MAX_OUTPUT);
	assert_string_equal(sock_recv(a), want);
	assert_string_equal(ask(a, "/test/echo,1"), "{\"/test/echo\":\"1\"}");

	/* b asks and never reads: its replies pile up, a is served all along. */
	b = sock_connect();
	assert_true(b >= 0);
	for (int i = 0; i < 2000; i++) {
		struct pollfd p = { .fd = b, .events = POLLOUT };

		/* Until its own socket is full: the server stopped reading it. */
		if (poll(&p, 1, 100) != 1)
			break;
		if (send(b, "/test/huge", 10, MSG_DONTWAIT) < 0)
			break;
	}
	for (int i = 0; i < 50; i++)
		assert_string_equal(ask(a, "/test/echo,x"), "{\"/test/echo\":\"x\"}");
	close(b);
	close(a);

	/* Stop removes the socket. */
	dvp_telemetry_stop();
	assert_null(dvp_telemetry_path());
	assert_int_equal(access(path, F_OK), -1);
	assert_true(sock_connect() < 0);
}

static void test_stale_and_live(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct dvp_telemetry_conf conf = { .runtime_dir = dir };
	char why[256] = "";
	int fd, a;

	(void)state;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	/* A live listener (another process, as far as the library can tell) is left alone. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(dvp_telemetry_start(&conf, why, sizeof(why)), -EADDRINUSE);
	assert_non_null(strstr(why, "another live process"));
	assert_int_equal(access(path, F_OK), 0);
	/* Closed, its file stays: a killed process's socket, replaced. */
	close(fd);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(start(), 0);
	a = sock_connect();
	assert_true(a >= 0);
	sock_recv(a);
	assert_string_equal(ask(a, "/test/echo,y"), "{\"/test/echo\":\"y\"}");
	close(a);
	dvp_telemetry_stop();

	/* No directory: an error saying so, nothing started. */
	conf.runtime_dir = "/nonexistent/dir";
	assert_true(dvp_telemetry_start(&conf, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "/nonexistent/dir"));
	assert_null(dvp_telemetry_path());
}

static void test_many_clients(void **state)
{
	int fds[DVP_TELEMETRY_MAX_CLIENTS];
	unsigned int i;

	(void)state;
	assert_int_equal(start(), 0);
	for (i = 0; i < DVP_TELEMETRY_MAX_CLIENTS; i++) {
		fds[i] = sock_connect();
		assert_true(fds[i] >= 0);
	}
	for (i = 0; i < DVP_TELEMETRY_MAX_CLIENTS; i++) {
		sock_recv(fds[i]);
		assert_string_equal(ask(fds[i], "/test/echo,m"), "{\"/test/echo\":\"m\"}");
	}
	for (i = 0; i < DVP_TELEMETRY_MAX_CLIENTS; i++)
		close(fds[i]);
	dvp_telemetry_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_answers),
		cmocka_unit_test_setup_teardown(test_socket, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_stale_and_live, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_many_clients, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, setup_cmds, NULL);
}

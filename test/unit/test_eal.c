/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal init, cleanup and the argument table: every option in a good and
 * a bad form, the count of arguments consumed, and one error line naming
 * the offending token for each bad form.
 */

#include "dvp_test_eal.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <dvp_bus.h>
#include <dvp_interrupts.h>
#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_telemetry.h>
#include <dvp_vect.h>

static char cpu0[16], cpu0_at[32];

/* One init that must fail; the log must be one line containing @p needle. */
static void expect_bad(const char **args, const char *needle)
{
	struct dvp_log_capture cap;
	const char *log;
	int ret;

	dvp_log_capture_begin(&cap);
	ret = dvp_test_eal_init_argv(args);
	log = dvp_log_capture_end(&cap);
	if (ret != -1)
		fail_msg("init with %s ... succeeded (returned %d)", args[1], ret);
	assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_FAILED);
	assert_true(dvp_errno != 0);
	assert_contains(log, needle);
	if (dvp_test_count_lines(log) != 1)
		fail_msg("expected one error line, got:\n%s", log);
	dvp_log_capture_free(&cap);
}

#define BAD(needle, ...) expect_bad((const char *[]){ "test", __VA_ARGS__, NULL }, needle)

static void test_bad_lcore_options(void **state)
{
	char bigmask[300] = "0x1";

	(void)state;
	memset(bigmask + 3, '0', 256); /* bit 1024 */
	BAD("'9999'", "-l", "9999");
	BAD("CPU 9999 does not exist", "-l", "9999");
	BAD("has no end", "-l", "0-x");
	BAD("goes backwards", "-l", "1-0");
	BAD("empty list", "-l", "");
	BAD("',1' is not a number", "-l", "0,,1");
	BAD("unexpected ','", "-l", "0,");
	BAD("not closed", "--lcores", "0@(0");
	BAD("CPU 9999 does not exist", "--lcores", "0@9999");
	BAD("lcore id 5000 is out of range", "--lcores", "5000@0");
	BAD("lcore 0 is given twice", "--lcores", "0@0,0@0");
	BAD("already given", "-l", cpu0, "--lcores", cpu0_at);
	BAD("lcore 127 is not enabled", "-l", cpu0, "--main-lcore", "127");
	BAD("expected an lcore id", "--main-lcore", "x");
	BAD("needs a value: -l CORELIST", "-l");
	BAD("-c '0xg': 'g' is not a hexadecimal digit", "-c", "0xg");
	BAD("-c '0x0': the mask has no CPU in it", "-c", "0x0");
	BAD("no hexadecimal digit", "-c", "0x");
	BAD("CPU 1024 does not exist", "-c", bigmask);
	BAD("use one of -c, -l and --lcores", "-l", cpu0, "-c", "1");
	BAD("needs a value: -c COREMASK", "-c");
}

static void test_bad_memory_options(void **state)
{
	char toomany[128] = "";
	unsigned int i;

	(void)state;
	for (i = 0; i <= dvp_socket_count(); i++)
		strcat(toomany, i ? ",16" : "16");
	BAD("-m '0': expected a size in MB", "-m", "0");
	BAD("-m '12x'", "-m", "12x");
	BAD("NUMA node", "--socket-mem", toomany);
	BAD("'' is not a size in MB", "--socket-mem", "16,");
	BAD("'abc' is not a size", "--socket-mem", "abc");
	BAD("'-1' is not a size", "--socket-limit", "-1");
	BAD("given twice", "--socket-mem", "16", "--socket-mem", "16");
	BAD("not both", "-m", "64", "--socket-mem", "64");
	BAD("hugepages are off (--no-huge)", "--no-huge", "--huge-dir", "/mnt/huge");
	BAD("no files to unlink", "--no-huge", "--huge-unlink");
	/* A name, never a path: nothing that leaves or hides in the runtime directory. */
	BAD("--file-prefix 'a/b': a prefix is a name, not a path: no '/'", "--file-prefix", "a/b");
	BAD("--file-prefix '..': a prefix is a name, not a path: it may not start with '.'",
	    "--file-prefix", "..");
	BAD("--file-prefix '.': a prefix is a name, not a path", "--file-prefix", ".");
	BAD("--file-prefix '.hidden': a prefix is a name, not a path", "--file-prefix=.hidden");
	BAD("--file-prefix '/run': a prefix is a name, not a path", "--file-prefix", "/run");
	BAD("bad character '*'", "--file-prefix", "a*");
	BAD("expected 1 to 63 characters", "--file-prefix", "");
	BAD("expected a number of memory channels", "-n", "0");
	BAD("takes no value", "--no-huge=1");
}

static void test_bad_device_and_misc_options(void **state)
{
	(void)state;
	BAD("-a 'mlx5_0,k': 'k' has no value", "-a", "mlx5_0,k");
	BAD("key 'k' is given twice", "--vdev", "net_x0,k=1,k=2");
	BAD("cannot be combined", "-a", "mlx5_0", "-b", "mlx5_1");
	BAD("a device name alone", "-b", "mlx5_0,k=v");
	BAD("--log-level 'loud'", "--log-level", "loud");
	BAD("--bogus: unknown EAL option", "--bogus");
	BAD("-z: unknown EAL option", "-z");
	BAD("--iova-mode 'dc': expected va or pa", "--iova-mode", "dc");
	BAD("--proc-type 'secondary': secondary processes are not supported", "--proc-type",
	    "secondary");
	BAD("--proc-type 'main': expected primary or auto", "--proc-type=main");
	BAD("-d '/nonexistent/librte_x.so': No such file", "-d", "/nonexistent/librte_x.so");
	BAD("--no-pci '1': this option takes no value", "--no-pci=1");
	BAD("--force-max-simd-bitwidth '100': expected a power of two from 64 to 32768 bits",
	    "--force-max-simd-bitwidth=100");
	BAD("--force-max-simd-bitwidth '32': expected a power of two", "--force-max-simd-bitwidth",
	    "32");
}

/*
 * One init that must succeed with exactly @p warnings lines of log besides
 * --no-huge's own notice, each containing @p needle.
 */
static void expect_good(const char **args, int consumed, int warnings, const char *needle)
{
	struct dvp_log_capture cap;
	const char *log, *l;
	int ret, n = 0;

	dvp_log_capture_begin(&cap);
	ret = dvp_test_eal_init_argv(args);
	log = dvp_log_capture_end(&cap);
	if (ret >= 0)
		assert_int_equal(dvp_eal_cleanup(), 0);
	for (l = log; l != NULL && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, "EAL: --no-huge: datapath memory", 31) != 0;
	if (ret != consumed || n != warnings)
		fail_msg("expected %d consumed and %d line(s) of log, got %d and:\n%s", consumed,
			 warnings, ret, log);
	if (warnings)
		assert_contains(log, needle);
	dvp_log_capture_free(&cap);
}

#define GOOD(consumed, warnings, needle, ...) \
	expect_good((const char *[]){ "test", __VA_ARGS__, NULL }, consumed, warnings, needle)

/* Options DPDK scripts pass: DPDK's meaning where there is one, else one warning. */
static void test_dpdk_options(void **state)
{
	char mask[32];
	int cpu = atoi(cpu0);

	(void)state;
	/* -c: lcore N on CPU N for each bit N. */
	snprintf(mask, sizeof(mask), "0x%x", 1u << cpu);
	if (cpu < 28) {
		assert_int_equal(dvp_test_eal_init("-c", mask, "--no-huge", "-m", "4"), 5);
		assert_int_equal(dvp_lcore_count(), 1);
		assert_int_equal(dvp_get_main_lcore(), (unsigned int)cpu);
		assert_int_equal(dvp_eal_cleanup(), 0);
		snprintf(mask, sizeof(mask), " %X ", 1u << cpu);
		GOOD(5, 0, "", "--no-huge", "-m", "4", "-c", mask);
	}
	GOOD(8, 0, "", "--no-huge", "--iova-mode", "va", "--proc-type=primary", "--proc-type",
	     "auto", "--single-file-segments", "--no-pci");
	GOOD(2, 1, "--no-shconf: no effect: dvpmd keeps no shared configuration", "--no-huge",
	     "--no-shconf");
	GOOD(2, 1, "--iova-mode pa: no effect", "--no-huge", "--iova-mode=pa");
	/* The widest SIMD the bursts may use: 256 bits unless told. */
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "4"), 3);
	assert_int_equal(dvp_vect_get_max_simd_bitwidth(), DVP_VECT_SIMD_256);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "4", "--force-max-simd-bitwidth=64"),
			 4);
	assert_int_equal(dvp_vect_get_max_simd_bitwidth(), DVP_VECT_SIMD_DISABLED);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(
		dvp_test_eal_init("--no-huge", "-m", "4", "--force-max-simd-bitwidth", "0"), 5);
	assert_int_equal(dvp_vect_get_max_simd_bitwidth(), DVP_VECT_SIMD_MAX);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_vdev_without_driver_fails_init(void **state)
{
	struct dvp_log_capture cap;
	const char *log;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_test_eal_init("--no-huge", "--vdev", "net_nodriver0"), -1);
	log = dvp_log_capture_end(&cap);
	assert_contains(log, "--vdev 'net_nodriver0': no virtual device driver for net_nodriver0");
	/* The command line's fault: programs exit 2 on it. */
	assert_int_equal(dvp_errno, E_DVP_BAD_ARG);
	dvp_log_capture_free(&cap);
	/* Everything init did is undone: it can run again. */
	assert_int_equal(dvp_test_eal_init("--no-huge"), 1);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_consumed_count(void **state)
{
	(void)state;
	assert_int_equal(dvp_test_eal_init("--no-huge"), 1);
	assert_int_equal(dvp_eal_cleanup(), 0);
	/* "--" is consumed; the application's options follow. */
	assert_int_equal(dvp_test_eal_init("-l", cpu0, "--no-huge", "--", "-p", "1"), 4);
	assert_int_equal(dvp_eal_cleanup(), 0);
	/* As rte_eal_init: argv[ret] holds the program name for the app's getopt. */
	{
		const char *args[] = { "prog", "--no-huge", "--", "-p", "1", NULL };
		int ret = dvp_eal_init(5, (char **)args);

		assert_int_equal(ret, 2);
		assert_string_equal(args[ret], "prog");
		assert_string_equal(args[ret + 1], "-p");
		assert_int_equal(dvp_eal_cleanup(), 0);
	}
	/* The first argument that is not an option ends the EAL's. */
	assert_int_equal(dvp_test_eal_init("--no-huge", "run", "-l", "9999"), 1);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_good_forms(void **state)
{
	char inline_l[24], eq_lcores[48];

	(void)state;
	snprintf(inline_l, sizeof(inline_l), "-l%s", cpu0);
	snprintf(eq_lcores, sizeof(eq_lcores), "--lcores=%s", cpu0_at);
	assert_int_equal(dvp_test_eal_init(inline_l, "--no-huge", "-m", "8"), 4);
	assert_int_equal(dvp_lcore_count(), 1);
	assert_int_equal(dvp_eal_cleanup(), 0);

	assert_int_equal(dvp_test_eal_init(eq_lcores, "--main-lcore", "0", "--no-huge",
					   "--socket-mem=8", "--socket-limit", "64",
					   "--file-prefix", "t_eal", "-n", "4", "--no-telemetry",
					   "--in-memory"),
			 13);
	assert_string_equal(dvp_eal_file_prefix(), "t_eal");
	assert_false(dvp_eal_has_hugepages());
	assert_int_equal(dvp_get_main_lcore(), 0);
	assert_int_equal(dvp_eal_cleanup(), 0);

	assert_int_equal(dvp_test_eal_init("--no-huge", "--log-level", "eal:notice", "-b", "mlx5_9",
					   "--log-level=eal:info"),
			 6);
	assert_int_equal(dvp_eal_cleanup(), 0);

	assert_int_equal(dvp_test_eal_init("--no-huge", "-a", "mlx5_9,k=v", "--allow", "mlx5_8"),
			 5);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_default_lcores_are_the_affinity_mask(void **state)
{
	cpu_set_t set;
	unsigned int i, n = 0;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(dvp_test_eal_init("--no-huge"), 1);
	for (i = 0; i < DVP_MAX_LCORE && i < CPU_SETSIZE; i++) {
		assert_int_equal(dvp_lcore_is_enabled(i), CPU_ISSET(i, &set) != 0);
		n += CPU_ISSET(i, &set) != 0;
	}
	assert_int_equal(dvp_lcore_count(), n);
	assert_int_equal(dvp_get_main_lcore(), (unsigned int)dvp_test_first_cpu());
	assert_int_equal(dvp_lcore_id(), dvp_get_main_lcore());
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(dvp_lcore_id(), DVP_LCORE_ID_ANY);
	/* Cleanup gives the main thread its whole mask back. */
	{
		cpu_set_t after;

		assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
		assert_true(CPU_EQUAL(&set, &after));
	}
}

static void test_help_and_version(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	static const char *const every[] = {
		"-l CORELIST",	"--lcores MAP",	      "--main-lcore ID", "-m MB",
		"--socket-mem", "--socket-limit",     "--huge-dir DIR",	 "--no-huge",
		"--in-memory",	"--file-prefix NAME", "--huge-unlink",	 "-a, --allow",
		"-b, --block",	"--vdev DEVARGS",     "--log-level",	 "--no-telemetry",
		"-h, --help",	"-v, --version"
	};
	size_t i;

	(void)state;
	f = open_memstream(&buf, &len);
	dvp_eal_usage(f, "prog");
	fclose(f);
	assert_contains(buf, "Usage: prog [EAL options]");
	for (i = 0; i < DVP_DIM(every); i++)
		assert_contains(buf, every[i]);
	free(buf);

	/* -h after a bad option is never reached; before it, help wins. */
	fflush(stdout);
	assert_int_equal(dvp_test_eal_init("-h", "-l", "9999"), -1);
	assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_HELP_SHOWN);
	assert_int_equal(dvp_test_eal_init("-v"), -1);
	assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_HELP_SHOWN);
	assert_int_equal(dvp_eal_cleanup(), -E_DVP_NO_INIT);
}

static void test_init_twice_and_cleanup_twice(void **state)
{
	struct dvp_log_capture cap;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(dvp_test_eal_init("--no-huge"), 1);
		assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_DONE);
		dvp_log_capture_begin(&cap);
		assert_int_equal(dvp_test_eal_init("--no-huge"), -1);
		assert_contains(dvp_log_capture_end(&cap), "already initialised");
		dvp_log_capture_free(&cap);
		assert_int_equal(dvp_errno, EALREADY);
		assert_int_equal(dvp_eal_cleanup(), 0);
		assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_NONE);
		assert_int_equal(dvp_eal_cleanup(), -E_DVP_NO_INIT);
	}
}

struct cleanup_try {
	int ret;
	int err;
	int stop_ret; /* dvp_telemetry_stop()'s */
	int done;
};

static int cleanup_on_lcore(void *arg)
{
	struct cleanup_try *t = arg;

	t->ret = dvp_eal_cleanup();
	t->err = dvp_errno;
	t->stop_ret = dvp_telemetry_stop();
	return 0;
}

static void cleanup_in_callback(int fd, void *arg)
{
	struct cleanup_try *t = arg;
	eventfd_t v;

	(void)eventfd_read(fd, &v);
	t->ret = dvp_eal_cleanup();
	t->err = dvp_errno;
	t->stop_ret = dvp_telemetry_stop();
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
}

/*
 * dvp_eal_cleanup() and dvp_telemetry_stop() from a worker lcore (it would
 * join itself) and from an interrupt callback (it would free the interrupt
 * thread's state under it):
 * refused with EDEADLK and a line saying where to call it; the EAL stays
 * up, and the main thread's cleanup afterwards works.
 */
static void test_cleanup_from_lcore_or_callback(void **state)
{
	struct cleanup_try t = { .ret = 1 };
	struct dvp_log_capture cap;
	unsigned int worker;
	int fd, i;

	(void)state;
	assert_true(dvp_test_eal_init("--no-huge") >= 1);
	dvp_log_capture_begin(&cap);
	worker = dvp_get_next_lcore(-1u, true, false);
	if (worker < DVP_MAX_LCORE) {
		assert_int_equal(dvp_eal_remote_launch(cleanup_on_lcore, &t, worker), 0);
		assert_int_equal(dvp_eal_wait_lcore(worker), 0);
		assert_int_equal(t.ret, -EDEADLK);
		assert_int_equal(t.err, EDEADLK);
		assert_int_equal(t.stop_ret, -EDEADLK);
		assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_DONE);
	} else {
		print_message("one lcore only: the worker case is not run\n");
	}
	t = (struct cleanup_try){ .ret = 1 };
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(dvp_intr_callback_register(fd, cleanup_in_callback, &t), 0);
	assert_int_equal(eventfd_write(fd, 1), 0);
	for (i = 0; i < 10000 && !__atomic_load_n(&t.done, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_int_equal(__atomic_load_n(&t.done, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(t.ret, -EDEADLK);
	assert_int_equal(t.err, EDEADLK);
	assert_int_equal(t.stop_ret, -EDEADLK);
	assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_DONE);
	assert_true(dvp_intr_callback_unregister(fd, cleanup_in_callback, &t) >= 0);
	close(fd);
	dvp_log_capture_end(&cap);
	if (worker < DVP_MAX_LCORE)
		assert_contains(cap.buf, "dvp_eal_cleanup: called from worker lcore");
	assert_contains(cap.buf, "dvp_eal_cleanup: called from the EAL interrupt thread");
	assert_contains(cap.buf, "dvp_telemetry_stop: called from the EAL interrupt thread");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/* What a telemetry command's tries of the teardown calls returned. */
static struct {
	int cleanup_ret, cleanup_err, stop_ret;
	int lcore_stop_ret, lcore_stop_err;
} tel_try;

static int cmd_teardown(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	(void)params;
	tel_try.cleanup_ret = dvp_eal_cleanup();
	tel_try.cleanup_err = dvp_errno;
	tel_try.stop_ret = dvp_telemetry_stop();
	dvp_json_i64(w, NULL, tel_try.cleanup_ret);
	return 0;
}

static int stop_on_lcore(void *arg)
{
	(void)arg;
	tel_try.lcore_stop_ret = dvp_telemetry_stop();
	tel_try.lcore_stop_err = dvp_errno;
	return 0;
}

/* Send @p req on the telemetry socket @p fd; the reply, or NULL when none comes. */
static const char *tel_ask(int fd, const char *req, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (send(fd, req, strlen(req), 0) != (ssize_t)strlen(req) || poll(&p, 1, 10000) != 1)
		return NULL;
	n = recv(fd, buf, len - 1, 0);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/*
 * dvp_eal_cleanup() and dvp_telemetry_stop() from a telemetry command (the
 * telemetry thread would join itself and close the epoll set it waits on)
 * and dvp_telemetry_stop() from a worker lcore: refused with EDEADLK and
 * the line every thread of the runtime gets; the socket keeps answering.
 * The cleanup that follows removes the runtime directory it made.
 */
static void test_teardown_from_telemetry_command(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct dvp_log_capture cap;
	char prefix[32], buf[4096], rundir[sizeof(sun.sun_path)];
	unsigned int worker;
	int fd;

	(void)state;
	snprintf(prefix, sizeof(prefix), "t_tel%d", (int)getpid());
	assert_true(dvp_test_eal_init("--no-huge", "--file-prefix", prefix) >= 1);
	assert_int_equal(dvp_telemetry_register_cmd("/test/teardown", cmd_teardown, "test"), 0);
	assert_non_null(dvp_telemetry_path());
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", dvp_telemetry_path());
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(recv(fd, buf, sizeof(buf), 0) > 0, 1); /* the greeting */

	dvp_log_capture_begin(&cap);
	assert_string_equal(tel_ask(fd, "/test/teardown", buf, sizeof(buf)),
			    "{\"/test/teardown\":-35}");
	assert_int_equal(tel_try.cleanup_ret, -EDEADLK);
	assert_int_equal(tel_try.cleanup_err, EDEADLK);
	assert_int_equal(tel_try.stop_ret, -EDEADLK);
	assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_DONE);
	/* Still served. */
	assert_non_null(tel_ask(fd, "/info", buf, sizeof(buf)));
	assert_contains(buf, "\"pid\"");
	worker = dvp_get_next_lcore(-1u, true, false);
	if (worker < DVP_MAX_LCORE) {
		assert_int_equal(dvp_eal_remote_launch(stop_on_lcore, NULL, worker), 0);
		assert_int_equal(dvp_eal_wait_lcore(worker), 0);
		assert_int_equal(tel_try.lcore_stop_ret, -EDEADLK);
		assert_int_equal(tel_try.lcore_stop_err, EDEADLK);
		assert_non_null(tel_ask(fd, "/info", buf, sizeof(buf)));
	}
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "dvp_eal_cleanup: called from the telemetry thread (a telemetry "
				 "command); call it from the main lcore");
	assert_contains(cap.buf, "dvp_telemetry_stop: called from the telemetry thread");
	if (worker < DVP_MAX_LCORE)
		assert_contains(cap.buf, "dvp_telemetry_stop: called from worker lcore");
	dvp_log_capture_free(&cap);
	close(fd);
	/* A clean exit leaves nothing: the socket and its runtime directory go. */
	snprintf(rundir, sizeof(rundir), "%s", dvp_telemetry_path());
	*strrchr(rundir, '/') = '\0';
	assert_int_equal(access(rundir, F_OK), 0);
	assert_int_equal(dvp_eal_cleanup(), 0);
	if (access(rundir, F_OK) == 0)
		fail_msg("%s is left after a clean cleanup", rundir);
}

/*
 * Arguments refused after parsing -- when the buses or the memory come up
 * -- are still bad arguments (E_DVP_BAD_ARG, programs exit 2), and the
 * line naming them is written whatever --log-level hides.
 */
static void test_late_bad_args(void **state)
{
	(void)state;
	BAD("--vdev 'net_x0': no virtual device driver for net_x0", "--no-huge", "--log-level",
	    "eal:1", "--vdev", "net_x0");
	assert_int_equal(dvp_errno, E_DVP_BAD_ARG);
	BAD("-l '9999'", "--log-level", "eal:1", "-l", "9999");
	BAD("--socket-limit: node 0: 8 MB asked at start is above its limit of 1 MB", "--no-huge",
	    "--log-level", "eal:1", "-l", cpu0, "--socket-mem", "8", "--socket-limit", "1");
	assert_int_equal(dvp_errno, E_DVP_BAD_ARG);
	BAD("--huge-dir '/nonexistent': not a hugetlbfs mount point", "--log-level", "eal:1", "-l",
	    cpu0, "--huge-dir", "/nonexistent", "--in-memory");
	assert_int_equal(dvp_errno, E_DVP_BAD_ARG);
	/* The level outlives a failed init: back to the EAL's default. */
	assert_int_equal(dvp_log_apply_arg("eal:info"), 0);
}

static void test_bad_arg_errno(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_test_eal_init("-l", "9999"), -1);
	dvp_log_capture_end(&cap);
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_errno, E_DVP_BAD_ARG);
	assert_int_equal(dvp_eal_init(0, NULL), -1);
	assert_int_equal(dvp_errno, EINVAL);
}

static void test_memory_default_needs_hugepages_or_no_huge(void **state)
{
	struct dvp_log_capture cap;
	const char *log;
	int ret;

	(void)state;
	/* Hugepages are the default: either they work, or the error says what to do. */
	dvp_log_capture_begin(&cap);
	ret = dvp_test_eal_init("-m", "2", "--file-prefix", "t_eal_default");
	log = dvp_log_capture_end(&cap);
	if (ret >= 0) {
		assert_true(dvp_eal_has_hugepages());
		assert_int_equal(dvp_eal_cleanup(), 0);
	} else {
		assert_int_equal(dvp_errno, E_DVP_NO_HUGEPAGES);
		assert_contains(log, "needed");
		assert_contains(log, "found");
		assert_contains(log, "usertools/dvp-hugepages");
		assert_contains(log, "--no-huge");
	}
	dvp_log_capture_free(&cap);
}

struct walk_state {
	unsigned int segs;
	unsigned int calls;
	unsigned int stop_at; /* 0: never */
	const uint8_t *probe; /* a heap pointer to find */
	const struct dvp_memseg_info *found;
	struct dvp_memseg_info hit;
};

static int walk_cb(const struct dvp_memseg_info *ms, void *arg)
{
	struct walk_state *w = arg;
	struct stat st;

	w->calls++;
	assert_non_null(ms->addr);
	assert_true(ms->len > 0 && ms->page_sz > 0 && ms->len % ms->page_sz == 0);
	assert_true(ms->socket_id >= 0);
	assert_true(ms->fd >= 0);
	assert_int_equal(ms->offset, 0);
	assert_int_equal(fstat(ms->fd, &st), 0);
	assert_true((uint64_t)st.st_size >= ms->offset + ms->len);
	if (w->probe >= (const uint8_t *)ms->addr &&
	    w->probe < (const uint8_t *)ms->addr + ms->len) {
		w->hit = *ms;
		w->found = &w->hit;
	}
	if (w->stop_at != 0 && w->calls == w->stop_at)
		return 42;
	w->segs++;
	return 0;
}

/* --no-huge memory is a shareable memfd: the walk gives its fd, and another mapping sees it. */
static void test_memseg_walk_no_huge_fds(void **state)
{
	struct walk_state w = { 0 };
	uint8_t *p, *other;
	size_t off;

	(void)state;
	assert_int_equal(dvp_memseg_walk(walk_cb, &w), -E_DVP_NO_INIT);
	assert_int_equal(dvp_errno, E_DVP_NO_INIT);
	assert_int_equal(dvp_test_eal_init("-l", cpu0, "--no-huge", "-m", "8"), 5);
	p = dvp_malloc("walk", 4096, 0);
	assert_non_null(p);
	memset(p, 0x5a, 4096);
	w.probe = p;
	assert_int_equal(dvp_memseg_walk(walk_cb, &w), 0);
	assert_true(w.segs >= 1);
	assert_int_equal(w.calls, w.segs);
	assert_non_null(w.found);
	/* Sealed: whoever we share it with may trust its size. */
	assert_true(fcntl(w.hit.fd, F_GET_SEALS) & F_SEAL_SHRINK);
	/* Shared, not private: a second mapping of the fd holds what we wrote. */
	off = (size_t)(p - (uint8_t *)w.hit.addr);
	other = mmap(NULL, w.hit.len, PROT_READ | PROT_WRITE, MAP_SHARED, w.hit.fd,
		     (off_t)w.hit.offset);
	assert_true(other != MAP_FAILED);
	assert_int_equal(other[off], 0x5a);
	assert_int_equal(other[off + 4095], 0x5a);
	other[off] = 0xa5;
	assert_int_equal(p[0], 0xa5);
	assert_int_equal(munmap(other, w.hit.len), 0);

	/* A non-zero return stops the walk and comes back. */
	memset(&w, 0, sizeof(w));
	w.stop_at = 1;
	assert_int_equal(dvp_memseg_walk(walk_cb, &w), 42);
	assert_int_equal(w.calls, 1);
	assert_int_equal(dvp_memseg_walk(NULL, NULL), -EINVAL);
	assert_int_equal(dvp_errno, EINVAL);
	dvp_free(p);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/*
 * -d: a driver's shared object registers its driver when loaded, and the
 * load says which. Refused, with a line saying why: the same library again,
 * another copy of a driver registered already, a library that registers no
 * driver (one of dvpmd's that is not a driver here), a file that is no
 * shared object.
 */
static void test_driver_plugin(void **state)
{
	const char *build = getenv("DVP_BUILD_ROOT"), *src = getenv("DVP_TEST_SRCDIR");
	char so[512], ring_lib[512], notso[512], copy[600], cmd[1400];
	char dir[] = "/tmp/dvp-plugins-XXXXXX";

	(void)state;
	if (build == NULL || src == NULL)
		skip();
	snprintf(so, sizeof(so), "%s/drivers/libdvp_net_ring.so", build);
	snprintf(ring_lib, sizeof(ring_lib), "%s/lib/libdvp_ring.so", build);
	snprintf(notso, sizeof(notso), "%s/unit/test_eal.c", src);
	assert_null(dvp_driver_find("net_ring"));
	/* First: net_ring's load brings libdvp_ring.so in. */
	BAD("libdvp_ring.so': registers no dvp driver; expected a dvpmd driver's shared object",
	    "-d", ring_lib);
	GOOD(3, 1, "libdvp_net_ring.so: registered driver net_ring", "--no-huge", "-d", so);
	assert_non_null(dvp_driver_find("net_ring"));
	BAD("libdvp_net_ring.so': in this program already (linked in, or given before), with "
	    "driver net_ring: give each driver once",
	    "-d", so);
	/* A second copy of the driver (another file): its net_ring is not used. */
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libdvp_net_ring_copy.so", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", so, copy);
	assert_int_equal(system(cmd), 0);
	BAD("libdvp_net_ring_copy.so': driver net_ring is in this program already", "-d", copy);
	unlink(copy);
	/* A directory: each *.so in it; none here, which is said. */
	GOOD(3, 1, "no *.so in this directory", "--no-huge", "-d", dir);
	rmdir(dir);
	BAD("cannot load it", "-d", notso);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lcore_options),
		cmocka_unit_test(test_bad_memory_options),
		cmocka_unit_test(test_bad_device_and_misc_options),
		cmocka_unit_test(test_dpdk_options),
		cmocka_unit_test(test_vdev_without_driver_fails_init),
		cmocka_unit_test(test_consumed_count),
		cmocka_unit_test(test_good_forms),
		cmocka_unit_test(test_default_lcores_are_the_affinity_mask),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_init_twice_and_cleanup_twice),
		cmocka_unit_test(test_bad_arg_errno),
		cmocka_unit_test(test_late_bad_args),
		cmocka_unit_test(test_cleanup_from_lcore_or_callback),
		cmocka_unit_test(test_teardown_from_telemetry_command),
		cmocka_unit_test(test_memory_default_needs_hugepages_or_no_huge),
		cmocka_unit_test(test_memseg_walk_no_huge_fds),
		/* Last: the driver it loads stays registered. */
		cmocka_unit_test(test_driver_plugin),
	};

	snprintf(cpu0, sizeof(cpu0), "%d", dvp_test_first_cpu());
	snprintf(cpu0_at, sizeof(cpu0_at), "0@%d", dvp_test_first_cpu());
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal hugepage memory, for real: the test reserves 2 MB hugepages on
 * every node and mounts a hugetlbfs of its own (root only; it restores
 * both at the end), then checks files, locks, placement, exhaustion,
 * reclaiming a crashed run's files, --in-memory and --huge-unlink, and that
 * cleanup leaves no file and no mapping behind.
 */

#include "dvp_test_eal.h"
#include "dvp_test_numa.h"

#include <dirent.h>
#include <numa.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_memzone.h>

#define PAGE_2M ((size_t)2 << 20)
#define PAGES_PER_NODE 64
#define NODE_HP "/sys/devices/system/node/node%u/hugepages/hugepages-2048kB/"

static struct {
	char dir[64];
	bool mounted;
	long saved_nr[DVP_MAX_NUMA_NODES];
	bool node_used[DVP_MAX_NUMA_NODES];
	unsigned int nodes;
	long free_at_start[DVP_MAX_NUMA_NODES];
} env;

static long read_sys(unsigned int node, const char *file)
{
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), NODE_HP "%s", node, file);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static bool write_sys(unsigned int node, const char *file, long v)
{
	char path[256];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), NODE_HP "%s", node, file);
	f = fopen(path, "w");
	if (f == NULL)
		return false;
	ok = fprintf(f, "%ld\n", v) > 0;
	return fclose(f) == 0 && ok;
}

static void restore_env(void)
{
	unsigned int n;

	if (env.mounted && umount(env.dir) != 0)
		fprintf(stderr, "test_hugepages: cannot unmount %s: %s\n", env.dir,
			strerror(errno));
	if (env.dir[0])
		rmdir(env.dir);
	for (n = 0; n < env.nodes; n++)
		if (env.node_used[n] && !write_sys(n, "nr_hugepages", env.saved_nr[n]))
			fprintf(stderr, "test_hugepages: cannot restore node %u to %ld hugepages\n",
				n, env.saved_nr[n]);
}

/* @return NULL, or why the test cannot run. */
static const char *setup_env(void)
{
	static char why[160];
	unsigned int n;
	long nr, free_now;

	if (geteuid() != 0)
		return "needs root to reserve hugepages and mount hugetlbfs";
	if (numa_available() < 0)
		return "libnuma reports no NUMA support";
	env.nodes = (unsigned int)numa_max_node() + 1;
	for (n = 0; n < env.nodes && n < DVP_MAX_NUMA_NODES; n++) {
		if (!numa_bitmask_isbitset(numa_all_nodes_ptr, n))
			continue;
		nr = read_sys(n, "nr_hugepages");
		if (nr < 0)
			return "no 2 MB hugepages in this kernel (no " NODE_HP ")";
		env.saved_nr[n] = nr;
		env.node_used[n] = true;
		/*
		 * Exactly PAGES_PER_NODE free, whatever was free before (pages
		 * another program reserved and left free): the exhaustion tests
		 * count on running out where the test says.
		 */
		free_now = read_sys(n, "free_hugepages");
		if (free_now < 0 || !write_sys(n, "nr_hugepages", nr - free_now + PAGES_PER_NODE) ||
		    read_sys(n, "free_hugepages") != PAGES_PER_NODE) {
			snprintf(
				why, sizeof(why),
				"the kernel could not set node %u to exactly %d free 2 MB hugepages",
				n, PAGES_PER_NODE);
			return why;
		}
		env.free_at_start[n] = read_sys(n, "free_hugepages");
	}
	snprintf(env.dir, sizeof(env.dir), "/tmp/dvp-hugetlbfs-XXXXXX");
	if (mkdtemp(env.dir) == NULL)
		return "cannot create a directory to mount hugetlbfs on";
	if (mount("hugetlbfs", env.dir, "hugetlbfs", 0, "pagesize=2M") != 0)
		return "cannot mount hugetlbfs (no hugetlbfs in this kernel?)";
	env.mounted = true;
	return NULL;
}

static int count_files(const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(env.dir);
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' &&
		    (prefix == NULL || strncmp(e->d_name, prefix, strlen(prefix)) == 0))
			n++;
	closedir(d);
	return n;
}

static bool file_exists(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", env.dir, name);
	return stat(path, &st) == 0;
}

/* Lines of /proc/self/maps containing @p needle. */
static int count_maps(const char *needle)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

static void assert_all_free(void)
{
	unsigned int n;

	for (n = 0; n < env.nodes; n++)
		if (env.node_used[n])
			assert_int_equal(read_sys(n, "free_hugepages"), env.free_at_start[n]);
}

static char cpu0[16];

/* One lcore, so that -m puts everything on that lcore's node. */
static int init_on(const char *prefix, const char *mb)
{
	return dvp_test_eal_init("-l", cpu0, "--huge-dir", env.dir, "--file-prefix", prefix, "-m",
				 mb);
}

static unsigned int lcore_node(void)
{
	int n = numa_node_of_cpu(dvp_test_first_cpu());

	return n < 0 ? 0 : (unsigned int)n;
}

static bool default_is_2m(void)
{
	char line[128];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Hugepagesize: %lu kB", &kb) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return kb == 2048;
}

static void test_files_locks_and_clean_cleanup(void **state)
{
	struct dvp_malloc_socket_stats st;
	const struct dvp_memzone *mz;
	int s;

	(void)state;
	assert_int_equal(init_on("t_hp", "8"), 8);
	assert_true(dvp_eal_has_hugepages());
	assert_true(file_exists("t_hpmap_0"));
	assert_true(file_exists("t_hpmap.lock"));
	assert_true(count_maps(env.dir) >= 1);
	s = dvp_socket_id();
	assert_int_equal(s, (int)lcore_node());
	assert_int_equal(read_sys((unsigned int)s, "free_hugepages"), env.free_at_start[s] - 4);
	assert_int_equal(dvp_malloc_get_socket_stats(s, &st), 0);
	assert_int_equal(st.hugepage_sz, PAGE_2M);
	assert_int_equal(st.heap_totalsz_bytes, 8u << 20);
	mz = dvp_memzone_reserve("on2mb", 4096, s, DVP_MEMZONE_2MB);
	assert_non_null(mz);
	assert_int_equal(mz->hugepage_sz, PAGE_2M);

	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(count_files(NULL), 0);
	assert_int_equal(count_maps(env.dir), 0);
	assert_all_free();
}

static void test_placement_on_every_node(void **state)
{
	unsigned int n;
	void *p;

	(void)state;
	assert_true(init_on("t_place", "2") > 0);
	for (n = 0; n < env.nodes; n++) {
		if (!env.node_used[n])
			continue;
		p = dvp_malloc_socket("placed", 6 * PAGE_2M, (unsigned int)PAGE_2M, (int)n);
		assert_non_null(p);
		assert_int_equal(dvp_malloc_socket_of(p), (int)n);
		dvp_test_assert_pages_on(p, 6 * PAGE_2M, PAGE_2M, (int)n);
		dvp_free(p);
	}
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_all_free();
}

static void test_not_enough_hugepages(void **state)
{
	struct dvp_log_capture cap;
	char mb[32], expect[96];
	long have = read_sys(lcore_node(), "free_hugepages");

	(void)state;
	snprintf(mb, sizeof(mb), "%ld", (have + 10) * 2);
	snprintf(expect, sizeof(expect), "node %u needed %ld found %ld", lcore_node(), have + 10,
		 have);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_test_eal_init("-l", cpu0, "--huge-dir", env.dir, "--file-prefix",
					   "t_short", "-m", mb),
			 -1);
	dvp_log_capture_end(&cap);
	assert_int_equal(dvp_errno, E_DVP_NO_HUGEPAGES);
	assert_contains(cap.buf, expect);
	assert_contains(cap.buf, "usertools/dvp-hugepages");
	assert_contains(cap.buf, "--no-huge");
	assert_int_equal(dvp_test_count_lines(cap.buf), 1);
	dvp_log_capture_free(&cap);
	assert_int_equal(count_files(NULL), 0);
}

static void test_exhaustion_then_reuse(void **state)
{
	struct dvp_log_capture cap;
	enum { MAX = 4 * PAGES_PER_NODE };
	static void *blocks[MAX];
	int n, i, s;

	(void)state;
	assert_true(init_on("t_exh", "2") > 0);
	s = dvp_socket_id();
	dvp_log_capture_begin(&cap);
	for (n = 0; n < MAX; n++) {
		blocks[n] = dvp_malloc_socket("fill", 1u << 20, 0, s);
		if (blocks[n] == NULL)
			break;
	}
	dvp_log_capture_end(&cap);
	assert_true(n < MAX);
	assert_int_equal(dvp_errno, ENOMEM);
	/* Nearly every reserved page was used before the heap gave up. */
	assert_true(n >= PAGES_PER_NODE * 2 - 16);
	assert_contains(cap.buf, "more 2048 KB hugepages found 0 free");
	assert_contains(cap.buf, "usertools/dvp-hugepages");
	dvp_log_capture_free(&cap);
	for (i = 0; i < n; i++)
		dvp_free(blocks[i]);
	for (i = 0; i < n; i++)
		assert_non_null(blocks[i] = dvp_malloc_socket("again", 1u << 20, 0, s));
	for (i = 0; i < n; i++)
		dvp_free(blocks[i]);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(count_files(NULL), 0);
	assert_all_free();
}

static void test_stale_files_of_a_crashed_run_are_reclaimed(void **state)
{
	struct dvp_log_capture cap;
	unsigned int s = lcore_node();
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The crashed run: maps 8 MB, touches it, and dies without cleanup. */
		if (init_on("t_stale", "8") < 0)
			_exit(1);
		memset(dvp_malloc("x", 1 << 20, 0), 1, 1 << 20);
		raise(SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_true(file_exists("t_stalemap_0"));
	assert_int_equal(read_sys(s, "free_hugepages"), env.free_at_start[s] - 4);

	dvp_log_capture_begin(&cap);
	assert_true(init_on("t_stale", "2") > 0);
	dvp_log_capture_end(&cap);
	assert_contains(
		cap.buf,
		"reclaimed 1 stale hugepage file (8 MB) of an earlier run with --file-prefix 't_stale'");
	dvp_log_capture_free(&cap);
	/* Only this run's page is in use now. */
	assert_int_equal(read_sys(s, "free_hugepages"), env.free_at_start[s] - 1);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(count_files(NULL), 0);
	assert_all_free();
}

static void test_second_process_with_same_prefix_is_refused(void **state)
{
	struct dvp_log_capture cap;
	int ready[2], go[2], status;
	char c = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = init_on("t_lock", "2") > 0;

		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(ok && dvp_eal_cleanup() == 0 ? 0 : 1);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	dvp_log_capture_begin(&cap);
	assert_int_equal(init_on("t_lock", "2"), -1);
	dvp_log_capture_end(&cap);
	assert_int_equal(dvp_errno, EBUSY);
	assert_contains(cap.buf, "--file-prefix 't_lock' is in use by another process");
	dvp_log_capture_free(&cap);
	/* The running process's files are untouched. */
	assert_true(file_exists("t_lockmap_0"));
	assert_int_equal(write(go[1], &c, 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	assert_true(init_on("t_lock", "2") > 0);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(count_files(NULL), 0);
	assert_all_free();
}

static void test_huge_unlink_leaves_no_map_files(void **state)
{
	void *p;

	(void)state;
	assert_true(dvp_test_eal_init("-l", cpu0, "--huge-dir", env.dir, "--file-prefix", "t_unl",
				      "-m", "4", "--huge-unlink") > 0);
	assert_int_equal(count_files("t_unlmap_"), 0);
	assert_true(file_exists("t_unlmap.lock"));
	p = dvp_malloc("u", 3 << 20, 0);
	assert_non_null(p);
	memset(p, 1, 3 << 20);
	dvp_free(p);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(count_files(NULL), 0);
	assert_all_free();
}

static void test_in_memory_uses_memfd(void **state)
{
	int s;
	void *p;

	(void)state;
	if (!default_is_2m())
		skip(); /* --in-memory takes the default size, and only 2 MB pages are reserved */
	assert_true(dvp_test_eal_init("-l", cpu0, "--in-memory", "-m", "4") > 0);
	assert_true(dvp_eal_has_hugepages());
	assert_int_equal(count_files(NULL), 0);
	assert_true(count_maps("memfd:dvp_map_0") >= 1);
	s = dvp_socket_id();
	p = dvp_malloc_socket("mem", 2 * PAGE_2M, (unsigned int)PAGE_2M, s);
	assert_non_null(p);
	dvp_test_assert_pages_on(p, 2 * PAGE_2M, PAGE_2M, s);
	dvp_free(p);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(count_maps("memfd:dvp_map"), 0);
	assert_all_free();
}

/* A failed assertion leaves the EAL up: undo it so later tests start clean. */
static int eal_down(void **state)
{
	(void)state;
	if (dvp_eal_init_status() == DVP_EAL_INIT_DONE)
		dvp_eal_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_files_locks_and_clean_cleanup, eal_down),
		cmocka_unit_test_teardown(test_placement_on_every_node, eal_down),
		cmocka_unit_test_teardown(test_not_enough_hugepages, eal_down),
		cmocka_unit_test_teardown(test_exhaustion_then_reuse, eal_down),
		cmocka_unit_test_teardown(test_stale_files_of_a_crashed_run_are_reclaimed,
					  eal_down),
		cmocka_unit_test_teardown(test_second_process_with_same_prefix_is_refused,
					  eal_down),
		cmocka_unit_test_teardown(test_huge_unlink_leaves_no_map_files, eal_down),
		cmocka_unit_test_teardown(test_in_memory_uses_memfd, eal_down),
	};
	const char *why;
	int ret;

	snprintf(cpu0, sizeof(cpu0), "%d", dvp_test_first_cpu());
	why = setup_env();
	if (why != NULL) {
		restore_env();
		printf("SKIP: %s\n", why);
		return DVP_TEST_SKIP;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	restore_env();
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Where memory landed: the check the heap and hugepage tests share. */

#ifndef DVP_TEST_NUMA_H
#define DVP_TEST_NUMA_H

#include <numaif.h>
#include <stddef.h>
#include <stdint.h>

#include "dvp_test.h"

#include <dvp_common.h>

/* Pages dvp_test_assert_pages_on() checks at most. */
#define DVP_TEST_PAGES_CHECKED 16

/*
 * Each page of @p page_size in [p, p+len) (the first DVP_TEST_PAGES_CHECKED
 * of them) is on @p node, checked two ways: the policy the kernel gives the
 * touched page (get_mempolicy) and where it is (move_pages, asking only).
 * A page exists only once touched, so each is written first.
 */
static inline void dvp_test_assert_pages_on(void *p, size_t len, size_t page_size, int node)
{
	char *c = (char *)DVP_ALIGN_CEIL((uintptr_t)p, (uintptr_t)page_size);
	void *pages[DVP_TEST_PAGES_CHECKED];
	int status[DVP_TEST_PAGES_CHECKED], mode, i, n = 0;

	for (; c + page_size <= (char *)p + len && n < DVP_TEST_PAGES_CHECKED; c += page_size) {
		*(volatile char *)c = 1;
		assert_int_equal(get_mempolicy(&mode, NULL, 0, c, MPOL_F_NODE | MPOL_F_ADDR), 0);
		assert_int_equal(mode, node);
		pages[n++] = c;
	}
	assert_true(n > 0);
	assert_int_equal(move_pages(0, (unsigned long)n, pages, NULL, status, 0), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(status[i], node);
}

#endif /* DVP_TEST_NUMA_H */

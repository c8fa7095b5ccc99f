/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * File descriptor flags: the event fds drivers hand to lib/rxwait and the
 * EAL interrupt thread must never block a read.
 */

#ifndef DVP_FD_H
#define DVP_FD_H

#include <errno.h>
#include <fcntl.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Set O_NONBLOCK on @p fd, keeping its other status flags.
 * @return 0, or -errno from fcntl() (-EBADF for a closed fd).
 */
static inline int dvp_fd_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	if (fl & O_NONBLOCK)
		return 0;
	if (fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_FD_H */

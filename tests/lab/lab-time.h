/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock of the lab's static tools (diskmodel.c, labload.c): both
 * time everything on CLOCK_MONOTONIC, in nanoseconds.
 */
#ifndef LAB_TIME_H
#define LAB_TIME_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000LL
#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_USEC	1000LL

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline void sleep_until_ns(int64_t t)
{
	struct timespec ts = { t / NSEC_PER_SEC, t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#endif

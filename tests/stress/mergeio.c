// SPDX-License-Identifier: GPL-2.0
/*
 * mergeio DEV SIZE_MB SECS NPROC: processes whose queues bfq merges and
 * splits again and again, for the stress matrix (tests/stress/merge.sh).
 *
 * The parent writes the first SIZE_MB of DEV once, each 4 KiB block
 * stamped with its number and a body derived from it (O_DIRECT). Then it
 * keeps NPROC children (fork(): each its own io context, so its own bfq
 * queue) alive until SECS have passed, respawning those that exit. Child
 * slot s alternates, in phases of 20 to 400 ms, between reading its share
 * of interleaved blocks (blocks b with b % NPROC == s, in order, from a
 * start all slots agree on for that phase: the pattern bfq merges) and
 * reading blocks at random (a merged queue turns seeky and splits). Every
 * read is checked. A child sometimes changes its own ioprio (a member
 * split off by ioprio), and exits after a random number of reads (a
 * member gone while merged); merge.sh moves the children between cgroups
 * meanwhile.
 *
 * Prints "MERGEIO children=N verified=N errors=N" and exits 1 when a read
 * failed or returned wrong data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLK		4096
#define WCHUNK		64	/* blocks per write of the stamping pass */
#define STAMP		0x6d72676f696f0001ull
#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_CLASS_SHIFT	13

struct tally {
	unsigned long verified, errors, children;
};

static struct tally *tally;	/* MAP_SHARED: the children add to it */
static int fd;
static uint64_t nblocks;
static unsigned int nproc;
static double t_end;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The content of block @b: its stamp, its number, then a derived body. */
static void pattern(uint64_t *w, uint64_t b)
{
	uint64_t x = b * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	w[0] = STAMP;
	w[1] = b;
	for (i = 2; i < BLK / sizeof(*w); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
}

static void check_block(uint64_t *buf, uint64_t *want, uint64_t b)
{
	ssize_t n = pread(fd, buf, BLK, (off_t)b * BLK);

	if (n != BLK) {
		fprintf(stderr, "mergeio: read of block %llu: %zd (%s)\n",
			(unsigned long long)b, n, n < 0 ? strerror(errno) : "short");
		__atomic_add_fetch(&tally->errors, 1, __ATOMIC_RELAXED);
		return;
	}
	pattern(want, b);
	if (memcmp(buf, want, BLK)) {
		fprintf(stderr, "mergeio: block %llu: wrong data (stamp %llx block %llu)\n",
			(unsigned long long)b, (unsigned long long)buf[0],
			(unsigned long long)buf[1]);
		__atomic_add_fetch(&tally->errors, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&tally->verified, 1, __ATOMIC_RELAXED);
}

/* The phase all slots are in at time @t, and its interleaved start. */
static uint64_t phase_of(double t, unsigned int *interleaved)
{
	uint64_t p = (uint64_t)(t * 10);	/* a new phase every 100 ms */
	uint64_t x = p * 0x2545f4914f6cdd1dull;

	*interleaved = (x >> 60) % 4 != 0;	/* 3 phases in 4 */
	return (x >> 20) % (nblocks / 2) / nproc * nproc;
}

static void child(unsigned int slot, unsigned int seed)
{
	uint64_t *buf, *want;
	long reads = 50 + rand_r(&seed) % 2000;
	uint64_t next = 0, cur_phase = ~0ull;

	if (posix_memalign((void **)&buf, BLK, BLK) ||
	    posix_memalign((void **)&want, BLK, BLK))
		_exit(2);
	/* Now and then a member of a merged queue changes its ioprio. */
	if (rand_r(&seed) % 4 == 0)
		syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
			(2 << IOPRIO_CLASS_SHIFT) | (rand_r(&seed) % 8));
	while (reads-- > 0 && now() < t_end) {
		unsigned int inter;
		uint64_t start = phase_of(now(), &inter), b;

		if (!inter) {
			b = rand_r(&seed) % nblocks;
		} else {
			if (start != cur_phase) {
				cur_phase = start;
				next = start + slot;
			}
			b = next % nblocks;
			next += nproc;
		}
		check_block(buf, want, b);
	}
	_exit(0);
}

static pid_t spawn(unsigned int slot, unsigned int seed)
{
	pid_t pid = fork();

	if (pid == 0)
		child(slot, seed);
	if (pid > 0)
		__atomic_add_fetch(&tally->children, 1, __ATOMIC_RELAXED);
	return pid;
}

int main(int argc, char **argv)
{
	unsigned int seed = (unsigned int)getpid(), i;
	uint64_t *buf, b, n;
	pid_t *pids;

	if (argc != 5) {
		fprintf(stderr, "usage: mergeio DEV SIZE_MB SECS NPROC\n");
		return 2;
	}
	nblocks = strtoull(argv[2], NULL, 0) * (1024 * 1024 / BLK);
	t_end = now() + strtod(argv[3], NULL);
	nproc = strtoul(argv[4], NULL, 0);
	if (!nblocks || !nproc || nproc > 64)
		return 2;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(nproc, sizeof(*pids));
	if (fd < 0 || tally == MAP_FAILED || !pids ||
	    posix_memalign((void **)&buf, BLK, WCHUNK * BLK)) {
		perror("mergeio");
		return 2;
	}
	/*
	 * Stamp the region in writes of WCHUNK blocks: one 4 KiB write per
	 * block takes most of a short scenario on a debug kernel under TCG
	 * and leaves the readers no time to merge.
	 */
	for (b = 0; b < nblocks; b += n) {
		n = nblocks - b < WCHUNK ? nblocks - b : WCHUNK;
		for (i = 0; i < n; i++)
			pattern(buf + i * (BLK / sizeof(*buf)), b + i);
		if (pwrite(fd, buf, n * BLK, (off_t)b * BLK) != (ssize_t)(n * BLK)) {
			perror("mergeio: write");
			return 1;
		}
	}
	for (i = 0; i < nproc; i++)
		pids[i] = spawn(i, seed + i);
	while (now() < t_end) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0)
			break;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "mergeio: child %d failed\n", pid);
			__atomic_add_fetch(&tally->errors, 1, __ATOMIC_RELAXED);
		}
		for (i = 0; i < nproc; i++)
			if (pids[i] == pid)
				pids[i] = spawn(i, seed += 7919);
	}
	while (wait(NULL) > 0)
		;
	printf("MERGEIO children=%lu verified=%lu errors=%lu\n",
	       tally->children, tally->verified, tally->errors);
	return tally->errors ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cloneio DEV OFFSET_MB SIZE_MB SECS NCHILD: processes sharing one
 * io_context, for the stress matrix (tests/stress/interleave.sh).
 *
 * The parent opens DEV with O_DIRECT and reads a block, so that it has an
 * io_context; then it keeps NCHILD children alive until SECS have passed,
 * each made by the raw clone() with CLONE_IO (and no CLONE_VM: each child
 * has its own copy of memory, but the parent's io_context is shared by all
 * of them, so the scheduler sees their requests as one process's). Child
 * slot s owns the blocks b of the region with b % NCHILD == s: the children
 * work on interleaved blocks. A child lives for a random number of
 * operations: it writes a block (pwrite) with a header naming the block and
 * a generation and a body derived from both, reads it back (pread) and
 * checks it, and re-reads and checks a block that an earlier child of its
 * slot wrote; some children change their own ioprio first. The generations
 * written are kept in a MAP_SHARED table, which the parent's clones share.
 *
 * Prints "CLONEIO children=N verified=N errors=N" and exits 1 when an error
 * was found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BS 4096
#define MAGIC 0xb1f0c10eu

struct shared {
	unsigned long verified, errors;
	uint32_t gen[];		/* per block of the region; 0: never written */
};

struct hdr {
	uint32_t magic, gen;
	uint64_t block;
};

static struct shared *sh;
static int fd;
static off_t base;
static unsigned long nblocks, nchild;

static void fill(unsigned char *buf, uint64_t block, uint32_t gen)
{
	struct hdr h = { MAGIC, gen, block };
	uint32_t x = (uint32_t)block * 2654435761u ^ gen * 40503u;
	size_t i;

	memcpy(buf, &h, sizeof(h));
	for (i = sizeof(h); i < BS; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = x >> 16;
	}
}

/* Read block @b and compare it with what generation @gen wrote. */
static int check(unsigned char *buf, unsigned char *want, uint64_t b,
		 uint32_t gen)
{
	ssize_t n = pread(fd, buf, BS, base + (off_t)b * BS);

	if (n != BS) {
		fprintf(stderr, "cloneio: pread block %llu: %zd (%s)\n",
			(unsigned long long)b, n, strerror(errno));
		return 1;
	}
	fill(want, b, gen);
	if (memcmp(buf, want, BS)) {
		struct hdr h;

		memcpy(&h, buf, sizeof(h));
		fprintf(stderr,
			"cloneio: block %llu: want gen %u, read magic %#x gen %u block %llu\n",
			(unsigned long long)b, gen, h.magic, h.gen,
			(unsigned long long)h.block);
		return 1;
	}
	__sync_fetch_and_add(&sh->verified, 1);
	return 0;
}

static int child(unsigned long slot, unsigned int seed)
{
	unsigned char *buf, *want;
	unsigned long ops, i, err = 0, nmine = (nblocks - slot + nchild - 1) / nchild;

	if (posix_memalign((void **)&buf, BS, BS) ||
	    posix_memalign((void **)&want, BS, BS))
		return 2;
	srand(seed);
	if (rand() % 3 == 0) {
		/* ioprio_set(IOPRIO_WHO_PROCESS, self, class BE|RT|IDLE) */
		int class = 1 + rand() % 3, level = rand() % 8;

		syscall(SYS_ioprio_set, 1, 0, (class << 13) | level);
	}
	ops = 8 + rand() % 120;
	for (i = 0; i < ops; i++) {
		uint64_t b = slot + (uint64_t)(rand() % nmine) * nchild;
		uint32_t gen = sh->gen[b] + 1;

		if (!gen)
			gen = 1;
		fill(buf, b, gen);
		if (pwrite(fd, buf, BS, base + (off_t)b * BS) != BS) {
			fprintf(stderr, "cloneio: pwrite block %llu: %s\n",
				(unsigned long long)b, strerror(errno));
			err++;
			continue;
		}
		sh->gen[b] = gen;
		err += check(buf, want, b, gen);
		/* An older block of this slot, written by an earlier child. */
		b = slot + (uint64_t)(rand() % nmine) * nchild;
		if (sh->gen[b])
			err += check(buf, want, b, sh->gen[b]);
	}
	if (err)
		__sync_fetch_and_add(&sh->errors, err);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long children = 0, i, *slot_pid;
	unsigned char *buf;
	time_t end;
	size_t shsize;

	if (argc != 6) {
		fprintf(stderr, "usage: cloneio DEV OFFSET_MB SIZE_MB SECS NCHILD\n");
		return 2;
	}
	base = (off_t)atol(argv[2]) << 20;
	nblocks = ((unsigned long)atol(argv[3]) << 20) / BS;
	end = time(NULL) + atol(argv[4]);
	nchild = atol(argv[5]);
	if (!nblocks || !nchild || nchild > nblocks || nchild > 64)
		return 2;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	shsize = sizeof(*sh) + nblocks * sizeof(uint32_t);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	slot_pid = calloc(nchild, sizeof(*slot_pid));
	if (sh == MAP_FAILED || !slot_pid || posix_memalign((void **)&buf, BS, BS))
		return 2;
	/* I/O first: the io_context the children will share exists now. */
	if (pread(fd, buf, BS, base) != BS) {
		perror("pread");
		return 2;
	}
	srand(getpid());
	for (;;) {
		int status;
		pid_t pid;

		for (i = 0; i < nchild && time(NULL) < end; i++) {
			unsigned int seed = rand();

			if (slot_pid[i])
				continue;
			pid = syscall(SYS_clone, CLONE_IO | SIGCHLD, NULL, NULL,
				      NULL, NULL);
			if (pid < 0) {
				perror("clone");
				sh->errors++;
				break;
			}
			if (pid == 0)
				_exit(child(i, seed));
			slot_pid[i] = pid;
			children++;
		}
		pid = wait(&status);
		if (pid < 0)
			break;		/* none left: past the end */
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
			sh->errors++;
		for (i = 0; i < nchild; i++)
			if (slot_pid[i] == (unsigned long)pid)
				slot_pid[i] = 0;
	}
	printf("CLONEIO children=%lu verified=%lu errors=%lu\n", children,
	       sh->verified, sh->errors);
	return sh->errors ? 1 : 0;
}

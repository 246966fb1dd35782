// SPDX-License-Identifier: GPL-2.0
/*
 * labload: the two workloads of the lab that fio cannot express, each one
 * process tree on a raw block device (tests/lab/exp3-webserver.sh and
 * tests/lab/exp5-video.sh). Built with gcc -static like diskmodel.
 *
 *   labload web DEV SECS NPROC
 *	BFQ's 2007 web-server mix: NPROC processes read "files" one after the
 *	other for SECS seconds: with probability 0.9 a 16 KiB file at a random
 *	place in the first half of DEV, else a large file of 1-30 MiB (uniform)
 *	at a random place in the second half, read in 128 KiB O_DIRECT
 *	requests; every 10 files a process appends 1-16 KiB, rounded up to
 *	4 KiB, to a common log (an O_DIRECT write at the log's next offset,
 *	a quarter of DEV before its middle), so that the log reaches the disk
 *	during the run as it would with a server's periodic syncs.
 *	Prints "WEB small=N small_ms=MEAN small_p95_ms=P95 large=N
 *	large_mbps=MEAN total_mbps=T small_pct_ms=P10,P50,P90,P95,P99,P99.9,MAX"
 *	(a large file's bandwidth is its size over its read time; the total
 *	counts every byte read in SECS; the last field is the small files'
 *	completion-time distribution, for the report's plot).
 *
 *   labload video DEV MAX ADD_SECS KIB PERIOD_MS
 *	BFQ's 2007 streaming test: a new periodic reader every ADD_SECS s (at
 *	most MAX), each reading KIB KiB with O_DIRECT every PERIOD_MS ms from
 *	its own slice of DEV (DEV split in MAX + 5 slices), at its own phase
 *	of the period (video_phase()), with 5 on/off readers in the
 *	background (each: 2 s of sequential 128 KiB reads, then 2 s idle). A read is lost when it completes more than 1 s after its
 *	due time (a 1 s playback buffer). Stops at the end of the first
 *	interval in which more than 1% of the reads due were lost, and prints
 *	"VIDEO streams=N lost_pct=P mbps=T late40_pct=L late40_all_pct=A":
 *	N, the streams running then (MAX when no interval failed); T, all
 *	bytes read in that last interval, background included; L, the largest
 *	part (%) of one earlier interval's reads that completed more than
 *	40 ms late (a frame a 25 fps player shows late), A that part over all
 *	earlier intervals. Each interval's counts go to stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lab-time.h"
#include <linux/fs.h>

#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define CHUNK		(128 * KIB)
#define MAX_SMALL	200000		/* small-file samples kept for p95 */
#define MAX_PROCS	256
#define LOSS_NS		NSEC_PER_SEC	/* the playback buffer */
#define LATE_NS		(40 * NSEC_PER_MSEC) /* a frame of 25 fps shown late */
#define ONOFF_READERS	5
#define ONOFF_NS	(2 * NSEC_PER_SEC)

static void die(const char *msg)
{
	perror(msg);
	exit(1);
}

/* The size of a block device, or of a regular file (tests on a host). */
static uint64_t dev_bytes(int fd)
{
	struct stat st;
	uint64_t n;

	if (ioctl(fd, BLKGETSIZE64, &n) == 0)
		return n;
	if (fstat(fd, &st))
		die("fstat");
	return st.st_size;
}

/* A shared anonymous mapping: the children's counters. */
static void *shared(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, 0, n);
	return p;
}

static void *aligned_buf(size_t n)
{
	void *b;

	if (posix_memalign(&b, 4096, n))
		die("posix_memalign");
	memset(b, 0x5a, n);
	return b;
}

/* Read len bytes at off in CHUNK requests; adds them to *bytes. */
static void read_span(int fd, void *buf, uint64_t off, uint64_t len,
		      uint64_t *bytes)
{
	uint64_t n;

	while (len) {
		n = len < CHUNK ? len : CHUNK;
		if (pread(fd, buf, n, off) != (ssize_t)n)
			die("pread");
		__atomic_add_fetch(bytes, n, __ATOMIC_RELAXED);
		off += n;
		len -= n;
	}
}

/* ---- web ---- */

struct web_shared {
	uint64_t bytes;
	uint64_t log_off;
	uint64_t small_n, large_n;
	uint64_t large_kbps_sum;		/* kB/s, summed over files */
	int64_t small_ns[MAX_SMALL];
};

static uint64_t rnd_block(uint64_t lo, uint64_t hi, unsigned int *seed)
{
	uint64_t r = ((uint64_t)rand_r(seed) << 31) ^ rand_r(seed);

	return (lo + r % (hi - lo)) & ~4095ULL;
}

static void web_log(int logfd, struct web_shared *sh, uint64_t base,
		    unsigned int *seed, void *buf)
{
	uint64_t n = (1024 + rand_r(seed) % (15 * KIB) + 4095) & ~4095ULL;
	uint64_t off = base + __atomic_fetch_add(&sh->log_off, n, __ATOMIC_RELAXED);

	if (pwrite(logfd, buf, n, off) != (ssize_t)n)
		die("pwrite log");
}

static void web_child(const char *dev, int id, int64_t end,
		      struct web_shared *sh)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);
	int logfd = open(dev, O_WRONLY | O_DIRECT);
	unsigned int seed = 12345 + id * 7919;
	void *buf = aligned_buf(CHUNK);
	uint64_t size, half, len, i, k;
	int64_t t0, dt;

	if (fd < 0 || logfd < 0)
		die(dev);
	size = dev_bytes(fd);
	half = size / 2;
	for (i = 1; now_ns() < end; i++) {
		t0 = now_ns();
		if (rand_r(&seed) % 10) {
			read_span(fd, buf, rnd_block(0, half - 16 * KIB, &seed),
				  16 * KIB, &sh->bytes);
			k = __atomic_fetch_add(&sh->small_n, 1, __ATOMIC_RELAXED);
			if (k < MAX_SMALL)
				sh->small_ns[k] = now_ns() - t0;
		} else {
			len = (1 + rand_r(&seed) % 30) * MIB;
			read_span(fd, buf, rnd_block(half, size - len, &seed),
				  len, &sh->bytes);
			dt = now_ns() - t0;
			__atomic_add_fetch(&sh->large_n, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&sh->large_kbps_sum,
					   (uint64_t)(len * 1e6 / dt),
					   __ATOMIC_RELAXED);
		}
		if (i % 10 == 0)
			web_log(logfd, sh, half - half / 4, &seed, buf);
	}
	exit(0);
}

/*
 * The small files' percentiles printed for the report's plot, per mille
 * (1000: the maximum): those exp4-dbms.sh takes from fio's.
 */
static const unsigned int web_pcts[] = { 100, 500, 900, 950, 990, 999, 1000 };

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The @pm-th per-mille point of @n sorted samples in ns, in ms (0: none). */
static double pct_ms(const int64_t *sorted, uint64_t n, unsigned int pm)
{
	uint64_t i;

	if (!n)
		return 0.0;
	i = n * pm / 1000;
	return sorted[i < n ? i : n - 1] / 1e6;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void web(const char *dev, int secs, int nproc)
{
	struct web_shared *sh = shared(sizeof(*sh));
	int64_t t0 = now_ns(), end = t0 + secs * NSEC_PER_SEC;
	uint64_t n, i;
	double sum = 0;
	int p;

	for (p = 0; p < nproc; p++)
		if (fork() == 0)
			web_child(dev, p, end, sh);
	while (wait(NULL) > 0)
		;
	n = sh->small_n < MAX_SMALL ? sh->small_n : MAX_SMALL;
	qsort(sh->small_ns, n, sizeof(int64_t), cmp_i64);
	for (i = 0; i < n; i++)
		sum += sh->small_ns[i];
	printf("WEB small=%llu small_ms=%.1f small_p95_ms=%.1f large=%llu "
	       "large_mbps=%.2f total_mbps=%.2f small_pct_ms=",
	       (unsigned long long)sh->small_n, n ? sum / n / 1e6 : 0.0,
	       pct_ms(sh->small_ns, n, 950),
	       (unsigned long long)sh->large_n,
	       sh->large_n ? sh->large_kbps_sum / 1e3 / sh->large_n : 0.0,
	       sh->bytes / ((now_ns() - t0) / 1e3));
	for (i = 0; i < ARRAY_SIZE(web_pcts); i++)
		printf("%s%.1f", i ? "," : "",
		       pct_ms(sh->small_ns, n, web_pcts[i]));
	printf("\n");
}

/* ---- video ---- */

struct video_shared {
	uint64_t bytes;
	uint64_t due[2];	/* reads due, by interval parity */
	uint64_t lost[2];
	uint64_t late[2];	/* more than LATE_NS late */
	int interval;
	int stop;
};

static void video_stream(const char *dev, uint64_t base, uint64_t span,
			 uint64_t len, int64_t period, int64_t phase,
			 struct video_shared *sh)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);
	void *buf = aligned_buf(len);
	int64_t due = now_ns() + phase, late;
	uint64_t off = 0;
	int k;

	if (fd < 0)
		die(dev);
	fprintf(stderr, "stream pid %d\n", getpid());
	while (!sh->stop) {
		sleep_until_ns(due);
		if (pread(fd, buf, len, base + off) != (ssize_t)len)
			die("pread video");
		__atomic_add_fetch(&sh->bytes, len, __ATOMIC_RELAXED);
		late = now_ns() - due;
		k = sh->interval & 1;
		__atomic_add_fetch(&sh->due[k], 1, __ATOMIC_RELAXED);
		if (late > LOSS_NS)
			__atomic_add_fetch(&sh->lost[k], 1, __ATOMIC_RELAXED);
		if (late > LATE_NS)
			__atomic_add_fetch(&sh->late[k], 1, __ATOMIC_RELAXED);
		off = (off + len) % (span - len);
		due += period;
	}
	exit(0);
}

static void video_onoff(const char *dev, uint64_t base, uint64_t span,
			struct video_shared *sh)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);
	void *buf = aligned_buf(CHUNK);
	uint64_t off = 0;
	int64_t until;

	if (fd < 0)
		die(dev);
	fprintf(stderr, "onoff pid %d\n", getpid());
	while (!sh->stop) {
		until = now_ns() + ONOFF_NS;
		while (!sh->stop && now_ns() < until) {
			read_span(fd, buf, base + off, CHUNK, &sh->bytes);
			off = (off + CHUNK) % (span - CHUNK);
		}
		sleep_until_ns(now_ns() + ONOFF_NS);
	}
	exit(0);
}

/*
 * Stream @i's first read, after its start: players started by users do not
 * share a clock, and ADD_SECS being a multiple of the period would make
 * every stream's reads due at the same instant, the last of N waiting N
 * reads' service whatever the scheduler. Spread by the golden ratio, any
 * number of streams splits the period into nearly equal gaps.
 */
static int64_t video_phase(int i, int period_ms)
{
	return (int64_t)((i * 0.6180339887 - (int)(i * 0.6180339887)) *
			 period_ms * NSEC_PER_MSEC);
}

static void video(const char *dev, int max, int add_secs, int kib,
		  int period_ms)
{
	struct video_shared *sh = shared(sizeof(*sh));
	int fd = open(dev, O_RDONLY), streams = 0, i, k;
	uint64_t size, slice, b0;
	double pct = 0, late = 0, late_max = 0;
	uint64_t due_all = 0, late_all = 0;
	int64_t t;

	if (fd < 0 || max < 1 || max > MAX_PROCS)
		die("video: device or MAX");
	size = dev_bytes(fd);
	close(fd);
	slice = (size / (max + ONOFF_READERS)) & ~(MIB - 1);
	for (i = 0; i < ONOFF_READERS; i++)
		if (fork() == 0)
			video_onoff(dev, (max + i) * slice, slice, sh);
	t = now_ns();
	for (;;) {
		if (streams < max && fork() == 0)
			video_stream(dev, streams * slice, slice, kib * KIB,
				     period_ms * NSEC_PER_MSEC,
				     video_phase(streams, period_ms), sh);
		streams += streams < max;
		b0 = sh->bytes;
		t += add_secs * NSEC_PER_SEC;
		sleep_until_ns(t);
		k = sh->interval & 1;
		__atomic_add_fetch(&sh->interval, 1, __ATOMIC_SEQ_CST);
		pct = sh->due[k] ? 100.0 * sh->lost[k] / sh->due[k] : 0;
		late = sh->due[k] ? 100.0 * sh->late[k] / sh->due[k] : 0;
		fprintf(stderr, "streams %d due %llu lost %llu (%.1f%%) late40 %llu (%.1f%%)\n",
			streams, (unsigned long long)sh->due[k],
			(unsigned long long)sh->lost[k], pct,
			(unsigned long long)sh->late[k], late);
		if (pct > 1.0 || streams == max)
			break;
		if (late > late_max)
			late_max = late;
		due_all += sh->due[k];
		late_all += sh->late[k];
		sh->due[k] = sh->lost[k] = sh->late[k] = 0;
	}
	sh->stop = 1;
	printf("VIDEO streams=%d lost_pct=%.2f mbps=%.2f late40_pct=%.2f late40_all_pct=%.2f\n",
	       streams, pct, (sh->bytes - b0) / (add_secs * 1e6), late_max,
	       due_all ? 100.0 * late_all / due_all : 0.0);
	while (wait(NULL) > 0)
		;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "web")) {
		web(argv[2], atoi(argv[3]), atoi(argv[4]));
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "video")) {
		video(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
		      atoi(argv[6]));
		return 0;
	}
	fputs("usage: labload web DEV SECS NPROC\n"
	      "       labload video DEV MAX ADD_SECS KIB PERIOD_MS\n", stderr);
	return 2;
}

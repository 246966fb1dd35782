// SPDX-License-Identifier: GPL-2.0
/*
 * lowlat: the guest-side workloads of the low-latency measurements
 * (tests/vm/lowlat-*.sh, scripts/bench/guest-latency.sh). Built with
 * gcc -static, so that each timed workload is one process and the guest
 * needs no libraries.
 *
 *   lowlat layout DIR
 *	Writes the model application under DIR/app: APP_DIRS directories
 *	(top-level, so that ext4's Orlov allocator spreads them over the
 *	block groups) of APP_FILES_PER_DIR files of 4-32 KiB each, and
 *	DIR/app/big/b0..b3 of 1, 2, 4 and 8 MiB. fsync'd.
 *   lowlat fill FILE MIB
 *	Writes FILE of MIB MiB (1 MiB writes of a non-zero pattern), fsync'd.
 *   lowlat startup DIR [CAP_MS]
 *	The model start-up, in this one process: reads every small file of
 *	DIR/app in an order that hops between directories, with a 1 ms think
 *	time every THINK_EVERY files, then the big ones; stops early once
 *	CAP_MS have passed (files < 304 then). Prints
 *	"STARTUP ms=N files=N kib=N cpu_ms=N runq_ms=N blkio_ms=N": besides
 *	its wall time, where the process spent it, from its own
 *	/proc/self/schedstat (on a CPU, runnable but waiting for one) and
 *	delay accounting (waiting for its block I/O; 0 unless
 *	kernel.task_delayacct is 1; -1 when a file cannot be read). A
 *	start-up slowed by a background that takes the CPU is told from one
 *	slowed by its I/O.
 *   lowlat video FILE SECS [FPS [MIN_KB MAX_KB]]
 *	A periodic reader: frame i is due at t0 + i/FPS; at that time (or at
 *	once when the previous frame ended later) it reads the next MIN..MAX
 *	KB of FILE with O_DIRECT (wrapping at the end). A frame is late when
 *	it completes more than one period (40 ms at 25 fps) after its slot
 *	starts. A run that reaches twice SECS stops there and counts the
 *	frames not read as late. Prints "VIDEO frames=N late=N
 *	worst_late_ms=N.N max_ms=N.N secs=N.N wake_max_ms=N.N
 *	read_max_ms=N.N late_wake_ms=N.N late_read_ms=N.N": the longest
 *	wait between a slot and its read's start (a CPU, or the previous
 *	frame) and the longest read, then the same two summed over the late
 *	frames: what made them late, the CPU or the device.
 *   lowlat burst N FILE...
 *	Forks N children at once; child i reads whole, in turn, every FILE
 *	whose index is i modulo N (FILE[i % count] when there are fewer
 *	files than children) and exits. Prints "BURST ms=N n=N" once all
 *	have exited.
 *   lowlat randread DEV OFF_MIB SIZE_MIB SECS
 *	One synchronous random reader: 4 KiB O_DIRECT reads at random
 *	4 KiB-aligned offsets in [OFF_MIB, OFF_MIB + SIZE_MIB) MiB of DEV,
 *	one at a time, for SECS seconds (or until SIGINT/SIGTERM). Prints
 *	"RANDREAD ios=N secs=N.N". What fio --ioengine=psync --rw=randread
 *	does, as a static process that starts at once: 64 fio processes
 *	started together under TCG stall in their start-up for tens of
 *	seconds and fio then gives up on some ("job startup hung?").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define APP_DIRS		30
#define APP_FILES_PER_DIR	10
#define APP_FILES		(APP_DIRS * APP_FILES_PER_DIR)
#define APP_BIG			4
#define THINK_EVERY		4
#define THINK_US		1000
#define RD_BUF			(512 * 1024)

static char *buf;

static void die(const char *what)
{
	fprintf(stderr, "lowlat: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

/* xorshift: the same layout and frame sizes in every run. */
static uint32_t rnd_state = 2463534242u;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void write_file(const char *path, size_t bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t done = 0;

	if (fd < 0)
		die(path);
	while (done < bytes) {
		size_t n = bytes - done < RD_BUF ? bytes - done : RD_BUF;
		ssize_t w;

		memset(buf, 0x5a ^ (int)(done >> 12), n);
		w = write(fd, buf, n);
		if (w <= 0)
			die(path);
		done += w;
	}
	if (fsync(fd) || close(fd))
		die(path);
}

static void small_name(char *p, size_t sz, const char *dir, int d, int f)
{
	snprintf(p, sz, "%s/app/d%02d/f%02d", dir, d, f);
}

static int do_layout(const char *dir)
{
	char p[512];
	int d, f;

	snprintf(p, sizeof(p), "%s/app", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/app/big", dir);
	mkdir(p, 0755);
	for (d = 0; d < APP_DIRS; d++) {
		snprintf(p, sizeof(p), "%s/app/d%02d", dir, d);
		if (mkdir(p, 0755) && errno != EEXIST)
			die(p);
	}
	/* Files created round-robin over the directories. */
	for (f = 0; f < APP_FILES_PER_DIR; f++)
		for (d = 0; d < APP_DIRS; d++) {
			small_name(p, sizeof(p), dir, d, f);
			write_file(p, 4096 * (1 + rnd() % 8));
		}
	for (f = 0; f < APP_BIG; f++) {
		snprintf(p, sizeof(p), "%s/app/big/b%d", dir, f);
		write_file(p, (1u << 20) << f);
	}
	return 0;
}

static long read_whole(const char *path)
{
	int fd = open(path, O_RDONLY);
	long total = 0;
	ssize_t n;

	if (fd < 0)
		die(path);
	while ((n = read(fd, buf, RD_BUF)) > 0)
		total += n;
	if (n < 0)
		die(path);
	close(fd);
	return total;
}

/*
 * This process's time so far on a CPU and waiting for one (schedstat, ns),
 * and waiting for its block I/O (stat field 42, clock ticks), in ms; -1
 * for what cannot be read.
 */
static void self_delays(long long *cpu_ms, long long *runq_ms,
			long long *blkio_ms)
{
	unsigned long long cpu, runq, ticks;
	char line[1024], *p;
	FILE *f;
	int i;

	*cpu_ms = *runq_ms = *blkio_ms = -1;
	f = fopen("/proc/self/schedstat", "r");
	if (f) {
		if (fscanf(f, "%llu %llu", &cpu, &runq) == 2) {
			*cpu_ms = cpu / 1000000;
			*runq_ms = runq / 1000000;
		}
		fclose(f);
	}
	f = fopen("/proc/self/stat", "r");
	if (!f)
		return;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* The space after the command's ')' opens field 3; the 40th, 42. */
	for (i = 0; p && i < 40; i++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p, "%llu", &ticks) == 1)
		*blkio_ms = ticks * 1000 / sysconf(_SC_CLK_TCK);
}

static int do_startup(const char *dir, uint64_t cap_us)
{
	uint64_t t0 = now_us(), end;
	long long cpu_ms, runq_ms, blkio_ms;
	long kib = 0;
	char p[512];
	int i, files = 0;

	/* File i: directory (7 i) mod 30 hops across the block groups. */
	for (i = 0; i < APP_FILES; i++) {
		int d = (i * 7) % APP_DIRS, f = i / APP_DIRS;

		small_name(p, sizeof(p), dir, d, f);
		kib += read_whole(p) / 1024;
		if (++files % THINK_EVERY == 0)
			usleep(THINK_US);
		if (cap_us && now_us() - t0 > cap_us)
			break;
	}
	for (i = 0; i < APP_BIG && !(cap_us && now_us() - t0 > cap_us); i++) {
		snprintf(p, sizeof(p), "%s/app/big/b%d", dir, i);
		kib += read_whole(p) / 1024;
		files++;
		usleep(THINK_US);
	}
	end = now_us();
	self_delays(&cpu_ms, &runq_ms, &blkio_ms);
	printf("STARTUP ms=%llu files=%d kib=%ld cpu_ms=%lld runq_ms=%lld blkio_ms=%lld\n",
	       (unsigned long long)(end - t0) / 1000, files, kib, cpu_ms,
	       runq_ms, blkio_ms);
	return 0;
}

static int do_video(int argc, char **argv)
{
	const char *path = argv[0];
	double secs = atof(argv[1]);
	int fps = argc > 2 ? atoi(argv[2]) : 25;
	int min_kb = argc > 4 ? atoi(argv[3]) : 100;
	int max_kb = argc > 4 ? atoi(argv[4]) : 300;
	uint64_t period = 1000000 / fps, t0, slot, end, worst = 0, maxd = 0;
	uint64_t wake_max = 0, read_max = 0, late_wake = 0, late_read = 0;
	int fd = open(path, O_RDONLY | O_DIRECT), frames, i, late = 0;
	off_t size, off = 0;

	if (fd < 0)
		die(path);
	size = lseek(fd, 0, SEEK_END);
	frames = (int)(secs * fps);
	t0 = now_us();
	for (i = 0; i < frames; i++) {
		/* A multiple of 4 KiB, for O_DIRECT. */
		size_t len = (min_kb + rnd() % (max_kb - min_kb + 1)) * 1000;
		uint64_t t, done;

		len = (len + 4095) & ~4095ul;
		slot = t0 + i * period;
		t = now_us();
		/* Past twice its length the stream gave up: the frames not
		 * read are late. */
		if (t > t0 + 2 * (uint64_t)(secs * 1e6)) {
			late += frames - i;
			if (t - slot > worst)
				worst = t - slot;
			break;
		}
		if (off + (off_t)len > size)
			off = 0;
		/* Until the slot: usleep() may come back a little early, and
		 * a read started before it would make done - slot wrap. */
		while ((t = now_us()) < slot)
			usleep(slot - t);
		if (pread(fd, buf, len, off) != (ssize_t)len)
			die("video read");
		off += len;
		done = now_us();
		if (done - slot > maxd)
			maxd = done - slot;
		/* Where a frame's time went: waiting for a CPU (or for the
		 * previous frame) before its read, and the read itself. */
		if (t - slot > wake_max)
			wake_max = t - slot;
		if (done - t > read_max)
			read_max = done - t;
		if (done > slot + period) {
			late++;
			late_wake += t - slot;
			late_read += done - t;
			if (done - slot - period > worst)
				worst = done - slot - period;
		}
	}
	end = now_us();
	printf("VIDEO frames=%d late=%d worst_late_ms=%.1f max_ms=%.1f secs=%.1f wake_max_ms=%.1f read_max_ms=%.1f late_wake_ms=%.1f late_read_ms=%.1f\n",
	       frames, late, worst / 1000.0, maxd / 1000.0, (end - t0) / 1e6,
	       wake_max / 1000.0, read_max / 1000.0, late_wake / 1000.0,
	       late_read / 1000.0);
	return 0;
}

static int do_burst(int n, int nfiles, char **files)
{
	uint64_t t0 = now_us();
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			int j = nfiles < n ? i % nfiles : i;

			for (; j < nfiles; j += n)
				read_whole(files[j]);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	printf("BURST ms=%llu n=%d\n",
	       (unsigned long long)(now_us() - t0) / 1000, n);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	stop = 1;
}

static int do_randread(const char *dev, long long off_mib, long long size_mib,
		       double secs)
{
	uint64_t t0 = now_us(), end = t0 + (uint64_t)(secs * 1e6);
	uint64_t blocks = (uint64_t)size_mib << 8, ios = 0;
	struct sigaction sa = { .sa_handler = on_stop };
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (!blocks || off_mib < 0) {
		fprintf(stderr, "lowlat: randread: empty region\n");
		return 2;
	}
	if (fd < 0)
		die(dev);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Each region its own sequence of offsets. */
	rnd_state ^= (uint32_t)(off_mib * 2654435761u) | 1;
	do {
		off_t pos = ((off_t)off_mib << 20) + (off_t)(rnd() % blocks) * 4096;

		if (pread(fd, buf, 4096, pos) != 4096) {
			if (errno == EINTR && stop)
				break;
			die("randread");
		}
		ios++;
		/* The clock every 64 reads: cheap next to a read. */
	} while (!stop && ((ios & 63) || now_us() < end));
	printf("RANDREAD ios=%llu secs=%.1f\n", (unsigned long long)ios,
	       (now_us() - t0) / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	if (posix_memalign((void **)&buf, 4096, RD_BUF))
		die("memalign");
	if (argc == 3 && !strcmp(argv[1], "layout"))
		return do_layout(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "fill")) {
		write_file(argv[2], (size_t)atoi(argv[3]) << 20);
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "startup"))
		return do_startup(argv[2], argc == 4 ? atoll(argv[3]) * 1000 : 0);
	if (argc >= 4 && !strcmp(argv[1], "video"))
		return do_video(argc - 2, argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "burst"))
		return do_burst(atoi(argv[2]), argc - 3, argv + 3);
	if (argc == 6 && !strcmp(argv[1], "randread"))
		return do_randread(argv[2], atoll(argv[3]), atoll(argv[4]),
				   atof(argv[5]));
	fprintf(stderr, "usage: lowlat layout DIR | fill FILE MIB | startup DIR |\n"
		"       video FILE SECS [FPS [MIN_KB MAX_KB]] | burst N FILE... |\n"
		"       randread DEV OFF_MIB SIZE_MIB SECS\n");
	return 2;
}

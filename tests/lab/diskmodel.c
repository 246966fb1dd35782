// SPDX-License-Identifier: GPL-2.0
/*
 * diskmodel: a block device with the timing of a 7200 rpm disk or of an
 * SSD, kept in user space and served to the kernel through nbd, so that
 * the I/O schedulers in the lab (tests/lab/) face seeks, rotation and zones
 * instead of null_blk's constant service time.
 *
 *   diskmodel [options] /dev/nbdN     attach the model to /dev/nbdN and
 *                                     return once the disk is usable
 *   diskmodel -x /dev/nbdN            detach it (the server writes its
 *                                     statistics, -S, and exits)
 *   diskmodel -E [options]            print the model's own figures (the
 *                                     calibration's expectations) and exit
 *   diskmodel -i [options]            serve the protocol on standard input
 *                                     (a socket) without nbd: for tests
 *
 * Design, in order:
 *
 * 1. Plumbing. One static binary. The launcher forks a server and a
 *    "client" process joined by a socketpair: the client hands its end to
 *    the nbd driver (NBD_SET_SOCK) and sleeps in NBD_DO_IT until the device
 *    is disconnected; the server speaks nbd's simple transmission protocol
 *    on the other end: 28-byte requests (magic, type, handle, offset,
 *    length, then the data of a write), 16-byte replies (magic, error,
 *    handle, then the data of a read), in any order.
 *
 * 2. Time. The server reads requests as they come (the kernel may have up
 *    to its 128 tags outstanding), gives each a start and a completion time
 *    on the model's own timeline and replies when CLOCK_MONOTONIC reaches
 *    the completion (clock_nanosleep for the last stretch). A unit starts
 *    its next request when its previous one completes on that timeline, not
 *    when the server notices, so a late wake-up delays a reply without
 *    drifting the model.
 *
 * 3. The disk (-m disk). One head over one spiral of tracks from the outer
 *    edge (LBA 0) inwards. Bit density is constant, so the bytes per track,
 *    and the transfer rate, fall in proportion to the radius, from
 *    rate_outer to rate_inner; LBA fraction f lies at radius
 *    r(f) = sqrt(1 - f (1 - rho^2)) (rho = rate_inner / rate_outer, r in
 *    units of the outer radius), and its track number (counted from the
 *    edge, fractional) is N (1 - r(f)) / (1 - rho) with
 *    N = 2 capacity / (track_bytes_outer (1 + rho)) tracks. The fraction
 *    of that track number is the sector's angle on the platter, consistent
 *    with the transfer rate: a head that reads back to back never waits.
 *    - seek between tracks d apart: 0 on the same track, else
 *      t2t + (full - t2t) sqrt((d - 1) / (N - 1)), plus write_settle for a
 *      write; with 1 and 15 ms the mean over random pairs is 8.5 ms.
 *    - rotation: the platter's angle is (time / revolution) mod 1; after
 *      the seek the head waits for the sector to come round.
 *    - transfer: length / rate at the request's zone.
 *    - read-ahead: after a read the drive keeps reading on into its cache
 *      while idle, up to ra_kib; a read that starts in that segment costs
 *      only what the head has not reached yet (a sequential reader with a
 *      short think time streams at the media rate, as on a real drive).
 *    - internal queue (-q N): the first N requests in arrival order are
 *      visible to the drive, which serves the one with the shortest
 *      positioning time (seek + rotation), or, once a request has waited
 *      max_age, that one (NCQ's reordering, with aging). -q 1 is FIFO.
 *
 * 4. The SSD (-m ssd). C channels, each serving one request at a time for
 *    a fixed latency, then its data crosses one shared bus at the
 *    bandwidth ceiling; requests go to free channels in arrival order.
 *
 * 5. Data. Kept in one anonymous MAP_NORESERVE mapping of the device's
 *    size: never-written blocks read as zeros and cost no memory, written
 *    ones stay, so fio --verify works. -n drops writes (for long write
 *    loads that would not fit in the guest's memory); reads then see zeros.
 *
 * 6. Scale. TCG cannot move 150 MB/s through nbd, so every transfer rate
 *    (disk media, read-ahead hits, SSD bus) is multiplied by -r (default
 *    0.25: 37.5 MB/s outer, 18.75 MB/s inner, close to the 36 MB/s disk of
 *    BFQ's 2007 experiments) while seek, rotation and latency keep their
 *    real values. tests/lab/README.md gives the figures and their sources.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <linux/nbd.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lab-time.h"

#define MB		1000000.0	/* datasheet megabytes */
#define MAX_REQS	1024		/* nbd has 128 tags per connection */
#define MAX_CHANNELS	64
/* Below this, sleep with clock_nanosleep instead of waiting in ppoll. */
#define SPIN_WINDOW_NS	(200 * NSEC_PER_USEC)

enum model_kind { MODEL_DISK, MODEL_SSD };

/* Every knob, with its default in model_defaults(). */
struct model_params {
	enum model_kind kind;
	uint64_t size_bytes;
	double rate_scale;		/* multiplies every transfer rate */
	/* disk */
	double rpm;
	double seek_t2t_ms;		/* track to track */
	double seek_full_ms;		/* full stroke */
	double write_settle_ms;		/* added to a write's seek */
	double rate_outer_mbps;		/* media rate at LBA 0, unscaled */
	double rate_inner_mbps;		/* at the last LBA, unscaled */
	double iface_mbps;		/* cache to host, unscaled */
	double ra_kib;			/* read-ahead segment */
	int ncq_depth;
	double max_age_ms;		/* NCQ aging */
	/* ssd */
	int channels;
	double ssd_lat_us;
	double ssd_bw_mbps;		/* bandwidth ceiling, unscaled */
	/* data */
	int drop_writes;
};

struct request {
	uint64_t handle;		/* opaque, network order as received */
	uint32_t type;
	uint64_t off;
	uint32_t len;
	int64_t arrival_ns;
	int64_t start_ns;
	int64_t due_ns;
	int unit;			/* -1 while queued */
	int error;
};

/* The disk's mechanical state: where the head is and what it has cached. */
struct disk_state {
	double track_pos;		/* fractional track number of the head */
	uint64_t ra_base;		/* first byte after the last read */
	int64_t ra_since_ns;		/* when the head started reading ahead */
	int ra_valid;
};

struct stats {
	uint64_t reqs[2], bytes[2];	/* [0] reads, [1] writes */
	double service_ns_sum;		/* start to completion */
	double latency_ns_sum;		/* arrival to completion */
	double late_ns_sum;		/* completion to reply sent */
	uint64_t reordered;		/* not the oldest of the window */
};

/* The server's whole state; one instance, in the server process. */
struct server {
	struct model_params p;
	int fd;
	unsigned char *store;
	struct request *reqs[MAX_REQS];	/* arrival order, queued and started */
	int nr_reqs;
	int64_t unit_free_ns[MAX_CHANNELS];
	int unit_busy[MAX_CHANNELS];
	int64_t bus_free_ns;
	struct disk_state disk;
	struct stats st;
	double ntracks;
	double rev_ns;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("diskmodel: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * Defaults: a 500 GB 7200 rpm SATA disk (tests/lab/README.md lists the
 * datasheets), and a SATA SSD.
 */
static void model_defaults(struct model_params *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = MODEL_DISK;
	p->size_bytes = 500ULL * 1000 * 1000 * 1000;
	p->rate_scale = 0.25;
	p->rpm = 7200;
	p->seek_t2t_ms = 1.0;
	p->seek_full_ms = 15.0;
	p->write_settle_ms = 1.0;
	p->rate_outer_mbps = 150;
	p->rate_inner_mbps = 75;
	p->iface_mbps = 300;
	p->ra_kib = 1024;
	p->ncq_depth = 1;
	p->max_age_ms = 500;
	p->channels = 8;
	p->ssd_lat_us = 100;
	p->ssd_bw_mbps = 500;
}

/* ---- the disk's geometry and timing ---- */

static double rho(const struct model_params *p)
{
	return p->rate_inner_mbps / p->rate_outer_mbps;
}

/* Radius of byte offset off, in units of the outer radius. */
static double radius_at(const struct model_params *p, uint64_t off)
{
	double f = (double)off / (double)p->size_bytes;
	double r = rho(p);

	return sqrt(1.0 - f * (1.0 - r * r));
}

static double track_at(const struct server *s, uint64_t off)
{
	return s->ntracks * (1.0 - radius_at(&s->p, off)) / (1.0 - rho(&s->p));
}

/* Media rate at off, in bytes per ns, scaled. */
static double media_rate(const struct model_params *p, uint64_t off)
{
	return p->rate_outer_mbps * MB * p->rate_scale * radius_at(p, off) /
	       NSEC_PER_SEC;
}

static double seek_ns(const struct server *s, double from, double to)
{
	double d = fabs(floor(to) - floor(from));

	if (d < 1)
		return 0;
	return (s->p.seek_t2t_ms + (s->p.seek_full_ms - s->p.seek_t2t_ms) *
		sqrt((d - 1) / (s->ntracks - 1))) * NSEC_PER_MSEC;
}

/* Time from t until the sector at fractional track tr is under the head. */
static double rotation_wait_ns(const struct server *s, double tr, double t)
{
	double platter = fmod(t / s->rev_ns, 1.0);
	double sector = tr - floor(tr);
	double w = sector - platter;

	if (w < 0)
		w += 1.0;
	return w * s->rev_ns;
}

/* Where the read-ahead has got to at time t (a byte offset). */
static double ra_reached(const struct server *s, int64_t t)
{
	const struct disk_state *d = &s->disk;
	double n = (double)(t - d->ra_since_ns) * media_rate(&s->p, d->ra_base);

	if (n > s->p.ra_kib * 1024)
		n = s->p.ra_kib * 1024;
	return (double)d->ra_base + (n > 0 ? n : 0);
}

/*
 * Whether a read of [off, off + len) at time t comes from the read-ahead:
 * it starts in the cached part, or at most one track ahead of the head
 * inside the segment (the head gets there sooner than a rotation would
 * bring it round). *cached gets the bytes already in the cache, *stream
 * those the head still has to read from where it is (a gap before off
 * included).
 */
static int ra_hit(const struct server *s, uint64_t off, uint32_t len,
		  int64_t t, double *cached, double *stream)
{
	const struct disk_state *d = &s->disk;
	double reached = ra_reached(s, t), end = (double)off + len;
	double track_bytes = media_rate(&s->p, off) * s->rev_ns;

	if (!d->ra_valid || off < d->ra_base ||
	    off > d->ra_base + s->p.ra_kib * 1024 || off > reached + track_bytes)
		return 0;
	*cached = reached > end ? len : reached > off ? reached - off : 0;
	*stream = reached < end ? end - reached : 0;
	return 1;
}

/*
 * Positioning time (seek, settle, rotation) of request r if the head
 * starts on it at t; for a read the read-ahead covers, the time the head
 * streams before it reaches the request's first byte.
 */
static double disk_position_ns(const struct server *s,
			       const struct request *r, int64_t t)
{
	double tr = track_at(s, r->off), sk, cached, stream, reached;

	if (r->type == NBD_CMD_READ &&
	    ra_hit(s, r->off, r->len, t, &cached, &stream)) {
		reached = ra_reached(s, t);
		return reached < r->off ?
			(r->off - reached) / media_rate(&s->p, r->off) : 0;
	}
	sk = seek_ns(s, s->disk.track_pos, tr);
	if (r->type == NBD_CMD_WRITE && sk > 0)
		sk += s->p.write_settle_ms * NSEC_PER_MSEC;
	return sk + rotation_wait_ns(s, tr, t + sk);
}

/*
 * Service time of r started at t; moves the head and its read-ahead. A
 * read served wholly from the cache leaves the head reading ahead where it
 * was, with the segment now starting after that read.
 */
static double disk_service_ns(struct server *s, const struct request *r,
			      int64_t t)
{
	double rate = media_rate(&s->p, r->off), ns, cached, stream, reached;
	double iface = s->p.iface_mbps * MB * s->p.rate_scale / NSEC_PER_SEC;
	struct disk_state *d = &s->disk;
	uint64_t end = r->off + r->len;

	if (r->type == NBD_CMD_READ && ra_hit(s, r->off, r->len, t, &cached, &stream)) {
		ns = cached / iface + stream / rate;
		if (stream == 0) {
			reached = ra_reached(s, t);
			d->ra_base = end;
			d->ra_since_ns = t - (int64_t)((reached - end) / rate);
			return ns;
		}
	} else {
		ns = disk_position_ns(s, r, t) + r->len / rate;
	}
	d->track_pos = track_at(s, end);
	d->ra_valid = r->type == NBD_CMD_READ;
	d->ra_base = end;
	d->ra_since_ns = t + (int64_t)ns;
	return ns;
}

/* ---- picking and timing requests ---- */

/* Index in s->reqs of the request the disk serves next at time t. */
static int disk_pick(const struct server *s, int64_t t)
{
	int i, seen = 0, best = -1, oldest = -1;
	double best_ns = 0, ns;

	for (i = 0; i < s->nr_reqs && seen < s->p.ncq_depth; i++) {
		const struct request *r = s->reqs[i];

		if (r->unit >= 0)
			continue;
		seen++;
		if (oldest < 0)
			oldest = i;
		ns = disk_position_ns(s, r, t);
		if (best < 0 || ns < best_ns) {
			best = i;
			best_ns = ns;
		}
	}
	if (oldest >= 0 &&
	    t - s->reqs[oldest]->arrival_ns > s->p.max_age_ms * NSEC_PER_MSEC)
		return oldest;
	return best;
}

/* The first queued request (SSD: arrival order). */
static int fifo_pick(const struct server *s)
{
	int i;

	for (i = 0; i < s->nr_reqs; i++)
		if (s->reqs[i]->unit < 0)
			return i;
	return -1;
}

static double ssd_service_ns(struct server *s, const struct request *r,
			     int64_t t)
{
	double bw = s->p.ssd_bw_mbps * MB * s->p.rate_scale / NSEC_PER_SEC;
	double media_done = t + s->p.ssd_lat_us * NSEC_PER_USEC;
	double bus_start = media_done > s->bus_free_ns ? media_done : s->bus_free_ns;
	double done = bus_start + r->len / bw;

	s->bus_free_ns = (int64_t)done;
	return done - t;
}

/* Start what the free units can take at time now. */
static void dispatch(struct server *s, int64_t now)
{
	int units = s->p.kind == MODEL_DISK ? 1 : s->p.channels;
	int u, i, first;
	struct request *r;
	int64_t t;

	for (u = 0; u < units; u++) {
		if (s->unit_busy[u] || s->unit_free_ns[u] > now)
			continue;
		first = fifo_pick(s);
		if (first < 0)
			return;
		t = s->unit_free_ns[u];
		if (t < s->reqs[first]->arrival_ns)
			t = s->reqs[first]->arrival_ns;
		i = s->p.kind == MODEL_DISK ? disk_pick(s, t) : first;
		r = s->reqs[i];
		if (t < r->arrival_ns)
			t = r->arrival_ns;
		if (i != first)
			s->st.reordered++;
		r->unit = u;
		r->start_ns = t;
		r->due_ns = t + (int64_t)(s->p.kind == MODEL_DISK ?
					  disk_service_ns(s, r, t) :
					  ssd_service_ns(s, r, t));
		s->unit_busy[u] = 1;
		s->unit_free_ns[u] = r->due_ns;
	}
}

/* ---- the nbd protocol ---- */

struct nbd_req_wire {
	uint32_t magic;
	uint32_t type;
	uint64_t handle;
	uint64_t from;
	uint32_t len;
} __attribute__((packed));

struct nbd_reply_wire {
	uint32_t magic;
	uint32_t error;
	uint64_t handle;
} __attribute__((packed));

static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	ssize_t k;

	while (n) {
		k = read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

static int write_full_iov(int fd, struct iovec *iov, int cnt)
{
	ssize_t k;

	while (cnt) {
		k = writev(fd, iov, cnt);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		while (cnt && (size_t)k >= iov->iov_len) {
			k -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= k;
		}
	}
	return 0;
}

static void reply(struct server *s, struct request *r)
{
	struct nbd_reply_wire w = {
		.magic = htonl(NBD_REPLY_MAGIC),
		.error = htonl(r->error),
		.handle = r->handle,
	};
	struct iovec iov[2] = { { &w, sizeof(w) } };
	int cnt = 1;

	if (r->type == NBD_CMD_READ && !r->error) {
		iov[1].iov_base = s->store + r->off;
		iov[1].iov_len = r->len;
		cnt = 2;
	}
	if (write_full_iov(s->fd, iov, cnt))
		die("%s: %s", __func__, strerror(errno));
}

static void account(struct server *s, const struct request *r, int64_t now)
{
	int w = r->type == NBD_CMD_WRITE;

	if (r->type != NBD_CMD_READ && !w)
		return;
	s->st.reqs[w]++;
	s->st.bytes[w] += r->len;
	s->st.service_ns_sum += r->due_ns - r->start_ns;
	s->st.latency_ns_sum += r->due_ns - r->arrival_ns;
	s->st.late_ns_sum += now - r->due_ns;
}

/* Reply to every started request that is due by now, earliest first. */
static void complete_due(struct server *s, int64_t now)
{
	int i, j, best;

	for (;;) {
		best = -1;
		for (i = 0; i < s->nr_reqs; i++) {
			struct request *r = s->reqs[i];

			if (r->unit >= 0 && r->due_ns <= now &&
			    (best < 0 || r->due_ns < s->reqs[best]->due_ns))
				best = i;
		}
		if (best < 0)
			return;
		reply(s, s->reqs[best]);
		account(s, s->reqs[best], now_ns());
		s->unit_busy[s->reqs[best]->unit] = 0;
		free(s->reqs[best]);
		for (j = best; j < s->nr_reqs - 1; j++)
			s->reqs[j] = s->reqs[j + 1];
		s->nr_reqs--;
	}
}

/*
 * Read one request. Returns 0, or 1 on NBD_CMD_DISC or a closed socket.
 * Writes land in the store on arrival; flushes and trims, which a drive
 * without a write cache answers at once, are replied to here.
 */
static int receive(struct server *s)
{
	struct nbd_req_wire w;
	struct request *r;
	static char sink[1 << 16];
	uint32_t left, n;

	if (read_full(s->fd, &w, sizeof(w)))
		return 1;
	if (ntohl(w.magic) != NBD_REQUEST_MAGIC)
		die("bad request magic %#x", ntohl(w.magic));
	r = calloc(1, sizeof(*r));
	if (!r)
		die("out of memory");
	r->handle = w.handle;
	r->type = ntohl(w.type) & 0xffff;
	r->off = be64toh(w.from);
	r->len = ntohl(w.len);
	r->arrival_ns = now_ns();
	r->unit = -1;
	if (r->type == NBD_CMD_DISC) {
		free(r);
		return 1;
	}
	if (r->off + r->len > s->p.size_bytes || r->off + r->len < r->off)
		r->error = EINVAL;
	if (r->type == NBD_CMD_WRITE) {
		for (left = r->len; left; left -= n) {
			n = left < sizeof(sink) ? left : sizeof(sink);
			if (read_full(s->fd, (r->error || s->p.drop_writes) ?
				      sink : (char *)s->store + r->off + (r->len - left), n))
				return 1;
		}
	}
	if ((r->type != NBD_CMD_READ && r->type != NBD_CMD_WRITE) || r->error) {
		if (r->type != NBD_CMD_FLUSH && r->type != NBD_CMD_TRIM)
			r->error = r->error ? r->error : EINVAL;
		reply(s, r);
		free(r);
		return 0;
	}
	if (s->nr_reqs == MAX_REQS)
		die("more than %d requests outstanding", MAX_REQS);
	s->reqs[s->nr_reqs++] = r;
	return 0;
}

static int64_t next_due(const struct server *s)
{
	int64_t t = INT64_MAX;
	int i;

	for (i = 0; i < s->nr_reqs; i++)
		if (s->reqs[i]->unit >= 0 && s->reqs[i]->due_ns < t)
			t = s->reqs[i]->due_ns;
	return t;
}

/* Wait for a request or until t; returns 1 when the socket is readable. */
static int wait_event(struct server *s, int64_t t)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	int64_t left = t - now_ns();
	struct timespec ts;

	if (t != INT64_MAX && left < SPIN_WINDOW_NS) {
		if (poll(&pfd, 1, 0) > 0)
			return 1;
		sleep_until_ns(t);
		return 0;
	}
	if (t != INT64_MAX) {
		left -= SPIN_WINDOW_NS / 2;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
	}
	if (ppoll(&pfd, 1, t == INT64_MAX ? NULL : &ts, NULL) < 0 &&
	    errno != EINTR)
		die("ppoll: %s", strerror(errno));
	return (pfd.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

static void write_stats(const struct server *s, const char *path)
{
	uint64_t n = s->st.reqs[0] + s->st.reqs[1];
	FILE *f = path ? fopen(path, "w") : stderr;

	if (!f)
		return;
	fprintf(f, "reads %llu read_bytes %llu writes %llu write_bytes %llu "
		"mean_service_ms %.3f mean_latency_ms %.3f mean_late_ms %.3f "
		"reordered %llu\n",
		(unsigned long long)s->st.reqs[0],
		(unsigned long long)s->st.bytes[0],
		(unsigned long long)s->st.reqs[1],
		(unsigned long long)s->st.bytes[1],
		n ? s->st.service_ns_sum / n / NSEC_PER_MSEC : 0.0,
		n ? s->st.latency_ns_sum / n / NSEC_PER_MSEC : 0.0,
		n ? s->st.late_ns_sum / n / NSEC_PER_MSEC : 0.0,
		(unsigned long long)s->st.reordered);
	if (path)
		fclose(f);
}

static void server_init(struct server *s, const struct model_params *p)
{
	double track_outer;

	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->rev_ns = 60.0 * NSEC_PER_SEC / p->rpm;
	track_outer = p->rate_outer_mbps * MB * p->rate_scale * s->rev_ns /
		      NSEC_PER_SEC;
	s->ntracks = 2.0 * p->size_bytes / (track_outer * (1 + rho(p)));
}

static void serve(struct server *s, const char *stats_path)
{
	int64_t now;

	for (;;) {
		now = now_ns();
		complete_due(s, now);
		dispatch(s, now);
		if (wait_event(s, next_due(s)) && receive(s))
			break;
	}
	write_stats(s, stats_path);
}

/* ---- the model's expectations (-E) ---- */

/* Mean service time of n back-to-back requests of len bytes at offsets. */
static double expect_ns(struct server *s, uint32_t len, int random,
			uint64_t base, int n)
{
	struct request r = { .type = NBD_CMD_READ, .len = len };
	double t = 1e9;
	uint64_t blocks = s->p.size_bytes / len;
	int i;

	s->disk.ra_valid = 0;
	for (i = 0; i < n; i++) {
		r.off = random ? (uint64_t)(drand48() * blocks) * len :
				 base + (uint64_t)i * len;
		t += s->p.kind == MODEL_DISK ? disk_service_ns(s, &r, (int64_t)t) :
					       ssd_service_ns(s, &r, (int64_t)t);
	}
	return (t - 1e9) / n;
}

static void print_expect(const struct model_params *p)
{
	struct server s;
	uint64_t inner = p->size_bytes - 256ULL * 1048576;

	server_init(&s, p);
	srand48(1);
	printf("seq_outer_MBps %.2f\n", 1048576 / expect_ns(&s, 1048576, 0, 0, 64) * 1e3);
	printf("seq_inner_MBps %.2f\n", 1048576 / expect_ns(&s, 1048576, 0, inner, 64) * 1e3);
	printf("rand4k_ms %.3f\n", expect_ns(&s, 4096, 1, 0, 200000) / 1e6);
	printf("rand4k_iops %.1f\n", 1e9 / expect_ns(&s, 4096, 1, 0, 200000));
	printf("tracks %.0f revolution_ms %.3f\n", s.ntracks, s.rev_ns / 1e6);
}

/* ---- attaching to nbd ---- */

static void nbd_ioctl(int fd, unsigned long req, unsigned long arg,
		      const char *what)
{
	if (ioctl(fd, req, arg) < 0)
		die("%s: %s", what, strerror(errno));
}

/* The client: configure the device and hand the socket over until detach. */
static void run_client(const char *dev, int sock, const struct model_params *p)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	ioctl(fd, NBD_CLEAR_SOCK);
	nbd_ioctl(fd, NBD_SET_BLKSIZE, 4096, "NBD_SET_BLKSIZE");
	nbd_ioctl(fd, NBD_SET_SIZE_BLOCKS, p->size_bytes / 4096,
		  "NBD_SET_SIZE_BLOCKS");
	nbd_ioctl(fd, NBD_SET_FLAGS, NBD_FLAG_HAS_FLAGS, "NBD_SET_FLAGS");
	nbd_ioctl(fd, NBD_SET_SOCK, sock, "NBD_SET_SOCK");
	close(sock);
	if (ioctl(fd, NBD_DO_IT) < 0 && errno != EPIPE && errno != 0)
		fprintf(stderr, "diskmodel: NBD_DO_IT ended: %s\n", strerror(errno));
	ioctl(fd, NBD_CLEAR_SOCK);
	exit(0);
}

/* Wait until the kernel says the device runs: /sys/block/nbdN/pid exists. */
static void wait_attached(const char *dev, pid_t client)
{
	char path[256];
	const char *name = strrchr(dev, '/');
	int i, st;

	snprintf(path, sizeof(path), "/sys/block/%s/pid", name ? name + 1 : dev);
	for (i = 0; i < 2000; i++) {
		if (access(path, F_OK) == 0)
			return;
		if (waitpid(client, &st, WNOHANG) == client)
			die("%s: the nbd client exited before the device ran", dev);
		usleep(5000);
	}
	die("%s: not attached after 10 s", dev);
}

/*
 * The server and the client outlive the launcher: they must not hold its
 * output open (a caller reading it through a pipe would wait for them).
 * Their messages go to the kernel log.
 */
static void detach_stdio(void)
{
	int null = open("/dev/null", O_RDWR), kmsg = open("/dev/kmsg", O_WRONLY);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(kmsg >= 0 ? kmsg : null, 2);
	}
}

static void attach(const char *dev, const struct model_params *p,
		   const char *stats_path)
{
	static struct server s;
	int sv[2];
	pid_t server, client;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair: %s", strerror(errno));
	server_init(&s, p);
	s.store = mmap(NULL, p->size_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s.store == MAP_FAILED)
		die("mmap %llu bytes: %s", (unsigned long long)p->size_bytes,
		    strerror(errno));
	server = fork();
	if (server < 0)
		die("fork: %s", strerror(errno));
	if (server == 0) {
		close(sv[1]);
		setsid();
		detach_stdio();
		s.fd = sv[0];
		serve(&s, stats_path);
		exit(0);
	}
	munmap(s.store, p->size_bytes);
	close(sv[0]);
	client = fork();
	if (client < 0)
		die("fork: %s", strerror(errno));
	if (client == 0) {
		setsid();
		detach_stdio();
		run_client(dev, sv[1], p);
	}
	close(sv[1]);
	wait_attached(dev, client);
	printf("%d %d\n", server, client);
}

/* -i: the server alone, on fd 0, for tests/lab/test-diskmodel.py. */
static void serve_stdin(const struct model_params *p, const char *stats_path)
{
	static struct server s;

	server_init(&s, p);
	s.store = mmap(NULL, p->size_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s.store == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	s.fd = 0;
	serve(&s, stats_path);
}

static void detach(const char *dev)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	nbd_ioctl(fd, NBD_DISCONNECT, 0, "NBD_DISCONNECT");
	ioctl(fd, NBD_CLEAR_SOCK);
	close(fd);
}

/* ---- options ---- */

static uint64_t parse_size(const char *a)
{
	char *end;
	double v = strtod(a, &end);

	const char *units = "KMGT", *u = NULL;

	if (*end)
		u = end[1] ? NULL : strchr(units, *end);
	if (*end && !u)
		die("bad size %s", a);
	if (u)
		v *= pow(1000, u - units + 1);
	return (uint64_t)v & ~4095ULL;
}

static void usage(void)
{
	fputs("usage: diskmodel [-m disk|ssd] [options] /dev/nbdN\n"
	      "       diskmodel -x /dev/nbdN      detach\n"
	      "       diskmodel -E [options]      the model's own figures\n"
	      "       diskmodel -i [options]      serve on stdin (tests)\n"
	      "  -s SIZE   device size, K/M/G/T decimal (500G)\n"
	      "  -r F      transfer-rate scale for TCG (0.25)\n"
	      "  -n        drop written data (reads return zeros)\n"
	      "  -S FILE   statistics written there on detach\n"
	      " disk: --rpm 7200 --t2t-ms 1 --full-ms 15 --settle-ms 1\n"
	      "       --outer-mbps 150 --inner-mbps 75 --iface-mbps 300\n"
	      "       --ra-kib 1024 -q NCQ_DEPTH (1) --max-age-ms 500\n"
	      " ssd:  -c CHANNELS (8) --lat-us 100 --bw-mbps 500\n", stderr);
	exit(2);
}

/* The long options: each sets one double of struct model_params. */
static const struct {
	const char *name;
	size_t offset;
} dbl_opts[] = {
	{ "rpm", offsetof(struct model_params, rpm) },
	{ "t2t-ms", offsetof(struct model_params, seek_t2t_ms) },
	{ "full-ms", offsetof(struct model_params, seek_full_ms) },
	{ "settle-ms", offsetof(struct model_params, write_settle_ms) },
	{ "outer-mbps", offsetof(struct model_params, rate_outer_mbps) },
	{ "inner-mbps", offsetof(struct model_params, rate_inner_mbps) },
	{ "iface-mbps", offsetof(struct model_params, iface_mbps) },
	{ "ra-kib", offsetof(struct model_params, ra_kib) },
	{ "max-age-ms", offsetof(struct model_params, max_age_ms) },
	{ "lat-us", offsetof(struct model_params, ssd_lat_us) },
	{ "bw-mbps", offsetof(struct model_params, ssd_bw_mbps) },
};
#define NR_DBL_OPTS (sizeof(dbl_opts) / sizeof(dbl_opts[0]))
#define DBL_OPT_BASE 256

static void set_dbl_opt(struct model_params *p, int c, const char *a)
{
	char *end;
	double v = strtod(a, &end);

	if (*end || end == a)
		die("--%s: not a number: %s", dbl_opts[c - DBL_OPT_BASE].name, a);
	*(double *)((char *)p + dbl_opts[c - DBL_OPT_BASE].offset) = v;
}

static void check_params(const struct model_params *p)
{
	if (p->size_bytes < (64ULL << 20))
		die("size below 64 MiB");
	if (p->rate_scale <= 0 || p->rpm <= 0 || p->rate_outer_mbps <= 0 ||
	    p->rate_inner_mbps <= 0 || p->rate_inner_mbps >= p->rate_outer_mbps ||
	    p->iface_mbps <= 0 || p->ssd_bw_mbps <= 0)
		die("rates must be positive, the inner below the outer");
	if (p->ncq_depth < 1 || p->ncq_depth > MAX_REQS)
		die("-q must be 1..%d", MAX_REQS);
	if (p->channels < 1 || p->channels > MAX_CHANNELS)
		die("-c must be 1..%d", MAX_CHANNELS);
}

static void parse_short(struct model_params *p, int c, const char *a)
{
	switch (c) {
	case 'm':
		if (!strcmp(a, "disk"))
			p->kind = MODEL_DISK;
		else if (!strcmp(a, "ssd"))
			p->kind = MODEL_SSD;
		else
			usage();
		break;
	case 's':
		p->size_bytes = parse_size(a);
		break;
	case 'r':
		p->rate_scale = atof(a);
		break;
	case 'n':
		p->drop_writes = 1;
		break;
	case 'q':
		p->ncq_depth = atoi(a);
		break;
	case 'c':
		p->channels = atoi(a);
		break;
	default:
		usage();
	}
}

int main(int argc, char **argv)
{
	struct option long_opts[NR_DBL_OPTS + 1] = { { 0 } };
	struct model_params p;
	const char *stats_path = NULL;
	int c, expect = 0, do_detach = 0, on_stdin = 0;
	size_t i;

	for (i = 0; i < NR_DBL_OPTS; i++) {
		long_opts[i].name = dbl_opts[i].name;
		long_opts[i].has_arg = required_argument;
		long_opts[i].val = DBL_OPT_BASE + i;
	}
	model_defaults(&p);
	while ((c = getopt_long(argc, argv, "m:s:r:nS:q:c:xEi", long_opts,
				NULL)) != -1) {
		if (c >= DBL_OPT_BASE)
			set_dbl_opt(&p, c, optarg);
		else if (c == 'S')
			stats_path = optarg;
		else if (c == 'x')
			do_detach = 1;
		else if (c == 'E')
			expect = 1;
		else if (c == 'i')
			on_stdin = 1;
		else
			parse_short(&p, c, optarg);
	}
	check_params(&p);
	if (expect) {
		print_expect(&p);
		return 0;
	}
	if (on_stdin) {
		serve_stdin(&p, stats_path);
		return 0;
	}
	if (optind != argc - 1)
		usage();
	if (do_detach)
		detach(argv[optind]);
	else
		attach(argv[optind], &p, stats_path);
	return 0;
}

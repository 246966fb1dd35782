#!/usr/bin/python3
"""test-diskmodel.py DISKMODEL: host-side check of tests/lab/diskmodel.c.

Runs the model's server on one end of a socketpair (diskmodel -i) and
speaks nbd's simple protocol to it, as the kernel would: written data reads
back, requests out of range fail, replies come out of order when the model
says so (NCQ: a near read overtakes a far one), and service times follow
the model (sequential 1 MiB reads at the outer rate; random 4 KiB reads
near their modelled mean). Prints one line per check; exit status 1 on a
failure.
"""
import os
import random
import socket
import struct
import subprocess
import sys
import time

REQ, REP = 0x25609513, 0x67446698
fails = 0


def check(desc, ok):
    global fails
    print("%s: %s" % ("ok" if ok else "not ok", desc))
    fails += 0 if ok else 1


class Conn:
    def __init__(self, args):
        a, b = socket.socketpair()
        self.p = subprocess.Popen([sys.argv[1], "-i"] + args, stdin=b)
        b.close()
        self.s = a
        self.h = 0

    def send(self, typ, off, data_or_len):
        self.h += 1
        n = data_or_len if isinstance(data_or_len, int) else len(data_or_len)
        self.s.sendall(struct.pack(">IIQQI", REQ, typ, self.h, off, n))
        if not isinstance(data_or_len, int):
            self.s.sendall(data_or_len)
        return self.h

    def recvn(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def reply(self, lens):
        """(handle, error, data); lens maps handle -> read length."""
        magic, err, h = struct.unpack(">IIQ", self.recvn(16))
        assert magic == REP
        data = self.recvn(lens.get(h, 0)) if err == 0 else b""
        return h, err, data

    def close(self):
        self.s.sendall(struct.pack(">IIQQI", REQ, 2, 0, 0, 0))
        self.p.wait(timeout=10)


def expect(args):
    out = subprocess.run([sys.argv[1], "-E"] + args, capture_output=True,
                         text=True, check=True).stdout
    return {l.split()[0]: float(l.split()[1]) for l in out.splitlines()}


def test_data():
    c = Conn(["-m", "ssd", "-s", "1G"])
    blob = os.urandom(65536)
    h = c.send(1, 4096 * 7, blob)
    check("write acknowledged", c.reply({})[:2] == (h, 0))
    h = c.send(0, 4096 * 7, 65536)
    check("written data reads back", c.reply({h: 65536}) == (h, 0, blob))
    h = c.send(0, 1 << 40, 4096)
    check("read past the end fails with EINVAL", c.reply({})[1] == 22)
    c.close()
    # NCQ: while the head reads at the outer edge, a read at the inner
    # edge and then one near the head arrive: the near one goes first.
    c = Conn(["-q", "4", "-s", "2G"])
    busy = c.send(0, 0, 1 << 20)
    far = c.send(0, (1 << 30) - 4096, 4096)
    near = c.send(0, 2 << 20, 4096)
    order = [c.reply({busy: 1 << 20, far: 4096, near: 4096})[0] for _ in range(3)]
    check("NCQ: a near read overtakes a far one (out of order)",
          order == [busy, near, far])
    c.close()


def test_timing():
    e = expect([])
    c = Conn([])
    t0 = time.monotonic()
    lens = {}
    for i in range(16):
        lens[c.send(0, i << 20, 1 << 20)] = 1 << 20
    for _ in range(16):
        c.reply(lens)
    mbps = 16 * 1048576 / (time.monotonic() - t0) / 1e6
    check("sequential 1 MiB outer %.1f MB/s vs model %.1f (first seek included)"
          % (mbps, e["seq_outer_MBps"]), 0.85 < mbps / e["seq_outer_MBps"] < 1.05)
    random.seed(3)
    t0 = time.monotonic()
    n = 60
    for _ in range(n):
        h = c.send(0, random.randrange(0, 500 * 10**9 // 4096) * 4096, 4096)
        c.reply({h: 4096})
    ms = (time.monotonic() - t0) * 1000 / n
    check("random 4 KiB %.2f ms vs model %.2f" % (ms, e["rand4k_ms"]),
          0.75 < ms / e["rand4k_ms"] < 1.3)
    c.close()


def test_ncq():
    """Depth 32 serves a batch of random reads faster than FIFO."""
    res = {}
    for q in ("1", "32"):
        c = Conn(["-q", q])
        random.seed(5)
        lens = {}
        t0 = time.monotonic()
        for _ in range(32):
            lens[c.send(0, random.randrange(0, 500 * 10**9 // 4096) * 4096, 4096)] = 4096
        for _ in range(32):
            c.reply(lens)
        res[q] = time.monotonic() - t0
        c.close()
    check("NCQ depth 32: 32 random reads in %.0f ms, FIFO %.0f ms"
          % (res["32"] * 1000, res["1"] * 1000), res["32"] < res["1"] * 0.8)


test_data()
test_timing()
test_ncq()
print("%d failed" % fails)
sys.exit(1 if fails else 0)

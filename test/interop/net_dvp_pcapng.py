#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
"""Check a pcapng capture of one port against the sim's traffic sources.

Every frame of the capture must be one the sim built (drivers/sim/mlx5,
sim_mlx5_frame_build()): byte for byte the frame of its flow and sequence
number, of the length the source gives its place in the stream. Received
frames (inbound) are the port's own source's, sent ones (outbound) the
peer source's that the application forwarded. In each direction the
frames come in the order the source sent them; a frame missing between
two is a gap, and the gaps together must be the count the capture tool
said it dropped.

Usage: net_dvp_pcapng.py FILE --iface N --in-mac MAC --out-mac MAC
                         --sizes 60,512 --flows F --count C --dropped D
  --count  the packets the capture must hold at least
Exit 0 pass (one line), 1 fail (the first mismatch).
"""

import argparse
import struct
import sys

GEN_MAGIC = 0x44565053  # "DVPS"
GEN_HDR_LEN = 42
GEN_PAYLOAD_HDR = 16
SRC_MAC = bytes([0x02, 0x53, 0x47, 0x45, 0x4E, 0x00])


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def csum(data, start=0):
    s = start
    for i in range(0, len(data) - 1, 2):
        s += data[i] << 8 | data[i + 1]
    if len(data) & 1:
        s += data[-1] << 8
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def frame_build(length, flow, seq, dst):
    """The sim's frame (sim_mlx5_frame_build()): Ethernet, IPv4, UDP, payload."""
    f = bytearray(length)
    f[0:6] = dst
    f[6:12] = SRC_MAC
    struct.pack_into(">H", f, 12, 0x0800)
    f[14] = 0x45
    struct.pack_into(">HHH", f, 16, length - 14, seq & 0xFFFF, 0x4000)
    f[22] = 64
    f[23] = 17
    struct.pack_into(">II", f, 26, 0xC6120000 + flow, 0xC6130001)
    struct.pack_into(">HHH", f, 34, 0xC000 | (flow & 0x3FFF), 9, length - 34)
    struct.pack_into(">IIII", f, 42, GEN_MAGIC, flow, seq >> 32, seq & 0xFFFFFFFF)
    for i in range(GEN_HDR_LEN + GEN_PAYLOAD_HDR, length):
        f[i] = (seq * 31 + flow * 7 + i) & 0xFF
    struct.pack_into(">H", f, 24, ~csum(f[14:34]) & 0xFFFF)
    l4_len = length - 34
    pseudo = csum(f[26:34]) + 17 + l4_len
    c = ~csum(f[34:length], pseudo) & 0xFFFF
    struct.pack_into(">H", f, 40, c or 0xFFFF)
    return bytes(f)


def packets(path):
    """(interface id, direction flags, captured bytes, original length) of each EPB."""
    with open(path, "rb") as fh:
        data = fh.read()
    off, endian = 0, None
    while off + 12 <= len(data):
        btype = struct.unpack_from("<I", data, off)[0]
        if btype == 0x0A0D0D0A:
            magic = struct.unpack_from("<I", data, off + 8)[0]
            endian = "<" if magic == 0x1A2B3C4D else ">"
        if endian is None:
            fail("%s does not start with a pcapng section header" % path)
        btype, blen = struct.unpack_from(endian + "II", data, off)
        if blen < 12 or off + blen > len(data):
            fail("%s: a block of %d bytes at %d runs past the file" % (path, blen, off))
        if btype == 6:
            iface, _, _, caplen, origlen = struct.unpack_from(endian + "IIIII", data, off + 8)
            pkt = data[off + 28 : off + 28 + caplen]
            flags = 0
            o = off + 28 + (caplen + 3) // 4 * 4
            while o + 4 <= off + blen - 4:
                code, olen = struct.unpack_from(endian + "HH", data, o)
                if code == 0:
                    break
                if code == 2 and olen == 4:
                    flags = struct.unpack_from(endian + "I", data, o + 4)[0]
                o += 4 + (olen + 3) // 4 * 4
            yield iface, flags, pkt, origlen
        off += blen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--iface", type=int, default=0)
    ap.add_argument("--in-mac", required=True)
    ap.add_argument("--out-mac", required=True)
    ap.add_argument("--sizes", default="60")
    ap.add_argument("--flows", type=int, default=1)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--dropped", type=int, default=0)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    macs = {1: bytes.fromhex(a.in_mac.replace(":", "")), 2: bytes.fromhex(a.out_mac.replace(":", ""))}
    names = {1: "received", 2: "sent"}
    last = {1: None, 2: None}
    seen = {1: 0, 2: 0}
    first = {1: None, 2: None}
    gaps = 0
    n_all = 0
    for k, (iface, flags, pkt, origlen) in enumerate(packets(a.file)):
        if iface != a.iface:
            continue
        n_all += 1
        d = flags & 3
        if d not in macs:
            fail("packet %d has no direction (epb_flags 0x%x)" % (k, flags))
        if len(pkt) != origlen:
            fail("packet %d captured %d of its %d bytes" % (k, len(pkt), origlen))
        if len(pkt) < GEN_HDR_LEN + GEN_PAYLOAD_HDR or struct.unpack_from(">I", pkt, 42)[0] != GEN_MAGIC:
            fail("packet %d (%s, %d bytes) is not a sim source's frame" % (k, names[d], len(pkt)))
        flow, hi, lo = struct.unpack_from(">III", pkt, 46)
        seq = hi << 32 | lo
        if flow >= a.flows:
            fail("packet %d: flow %d, the source has %d" % (k, flow, a.flows))
        n = seq * a.flows + flow  # the frame's place in its source's stream
        want = frame_build(sizes[n % len(sizes)], flow, seq, macs[d])
        if pkt != want:
            diff = next((i for i in range(min(len(pkt), len(want))) if pkt[i] != want[i]), None)
            fail("packet %d (%s, frame %d of the source): %d bytes, expected %d; first difference at byte %s"
                 % (k, names[d], n, len(pkt), len(want), diff))
        if last[d] is not None:
            if n <= last[d]:
                fail("packet %d (%s): frame %d after frame %d: out of order or repeated" % (k, names[d], n, last[d]))
            gaps += n - last[d] - 1
        else:
            first[d] = n
        last[d] = n
        seen[d] += 1
    # The capture tool stops after the burst that reaches the count.
    if n_all < a.count:
        fail("%d packets on interface %d, expected %d at least" % (n_all, a.iface, a.count))
    for d in (1, 2):
        if seen[d] == 0:
            fail("no %s frame in the capture" % names[d])
    if gaps != a.dropped:
        fail("%d frames missing between captured ones; the capture dropped %d" % (gaps, a.dropped))
    print("%d frames, each the sim's byte for byte: %d received (source frames %d..%d), %d sent (peer source frames %d..%d), in order, %d missing = %d dropped by the capture"
          % (n_all, seen[1], first[1], last[1], seen[2], first[2], last[2], gaps, a.dropped))


if __name__ == "__main__":
    main()

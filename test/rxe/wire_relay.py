#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
"""The virtual wire between two dvp-rxe-vm guests (--wire), with a switch.

    wire_relay.py A_PORT A_RELAY B_PORT B_RELAY

Guest A sends its frames to 127.0.0.1:A_RELAY and takes frames at A_PORT;
guest B likewise with B_RELAY and B_PORT. Every datagram from one side goes
to the other, except while the wire is cut: SIGUSR1 cuts it (every frame
either way is dropped, as a partitioned network drops them), SIGUSR2 joins
it again. SIGTERM ends the relay. Each change and the end print one line
with the frames passed and dropped so far. Nothing leaves 127.0.0.1.
"""

import selectors
import signal
import socket
import sys


def main():
    if len(sys.argv) != 5 or not all(a.isdigit() for a in sys.argv[1:]):
        sys.exit("usage: wire_relay.py A_PORT A_RELAY B_PORT B_RELAY")
    a_port, a_relay, b_port, b_relay = (int(a) for a in sys.argv[1:])
    to_a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    to_a.bind(("127.0.0.1", a_relay))
    to_b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    to_b.bind(("127.0.0.1", b_relay))
    state = {"cut": False, "passed": 0, "dropped": 0, "end": False}

    def report(what):
        print("wire: %s (passed %d, dropped %d)" % (what, state["passed"], state["dropped"]),
              flush=True)

    def cut(signum, frame):
        state["cut"] = True
        report("cut")

    def join(signum, frame):
        state["cut"] = False
        report("joined")

    def end(signum, frame):
        state["end"] = True

    signal.signal(signal.SIGUSR1, cut)
    signal.signal(signal.SIGUSR2, join)
    signal.signal(signal.SIGTERM, end)
    sel = selectors.DefaultSelector()
    # A frame from A arrives on A's relay socket and leaves from B's, so
    # that B sees it come from the address its --wire names.
    sel.register(to_a, selectors.EVENT_READ, (to_b, b_port))
    sel.register(to_b, selectors.EVENT_READ, (to_a, a_port))
    report("ready")
    while not state["end"]:
        try:
            events = sel.select(timeout=0.5)
        except InterruptedError:
            continue
        for key, _ in events:
            try:
                data = key.fileobj.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            if state["cut"]:
                state["dropped"] += 1
                continue
            out, port = key.data
            try:
                out.sendto(data, ("127.0.0.1", port))
                state["passed"] += 1
            except OSError:
                # The other guest is not there (yet, or any more).
                state["dropped"] += 1
    report("end")


if __name__ == "__main__":
    main()

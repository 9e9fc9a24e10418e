#!/usr/bin/env python3
"""DNS probes for overload.sh and soak.sh (Python standard library only;
only 127.0.0.1 is ever addressed).

  probe.py ask PORT NAME [TYPE] [tcp]
      one question (A by default; TYPE a number or A/AAAA/TXT), up to 3
      tries of 1 s over UDP (one over TCP); prints
      "RCODE LATENCY_MS ADDRESS,ADDRESS" (rcode names: NOERROR, SERVFAIL,
      NXDOMAIN, ...; "LOST" when no answer came), the latency of the try
      that was answered, in milliseconds with two decimals.

  probe.py recover PORT PREFIX EXPECT LIMIT_S
      asks fresh names PREFIX-1, PREFIX-2, ... every 10 ms (200 ms timeout
      each) until one is answered NOERROR with address EXPECT; prints
      "MS_UNTIL_ANSWERED TRIES LATENCY_MS_OF_THAT_ANSWER", or "FAIL ..."
      after LIMIT_S seconds.

  probe.py watch PORT INTERVAL CHECK...
      asks every CHECK, one after the other, every INTERVAL seconds until
      killed, and prints one line per answer, flushed at once:
      "EPOCH_SECONDS LABEL OK|WRONG LATENCY_MS RCODE ADDRESSES". A CHECK is
      LABEL:RCODE:ADDRESS:NAME:TYPE:TRANSPORT, e.g.
      fresh:NOERROR:192.0.2.2:s{n}.cold.example.test:A:udp ({n}: the round
      number, for names never asked before; ADDRESS "-": any).

  probe.py paced PORT NAMES_FILE SECONDS [SOURCE]
      asks an A question every 20 ms for SECONDS from one UDP socket bound
      to SOURCE (127.0.0.2 by default: another client address than a
      flood's), the names of NAMES_FILE ("NAME ..." a line) in turn, a
      fresh ID each, without waiting for the answers; an answer not back
      within 1 s is lost. Prints "sent N answered N lost N p50_ms F
      p99_ms F max_ms F" (nearest-rank percentiles of the answered).

  probe.py hold-tcp PORT COUNT SECONDS
      keeps COUNT idle TCP connections open to the port for SECONDS,
      reopening those the server closed (in turns of 0.2 s); prints
      "opened N closed-by-server M most-open-at-once K" (connections the
      server has not closed, accepted or still in its backlog).
"""
import os
import select
import socket
import struct
import sys
import time

RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"}
TYPES = {"A": 1, "NS": 2, "TXT": 16, "AAAA": 28}


def query(name, qtype, ident):
    header = struct.pack(">HHHHHH", ident, 0x0100, 1, 0, 0, 0)
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.strip(".").split(".") if p)
    return header + labels + b"\0" + struct.pack(">HH", qtype, 1)


def parse(reply):
    """(rcode name, [addresses]) of a reply: A and AAAA answers only."""
    ident, flags, qd, an, _, _ = struct.unpack(">HHHHHH", reply[:12])
    at = 12

    def skip_name(at):
        while True:
            length = reply[at]
            if length & 0xC0 == 0xC0:
                return at + 2
            if length == 0:
                return at + 1
            at += length + 1

    for _ in range(qd):
        at = skip_name(at) + 4
    addresses = []
    for _ in range(an):
        at = skip_name(at)
        rtype, _, _, length = struct.unpack(">HHIH", reply[at : at + 10])
        at += 10
        data = reply[at : at + length]
        at += length
        if rtype == 1 and length == 4:
            addresses.append(socket.inet_ntop(socket.AF_INET, data))
        elif rtype == 28 and length == 16:
            addresses.append(socket.inet_ntop(socket.AF_INET6, data))
    return RCODES.get(flags & 0xF, str(flags & 0xF)), addresses


def ask_udp(port, name, qtype, timeout, tries):
    ident = int.from_bytes(os.urandom(2), "big")
    packet = query(name, qtype, ident)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("127.0.0.1", port))
        for _ in range(tries):
            start = time.perf_counter()
            s.send(packet)
            deadline = start + timeout
            while True:
                left = deadline - time.perf_counter()
                if left <= 0 or not select.select([s], [], [], left)[0]:
                    break
                try:
                    reply = s.recv(65535)
                except ConnectionRefusedError:
                    break
                if len(reply) >= 12 and reply[:2] == packet[:2]:
                    rcode, addresses = parse(reply)
                    return rcode, (time.perf_counter() - start) * 1000, addresses
    return "LOST", timeout * 1000, []


def ask_tcp(port, name, qtype, timeout):
    packet = query(name, qtype, 0x4242)
    start = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(struct.pack(">H", len(packet)) + packet)
            data = b""
            while len(data) < 2 or len(data) < 2 + struct.unpack(">H", data[:2])[0]:
                chunk = s.recv(65535)
                if not chunk:
                    return "LOST", (time.perf_counter() - start) * 1000, []
                data += chunk
    except OSError:
        return "LOST", (time.perf_counter() - start) * 1000, []
    rcode, addresses = parse(data[2:])
    return rcode, (time.perf_counter() - start) * 1000, addresses


def paced(port, names, seconds, source, interval=0.02, timeout=1.0):
    """The `paced` command: returns (sent, latencies in ms, lost)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((source, 0))
    sock.setblocking(False)
    waiting = {}  # ident -> (sent at, the query's question section)
    latencies, sent, lost = [], 0, 0
    ident = int.from_bytes(os.urandom(2), "big")
    start = time.monotonic()
    next_send, end = start, start + seconds
    while True:
        now = time.monotonic()
        if next_send <= now < end:
            ident = (ident + 1) & 0xFFFF
            packet = query(names[sent % len(names)], 1, ident)
            sock.sendto(packet, ("127.0.0.1", port))
            waiting[ident] = (now, packet[12:].lower())
            sent += 1
            next_send += interval
        for late in [i for i, (at, _) in waiting.items() if now - at > timeout]:
            del waiting[late]
            lost += 1
        if now >= end and not waiting:
            return sent, latencies, lost
        wake = next_send if now < end else now + 0.01
        if select.select([sock], [], [], max(0.0, min(wake, now + 0.05) - now))[0]:
            while True:
                try:
                    reply = sock.recv(4096)
                except BlockingIOError:
                    break
                arrived = time.monotonic()
                entry = waiting.get(struct.unpack(">H", reply[:2])[0]) if len(reply) >= 12 else None
                if entry and reply[12 : 12 + len(entry[1])].lower() == entry[1]:
                    del waiting[struct.unpack(">H", reply[:2])[0]]
                    latencies.append((arrived - entry[0]) * 1000.0)


def main():
    command = sys.argv[1]
    port = int(sys.argv[2])
    if command == "ask":
        name = sys.argv[3]
        qtype = sys.argv[4] if len(sys.argv) > 4 else "A"
        qtype = TYPES.get(qtype.upper(), None) or int(qtype)
        if len(sys.argv) > 5 and sys.argv[5] == "tcp":
            rcode, latency, addresses = ask_tcp(port, name, qtype, 2.0)
        else:
            rcode, latency, addresses = ask_udp(port, name, qtype, 1.0, 3)
        print(f"{rcode} {latency:.2f} {','.join(addresses) or '-'}")
    elif command == "recover":
        prefix, expect, limit = sys.argv[3], sys.argv[4], float(sys.argv[5])
        start = time.perf_counter()
        tries = 0
        while time.perf_counter() - start < limit:
            tries += 1
            rcode, latency, addresses = ask_udp(port, f"{prefix}-{tries}", 1, 0.2, 1)
            if rcode == "NOERROR" and expect in addresses:
                print(f"{(time.perf_counter() - start) * 1000:.1f} {tries} {latency:.2f}")
                return
            time.sleep(0.01)
        print(f"FAIL {tries} tries in {limit} s")
    elif command == "watch":
        interval = float(sys.argv[3])
        checks = [spec.split(":") for spec in sys.argv[4:]]
        round_number = 0
        while True:
            round_number += 1
            started = time.time()
            for label, rcode, address, name, qtype, transport in checks:
                name = name.replace("{n}", str(round_number))
                qtype = TYPES.get(qtype.upper(), None) or int(qtype)
                if transport == "tcp":
                    got, latency, addresses = ask_tcp(port, name, qtype, 2.0)
                else:
                    got, latency, addresses = ask_udp(port, name, qtype, 1.0, 3)
                ok = got == rcode and (address == "-" or address in addresses)
                print(
                    f"{time.time():.3f} {label} {'OK' if ok else 'WRONG'} {latency:.2f} {got} "
                    f"{','.join(addresses) or '-'}",
                    flush=True,
                )
            time.sleep(max(0.0, started + interval - time.time()))
    elif command == "paced":
        with open(sys.argv[3]) as lines:
            names = [line.split()[0] for line in lines if line.strip()]
        source = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.2"
        sent, latencies, lost = paced(port, names, float(sys.argv[4]), source)
        latencies.sort()

        def rank(fraction):
            return latencies[max(0, -int(-fraction * len(latencies) // 1) - 1)] if latencies else 0.0

        print(
            f"sent {sent} answered {len(latencies)} lost {lost} p50_ms {rank(0.5):.2f} "
            f"p99_ms {rank(0.99):.2f} max_ms {(latencies[-1] if latencies else 0.0):.2f}"
        )
    elif command == "hold-tcp":
        count, seconds = int(sys.argv[3]), float(sys.argv[4])
        held, opened, closed, most = [], 0, 0, 0
        end = time.time() + seconds
        while time.time() < end:
            turn = time.time()
            while len(held) < count:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                try:
                    s.connect(("127.0.0.1", port))
                except BlockingIOError:
                    pass
                held.append(s)
                opened += 1
            readable = select.select(held, [], [], 0.2)[0]
            for s in readable:
                try:
                    gone = s.recv(1) == b""
                except OSError:
                    gone = True
                if gone:
                    held.remove(s)
                    s.close()
                    closed += 1
            most = max(most, len(held))
            time.sleep(max(0.0, turn + 0.2 - time.time()))
        for s in held:
            s.close()
        print(f"opened {opened} closed-by-server {closed} most-open-at-once {most}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

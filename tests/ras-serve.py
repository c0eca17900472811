#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# A RAS port for the daemon's tests: it serves NCCL's replies, kept as fixtures
# (tests/fixtures/ras), over a real TCP socket, one per connection in the order given (the
# last one again after that), as NCCL's RAS thread does: it reads the client's commands up
# to STATUS, sends the reply, and closes. It is not NCCL: it checks nothing of the
# commands but logs each connection's to LOG, so the test can see what the daemon sent.
#   ras-serve.py PORTFILE LOG [--silent] REPLY...
# binds 127.0.0.1 on a free port and writes it to PORTFILE; --silent accepts and never
# answers (a RAS port that hangs).
import socket
import sys
import threading


def serve(conn, reply, log, silent):
    conn.settimeout(30)
    got = b""
    try:
        while b"STATUS" not in got:
            chunk = conn.recv(4096)
            if not chunk:
                break
            got += chunk
        with open(log, "ab") as f:
            f.write(got.replace(b"\n", b"|") + b"\n")
        if silent:
            conn.recv(1)        # until the client gives up
        else:
            conn.sendall(reply)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    args = sys.argv[1:]
    portfile, log = args[0], args[1]
    silent = "--silent" in args
    files = [a for a in args[2:] if a != "--silent"]
    replies = [open(f, "rb").read() for f in files] or [b""]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    with open(portfile + ".new", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    import os
    os.rename(portfile + ".new", portfile)
    n = 0
    while True:
        conn, _ = s.accept()
        reply = replies[min(n, len(replies) - 1)]
        n += 1
        threading.Thread(target=serve, args=(conn, reply, log, silent), daemon=True).start()


if __name__ == "__main__":
    main()

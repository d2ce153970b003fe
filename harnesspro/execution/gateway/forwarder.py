"""Inside the sandbox: expose the gateway's Unix socket on loopback TCP, then run the harness.

Standard library only; it runs under the sandbox's interpreter with nothing else mounted.
Usage: forwarder.py SOCKET PORT -- COMMAND...   (the command gets OPENAI_BASE_URL set to it)
"""

import contextlib
import os
import socket
import subprocess
import sys
import threading


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while chunk := src.recv(65536):
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def _serve(listener: socket.socket, socket_path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(socket_path)
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()


def main() -> int:
    socket_path, port, sep, *command = sys.argv[1:]
    if sep != "--" or not command:
        print("usage: forwarder.py SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))  # port 0: any free port (no network namespace)
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, socket_path), daemon=True).start()
    bound = listener.getsockname()[1]
    env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{bound}/v1"}
    return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main())

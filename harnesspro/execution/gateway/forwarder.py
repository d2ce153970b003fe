"""Inside the sandbox: expose the gateway's Unix socket on loopback TCP, then run the harness.

It starts once per rollout, so it imports only built-in modules (`_socket`, `_thread`, `os`):
`socket`, `threading` and `subprocess` would triple its start-up (~45 ms of CPU against ~17).
Usage: forwarder.py SOCKET PORT -- COMMAND...   (the command gets OPENAI_BASE_URL set to it)
"""

import _socket
import _thread
import os
import sys

CHUNK = 65536


def _pipe(src: _socket.socket, dst: _socket.socket) -> None:
    try:
        while chunk := src.recv(CHUNK):
            dst.sendall(chunk)
    except OSError:
        pass
    try:  # noqa: SIM105 (contextlib would add ~9 ms to every start)
        dst.shutdown(_socket.SHUT_WR)
    except OSError:
        pass


def _serve(listener: _socket.socket, socket_path: str) -> None:
    while True:
        fd, _ = listener._accept()  # type: ignore[attr-defined]  # socket.accept wraps it
        client = _socket.socket(fileno=fd)
        upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            upstream.connect(socket_path)
        except OSError:  # the gateway has closed: the client sees the connection drop
            client.close()
            upstream.close()
            continue
        _thread.start_new_thread(_pipe, (client, upstream))
        _thread.start_new_thread(_pipe, (upstream, client))


def main() -> int:
    socket_path, port, sep, *command = sys.argv[1:]
    if sep != "--" or not command:
        print("usage: forwarder.py SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))  # port 0: any free port (no network namespace)
    listener.listen(64)
    bound = listener.getsockname()[1]
    env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{bound}/v1"}
    child = _run_started(command, env)  # forked before any thread starts
    _thread.start_new_thread(_serve, (listener, socket_path))
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


def _run_started(command: list[str], env: dict[str, str]) -> int:
    """Fork and exec the command; the child's pid (127 when it cannot be run)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.execvpe(command[0], command, env)
        except OSError as exc:
            os.write(2, f"forwarder: cannot run {command[0]}: {exc}\n".encode())
        os._exit(127)
    return pid


if __name__ == "__main__":
    sys.exit(main())

"""What the endpoint tests share: async test bodies under a deadline, polling for a condition, loopback, and
a server command started as a user starts it."""
import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

HOST = "127.0.0.1"
HIGH_WATER = 64 * 1024  # asyncio's default write-buffer high-water mark


def run(coro, timeout: float = 30.0):
    """Run one async test body under a hard deadline."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def until(predicate, timeout: float = 10.0) -> None:
    """Wait until predicate() holds, looking every 5 ms."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.005)


async def open_small_window(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A client whose kernel receive buffer is small, so the server's side fills up quickly."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
    return await asyncio.open_connection(sock=sock)


async def small_server_side(server):
    """The server's side of its one client connection, its kernel send buffer made small (autotuning off),
    so that back-pressure starts after kilobytes rather than megabytes (servers built on endpoints.Link)."""
    await until(lambda: server.clients == 1)
    (connection,) = server._connections
    connection.link.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return connection


async def closed_by_server(reader: asyncio.StreamReader, timeout: float = 5.0) -> int:
    """Read until the server closes the connection; how many bytes came before."""
    total = 0
    async with asyncio.timeout(timeout):
        while True:
            try:
                data = await reader.read(65536)
            except ConnectionError:  # reset, or the pipe broken by our own writes
                return total
            if not data:
                return total
            total += len(data)


def free_port() -> int:
    """A loopback port nothing listens on now (for a server command, which must be told its port)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def start_server(*args: str, port: int, **popen) -> tuple[subprocess.Popen, socket.socket]:
    """`python -m inlong_proto ARGS...` listening on port, and a client connection to it once it listens."""
    server = subprocess.Popen([sys.executable, "-m", "inlong_proto", *args], **popen)
    deadline = time.monotonic() + 60
    while True:
        try:
            return server, socket.create_connection((HOST, port), timeout=5)
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise AssertionError("the server did not start") from None
            time.sleep(0.1)


def wait_for_line(path: Path, timeout: float = 60.0) -> None:
    """Wait until path holds at least one whole line (a --strict report's first finding)."""
    deadline = time.monotonic() + timeout
    while not (path.is_file() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, f"nothing written to {path}"
        time.sleep(0.05)

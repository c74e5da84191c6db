"""A real S3-compatible server on loopback for the object-store tests: moto's standalone server (PyPI),
started as its own process and stopped at the end. The AWS variables point every client at it, as a user
would point them at MinIO or a VPC endpoint."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request

BUCKET = "captures"
STARTUP_TIMEOUT = 30


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def s3_server():
    """Start moto_server; yield the environment (AWS_ENDPOINT_URL, keys, region) that reaches it."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto server did not start on {endpoint}") from None
                time.sleep(0.2)
        yield {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_REGION": "us-east-1"}
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def make_bucket(env: dict, bucket: str = BUCKET) -> None:
    import pyarrow.fs as pafs

    pafs.S3FileSystem(endpoint_override=env["AWS_ENDPOINT_URL"], access_key=env["AWS_ACCESS_KEY_ID"],
                      secret_key=env["AWS_SECRET_ACCESS_KEY"], region=env["AWS_REGION"],
                      allow_bucket_creation=True).create_dir(bucket)


def upload(local_path, uri: str) -> None:
    """Write a local file to s3://bucket/key through pyarrow.fs (what the environment points at)."""
    from inlong_proto.core.sources import filesystem

    fs, path = filesystem(uri)
    with open(local_path, "rb") as src, fs.open_output_stream(path) as out:
        while chunk := src.read(8 << 20):
            out.write(chunk)


@contextlib.contextmanager
def environment(env: dict):
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

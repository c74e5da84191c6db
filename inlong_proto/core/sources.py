"""Where the bulk readers' bytes come from: local files, or any filesystem pyarrow.fs speaks, read by range.

The decoders index their input absolutely (byte i of the buffer is byte i of the file), so every source
offers ``buffer``: an object with the buffer protocol and ``find`` whose index is the file offset. A local
file is mapped read-only and the OS pages it in; a remote object (``s3://``, ``gs://``, ``abfs://``,
``hdfs://``) is read into an anonymous private mapping of the file's size that costs nothing until a range
is filled. Readers call ``ensure(stop)`` before they touch bytes below ``stop``; a remote source then
fetches what is missing, in whole blocks of ranged reads, and never the whole object. ``release(lo, hi)``
hands pages a reader is done with back (MADV_DONTNEED), so a task holds what it is working on, not its
split.

Filesystems come from ``pyarrow.fs.FileSystem.from_uri``, which takes credentials and endpoints from the
standard places (for S3 the AWS variables and files: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_PROFILE, ...). ``fs_options`` adds keyword arguments of the
scheme's pyarrow filesystem class (``S3FileSystem(endpoint_override=..., region=...)`` and so on).
"""
from __future__ import annotations

import glob
import mmap
import os
import re
from typing import Iterator, Mapping

BLOCK = 4 << 20  # a remote source fetches at least this much per ranged read
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


class BytesSource:
    """A source over bytes in memory (tests, small inputs)."""

    def __init__(self, data: bytes, uri: str = "<bytes>"):
        self.buffer, self.size, self.uri = bytes(data), len(data), uri

    def ensure(self, start: int, stop: int) -> None:
        """Make bytes [start, stop) readable through buffer (a no-op where they always are)."""

    def read(self, offset: int, length: int) -> bytes:
        """length bytes from offset (fewer only at the end of the file), as a copy."""
        return bytes(self.buffer[offset:offset + length])

    def head(self, n: int) -> bytes:
        return self.read(0, n)

    def release(self, lo: int, hi: int) -> None:
        """The reader is done with [lo, hi): its memory may go back to the OS."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _dontneed(region: mmap.mmap | None, lo: int, hi: int) -> None:
    page = mmap.ALLOCATIONGRANULARITY
    lo, hi = -(-lo // page) * page, hi // page * page
    if region is not None and hi > lo and hasattr(mmap, "MADV_DONTNEED"):
        region.madvise(mmap.MADV_DONTNEED, lo, hi - lo)


class FileSource(BytesSource):
    """A local file mapped read-only: buffer[i] is byte i of the file, read by the OS page by page only
    when a decoder touches it. Nothing is copied up front."""

    def __init__(self, path: str, uri: str | None = None):
        self.uri = uri or path
        self.size = os.path.getsize(path)
        self._map = None
        self.buffer = b""
        if self.size:
            with open(path, "rb") as file:
                self._map = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
            self.buffer = self._map
            self.size = len(self._map)  # what was mapped, should the file have grown meanwhile
            if hasattr(mmap, "MADV_SEQUENTIAL"):
                self._map.madvise(mmap.MADV_SEQUENTIAL)

    def release(self, lo: int, hi: int) -> None:
        _dontneed(self._map, lo, hi)

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None


class RangeSource(BytesSource):
    """A file on any pyarrow filesystem, fetched by ranged reads into an anonymous private mapping of the
    file's size: untouched ranges cost no memory, released ones go back to the OS (and are fetched again
    should a reader come back to them)."""

    ahead = 16 << 20  # how far past the current position a sequential scan asks for at a time
    block = BLOCK

    def __init__(self, file, uri: str):
        self.uri = uri
        self._file = file
        self.size = file.size()
        self._filled: list[list[int]] = []  # sorted, disjoint [lo, hi) ranges present in the mapping
        self._map = None
        self.buffer = b""
        if self.size:
            flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
            self._map = mmap.mmap(-1, self.size, flags=flags)
            self.buffer = self._map
        self.fetched = 0  # bytes read from the filesystem so far (tests and benchmarks read it)

    def read(self, offset: int, length: int) -> bytes:
        length = max(0, min(length, self.size - offset))
        self.fetched += length
        return self._file.read_at(length, offset) if length else b""

    def ensure(self, start: int, stop: int) -> None:
        """Fetch what is missing of [start, stop) (whole blocks, within the file) into the mapping."""
        stop = min(stop, self.size)
        for lo, hi in self._missing(max(0, start), stop):
            lo, hi = lo // self.block * self.block, min(self.size, -(-hi // self.block) * self.block)
            for gap_lo, gap_hi in self._missing(lo, hi):
                self._map[gap_lo:gap_hi] = self.read(gap_lo, gap_hi - gap_lo)
                self._mark(gap_lo, gap_hi)

    def _missing(self, start: int, stop: int) -> list[tuple[int, int]]:
        out, at = [], start
        for lo, hi in self._filled:
            if hi <= at:
                continue
            if lo >= stop:
                break
            if lo > at:
                out.append((at, lo))
            at = max(at, hi)
        if at < stop:
            out.append((at, stop))
        return out

    def _mark(self, start: int, stop: int) -> None:
        merged = []
        for lo, hi in self._filled:
            if hi < start or lo > stop:
                merged.append([lo, hi])
            else:
                start, stop = min(start, lo), max(stop, hi)
        merged.append([start, stop])
        self._filled = sorted(merged)

    def release(self, lo: int, hi: int) -> None:
        page = mmap.ALLOCATIONGRANULARITY
        lo, hi = -(-lo // page) * page, hi // page * page
        if hi <= lo or self._map is None:
            return
        _dontneed(self._map, lo, hi)  # the pages read as zeros from now on: forget them
        kept = []
        for a, b in self._filled:
            kept += [[a, min(b, lo)]] if a < lo else []
            kept += [[max(a, hi), b]] if b > hi else []
        self._filled = [piece for piece in kept if piece[0] < piece[1]]

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None
        self._file.close()


# ---------------------------------------------------------------------------------------------------
# Filesystems, listing and opening


_ALIASES = {"s3a": "s3", "s3n": "s3", "gcs": "gs", "abfss": "abfs", "file": "file"}
_CLASSES = {"s3": "S3FileSystem", "gs": "GcsFileSystem", "abfs": "AzureFileSystem", "hdfs": "HadoopFileSystem"}


def scheme_of(location: str) -> str | None:
    """The URI scheme of a location (s3a/s3n read as s3, gcs as gs, abfss as abfs), None for a plain path."""
    match = _SCHEME.match(location)
    if not match:
        return "file" if location.startswith("file:") else None
    scheme = match[1].lower()
    return _ALIASES.get(scheme, scheme)


def is_remote(location: str) -> bool:
    return scheme_of(location) not in (None, "file")


_FILESYSTEMS: dict = {}


def _split(location: str) -> tuple[str, str, str]:
    """(scheme, head, path): head is scheme://authority as given, path the file's path in the filesystem
    as pyarrow names it (bucket/key for S3 and GCS, container/path for Azure, /path for HDFS)."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(location)
    scheme = scheme_of(location)
    head = f"{parts.scheme}://{parts.netloc}"
    path = unquote(parts.path)
    if scheme in ("s3", "gs"):
        return scheme, head, parts.netloc + path
    if scheme == "abfs":
        return scheme, head, parts.netloc.split("@")[0] + path
    return scheme, head, path or "/"


def fs_parameters(scheme: str) -> list[str]:
    """The keyword arguments pyarrow's filesystem class of a scheme takes, read from its docstring's
    Parameters section (the Cython classes have no signature to inspect)."""
    import pyarrow.fs as pafs

    doc = getattr(pafs, _CLASSES[scheme]).__doc__ or ""
    return re.findall(r"^\s*(\w+) : ", doc, re.M)


def check_fs_options(location: str, fs_options: Mapping[str, str] | None, prefix: str = "fs.") -> None:
    """Refuse, before anything is read, an fs.* option that location's filesystem does not take, with the
    closest name it does take: a misspelt option must not silently fall back to default credentials."""
    import difflib

    if not fs_options:
        return
    scheme = scheme_of(location)
    if scheme not in _CLASSES:  # a local path ignores them; filesystem() refuses them for another scheme
        return
    known = fs_parameters(scheme)
    if not known:  # a pyarrow without the docstring: its own TypeError decides (filesystem)
        return
    for name in fs_options:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f" (did you mean {prefix + close[0]!r}?)" if close else ""
            raise ValueError(f"{location}: pyarrow.fs.{_CLASSES[scheme]} has no option {prefix + name!r}{hint}; "
                             f"it takes {', '.join(prefix + k for k in known)}")


def filesystem(location: str, fs_options: Mapping[str, str] | None = None):
    """(pyarrow filesystem, path inside it) of a remote URI. Without fs_options the filesystem is
    pyarrow's from_uri (credentials and endpoint from the environment); with them, the scheme's class is
    built with those keyword arguments, S3's endpoint_override defaulting to AWS_ENDPOINT_URL."""
    import pyarrow.fs as pafs

    scheme, head, path = _split(location)
    options = dict(fs_options or {})
    key = (scheme, head, tuple(sorted(options.items())))
    if key in _FILESYSTEMS:
        return _FILESYSTEMS[key], path
    try:
        if not options:
            fs, _ = pafs.FileSystem.from_uri(f"{scheme}://{head.split('://', 1)[1]}/")
        elif scheme not in _CLASSES:
            raise ValueError(f"{location}: fs.* options apply to {', '.join(sorted(_CLASSES))} URIs only")
        else:
            if scheme == "s3" and "endpoint_override" not in options and os.environ.get("AWS_ENDPOINT_URL"):
                options["endpoint_override"] = os.environ["AWS_ENDPOINT_URL"]
            fs = getattr(pafs, _CLASSES[scheme])(**_typed(options))
    except TypeError as exc:
        raise ValueError(f"{location}: an fs.* option is not a parameter of pyarrow.fs."
                         f"{_CLASSES[scheme]}: {exc}") from None
    except ValueError:
        raise
    except Exception as exc:  # pyarrow's ArrowInvalid / OSError, in its own words, with the URI named
        raise OSError(f"{location}: cannot open its filesystem: {exc}") from None
    _FILESYSTEMS[key] = fs
    return fs, path


def _typed(options: dict) -> dict:
    """Option values arrive as strings from Spark: booleans and numbers become what pyarrow expects."""
    out = {}
    for name, value in options.items():
        text = str(value)
        if text.lower() in ("true", "false"):
            out[name] = text.lower() == "true"
        elif re.fullmatch(r"-?\d+", text):
            out[name] = int(text)
        elif re.fullmatch(r"-?\d+\.\d*", text):
            out[name] = float(text)
        else:
            out[name] = value
    return out


def _pattern(glob_path: str) -> re.Pattern:
    """A glob as a regex over full paths: * and ? stay inside one folder, ** crosses folders."""
    out, i = [], 0
    while i < len(glob_path):
        c = glob_path[i]
        if glob_path.startswith("**/", i):  # any folders, none included
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob_path.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = glob_path.find("]", i + 1)
            if close < 0:
                out.append(re.escape(c))
            else:
                body = glob_path[i + 1:close]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = close
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def _hidden(name: str) -> bool:
    return name.startswith((".", "_"))


def _local(path: str) -> str:
    if path.startswith("file:"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(path).path)
    return path


def list_files(paths, fs_options: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """(location, size) of every file at paths (files, directories recursively, globs), sorted: an
    absolute path for a local file, the URI for a remote one. Hidden names (. and _) are skipped."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    found: dict[str, int] = {}
    for given in map(os.fspath, paths):
        if is_remote(given):
            found.update(list_remote(given, fs_options))
            continue
        local = _local(given)
        matches = sorted(glob.glob(local, recursive=True)) if glob.has_magic(local) else [local]
        matches = [m for m in matches if os.path.exists(m)]
        if not matches:
            raise FileNotFoundError(f"path does not exist: {given}")
        for match in matches:
            if os.path.isdir(match):
                for root, dirs, names in os.walk(match):
                    dirs[:] = sorted(d for d in dirs if not _hidden(d))
                    for name in names:
                        if not _hidden(name):
                            full = os.path.abspath(os.path.join(root, name))
                            found[full] = os.path.getsize(full)
            else:
                full = os.path.abspath(match)
                found[full] = os.path.getsize(full)
    return sorted(found.items())


def modification_date(location: str, fs_options: Mapping[str, str] | None = None):
    """The UTC date (datetime.date) of a file's modification time, or None where its store keeps none: the
    readers' date column for a dump, which carries no clock of its own (arrow.with_date)."""
    import datetime as dt

    if is_remote(location):
        fs, inner = filesystem(location, fs_options)
        mtime = fs.get_file_info(inner).mtime
        return None if mtime is None else mtime.astimezone(dt.timezone.utc).date()
    return dt.datetime.fromtimestamp(os.stat(_local(location)).st_mtime, dt.timezone.utc).date()


def file_uri(location) -> str:
    """The location as Spark's binaryFile reports it (so that rows equal read_dumps's): file:/abs/path for
    a local file, the URI as given for a remote one."""
    location = os.fspath(location)
    return location if is_remote(location) else "file:" + os.path.abspath(_local(location))


def list_remote(location: str, fs_options: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """(URI, size) of every file at a remote location: an object, a prefix (recursive) or a glob; names
    starting with . or _ below the location are skipped, as Spark does."""
    import pyarrow.fs as pafs

    fs, path = filesystem(location, fs_options)
    _, head, _ = _split(location)
    root = _split(head + "/")[2].rstrip("/")  # the fs path of the authority itself (the bucket, ...)
    magic = re.search(r"[*?\[]", path)
    if magic:
        base = path[:magic.start()].rsplit("/", 1)[0]
        pattern = _pattern(path)
        infos = [info for info in fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
                 if pattern.match(info.path)]
    else:
        infos = [fs.get_file_info(path)]
        if infos[0].type == pafs.FileType.Directory:
            infos = fs.get_file_info(pafs.FileSelector(path, recursive=True))
    base = path if not magic else base
    files = [(head + "/" + info.path[len(root):].lstrip("/"), info.size) for info in infos
             if info.type == pafs.FileType.File
             and not any(_hidden(part) for part in info.path[len(base):].split("/") if part)]
    if not files:
        raise FileNotFoundError(f"path does not exist: {location}")
    return sorted(files)


def open_source(location: str, fs_options: Mapping[str, str] | None = None) -> BytesSource:
    """A source over the file at location: a local path (mapped) or a remote URI (ranged reads)."""
    if not is_remote(location):
        return FileSource(_local(location), uri=location)
    fs, path = filesystem(location, fs_options)
    try:
        file = fs.open_input_file(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise OSError(f"{location}: cannot open: {exc}") from None
    return RangeSource(file, location)


def scan_windows(src, view, scanner, start: int, stop: int) -> Iterator:
    """The rows of a frames.Scanner over a source's bytes from start (the caller stops at stop). A
    source that fetches by range (``ahead``) is scanned in windows: each one reaches limit + 1 bytes past
    the last position decided in it, so every decision is the one a scan of the whole file makes
    (frames.decode_with looks no further), and none reaches past what the rows up to stop need."""
    ahead, pos = getattr(src, "ahead", None), start
    while True:
        end = src.size if ahead is None else min(src.size, min(pos + ahead, stop) + scanner.limit + 1)
        src.ensure(pos if scanner.bad_start is None else scanner.bad_start, end)
        final = end == src.size
        window = view[:end]
        rows = scanner.scan(window, pos, 0, final, None if final else end - scanner.limit - 1)
        try:
            yield from rows
        finally:
            rows.close()
            window.release()
        if final:
            return
        pos = scanner.stopped_at


def split_count(size: int, split_size: int) -> int:
    """How many splits of split_size bytes a file of size bytes has (the last may be shorter): the one rule the
    dump and capture readers share."""
    return -(-size // split_size)

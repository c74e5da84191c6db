"""Everything else is configured in pyproject.toml. This file adds the optional compiled backend: ONE extension,
inlong_proto._compiled, built from the C that `make generate` writes from the specs into generated/native
(every .c there is one translation unit: compiled.c the module init, scan.c the frame scanners, encode.c the
encoders, capture_runtime.c the capture walker, tubemq_layer_runtime.c and eventmesh_layer_runtime.c the
payload layers; the .h files are the runtimes and tables they include), when a C compiler is present. If the
build fails, or there is no compiler, the package installs without it and runs on the pure-Python codecs
(inlong_proto.backend() says which).

The extension carries SOURCE_DIGEST, the SHA-256 of the generated/native files it was built from
(source_digest): inlong_proto/backends/compiled.py compares it with a source tree's before it loads an
installed extension for that tree (the module's docstring says when)."""
import hashlib
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = os.path.join("generated", "native")


def source_digest(folder: str) -> str:
    """SHA-256 over the .c and .h files of folder, by name, in name order (the same as
    inlong_proto.backends.compiled.source_digest; tests/test_native_backend.py compares the two)."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        if name.endswith((".c", ".h")):
            with open(os.path.join(folder, name), "rb") as file:
                data = file.read()
            digest.update(b"%s\0%d\0" % (name.encode(), len(data)) + data)
    return digest.hexdigest()


class OptionalBuildExt(build_ext):
    """build_ext that reports a failed compile and goes on: the extension is an accelerator, not a need."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - no compiler at all (distutils raises several kinds)
            self._skip(exc)

    def build_extension(self, ext):
        if self.compiler.compiler_type == "unix":  # only PyInit__compiled leaves the shared object
            ext.extra_compile_args = ["-fvisibility=hidden"] + list(ext.extra_compile_args or [])
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - a compiler error: fall back to pure Python
            self._skip(exc)

    @staticmethod
    def _skip(exc):
        print(f"inlong-proto: the compiled backend was not built ({exc}); the pure-Python codecs will run",
              file=sys.stderr)


ext_modules = []
if os.environ.get("INLONG_PROTO_BUILD_NATIVE", "1") != "0" and os.path.isfile(os.path.join(NATIVE, "compiled.c")):
    names = sorted(os.listdir(NATIVE))
    ext_modules.append(Extension(
        "inlong_proto._compiled", sources=[os.path.join(NATIVE, name) for name in names if name.endswith(".c")],
        depends=[os.path.join(NATIVE, name) for name in names if name.endswith(".h")], include_dirs=[NATIVE],
        define_macros=[("IP_SOURCE_DIGEST", f'"{source_digest(NATIVE)}"')]))

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})

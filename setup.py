"""Everything else is configured in pyproject.toml. This file adds the optional compiled backend, the C that
`make generate` writes from the specs into generated/native: the frame scanners (inlong_native.c,
tools/ksygen/cgen.py) built as inlong_proto._native, the encoders (inlong_native_encode.c, cgen_encode.py)
as inlong_proto._native_encode, the capture walker (inlong_capture.c, cgen_capture.py) as
inlong_proto._capture_native, the TubeMQ payload layer (tubemq_layer.c, cgen_protobuf.py) as
inlong_proto._tubemq_layer and the EventMesh TCP payload layer (eventmesh_layer.c, cgen_json.py) as
inlong_proto._eventmesh_layer, when a C compiler is present. If a build fails, or there is no compiler,
the package installs without it and runs on the pure-Python codecs (inlong_proto.backend() says which)."""
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

EXTENSIONS = {"inlong_proto._native": "inlong_native.c", "inlong_proto._native_encode": "inlong_native_encode.c",
              "inlong_proto._capture_native": "inlong_capture.c", "inlong_proto._tubemq_layer": "tubemq_layer.c",
              "inlong_proto._eventmesh_layer": "eventmesh_layer.c"}


class OptionalBuildExt(build_ext):
    """build_ext that reports a failed compile and goes on: the extension is an accelerator, not a need."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - no compiler at all (distutils raises several kinds)
            self._skip(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - a compiler error: fall back to pure Python
            self._skip(exc)

    @staticmethod
    def _skip(exc):
        print(f"inlong-proto: the compiled backend was not built ({exc}); the pure-Python codecs will run",
              file=sys.stderr)


ext_modules = []
if os.environ.get("INLONG_PROTO_BUILD_NATIVE", "1") != "0":
    for name, source in EXTENSIONS.items():
        path = os.path.join("generated", "native", source)
        if os.path.exists(path):
            ext_modules.append(Extension(name, sources=[path]))

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})

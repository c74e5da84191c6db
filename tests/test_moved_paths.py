"""The documented import paths from before the house-plan layout (issue 25) keep working for one release: each
forwards to its new module with a DeprecationWarning, and the package-level names stay where they were."""
import importlib
import warnings

import pytest

MOVED = [  # (old module, name, new module): the paths README and docs/ showed before the move
    ("inlong_proto.native", "scan_batch", "inlong_proto.backends.compiled"),
    ("inlong_proto.native", "iter_batches", "inlong_proto.backends.compiled"),
    ("inlong_proto.spark_source", "register", "inlong_proto.spark.source"),
    ("inlong_proto.spark_source", "ReadLimits", "inlong_proto.spark.pieces"),  # source.py split in two since
    ("inlong_proto.spark_capture", "read_captures", "inlong_proto.spark.captures"),
    ("inlong_proto.stream", "Limits", "inlong_proto.core.stream"),
    ("inlong_proto.capture.native_path", "capture_batches", "inlong_proto.backends.compiled_capture"),
    ("inlong_proto.capture.tap", "Tap", "inlong_proto.endpoints.tap"),
    ("inlong_proto.dataproxy.records", "read_records", "inlong_proto.spark.records"),
    # and the one a shipped example imported (examples/make_dumps.py)
    ("inlong_proto.eventmesh.client", "text_message", "inlong_proto.endpoints.eventmesh_client"),
]


@pytest.mark.parametrize("old, name, new", MOVED)
def test_an_old_path_forwards_with_a_warning(old, name, new):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)


def test_a_name_the_new_module_lacks_is_an_attribute_error():
    module = importlib.import_module("inlong_proto.stream")
    with pytest.raises(AttributeError), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module.no_such_name  # noqa: B018


def test_the_package_api_is_unchanged():
    import inlong_proto
    from inlong_proto.cli import main
    from inlong_proto.spark import local_session, read_dumps, register_udtf  # noqa: F401

    assert set(inlong_proto.__all__) == {
        "MODES", "DecodeError", "EncodeError", "Frame", "FrameTooLargeError", "InlongProtoError", "StreamDecoder",
        "TruncatedError", "UnknownProtocolError", "ValidationError", "decode", "encode", "iter_frames",
        "protocol_names", "backend", "iter_batches"}
    assert all(hasattr(inlong_proto, name) for name in inlong_proto.__all__)
    assert main.name == "main" and {"decode", "tubemq", "eventmesh", "wireshark"} <= set(main.commands)

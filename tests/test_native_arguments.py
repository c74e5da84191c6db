"""native.iter_batches' size arguments (issue 24, item 21): batch_rows=0 made the scan loop forever."""
from __future__ import annotations

import pytest

from inlong_proto.backends import compiled as native

import vectors

VALID = vectors.valid_frames()


@pytest.mark.parametrize("protocol", ["dataproxy", "tubemq", "eventmesh-http"])
@pytest.mark.parametrize("argument", ["batch_rows", "batch_bytes"])
@pytest.mark.parametrize("value", [0, -1, 1.5, True, None, "8"])
def test_a_batch_size_that_holds_no_row_is_refused_at_the_call(protocol, argument, value):
    data = b"".join(VALID.get(protocol, [b""])[:3])
    with pytest.raises(ValueError, match=argument):
        native.iter_batches(data, protocol, **{argument: value})  # raised before any batch is asked for


@pytest.mark.parametrize("argument", ["batch_rows", "batch_bytes"])
def test_range_batches_refuses_them_too(argument):
    data = b"".join(VALID["tubemq"][:3])
    with pytest.raises(ValueError, match=argument):
        next(native.range_batches(memoryview(data), "tubemq", "", None, "PERMISSIVE", 0, len(data), **{argument: 0}))


def test_one_row_a_batch_still_works():
    data = b"".join(VALID["tubemq"][:3])
    batches = list(native.iter_batches(data, "tubemq", batch_rows=1, batch_bytes=1))
    assert [b.num_rows for b in batches] == [1, 1, 1]

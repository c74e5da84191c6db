"""Issue 27, item 10: a misspelt fs.* option of format("inlong") is refused on the driver, before anything is
read, with the closest name pyarrow's filesystem takes (it used to reach pyarrow as an unexpected keyword)."""
from __future__ import annotations

import pytest

from inlong_proto.core.sources import check_fs_options, fs_parameters
from inlong_proto.spark.source import Options


def test_a_misspelt_option_names_the_closest_one():
    with pytest.raises(ValueError, match=r"no option 'fs.endpoint_overide' \(did you mean 'fs.endpoint_override'\?\)"):
        Options({"protocol": "dataproxy", "path": "s3://bucket/key", "fs.endpoint_overide": "http://127.0.0.1:1"})


def test_known_options_pass_and_local_paths_ignore_them(tmp_path):
    options = Options({"protocol": "dataproxy", "path": "s3a://bucket/key", "fs.endpoint_override": "http://h:1",
                       "fs.anonymous": "true"})
    assert options.fs_options == {"endpoint_override": "http://h:1", "anonymous": "true"}
    check_fs_options(str(tmp_path), {"whatever": "1"})  # a local path reads no filesystem options


@pytest.mark.parametrize("scheme, name", [("s3", "endpoint_override"), ("gs", "project_id"),
                                          ("abfs", "account_name"), ("hdfs", "host")])
def test_the_parameters_come_from_pyarrow(scheme, name):
    assert name in fs_parameters(scheme)

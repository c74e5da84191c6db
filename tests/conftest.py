import sys
from pathlib import Path

# tests import their helpers (vectors, backends, strategies) and tools/ by path.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for the whole run (starting one costs ~20 s); workers use this interpreter."""
    from inlong_proto.spark import local_session

    session = local_session("inlong-proto-tests", cores=2)
    yield session
    session.stop()

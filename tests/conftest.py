import signal
import sys
from pathlib import Path

# tests import their helpers (vectors, backends, strategies) and tools/ by path.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))


import pytest  # noqa: E402

# A run started in the background by a non-interactive shell (`pytest &`, nohup) inherits SIGINT ignored,
# and so would the CLIs the tests start and interrupt; a handler here makes their SIGINT default again.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def s3():
    """A moto S3 server for the whole run, with its bucket, and the AWS variables pointing at it. They are
    set before the SparkSession starts, so that its Python workers inherit them as a user's would."""
    import s3server

    with s3server.s3_server() as env, s3server.environment(env):
        s3server.make_bucket(env)
        yield env


@pytest.fixture(scope="session")
def spark(s3):
    """One local SparkSession for the whole run (starting one costs ~20 s); workers use this interpreter."""
    from inlong_proto.spark.dumps import local_session

    session = local_session("inlong-proto-tests", cores=2)
    yield session
    session.stop()

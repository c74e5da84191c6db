from construct import *
from construct.lib import *
from .tcp_frame import tcp_frame__package

tcp_frame_legacy = Struct(
	'magic' / FixedSized(9, GreedyBytes),
	'version' / FixedSized(4, GreedyBytes),
	'package_length' / Int32sb,
	'package' / FixedSized(this.package_length - 4, LazyBound(lambda: tcp_frame__package)),
)

_schema = tcp_frame_legacy

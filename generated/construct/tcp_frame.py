from construct import *
from construct.lib import *

tcp_frame__package = Struct(
	'header_length' / Int32sb,
	'header' / FixedSized(this.header_length, GreedyString(encoding='UTF-8')),
	'body' / GreedyBytes,
)

tcp_frame = Struct(
	'magic' / FixedSized(9, GreedyBytes),
	'version' / FixedSized(4, GreedyBytes),
	'package_length' / Int32sb,
	'package' / FixedSized(this.package_length - 9, LazyBound(lambda: tcp_frame__package)),
)

_schema = tcp_frame

from construct import *
from construct.lib import *

tubemq_frame__block = Struct(
	'block_len' / Int32sb,
	'data' / FixedSized(this.block_len, GreedyBytes),
)

tubemq_frame = Struct(
	'begin_token' / FixedSized(4, GreedyBytes),
	'serial_no' / Int32sb,
	'list_size' / Int32sb,
	'blocks' / Array(this.list_size, LazyBound(lambda: tubemq_frame__block)),
)

_schema = tubemq_frame

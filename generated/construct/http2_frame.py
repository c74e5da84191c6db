from construct import *
from construct.lib import *
import enum

class http2_frame__frame_type(enum.IntEnum):
	data = 0
	headers = 1
	priority = 2
	rst_stream = 3
	settings = 4
	push_promise = 5
	ping = 6
	goaway = 7
	window_update = 8
	continuation = 9

http2_frame__frame_header = Struct(
	'length' / ???,
	'type' / Enum(???, http2_frame__frame_type),
	'unused_0x80' / ???,
	'unused_0x40' / ???,
	'priority' / ???,
	'unused_0x10' / ???,
	'padded' / ???,
	'end_headers' / ???,
	'unused_0x02' / ???,
	'end_stream_or_ack' / ???,
	'reserved' / ???,
	'stream_id' / ???,
)

http2_frame = Struct(
	'header' / LazyBound(lambda: http2_frame__frame_header),
	'payload' / FixedSized(this.header.length, GreedyBytes),
)

_schema = http2_frame

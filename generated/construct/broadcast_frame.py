from construct import *
from construct.lib import *
from .bracketed_timestamp import bracketed_timestamp
import enum

class broadcast_frame__command(enum.IntEnum):
	data_request = 0
	data_response = 1

class broadcast_frame__status(enum.IntEnum):
	last_data_not_found = 48
	history = 49
	real_time = 50

broadcast_frame__data_request = Struct(
	'last_timestamp' / LazyBound(lambda: bracketed_timestamp),
	'last_data' / Int32sb,
)

broadcast_frame__data_response = Struct(
	'status' / Enum(Int8ub, broadcast_frame__status),
	'timestamp' / LazyBound(lambda: bracketed_timestamp),
	'data' / Int32sb,
)

broadcast_frame = Struct(
	'total_length' / Int32sb,
	'command_id' / Enum(Int32sb, broadcast_frame__command),
	'body' / Switch(this.command_id, {'data_request': FixedSized(this.total_length - 8, LazyBound(lambda: broadcast_frame__data_request)), 'data_response': FixedSized(this.total_length - 8, LazyBound(lambda: broadcast_frame__data_response)), }, default=FixedSized(this.total_length - 8, GreedyBytes)),
)

_schema = broadcast_frame

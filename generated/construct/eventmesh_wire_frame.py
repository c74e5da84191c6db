from construct import *
from construct.lib import *
import enum

class eventmesh_wire_frame__msg_type(enum.IntEnum):
	stream_req = 1
	stream_chunk = 2
	event = 3

eventmesh_wire_frame__attribute = Struct(
	'name_len' / Int16ub,
	'name' / FixedSized(this.name_len, GreedyString(encoding='UTF-8')),
	'value_len' / Int32sb,
	'value' / FixedSized(this.value_len, GreedyString(encoding='UTF-8')),
)

eventmesh_wire_frame = Struct(
	'magic' / FixedSized(1, GreedyBytes),
	'version' / FixedSized(1, GreedyBytes),
	'msg_type' / Enum(Int8ub, eventmesh_wire_frame__msg_type),
	'flags' / Int8ub,
	'seq' / Int32sb,
	'key_count' / Int16ub,
	'data_len' / Int32sb,
	'attributes' / Array(this.key_count, LazyBound(lambda: eventmesh_wire_frame__attribute)),
	'data' / FixedSized(this.data_len, GreedyBytes),
	'done' / Computed(lambda this: this.flags & 1 != 0),
	'has_error' / Computed(lambda this: this.flags & 2 != 0),
	'has_meta' / Computed(lambda this: this.flags & 4 != 0),
)

_schema = eventmesh_wire_frame

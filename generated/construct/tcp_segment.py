from construct import *
from construct.lib import *

tcp_segment = Struct(
	'src_port' / Int16ub,
	'dst_port' / Int16ub,
	'seq_num' / Int32ub,
	'ack_num' / Int32ub,
	'data_offset' / ???,
	'reserved' / ???,
	'ns' / ???,
	'cwr' / ???,
	'ece' / ???,
	'urg' / ???,
	'ack' / ???,
	'psh' / ???,
	'rst' / ???,
	'syn' / ???,
	'fin' / ???,
	'window' / Int16ub,
	'checksum' / Int16ub,
	'urgent_pointer' / Int16ub,
	'options' / FixedSized(this.data_offset * 4 - 20, GreedyBytes),
	'data' / GreedyBytes,
)

_schema = tcp_segment

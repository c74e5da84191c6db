from construct import *
from construct.lib import *

ipv4_packet = Struct(
	'version' / ???,
	'ihl' / ???,
	'dscp' / ???,
	'ecn' / ???,
	'total_length' / Int16ub,
	'identification' / Int16ub,
	'reserved_flag' / ???,
	'dont_fragment' / ???,
	'more_fragments' / ???,
	'fragment_offset' / ???,
	'ttl' / Int8ub,
	'protocol' / Int8ub,
	'header_checksum' / Int16ub,
	'src_addr' / FixedSized(4, GreedyBytes),
	'dst_addr' / FixedSized(4, GreedyBytes),
	'options' / FixedSized(this.ihl * 4 - 20, GreedyBytes),
	'rest' / GreedyBytes,
	'payload_length' / Computed(lambda this: this.total_length - this.ihl * 4),
)

_schema = ipv4_packet

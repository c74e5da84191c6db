from construct import *
from construct.lib import *

ipv6_packet = Struct(
	'version' / ???,
	'traffic_class' / ???,
	'flow_label' / ???,
	'payload_length' / Int16ub,
	'next_header' / Int8ub,
	'hop_limit' / Int8ub,
	'src_addr' / FixedSized(16, GreedyBytes),
	'dst_addr' / FixedSized(16, GreedyBytes),
	'rest' / GreedyBytes,
)

_schema = ipv6_packet

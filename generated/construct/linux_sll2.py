from construct import *
from construct.lib import *

linux_sll2 = Struct(
	'protocol' / Int16ub,
	'reserved' / Int16ub,
	'interface_index' / Int32ub,
	'arphrd_type' / Int16ub,
	'packet_type' / Int8ub,
	'address_length' / Int8ub,
	'address' / FixedSized(8, GreedyBytes),
	'payload' / GreedyBytes,
)

_schema = linux_sll2

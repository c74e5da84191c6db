from construct import *
from construct.lib import *

linux_sll = Struct(
	'packet_type' / Int16ub,
	'arphrd_type' / Int16ub,
	'address_length' / Int16ub,
	'address' / FixedSized(8, GreedyBytes),
	'protocol' / Int16ub,
	'payload' / GreedyBytes,
)

_schema = linux_sll

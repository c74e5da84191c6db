from construct import *
from construct.lib import *

grpc_message__message_prefix = Struct(
	'compressed' / Int8ub,
	'length' / Int32ub,
)

grpc_message = Struct(
	'prefix' / LazyBound(lambda: grpc_message__message_prefix),
	'message' / FixedSized(this.prefix.length, GreedyBytes),
)

_schema = grpc_message

from construct import *
from construct.lib import *

tubemq_message__data_with_attribute = Struct(
	'attr_len' / Int32sb,
	'attribute' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
	'payload' / GreedyBytes,
)

tubemq_message = Struct(
)

_schema = tubemq_message

from construct import *
from construct.lib import *

dataproxy_response__bin_response = Struct(
	'unique_id' / Int32ub,
	'attr_len' / Int16sb,
	'attr' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
	'magic' / FixedSized(2, GreedyBytes),
	'trailing' / GreedyBytes,
)

dataproxy_response__legacy_heartbeat_reply = Struct(
)

dataproxy_response = Struct(
	'total_len' / Int32ub,
	'auth' / ???,
	'encrypted' / ???,
	'compressed' / ???,
	'base_type' / Enum(???, dataproxy_common__msg_type),
	'body' / Switch(this.base_type, {'ack_service': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'bin_heartbeat': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__bin_heartbeat)), 'bin_multi_body': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_response__bin_response)), 'common_service': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'heartbeat': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_response__legacy_heartbeat_reply)), 'multi_body': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'multi_body_attr': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'original_return': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), }, default=FixedSized(this.total_len - 1, GreedyBytes)),
)

_schema = dataproxy_response

from construct import *
from construct.lib import *

dataproxy_request__bin_message = Struct(
	'group_num' / Int16ub,
	'stream_num' / Int16ub,
	'ext_field' / LazyBound(lambda: dataproxy_common__ext_field),
	'data_time' / Int32ub,
	'msg_cnt' / Int16ub,
	'unique_id' / Int32ub,
	'body_len' / Int32sb,
	'body' / FixedSized(this.body_len, GreedyBytes),
	'attr_len' / Int16sb,
	'attr' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
	'magic' / FixedSized(2, GreedyBytes),
	'trailing' / GreedyBytes,
)

dataproxy_request = Struct(
	'total_len' / Int32ub,
	'auth' / ???,
	'encrypted' / ???,
	'compressed' / ???,
	'base_type' / Enum(???, dataproxy_common__msg_type),
	'body' / Switch(this.base_type, {'ack_service': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'bin_heartbeat': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__bin_heartbeat)), 'bin_multi_body': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_request__bin_message)), 'common_service': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'heartbeat': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'multi_body': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'multi_body_attr': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), 'original_return': FixedSized(this.total_len - 1, LazyBound(lambda: dataproxy_common__text_message)), }, default=FixedSized(this.total_len - 1, GreedyBytes)),
)

_schema = dataproxy_request

from construct import *
from construct.lib import *
import enum

class dataproxy_common__err_code(enum.IntEnum):
	success = 0
	sink_service_unready = 1
	service_closed = 2
	conf_service_unready = 3
	illegal_visit_ip = 10
	http_decode_req_failure = 31
	http_unsupported_method = 32
	http_req_uri_blank = 33
	http_decode_req_uri_failure = 34
	http_unsupported_service_uri = 35
	http_unsupported_content_type = 36
	field_magic_not_equal = 94
	field_length_value_not_equal = 95
	uncompress_data_error = 96
	miss_required_groupid_argument = 100
	miss_required_streamid_argument = 101
	miss_required_dt_argument = 102
	miss_required_body_argument = 103
	body_exceed_max_len = 104
	body_length_zero = 105
	body_length_less_zero = 106
	attr_length_less_zero = 107
	error_process_logic = 108
	split_attr_error = 109
	unsupported_msg_type = 110
	empty_msg = 111
	unsupported_extend_field_value = 112
	unconfigured_groupid_or_streamid = 113
	put_event_to_channel_failure = 114
	topic_is_blank = 115
	no_available_producer = 116
	producer_is_null = 117
	send_request_to_mq_failure = 118
	mq_return_error = 119
	duplicated_message = 120
	groupid_or_streamid_not_configure = 121
	groupid_or_streamid_inconstant = 122
	msg_body_items_invalid = 123
	attr_order_control_conflict_error = 150
	attr_proxy_control_conflict_error = 151
	unknown_error = 2147483647

class dataproxy_common__msg_type(enum.IntEnum):
	heartbeat = 1
	common_service = 2
	ack_service = 3
	original_return = 4
	multi_body = 5
	multi_body_attr = 6
	bin_multi_body = 7
	bin_heartbeat = 8

dataproxy_common__bin_heartbeat = Struct(
	'data_time' / Int32ub,
	'version' / Int8ub,
	'body_len' / Int32sb,
	'body' / FixedSized(this.body_len, GreedyBytes),
	'attr_len' / Int16sb,
	'attr' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
	'magic' / FixedSized(2, GreedyBytes),
	'trailing' / GreedyBytes,
)

dataproxy_common__ext_field = Struct(
	'reserved' / ???,
	'separated_by_lf' / ???,
	'index_message' / ???,
	'file_check' / ???,
	'ids_as_strings' / ???,
	'trace' / ???,
	'per_record_attributes' / ???,
)

dataproxy_common__text_message = Struct(
	'body_len' / Int32sb,
	'body' / FixedSized(this.body_len, GreedyBytes),
	'attr_len' / Int32sb,
	'attr' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
)

dataproxy_common = Struct(
)

_schema = dataproxy_common

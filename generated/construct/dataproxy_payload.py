from construct import *
from construct.lib import *

dataproxy_payload__bin_item = Struct(
	'item_len' / Int32ub,
	'data' / FixedSized(this.item_len, GreedyBytes),
)

dataproxy_payload__bin_item_with_attrs = Struct(
	'item_len' / Int32ub,
	'data' / FixedSized(this.item_len, GreedyBytes),
	'attr_len' / Int32ub,
	'attr' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
)

dataproxy_payload__bin_items = Struct(
	'items' / GreedyRange(LazyBound(lambda: dataproxy_payload__bin_item)),
)

dataproxy_payload__bin_items_with_attrs = Struct(
	'items' / GreedyRange(LazyBound(lambda: dataproxy_payload__bin_item_with_attrs)),
)

dataproxy_payload__lf_block = Struct(
	'block_len' / Int32ub,
	'data' / FixedSized(this.block_len, GreedyBytes),
)

dataproxy_payload__multi_body_attr_item = Struct(
	'item_len' / Int32sb,
	'data' / FixedSized(this.item_len, GreedyBytes),
	'attr_len' / Int32sb,
	'attr' / FixedSized(this.attr_len, GreedyString(encoding='UTF-8')),
)

dataproxy_payload__multi_body_attr_items = Struct(
	'items' / GreedyRange(LazyBound(lambda: dataproxy_payload__multi_body_attr_item)),
)

dataproxy_payload__text_item = Struct(
	'item_len' / Int32sb,
	'data' / FixedSized(this.item_len, GreedyBytes),
)

dataproxy_payload__text_items = Struct(
	'items' / GreedyRange(LazyBound(lambda: dataproxy_payload__text_item)),
)

dataproxy_payload = Struct(
)

_schema = dataproxy_payload

from construct import *
from construct.lib import *

ethernet_frame__vlan_tagged = Struct(
	'priority' / ???,
	'drop_eligible' / ???,
	'vlan_id' / ???,
	'ether_type' / Int16ub,
	'body' / Switch(this.ether_type, {33024: ???, 34984: ???, }, default=GreedyBytes),
)

ethernet_frame = Struct(
	'dst_mac' / FixedSized(6, GreedyBytes),
	'src_mac' / FixedSized(6, GreedyBytes),
	'ether_type' / Int16ub,
	'body' / Switch(this.ether_type, {33024: ???, 34984: ???, }, default=GreedyBytes),
)

_schema = ethernet_frame

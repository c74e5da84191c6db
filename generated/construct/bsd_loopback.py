from construct import *
from construct.lib import *

bsd_loopback = Struct(
	'family' / Int32ul,
	'payload' / GreedyBytes,
	'family_swapped' / Computed(lambda this: ((this.family >> 24 & 255 | this.family >> 8 & 65280) | this.family << 8 & 16711680) | this.family << 24 & 4278190080),
)

_schema = bsd_loopback

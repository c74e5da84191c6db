from construct import *
from construct.lib import *

raw_ip = Struct(
	'version' / ???,
	'rest_of_first_byte' / ???,
)

_schema = raw_ip

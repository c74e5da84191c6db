from construct import *
from construct.lib import *

bracketed_timestamp__decimal2 = Struct(
	'tens' / Int8ub,
	'ones' / Int8ub,
	'value' / Computed(lambda this: (this.tens - 48) * 10 + (this.ones - 48)),
)

bracketed_timestamp__decimal3 = Struct(
	'hundreds' / Int8ub,
	'tens' / Int8ub,
	'ones' / Int8ub,
	'value' / Computed(lambda this: ((this.hundreds - 48) * 100 + (this.tens - 48) * 10) + (this.ones - 48)),
)

bracketed_timestamp__decimal4 = Struct(
	'thousands' / Int8ub,
	'hundreds' / Int8ub,
	'tens' / Int8ub,
	'ones' / Int8ub,
	'value' / Computed(lambda this: (((this.thousands - 48) * 1000 + (this.hundreds - 48) * 100) + (this.tens - 48) * 10) + (this.ones - 48)),
)

bracketed_timestamp = Struct(
	'open_bracket' / FixedSized(1, GreedyBytes),
	'year' / LazyBound(lambda: bracketed_timestamp__decimal4),
	'date_separator_1' / FixedSized(1, GreedyBytes),
	'month' / LazyBound(lambda: bracketed_timestamp__decimal2),
	'date_separator_2' / FixedSized(1, GreedyBytes),
	'day' / LazyBound(lambda: bracketed_timestamp__decimal2),
	'date_time_separator' / FixedSized(1, GreedyBytes),
	'hour' / LazyBound(lambda: bracketed_timestamp__decimal2),
	'time_separator_1' / FixedSized(1, GreedyBytes),
	'minute' / LazyBound(lambda: bracketed_timestamp__decimal2),
	'time_separator_2' / FixedSized(1, GreedyBytes),
	'second' / LazyBound(lambda: bracketed_timestamp__decimal2),
	'millisecond_separator' / FixedSized(1, GreedyBytes),
	'millisecond' / LazyBound(lambda: bracketed_timestamp__decimal3),
	'close_bracket' / FixedSized(1, GreedyBytes),
	'is_leap_year' / Computed(lambda this:  (( ((this.year.value % 4 == 0) and (this.year.value % 100 != 0)) ) or (this.year.value % 400 == 0)) ),
	'month_length' / Computed(lambda this: ((29 if this.is_leap_year else 28) if this.month.value == 2 else (30 if  ((this.month.value == 4) or (this.month.value == 6) or (this.month.value == 9) or (this.month.value == 11))  else 31))),
)

_schema = bracketed_timestamp

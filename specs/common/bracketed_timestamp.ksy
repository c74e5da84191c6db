meta:
  id: bracketed_timestamp
  title: Bracketed wall-clock timestamp "[yyyy-MM-dd HH:mm:ss.SSS]"
  license: Apache-2.0
  ks-version: "0.11"
  encoding: ASCII
-inlong:
  python-type: datetime
doc: |
  25 ASCII bytes: an opening bracket, a date and time with millisecond precision, a closing bracket.
  The brackets are part of the value on the wire (1 + 23 + 1 bytes); the seed's `hh` is read as a
  24-hour clock (`HH`), since a 12-hour clock without an AM/PM marker could not order the history.
  Every digit is validated as an ASCII decimal digit and the date must exist in the proleptic Gregorian
  calendar (month 1..12, day within the month, leap years honoured, hour < 24, minute and second < 60),
  so a wrong pattern or an impossible date is a decode error rather than a string passed through.
  The runtime exposes the value as a naive `datetime` (no zone is carried on the wire); each decimal
  group as an int. `-inlong-encode` gives, for encoding, each digit from the group's value `_`.
doc-ref: "docs/protocols/broadcast.md (the Simple Broadcasting Protocol: timestamp pattern)"
seq:
  - id: open_bracket
    contents: "["
    doc: Literal "[" opening the timestamp.
  - id: year
    type: decimal4
    valid:
      expr: _.value >= 1
    doc: Four-digit year, 0001..9999.
  - id: date_separator_1
    contents: "-"
    doc: Literal "-" between year and month.
  - id: month
    type: decimal2
    valid:
      expr: _.value >= 1 and _.value <= 12
    doc: Two-digit month, 01..12.
  - id: date_separator_2
    contents: "-"
    doc: Literal "-" between month and day.
  - id: day
    type: decimal2
    valid:
      # Days up to 28 exist in every month; only later days need the month's length.
      expr: _.value >= 1 and (_.value <= 28 or _.value <= month_length)
    doc: Two-digit day of month, 01 up to the length of that month.
  - id: date_time_separator
    contents: " "
    doc: A single space between date and time.
  - id: hour
    type: decimal2
    valid:
      expr: _.value <= 23
    doc: Two-digit hour on a 24-hour clock, 00..23.
  - id: time_separator_1
    contents: ":"
    doc: Literal ":" between hour and minute.
  - id: minute
    type: decimal2
    valid:
      expr: _.value <= 59
    doc: Two-digit minute, 00..59.
  - id: time_separator_2
    contents: ":"
    doc: Literal ":" between minute and second.
  - id: second
    type: decimal2
    valid:
      expr: _.value <= 59
    doc: Two-digit second, 00..59 (no leap second, as in Java's SimpleDateFormat output).
  - id: millisecond_separator
    contents: "."
    doc: Literal "." before the milliseconds.
  - id: millisecond
    type: decimal3
    doc: Three-digit millisecond, 000..999.
  - id: close_bracket
    contents: "]"
    doc: Literal "]" closing the timestamp.
instances:
  is_leap_year:
    value: (year.value % 4 == 0 and year.value % 100 != 0) or year.value % 400 == 0
    doc: Gregorian leap-year rule, used to bound the day of February.
  month_length:
    # Named so that it sorts after is_leap_year: the Construct backend emits instances alphabetically.
    value: >-
      month.value == 2 ? (is_leap_year ? 29 : 28)
      : ((month.value == 4 or month.value == 6 or month.value == 9 or month.value == 11) ? 30 : 31)
    doc: Number of days in this month of this year.
types:
  decimal2:
    -inlong:
      python-type: value
    doc: Two ASCII decimal digits, most significant first.
    seq:
      - id: tens
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ / 10 % 10 + 0x30
        doc: ASCII digit '0'..'9' for the tens.
      - id: ones
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ % 10 + 0x30
        doc: ASCII digit '0'..'9' for the ones.
    instances:
      value:
        value: (tens - 0x30) * 10 + (ones - 0x30)
        doc: The number the two digits spell.
  decimal3:
    -inlong:
      python-type: value
    doc: Three ASCII decimal digits, most significant first.
    seq:
      - id: hundreds
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ / 100 % 10 + 0x30
        doc: ASCII digit '0'..'9' for the hundreds.
      - id: tens
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ / 10 % 10 + 0x30
        doc: ASCII digit '0'..'9' for the tens.
      - id: ones
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ % 10 + 0x30
        doc: ASCII digit '0'..'9' for the ones.
    instances:
      value:
        value: (hundreds - 0x30) * 100 + (tens - 0x30) * 10 + (ones - 0x30)
        doc: The number the three digits spell.
  decimal4:
    -inlong:
      python-type: value
    doc: Four ASCII decimal digits, most significant first.
    seq:
      - id: thousands
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ / 1000 % 10 + 0x30
        doc: ASCII digit '0'..'9' for the thousands.
      - id: hundreds
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ / 100 % 10 + 0x30
        doc: ASCII digit '0'..'9' for the hundreds.
      - id: tens
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ / 10 % 10 + 0x30
        doc: ASCII digit '0'..'9' for the tens.
      - id: ones
        type: u1
        valid: {min: 0x30, max: 0x39}
        -inlong-encode: _ % 10 + 0x30
        doc: ASCII digit '0'..'9' for the ones.
    instances:
      value:
        value: (thousands - 0x30) * 1000 + (hundreds - 0x30) * 100 + (tens - 0x30) * 10 + (ones - 0x30)
        doc: The number the four digits spell.

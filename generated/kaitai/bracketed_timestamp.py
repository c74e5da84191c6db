# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class BracketedTimestamp(KaitaiStruct):
    """25 ASCII bytes: an opening bracket, a date and time with millisecond precision, a closing bracket.
    The brackets are part of the value on the wire (1 + 23 + 1 bytes); the seed's `hh` is read as a
    24-hour clock (`HH`), since a 12-hour clock without an AM/PM marker could not order the history.
    Every digit is validated as an ASCII decimal digit and the date must exist in the proleptic Gregorian
    calendar (month 1..12, day within the month, leap years honoured, hour < 24, minute and second < 60),
    so a wrong pattern or an impossible date is a decode error rather than a string passed through.
    The runtime exposes the value as a naive `datetime` (no zone is carried on the wire); each decimal
    group as an int. `-inlong-encode` gives, for encoding, each digit from the group's value `_`.
    
    .. seealso::
       docs/protocols/broadcast.md (the Simple Broadcasting Protocol: timestamp pattern)
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(BracketedTimestamp, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.open_bracket = self._io.read_bytes(1)
        if not self.open_bracket == b"\x5B":
            raise kaitaistruct.ValidationNotEqualError(b"\x5B", self.open_bracket, self._io, u"/seq/0")
        self.year = BracketedTimestamp.Decimal4(self._io, self, self._root)
        _ = self.year
        if not _.value >= 1:
            raise kaitaistruct.ValidationExprError(self.year, self._io, u"/seq/1")
        self.date_separator_1 = self._io.read_bytes(1)
        if not self.date_separator_1 == b"\x2D":
            raise kaitaistruct.ValidationNotEqualError(b"\x2D", self.date_separator_1, self._io, u"/seq/2")
        self.month = BracketedTimestamp.Decimal2(self._io, self, self._root)
        _ = self.month
        if not  ((_.value >= 1) and (_.value <= 12)) :
            raise kaitaistruct.ValidationExprError(self.month, self._io, u"/seq/3")
        self.date_separator_2 = self._io.read_bytes(1)
        if not self.date_separator_2 == b"\x2D":
            raise kaitaistruct.ValidationNotEqualError(b"\x2D", self.date_separator_2, self._io, u"/seq/4")
        self.day = BracketedTimestamp.Decimal2(self._io, self, self._root)
        _ = self.day
        if not  ((_.value >= 1) and ( ((_.value <= 28) or (_.value <= self.month_length)) )) :
            raise kaitaistruct.ValidationExprError(self.day, self._io, u"/seq/5")
        self.date_time_separator = self._io.read_bytes(1)
        if not self.date_time_separator == b"\x20":
            raise kaitaistruct.ValidationNotEqualError(b"\x20", self.date_time_separator, self._io, u"/seq/6")
        self.hour = BracketedTimestamp.Decimal2(self._io, self, self._root)
        _ = self.hour
        if not _.value <= 23:
            raise kaitaistruct.ValidationExprError(self.hour, self._io, u"/seq/7")
        self.time_separator_1 = self._io.read_bytes(1)
        if not self.time_separator_1 == b"\x3A":
            raise kaitaistruct.ValidationNotEqualError(b"\x3A", self.time_separator_1, self._io, u"/seq/8")
        self.minute = BracketedTimestamp.Decimal2(self._io, self, self._root)
        _ = self.minute
        if not _.value <= 59:
            raise kaitaistruct.ValidationExprError(self.minute, self._io, u"/seq/9")
        self.time_separator_2 = self._io.read_bytes(1)
        if not self.time_separator_2 == b"\x3A":
            raise kaitaistruct.ValidationNotEqualError(b"\x3A", self.time_separator_2, self._io, u"/seq/10")
        self.second = BracketedTimestamp.Decimal2(self._io, self, self._root)
        _ = self.second
        if not _.value <= 59:
            raise kaitaistruct.ValidationExprError(self.second, self._io, u"/seq/11")
        self.millisecond_separator = self._io.read_bytes(1)
        if not self.millisecond_separator == b"\x2E":
            raise kaitaistruct.ValidationNotEqualError(b"\x2E", self.millisecond_separator, self._io, u"/seq/12")
        self.millisecond = BracketedTimestamp.Decimal3(self._io, self, self._root)
        self.close_bracket = self._io.read_bytes(1)
        if not self.close_bracket == b"\x5D":
            raise kaitaistruct.ValidationNotEqualError(b"\x5D", self.close_bracket, self._io, u"/seq/14")


    def _fetch_instances(self):
        pass
        self.year._fetch_instances()
        self.month._fetch_instances()
        self.day._fetch_instances()
        self.hour._fetch_instances()
        self.minute._fetch_instances()
        self.second._fetch_instances()
        self.millisecond._fetch_instances()

    class Decimal2(KaitaiStruct):
        """Two ASCII decimal digits, most significant first."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BracketedTimestamp.Decimal2, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.tens = self._io.read_u1()
            if not self.tens >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.tens, self._io, u"/types/decimal2/seq/0")
            if not self.tens <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.tens, self._io, u"/types/decimal2/seq/0")
            self.ones = self._io.read_u1()
            if not self.ones >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.ones, self._io, u"/types/decimal2/seq/1")
            if not self.ones <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.ones, self._io, u"/types/decimal2/seq/1")


        def _fetch_instances(self):
            pass

        @property
        def value(self):
            """The number the two digits spell."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = (self.tens - 48) * 10 + (self.ones - 48)
            return getattr(self, '_m_value', None)


    class Decimal3(KaitaiStruct):
        """Three ASCII decimal digits, most significant first."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BracketedTimestamp.Decimal3, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.hundreds = self._io.read_u1()
            if not self.hundreds >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.hundreds, self._io, u"/types/decimal3/seq/0")
            if not self.hundreds <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.hundreds, self._io, u"/types/decimal3/seq/0")
            self.tens = self._io.read_u1()
            if not self.tens >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.tens, self._io, u"/types/decimal3/seq/1")
            if not self.tens <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.tens, self._io, u"/types/decimal3/seq/1")
            self.ones = self._io.read_u1()
            if not self.ones >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.ones, self._io, u"/types/decimal3/seq/2")
            if not self.ones <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.ones, self._io, u"/types/decimal3/seq/2")


        def _fetch_instances(self):
            pass

        @property
        def value(self):
            """The number the three digits spell."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = ((self.hundreds - 48) * 100 + (self.tens - 48) * 10) + (self.ones - 48)
            return getattr(self, '_m_value', None)


    class Decimal4(KaitaiStruct):
        """Four ASCII decimal digits, most significant first."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BracketedTimestamp.Decimal4, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.thousands = self._io.read_u1()
            if not self.thousands >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.thousands, self._io, u"/types/decimal4/seq/0")
            if not self.thousands <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.thousands, self._io, u"/types/decimal4/seq/0")
            self.hundreds = self._io.read_u1()
            if not self.hundreds >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.hundreds, self._io, u"/types/decimal4/seq/1")
            if not self.hundreds <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.hundreds, self._io, u"/types/decimal4/seq/1")
            self.tens = self._io.read_u1()
            if not self.tens >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.tens, self._io, u"/types/decimal4/seq/2")
            if not self.tens <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.tens, self._io, u"/types/decimal4/seq/2")
            self.ones = self._io.read_u1()
            if not self.ones >= 48:
                raise kaitaistruct.ValidationLessThanError(48, self.ones, self._io, u"/types/decimal4/seq/3")
            if not self.ones <= 57:
                raise kaitaistruct.ValidationGreaterThanError(57, self.ones, self._io, u"/types/decimal4/seq/3")


        def _fetch_instances(self):
            pass

        @property
        def value(self):
            """The number the four digits spell."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = (((self.thousands - 48) * 1000 + (self.hundreds - 48) * 100) + (self.tens - 48) * 10) + (self.ones - 48)
            return getattr(self, '_m_value', None)


    @property
    def is_leap_year(self):
        """Gregorian leap-year rule, used to bound the day of February."""
        if hasattr(self, '_m_is_leap_year'):
            return self._m_is_leap_year

        self._m_is_leap_year =  (( ((self.year.value % 4 == 0) and (self.year.value % 100 != 0)) ) or (self.year.value % 400 == 0)) 
        return getattr(self, '_m_is_leap_year', None)

    @property
    def month_length(self):
        """Number of days in this month of this year."""
        if hasattr(self, '_m_month_length'):
            return self._m_month_length

        self._m_month_length = ((29 if self.is_leap_year else 28) if self.month.value == 2 else (30 if  ((self.month.value == 4) or (self.month.value == 6) or (self.month.value == 9) or (self.month.value == 11))  else 31))
        return getattr(self, '_m_month_length', None)



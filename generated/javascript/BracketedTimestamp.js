// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.BracketedTimestamp || (root.BracketedTimestamp = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (BracketedTimestamp_, KaitaiStream) {
/**
 * 25 ASCII bytes: an opening bracket, a date and time with millisecond precision, a closing bracket.
 * The brackets are part of the value on the wire (1 + 23 + 1 bytes); the seed's `hh` is read as a
 * 24-hour clock (`HH`), since a 12-hour clock without an AM/PM marker could not order the history.
 * Every digit is validated as an ASCII decimal digit and the date must exist in the proleptic Gregorian
 * calendar (month 1..12, day within the month, leap years honoured, hour < 24, minute and second < 60),
 * so a wrong pattern or an impossible date is a decode error rather than a string passed through.
 * The runtime exposes the value as a naive `datetime` (no zone is carried on the wire); each decimal
 * group as an int. `-inlong-encode` gives, for encoding, each digit from the group's value `_`.
 * @see docs/protocols/broadcast.md (the Simple Broadcasting Protocol: timestamp pattern)
 */

var BracketedTimestamp = (function() {
  function BracketedTimestamp(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  BracketedTimestamp.prototype._read = function() {
    this._debug.openBracket = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.openBracket = this._io.readBytes(1);
    this._debug.openBracket.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.openBracket, new Uint8Array([91])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([91]), this.openBracket, this._io, "/seq/0");
      this._debug.openBracket.validationError = _err;
      throw _err;
    }
    this._debug.year = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.year = new Decimal4(this._io, this, this._root);
    this.year._read();
    this._debug.year.end = this._io.pos;
    var _ = this.year;
    if (!(_.value >= 1)) {
      var _err = new KaitaiStream.ValidationExprError(this.year, this._io, "/seq/1");
      this._debug.year.validationError = _err;
      throw _err;
    }
    this._debug.dateSeparator1 = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dateSeparator1 = this._io.readBytes(1);
    this._debug.dateSeparator1.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.dateSeparator1, new Uint8Array([45])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([45]), this.dateSeparator1, this._io, "/seq/2");
      this._debug.dateSeparator1.validationError = _err;
      throw _err;
    }
    this._debug.month = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.month = new Decimal2(this._io, this, this._root);
    this.month._read();
    this._debug.month.end = this._io.pos;
    var _ = this.month;
    if (!( ((_.value >= 1) && (_.value <= 12)) )) {
      var _err = new KaitaiStream.ValidationExprError(this.month, this._io, "/seq/3");
      this._debug.month.validationError = _err;
      throw _err;
    }
    this._debug.dateSeparator2 = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dateSeparator2 = this._io.readBytes(1);
    this._debug.dateSeparator2.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.dateSeparator2, new Uint8Array([45])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([45]), this.dateSeparator2, this._io, "/seq/4");
      this._debug.dateSeparator2.validationError = _err;
      throw _err;
    }
    this._debug.day = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.day = new Decimal2(this._io, this, this._root);
    this.day._read();
    this._debug.day.end = this._io.pos;
    var _ = this.day;
    if (!( ((_.value >= 1) && ( ((_.value <= 28) || (_.value <= this.monthLength)) )) )) {
      var _err = new KaitaiStream.ValidationExprError(this.day, this._io, "/seq/5");
      this._debug.day.validationError = _err;
      throw _err;
    }
    this._debug.dateTimeSeparator = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dateTimeSeparator = this._io.readBytes(1);
    this._debug.dateTimeSeparator.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.dateTimeSeparator, new Uint8Array([32])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([32]), this.dateTimeSeparator, this._io, "/seq/6");
      this._debug.dateTimeSeparator.validationError = _err;
      throw _err;
    }
    this._debug.hour = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.hour = new Decimal2(this._io, this, this._root);
    this.hour._read();
    this._debug.hour.end = this._io.pos;
    var _ = this.hour;
    if (!(_.value <= 23)) {
      var _err = new KaitaiStream.ValidationExprError(this.hour, this._io, "/seq/7");
      this._debug.hour.validationError = _err;
      throw _err;
    }
    this._debug.timeSeparator1 = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.timeSeparator1 = this._io.readBytes(1);
    this._debug.timeSeparator1.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.timeSeparator1, new Uint8Array([58])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([58]), this.timeSeparator1, this._io, "/seq/8");
      this._debug.timeSeparator1.validationError = _err;
      throw _err;
    }
    this._debug.minute = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.minute = new Decimal2(this._io, this, this._root);
    this.minute._read();
    this._debug.minute.end = this._io.pos;
    var _ = this.minute;
    if (!(_.value <= 59)) {
      var _err = new KaitaiStream.ValidationExprError(this.minute, this._io, "/seq/9");
      this._debug.minute.validationError = _err;
      throw _err;
    }
    this._debug.timeSeparator2 = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.timeSeparator2 = this._io.readBytes(1);
    this._debug.timeSeparator2.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.timeSeparator2, new Uint8Array([58])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([58]), this.timeSeparator2, this._io, "/seq/10");
      this._debug.timeSeparator2.validationError = _err;
      throw _err;
    }
    this._debug.second = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.second = new Decimal2(this._io, this, this._root);
    this.second._read();
    this._debug.second.end = this._io.pos;
    var _ = this.second;
    if (!(_.value <= 59)) {
      var _err = new KaitaiStream.ValidationExprError(this.second, this._io, "/seq/11");
      this._debug.second.validationError = _err;
      throw _err;
    }
    this._debug.millisecondSeparator = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.millisecondSeparator = this._io.readBytes(1);
    this._debug.millisecondSeparator.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.millisecondSeparator, new Uint8Array([46])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([46]), this.millisecondSeparator, this._io, "/seq/12");
      this._debug.millisecondSeparator.validationError = _err;
      throw _err;
    }
    this._debug.millisecond = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.millisecond = new Decimal3(this._io, this, this._root);
    this.millisecond._read();
    this._debug.millisecond.end = this._io.pos;
    this._debug.closeBracket = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.closeBracket = this._io.readBytes(1);
    this._debug.closeBracket.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.closeBracket, new Uint8Array([93])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([93]), this.closeBracket, this._io, "/seq/14");
      this._debug.closeBracket.validationError = _err;
      throw _err;
    }
  }

  /**
   * Two ASCII decimal digits, most significant first.
   */

  var Decimal2 = BracketedTimestamp.Decimal2 = (function() {
    function Decimal2(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Decimal2.prototype._read = function() {
      this._debug.tens = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tens = this._io.readU1();
      this._debug.tens.end = this._io.pos;
      if (!(this.tens >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.tens, this._io, "/types/decimal2/seq/0");
        this._debug.tens.validationError = _err;
        throw _err;
      }
      if (!(this.tens <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.tens, this._io, "/types/decimal2/seq/0");
        this._debug.tens.validationError = _err;
        throw _err;
      }
      this._debug.ones = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.ones = this._io.readU1();
      this._debug.ones.end = this._io.pos;
      if (!(this.ones >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.ones, this._io, "/types/decimal2/seq/1");
        this._debug.ones.validationError = _err;
        throw _err;
      }
      if (!(this.ones <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.ones, this._io, "/types/decimal2/seq/1");
        this._debug.ones.validationError = _err;
        throw _err;
      }
    }

    /**
     * The number the two digits spell.
     */
    Object.defineProperty(Decimal2.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = (this.tens - 48) * 10 + (this.ones - 48);
        return this._m_value;
      }
    });

    /**
     * ASCII digit '0'..'9' for the tens.
     */

    /**
     * ASCII digit '0'..'9' for the ones.
     */

    return Decimal2;
  })();

  /**
   * Three ASCII decimal digits, most significant first.
   */

  var Decimal3 = BracketedTimestamp.Decimal3 = (function() {
    function Decimal3(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Decimal3.prototype._read = function() {
      this._debug.hundreds = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.hundreds = this._io.readU1();
      this._debug.hundreds.end = this._io.pos;
      if (!(this.hundreds >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.hundreds, this._io, "/types/decimal3/seq/0");
        this._debug.hundreds.validationError = _err;
        throw _err;
      }
      if (!(this.hundreds <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.hundreds, this._io, "/types/decimal3/seq/0");
        this._debug.hundreds.validationError = _err;
        throw _err;
      }
      this._debug.tens = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tens = this._io.readU1();
      this._debug.tens.end = this._io.pos;
      if (!(this.tens >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.tens, this._io, "/types/decimal3/seq/1");
        this._debug.tens.validationError = _err;
        throw _err;
      }
      if (!(this.tens <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.tens, this._io, "/types/decimal3/seq/1");
        this._debug.tens.validationError = _err;
        throw _err;
      }
      this._debug.ones = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.ones = this._io.readU1();
      this._debug.ones.end = this._io.pos;
      if (!(this.ones >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.ones, this._io, "/types/decimal3/seq/2");
        this._debug.ones.validationError = _err;
        throw _err;
      }
      if (!(this.ones <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.ones, this._io, "/types/decimal3/seq/2");
        this._debug.ones.validationError = _err;
        throw _err;
      }
    }

    /**
     * The number the three digits spell.
     */
    Object.defineProperty(Decimal3.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = ((this.hundreds - 48) * 100 + (this.tens - 48) * 10) + (this.ones - 48);
        return this._m_value;
      }
    });

    /**
     * ASCII digit '0'..'9' for the hundreds.
     */

    /**
     * ASCII digit '0'..'9' for the tens.
     */

    /**
     * ASCII digit '0'..'9' for the ones.
     */

    return Decimal3;
  })();

  /**
   * Four ASCII decimal digits, most significant first.
   */

  var Decimal4 = BracketedTimestamp.Decimal4 = (function() {
    function Decimal4(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Decimal4.prototype._read = function() {
      this._debug.thousands = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.thousands = this._io.readU1();
      this._debug.thousands.end = this._io.pos;
      if (!(this.thousands >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.thousands, this._io, "/types/decimal4/seq/0");
        this._debug.thousands.validationError = _err;
        throw _err;
      }
      if (!(this.thousands <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.thousands, this._io, "/types/decimal4/seq/0");
        this._debug.thousands.validationError = _err;
        throw _err;
      }
      this._debug.hundreds = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.hundreds = this._io.readU1();
      this._debug.hundreds.end = this._io.pos;
      if (!(this.hundreds >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.hundreds, this._io, "/types/decimal4/seq/1");
        this._debug.hundreds.validationError = _err;
        throw _err;
      }
      if (!(this.hundreds <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.hundreds, this._io, "/types/decimal4/seq/1");
        this._debug.hundreds.validationError = _err;
        throw _err;
      }
      this._debug.tens = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tens = this._io.readU1();
      this._debug.tens.end = this._io.pos;
      if (!(this.tens >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.tens, this._io, "/types/decimal4/seq/2");
        this._debug.tens.validationError = _err;
        throw _err;
      }
      if (!(this.tens <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.tens, this._io, "/types/decimal4/seq/2");
        this._debug.tens.validationError = _err;
        throw _err;
      }
      this._debug.ones = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.ones = this._io.readU1();
      this._debug.ones.end = this._io.pos;
      if (!(this.ones >= 48)) {
        var _err = new KaitaiStream.ValidationLessThanError(48, this.ones, this._io, "/types/decimal4/seq/3");
        this._debug.ones.validationError = _err;
        throw _err;
      }
      if (!(this.ones <= 57)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(57, this.ones, this._io, "/types/decimal4/seq/3");
        this._debug.ones.validationError = _err;
        throw _err;
      }
    }

    /**
     * The number the four digits spell.
     */
    Object.defineProperty(Decimal4.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = (((this.thousands - 48) * 1000 + (this.hundreds - 48) * 100) + (this.tens - 48) * 10) + (this.ones - 48);
        return this._m_value;
      }
    });

    /**
     * ASCII digit '0'..'9' for the thousands.
     */

    /**
     * ASCII digit '0'..'9' for the hundreds.
     */

    /**
     * ASCII digit '0'..'9' for the tens.
     */

    /**
     * ASCII digit '0'..'9' for the ones.
     */

    return Decimal4;
  })();

  /**
   * Gregorian leap-year rule, used to bound the day of February.
   */
  Object.defineProperty(BracketedTimestamp.prototype, 'isLeapYear', {
    get: function() {
      if (this._m_isLeapYear !== undefined)
        return this._m_isLeapYear;
      this._debug._m_isLeapYear = {  };
      this._m_isLeapYear =  (( ((KaitaiStream.mod(this.year.value, 4) == 0) && (KaitaiStream.mod(this.year.value, 100) != 0)) ) || (KaitaiStream.mod(this.year.value, 400) == 0)) ;
      return this._m_isLeapYear;
    }
  });

  /**
   * Number of days in this month of this year.
   */
  Object.defineProperty(BracketedTimestamp.prototype, 'monthLength', {
    get: function() {
      if (this._m_monthLength !== undefined)
        return this._m_monthLength;
      this._debug._m_monthLength = {  };
      this._m_monthLength = (this.month.value == 2 ? (this.isLeapYear ? 29 : 28) : ( ((this.month.value == 4) || (this.month.value == 6) || (this.month.value == 9) || (this.month.value == 11))  ? 30 : 31));
      return this._m_monthLength;
    }
  });

  /**
   * Literal "[" opening the timestamp.
   */

  /**
   * Four-digit year, 0001..9999.
   */

  /**
   * Literal "-" between year and month.
   */

  /**
   * Two-digit month, 01..12.
   */

  /**
   * Literal "-" between month and day.
   */

  /**
   * Two-digit day of month, 01 up to the length of that month.
   */

  /**
   * A single space between date and time.
   */

  /**
   * Two-digit hour on a 24-hour clock, 00..23.
   */

  /**
   * Literal ":" between hour and minute.
   */

  /**
   * Two-digit minute, 00..59.
   */

  /**
   * Literal ":" between minute and second.
   */

  /**
   * Two-digit second, 00..59 (no leap second, as in Java's SimpleDateFormat output).
   */

  /**
   * Literal "." before the milliseconds.
   */

  /**
   * Three-digit millisecond, 000..999.
   */

  /**
   * Literal "]" closing the timestamp.
   */

  return BracketedTimestamp;
})();
BracketedTimestamp_.BracketedTimestamp = BracketedTimestamp;
});

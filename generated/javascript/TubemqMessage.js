// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.TubemqMessage || (root.TubemqMessage = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (TubemqMessage_, KaitaiStream) {
/**
 * When the message flag's bit 0 (has attribute) is set, the data starts with the attribute text and its
 * length; otherwise the data is the payload alone. The checkSum next to it is CRC32(data) & 0x7FFFFFFF
 * over the whole data (attribute header included); producers send -1, "do not check".
 * Quirk Q-T11: a producer with an empty (non-null) attribute sets bit 0 but writes no header, so its
 * first four payload bytes are misread as attr_len by every consumer; this spec reads what is there.
 * @see apache/inlong@a6c7a6a670c3 inlong-tubemq/tubemq-client/src/main/java/org/apache/inlong/tubemq/client/producer/SimpleMessageProducer.java (encodePayload), inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corebase/utils/MessageFlagUtils.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 2 (section 2.10)
 */

var TubemqMessage = (function() {
  function TubemqMessage(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  TubemqMessage.prototype._read = function() {
  }

  /**
   * Message data with flag bit 0 set.
   */

  var DataWithAttribute = TubemqMessage.DataWithAttribute = (function() {
    function DataWithAttribute(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DataWithAttribute.prototype._read = function() {
      this._debug.attrLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attrLen = this._io.readS4be();
      this._debug.attrLen.end = this._io.pos;
      if (!(this.attrLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.attrLen, this._io, "/types/data_with_attribute/seq/0");
        this._debug.attrLen.validationError = _err;
        throw _err;
      }
      this._debug.attribute = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attribute = KaitaiStream.bytesToStr(this._io.readBytes(this.attrLen), "UTF-8");
      this._debug.attribute.end = this._io.pos;
      this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.payload = this._io.readBytesFull();
      this._debug.payload.end = this._io.pos;
    }

    /**
     * Bytes of the attribute text.
     */

    /**
     * Attributes `k=v,k=v`; system headers $msgType$ and $msgTime$ (yyyyMMddHHmm) come first.
     */

    /**
     * The message body.
     */

    return DataWithAttribute;
  })();

  return TubemqMessage;
})();
TubemqMessage_.TubemqMessage = TubemqMessage;
});

// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream', './DataproxyCommon'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'), require('./DataproxyCommon'));
  } else {
    factory(root.DataproxyRequest || (root.DataproxyRequest = {}), root.KaitaiStream, root.DataproxyCommon || (root.DataproxyCommon = {}));
  }
})(typeof self !== 'undefined' ? self : this, function (DataproxyRequest_, KaitaiStream, DataproxyCommon_) {
/**
 * TotalLen (u4) + MsgType (1 byte) + a payload whose layout the MsgType's low 5 bits select.
 * TotalLen counts the MsgType byte and the payload but not its own 4 bytes (the public document is vague
 * here; the server's LengthFieldBasedFrameDecoder and both SDKs agree). The server's default frame limit
 * is 64 KiB including the 4 length bytes (max-msg-length, configurable up to 20 MiB).
 * A MsgType byte of 0 would start a protobuf "v1" message, which this spec does not cover: it is rejected.
 * @see apache/inlong@a6c7a6a670c3 inlong-sdk/dataproxy-sdk/src/main/java/org/apache/inlong/sdk/dataproxy/network/tcp/codec/ProtocolEncoder.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/*.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.1-1.12)
 */

var DataproxyRequest = (function() {
  function DataproxyRequest(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  DataproxyRequest.prototype._read = function() {
    this._debug.totalLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.totalLen = this._io.readU4be();
    this._debug.totalLen.end = this._io.pos;
    if (!(this.totalLen >= 1)) {
      var _err = new KaitaiStream.ValidationLessThanError(1, this.totalLen, this._io, "/seq/0");
      this._debug.totalLen.validationError = _err;
      throw _err;
    }
    if (!(this.totalLen <= 20971516)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(20971516, this.totalLen, this._io, "/seq/0");
      this._debug.totalLen.validationError = _err;
      throw _err;
    }
    this._debug.auth = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.auth = this._io.readBitsIntBe(1) != 0;
    this._debug.auth.end = this._io.pos;
    this._debug.encrypted = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.encrypted = this._io.readBitsIntBe(1) != 0;
    this._debug.encrypted.end = this._io.pos;
    this._debug.compressed = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.compressed = this._io.readBitsIntBe(1) != 0;
    this._debug.compressed.end = this._io.pos;
    this._debug.baseType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "DataproxyCommon.MsgType" };
    this.baseType = this._io.readBitsIntBe(5);
    this._debug.baseType.end = this._io.pos;
    if (!Object.prototype.hasOwnProperty.call(DataproxyCommon_.DataproxyCommon.MsgType, this.baseType)) {
      var _err = new KaitaiStream.ValidationNotInEnumError(this.baseType, this._io, "/seq/4");
      this._debug.baseType.validationError = _err;
      throw _err;
    }
    this._io.alignToByte();
    this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
    switch (this.baseType) {
    case DataproxyCommon_.DataproxyCommon.MsgType.ACK_SERVICE:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.TextMessage(_io__raw_body, null, null);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.BIN_HEARTBEAT:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.BinHeartbeat(_io__raw_body, null, null);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.BIN_MULTI_BODY:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new BinMessage(_io__raw_body, this, this._root);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.COMMON_SERVICE:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.TextMessage(_io__raw_body, null, null);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.HEARTBEAT:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.TextMessage(_io__raw_body, null, null);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.MULTI_BODY:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.TextMessage(_io__raw_body, null, null);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.MULTI_BODY_ATTR:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.TextMessage(_io__raw_body, null, null);
      this.body._read();
      break;
    case DataproxyCommon_.DataproxyCommon.MsgType.ORIGINAL_RETURN:
      this._raw_body = this._io.readBytes(this.totalLen - 1);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataproxyCommon_.DataproxyCommon.TextMessage(_io__raw_body, null, null);
      this.body._read();
      break;
    default:
      this.body = this._io.readBytes(this.totalLen - 1);
      break;
    }
    this._debug.body.end = this._io.pos;
  }

  /**
   * MsgType 7, the binary data message (25 fixed bytes after TotalLen, then body, attr and the magic).
   * TotalLen = 25 + body_len + attr_len in every frame the SDKs write.
   */

  var BinMessage = DataproxyRequest.BinMessage = (function() {
    function BinMessage(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinMessage.prototype._read = function() {
      this._debug.groupNum = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.groupNum = this._io.readU2be();
      this._debug.groupNum.end = this._io.pos;
      this._debug.streamNum = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.streamNum = this._io.readU2be();
      this._debug.streamNum.end = this._io.pos;
      this._debug.extField = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.extField = new DataproxyCommon_.DataproxyCommon.ExtField(this._io, null, null);
      this.extField._read();
      this._debug.extField.end = this._io.pos;
      this._debug.dataTime = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.dataTime = this._io.readU4be();
      this._debug.dataTime.end = this._io.pos;
      this._debug.msgCnt = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.msgCnt = this._io.readU2be();
      this._debug.msgCnt.end = this._io.pos;
      this._debug.uniqueId = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.uniqueId = this._io.readU4be();
      this._debug.uniqueId.end = this._io.pos;
      this._debug.bodyLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.bodyLen = this._io.readS4be();
      this._debug.bodyLen.end = this._io.pos;
      if (!(this.bodyLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.bodyLen, this._io, "/types/bin_message/seq/6");
        this._debug.bodyLen.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.body = this._io.readBytes(this.bodyLen);
      this._debug.body.end = this._io.pos;
      this._debug.attrLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attrLen = this._io.readS2be();
      this._debug.attrLen.end = this._io.pos;
      if (!(this.attrLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.attrLen, this._io, "/types/bin_message/seq/8");
        this._debug.attrLen.validationError = _err;
        throw _err;
      }
      this._debug.attr = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attr = KaitaiStream.bytesToStr(this._io.readBytes(this.attrLen), "UTF-8");
      this._debug.attr.end = this._io.pos;
      this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.magic = this._io.readBytes(2);
      this._debug.magic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([238, 1])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([238, 1]), this.magic, this._io, "/types/bin_message/seq/10");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.trailing = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.trailing = this._io.readBytesFull();
      this._debug.trailing.end = this._io.pos;
    }

    /**
     * Numeric group id (0 = none); used when ext_field.ids_as_strings is not set.
     */

    /**
     * Numeric stream id; used when ext_field.ids_as_strings is not set.
     */

    /**
     * Extension flags (how the body is packed, where the ids are).
     */

    /**
     * Data time in SECONDS since the epoch (the SDK divides milliseconds by 1000; text types use ms).
     */

    /**
     * Number of records; the server treats 0 as 1.
     */

    /**
     * The SDK's message id, echoed in the response to match it.
     */

    /**
     * Bytes of body. Negative is malformed (server error 106); zero draws error 105.
     */

    /**
     * Records as ext_field says: {len:u4, data}..., or {len:u4, data, attr_len:u4, attr}..., or one
     * {len:u4, records joined by LF} (dataproxy_payload). Snappy-compressed when `compressed`, AES-encrypted when `encrypted`.
     */

    /**
     * Bytes of attr, read signed by the server (negative is malformed, server error 107).
     */

    /**
     * Attributes `k=v&k=v` (groupId/streamId when ids_as_strings, rtms, sdkVersion, user attributes).
     */

    /**
     * Integrity mark 0xEE01 (server error 94 FIELD_MAGIC_NOT_EQUAL otherwise).
     */

    /**
     * Bytes after the magic. The server tolerates them (its length check is >=, quirk Q8) though the
     * downstream InLongMsg check does not; the SDKs never write any.
     */

    return BinMessage;
  })();

  /**
   * Bytes after this field (MsgType byte included). At most 20 MiB - 4, the server's largest limit.
   */

  /**
   * MsgType bit 7 (0x80). Authorization attributes are present (heartbeats only).
   */

  /**
   * MsgType bit 6 (0x40). The body is AES-encrypted by the SDK (no server in the repository decrypts it).
   */

  /**
   * MsgType bit 5 (0x20). The MsgType 7 body is a Snappy raw block (MsgType 2-6 use the `cp` attribute).
   */

  /**
   * MsgType bits 4-0, the base type. The server masks the byte with 0x1F and refuses unknown types.
   */

  /**
   * The payload, TotalLen - 1 bytes, in the layout base_type selects.
   */

  return DataproxyRequest;
})();
DataproxyRequest_.DataproxyRequest = DataproxyRequest;
});

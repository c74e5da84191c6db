// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream', './DataproxyCommon'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'), require('./DataproxyCommon'));
  } else {
    factory(root.DataproxyResponse || (root.DataproxyResponse = {}), root.KaitaiStream, root.DataproxyCommon || (root.DataproxyCommon = {}));
  }
})(typeof self !== 'undefined' ? self : this, function (DataproxyResponse_, KaitaiStream, DataproxyCommon_) {
/**
 * Same header as a request (TotalLen + MsgType), but responses always carry the plain base type (no flag
 * bits are ever echoed) and MsgType 1 and 7 have layouts of their own. The Java SDK refuses responses over
 * 64 KiB including the length prefix.
 * @see apache/inlong@a6c7a6a670c3 inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java, CodecTextMsg.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/utils/MessageUtils.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.6, 1.10-1.12)
 */

var DataproxyResponse = (function() {
  function DataproxyResponse(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  DataproxyResponse.prototype._read = function() {
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
      this.body = new BinResponse(_io__raw_body, this, this._root);
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
      this.body = new LegacyHeartbeatReply(_io__raw_body, this, this._root);
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
    var _ = this.body;
    if (!( ((this.baseType != DataproxyCommon_.DataproxyCommon.MsgType.HEARTBEAT) || (this.totalLen == 1)) )) {
      var _err = new KaitaiStream.ValidationExprError(this.body, this._io, "/seq/5");
      this._debug.body.validationError = _err;
      throw _err;
    }
  }

  /**
   * The response to MsgType 7, a shorter layout than the request (quirk Q4): no body, no GroupNum or
   * DataTime. TotalLen = 9 + attr_len.
   */

  var BinResponse = DataproxyResponse.BinResponse = (function() {
    function BinResponse(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinResponse.prototype._read = function() {
      this._debug.uniqueId = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.uniqueId = this._io.readU4be();
      this._debug.uniqueId.end = this._io.pos;
      this._debug.attrLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attrLen = this._io.readS2be();
      this._debug.attrLen.end = this._io.pos;
      if (!(this.attrLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.attrLen, this._io, "/types/bin_response/seq/1");
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
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([238, 1]), this.magic, this._io, "/types/bin_response/seq/3");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.trailing = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.trailing = this._io.readBytesFull();
      this._debug.trailing.end = this._io.pos;
    }

    /**
     * The request's UniqueId, echoed so the SDK can match it.
     */

    /**
     * Bytes of attr (UTF-8 byte length).
     */

    /**
     * `dpIp=<host>[&errCode=n[&errMsg=...]]&<request attributes>` (source path) or without dpIp (sink
     * path). Once the request has passed the server's checks, the echoed request attributes start with
     * what the server prepended: `rtms=<receive ms>&` when the request had none, then, when the
     * request's ExtField trace bit (0x02) is set, `node2ip=<listen PORT>&rtime2=<receive ms>&`. The
     * port in node2ip is an upstream quirk (Q10): the key says node IP, the server writes
     * `source.getStrPort()` (apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java,
     * validAndFillFields; echoed by ServerMessageHandler.responseV0Msg, which appends `getAttr()`, the
     * rewritten string). A request that already had node2ip gets it twice. May hold duplicate keys
     * (quirk Q14).
     */

    /**
     * Integrity mark 0xEE01.
     */

    /**
     * Bytes after the magic; the server never writes any.
     */

    return BinResponse;
  })();

  /**
   * The fixed reply to MsgType 1, 00 00 00 01 01 (TotalLen 1, MsgType 1, nothing else).
   */

  var LegacyHeartbeatReply = DataproxyResponse.LegacyHeartbeatReply = (function() {
    function LegacyHeartbeatReply(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    LegacyHeartbeatReply.prototype._read = function() {
    }

    return LegacyHeartbeatReply;
  })();

  /**
   * Bytes after this field (MsgType byte included).
   */

  /**
   * MsgType bit 7; never set by the server.
   */

  /**
   * MsgType bit 6; never set by the server.
   */

  /**
   * MsgType bit 5; never set by the server.
   */

  /**
   * The request's base type (3, 5, 7 or 8 in practice; 1 for the legacy heartbeat reply).
   */

  /**
   * The payload, TotalLen - 1 bytes, in the layout base_type selects. The MsgType 1 reply is exactly
   * TotalLen 1 (so the 13-byte MsgType 1 request never reads as a reply).
   */

  return DataproxyResponse;
})();
DataproxyResponse_.DataproxyResponse = DataproxyResponse;
});

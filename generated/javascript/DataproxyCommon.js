// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.DataproxyCommon || (root.DataproxyCommon = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (DataproxyCommon_, KaitaiStream) {
/**
 * Types, enums and layouts that DataProxy requests and responses share (see dataproxy_request and
 * dataproxy_response for the frames). All integers are big-endian. The public document's figures are
 * missing; every layout here follows the code of the Java SDK and server (apache/inlong), and where
 * the document and the code disagree the code wins and the field's doc says so.
 * @see apache/inlong@a6c7a6a670c3 inlong-common/src/main/java/org/apache/inlong/common/msg/MsgType.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/*.java, inlong-sdk/dataproxy-sdk/src/main/java/org/apache/inlong/sdk/dataproxy/network/tcp/codec/*.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1
 */

var DataproxyCommon = (function() {
  DataproxyCommon.ErrCode = Object.freeze({
    SUCCESS: 0,
    SINK_SERVICE_UNREADY: 1,
    SERVICE_CLOSED: 2,
    CONF_SERVICE_UNREADY: 3,
    ILLEGAL_VISIT_IP: 10,
    HTTP_DECODE_REQ_FAILURE: 31,
    HTTP_UNSUPPORTED_METHOD: 32,
    HTTP_REQ_URI_BLANK: 33,
    HTTP_DECODE_REQ_URI_FAILURE: 34,
    HTTP_UNSUPPORTED_SERVICE_URI: 35,
    HTTP_UNSUPPORTED_CONTENT_TYPE: 36,
    FIELD_MAGIC_NOT_EQUAL: 94,
    FIELD_LENGTH_VALUE_NOT_EQUAL: 95,
    UNCOMPRESS_DATA_ERROR: 96,
    MISS_REQUIRED_GROUPID_ARGUMENT: 100,
    MISS_REQUIRED_STREAMID_ARGUMENT: 101,
    MISS_REQUIRED_DT_ARGUMENT: 102,
    MISS_REQUIRED_BODY_ARGUMENT: 103,
    BODY_EXCEED_MAX_LEN: 104,
    BODY_LENGTH_ZERO: 105,
    BODY_LENGTH_LESS_ZERO: 106,
    ATTR_LENGTH_LESS_ZERO: 107,
    ERROR_PROCESS_LOGIC: 108,
    SPLIT_ATTR_ERROR: 109,
    UNSUPPORTED_MSG_TYPE: 110,
    EMPTY_MSG: 111,
    UNSUPPORTED_EXTEND_FIELD_VALUE: 112,
    UNCONFIGURED_GROUPID_OR_STREAMID: 113,
    PUT_EVENT_TO_CHANNEL_FAILURE: 114,
    TOPIC_IS_BLANK: 115,
    NO_AVAILABLE_PRODUCER: 116,
    PRODUCER_IS_NULL: 117,
    SEND_REQUEST_TO_MQ_FAILURE: 118,
    MQ_RETURN_ERROR: 119,
    DUPLICATED_MESSAGE: 120,
    GROUPID_OR_STREAMID_NOT_CONFIGURE: 121,
    GROUPID_OR_STREAMID_INCONSTANT: 122,
    MSG_BODY_ITEMS_INVALID: 123,
    ATTR_ORDER_CONTROL_CONFLICT_ERROR: 150,
    ATTR_PROXY_CONTROL_CONFLICT_ERROR: 151,
    UNKNOWN_ERROR: 2147483647,

    0: "SUCCESS",
    1: "SINK_SERVICE_UNREADY",
    2: "SERVICE_CLOSED",
    3: "CONF_SERVICE_UNREADY",
    10: "ILLEGAL_VISIT_IP",
    31: "HTTP_DECODE_REQ_FAILURE",
    32: "HTTP_UNSUPPORTED_METHOD",
    33: "HTTP_REQ_URI_BLANK",
    34: "HTTP_DECODE_REQ_URI_FAILURE",
    35: "HTTP_UNSUPPORTED_SERVICE_URI",
    36: "HTTP_UNSUPPORTED_CONTENT_TYPE",
    94: "FIELD_MAGIC_NOT_EQUAL",
    95: "FIELD_LENGTH_VALUE_NOT_EQUAL",
    96: "UNCOMPRESS_DATA_ERROR",
    100: "MISS_REQUIRED_GROUPID_ARGUMENT",
    101: "MISS_REQUIRED_STREAMID_ARGUMENT",
    102: "MISS_REQUIRED_DT_ARGUMENT",
    103: "MISS_REQUIRED_BODY_ARGUMENT",
    104: "BODY_EXCEED_MAX_LEN",
    105: "BODY_LENGTH_ZERO",
    106: "BODY_LENGTH_LESS_ZERO",
    107: "ATTR_LENGTH_LESS_ZERO",
    108: "ERROR_PROCESS_LOGIC",
    109: "SPLIT_ATTR_ERROR",
    110: "UNSUPPORTED_MSG_TYPE",
    111: "EMPTY_MSG",
    112: "UNSUPPORTED_EXTEND_FIELD_VALUE",
    113: "UNCONFIGURED_GROUPID_OR_STREAMID",
    114: "PUT_EVENT_TO_CHANNEL_FAILURE",
    115: "TOPIC_IS_BLANK",
    116: "NO_AVAILABLE_PRODUCER",
    117: "PRODUCER_IS_NULL",
    118: "SEND_REQUEST_TO_MQ_FAILURE",
    119: "MQ_RETURN_ERROR",
    120: "DUPLICATED_MESSAGE",
    121: "GROUPID_OR_STREAMID_NOT_CONFIGURE",
    122: "GROUPID_OR_STREAMID_INCONSTANT",
    123: "MSG_BODY_ITEMS_INVALID",
    150: "ATTR_ORDER_CONTROL_CONFLICT_ERROR",
    151: "ATTR_PROXY_CONTROL_CONFLICT_ERROR",
    2147483647: "UNKNOWN_ERROR",
  });

  DataproxyCommon.MsgType = Object.freeze({
    HEARTBEAT: 1,
    COMMON_SERVICE: 2,
    ACK_SERVICE: 3,
    ORIGINAL_RETURN: 4,
    MULTI_BODY: 5,
    MULTI_BODY_ATTR: 6,
    BIN_MULTI_BODY: 7,
    BIN_HEARTBEAT: 8,

    1: "HEARTBEAT",
    2: "COMMON_SERVICE",
    3: "ACK_SERVICE",
    4: "ORIGINAL_RETURN",
    5: "MULTI_BODY",
    6: "MULTI_BODY_ATTR",
    7: "BIN_MULTI_BODY",
    8: "BIN_HEARTBEAT",
  });

  function DataproxyCommon(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  DataproxyCommon.prototype._read = function() {
  }

  /**
   * MsgType 8, the binary heartbeat, in both directions (the response uses the same layout, with the node
   * load as a 2-byte body and the request's attr echoed verbatim).
   */

  var BinHeartbeat = DataproxyCommon.BinHeartbeat = (function() {
    function BinHeartbeat(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinHeartbeat.prototype._read = function() {
      this._debug.dataTime = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.dataTime = this._io.readU4be();
      this._debug.dataTime.end = this._io.pos;
      this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.version = this._io.readU1();
      this._debug.version.end = this._io.pos;
      this._debug.bodyLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.bodyLen = this._io.readS4be();
      this._debug.bodyLen.end = this._io.pos;
      if (!(this.bodyLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.bodyLen, this._io, "/types/bin_heartbeat/seq/2");
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
        var _err = new KaitaiStream.ValidationLessThanError(0, this.attrLen, this._io, "/types/bin_heartbeat/seq/4");
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
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([238, 1]), this.magic, this._io, "/types/bin_heartbeat/seq/6");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.trailing = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.trailing = this._io.readBytesFull();
      this._debug.trailing.end = this._io.pos;
    }

    /**
     * Request: the Java SDK sends the low 32 bits of the time in milliseconds, the C++ SDK seconds (the
     * server ignores it). Response: server time in seconds.
     */

    /**
     * Body version; the Java SDK sends 2, the C++ SDK 1; the server echoes it.
     */

    /**
     * Bytes of body; 0 in requests, 2 in responses.
     */

    /**
     * Empty in requests; in responses the node load as u2 (always 0xFFFF at the cited commit).
     */

    /**
     * Bytes of attr; read signed by the server, so at most 32767.
     */

    /**
     * Authorization attributes when the auth flag is set (_userName, _signature, ...), else empty.
     */

    /**
     * Integrity mark 0xEE01; a wrong value closes the connection (server, Q9).
     */

    /**
     * Bytes after the magic. The server tolerates them (its check is TotalLen + 4 >= 18 + body_len +
     * attr_len); the SDKs never write any. Kept so that no byte of a frame goes undecoded.
     */

    return BinHeartbeat;
  })();

  /**
   * The 16 ExtField flag bits of MsgType 7 (bit 0 is the least significant).
   */

  var ExtField = DataproxyCommon.ExtField = (function() {
    function ExtField(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    ExtField.prototype._read = function() {
      this._debug.reserved = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.reserved = this._io.readBitsIntBe(10);
      this._debug.reserved.end = this._io.pos;
      this._debug.separatedByLf = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.separatedByLf = this._io.readBitsIntBe(1) != 0;
      this._debug.separatedByLf.end = this._io.pos;
      this._debug.indexMessage = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.indexMessage = this._io.readBitsIntBe(1) != 0;
      this._debug.indexMessage.end = this._io.pos;
      this._debug.fileCheck = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.fileCheck = this._io.readBitsIntBe(1) != 0;
      this._debug.fileCheck.end = this._io.pos;
      this._debug.idsAsStrings = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.idsAsStrings = this._io.readBitsIntBe(1) != 0;
      this._debug.idsAsStrings.end = this._io.pos;
      this._debug.trace = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.trace = this._io.readBitsIntBe(1) != 0;
      this._debug.trace.end = this._io.pos;
      this._debug.perRecordAttributes = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.perRecordAttributes = this._io.readBitsIntBe(1) != 0;
      this._debug.perRecordAttributes.end = this._io.pos;
    }

    /**
     * Bits 15-6, unused (0).
     */

    /**
     * Bit 5 (0x20). The body is one {len:u4, records joined by LF} block.
     */

    /**
     * Bit 4 (0x10). Index message; the server rejects it (112 UNSUPPORTED_EXTEND_FIELD_VALUE).
     */

    /**
     * Bit 3 (0x08). File-check message; the server rejects it (112).
     */

    /**
     * Bit 2 (0x04). Group and stream are given as groupId/streamId attributes, not GroupNum/StreamNum.
     */

    /**
     * Bit 1 (0x02). Trace: the server prepends node2ip (its listen port, quirk) and rtime2 attributes.
     * Once the request has passed its checks the server prepends
     * `node2ip=<its listen port>&rtime2=<receive time, ms>` to the attributes it forwards and echoes
     * (after `rtms=` when it adds that). Quirk: node2ip, named for the node's IP, holds the source's
     * *port* (`source.getStrPort()`) in the attribute string, while the server's internal map gets the
     * host IP (apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java,
     * validAndFillFields; the port is the source's configured `port`, BaseSource.getHostPort).
     */

    /**
     * Bit 0 (0x01). Each body item is followed by its own {attr_len:u4, attr}.
     */

    return ExtField;
  })();

  /**
   * The "text" layout of MsgType 2-6 requests and of the responses to them (also the Go SDK's MsgType 1
   * heartbeat request, whose lengths are both 0). TotalLen must be exactly 9 + body_len + attr_len:
   * the server answers BODY_EXCEED_MAX_LEN (104) otherwise, and this spec rejects the frame.
   */

  var TextMessage = DataproxyCommon.TextMessage = (function() {
    function TextMessage(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    TextMessage.prototype._read = function() {
      this._debug.bodyLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.bodyLen = this._io.readS4be();
      this._debug.bodyLen.end = this._io.pos;
      if (!(this.bodyLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.bodyLen, this._io, "/types/text_message/seq/0");
        this._debug.bodyLen.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.body = this._io.readBytes(this.bodyLen);
      this._debug.body.end = this._io.pos;
      this._debug.attrLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attrLen = this._io.readS4be();
      this._debug.attrLen.end = this._io.pos;
      if (!(this.attrLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.attrLen, this._io, "/types/text_message/seq/2");
        this._debug.attrLen.validationError = _err;
        throw _err;
      }
      this._debug.attr = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attr = KaitaiStream.bytesToStr(this._io.readBytes(this.attrLen), "UTF-8");
      this._debug.attr.end = this._io.pos;
      var _ = this.attr;
      if (!(this._io.isEof())) {
        var _err = new KaitaiStream.ValidationExprError(this.attr, this._io, "/types/text_message/seq/3");
        this._debug.attr.validationError = _err;
        throw _err;
      }
    }

    /**
     * Bytes of body. Negative is malformed (server error 106 BODY_LENGTH_LESS_ZERO). Zero is
     * well-formed on the wire (heartbeats, sink-path responses) though the server refuses a zero-length
     * data request with error 105 BODY_LENGTH_ZERO.
     */

    /**
     * MsgType 2/3/4: records joined by LF. MsgType 5: length-prefixed items (dataproxy_payload).
     * MsgType 6: InLongMsg v3 {len, data}{len, attr} pairs, each record with its own attributes
     * (dataproxy_payload::multi_body_attr_items; not one record, as the design document said).
     * Snappy raw block when the attribute `cp` is present. Responses: the single
     * byte '2' (0x32) from the source path, empty from the sink path, the original body for MsgType 4.
     */

    /**
     * Bytes of attr. Negative is malformed (server error 107 ATTR_LENGTH_LESS_ZERO). 4 bytes here, 2 in MsgType 7/8.
     */

    /**
     * Attributes `k=v&k=v` (UTF-8). Requests carry groupId, streamId, dt (ms), cnt, messageId, cp, isAck, ...;
     * responses carry dpIp, errCode, errMsg and the echoed request attributes. Must end the frame exactly.
     */

    return TextMessage;
  })();

  return DataproxyCommon;
})();
DataproxyCommon_.DataproxyCommon = DataproxyCommon;
});

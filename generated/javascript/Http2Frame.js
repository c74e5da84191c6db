// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.Http2Frame || (root.Http2Frame = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (Http2Frame_, KaitaiStream) {
/**
 * One HTTP/2 frame (RFC 9113 section 4.1): a 9-byte header (payload length, type, flags, reserved bit and
 * stream identifier) and the payload. EventMesh's gRPC endpoint (default port 10205) speaks gRPC over
 * HTTP/2; inlong_proto.eventmesh.h2 frames each direction of a connection with this spec and hands the
 * payloads to python-hyper's hyperframe (payload semantics per type) and hpack (header blocks).
 * 
 * The client's connection preface (the 24 bytes "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", RFC 9113 section
 * 3.4) comes before its first frame and is not a frame; the reader takes it off first.
 * 
 * The flag bits are named once here for every type: 0x01 is END_STREAM on DATA and HEADERS and ACK on
 * SETTINGS and PING; 0x04 END_HEADERS (HEADERS, PUSH_PROMISE, CONTINUATION); 0x08 PADDED (DATA, HEADERS,
 * PUSH_PROMISE); 0x20 PRIORITY (HEADERS). The other bits are unused and must be ignored.
 * 
 * Length: a receiver may refuse a frame longer than its SETTINGS_MAX_FRAME_SIZE (16384 unless raised,
 * at most 16777215); a passive reader does not know every setting, so it takes any 24-bit length.
 * @see RFC 9113 section 4.1 (Frame Format), section 6 (Frame Definitions), section 11.2 (Frame Type Registry)
 */

var Http2Frame = (function() {
  Http2Frame.FrameType = Object.freeze({
    DATA: 0,
    HEADERS: 1,
    PRIORITY: 2,
    RST_STREAM: 3,
    SETTINGS: 4,
    PUSH_PROMISE: 5,
    PING: 6,
    GOAWAY: 7,
    WINDOW_UPDATE: 8,
    CONTINUATION: 9,

    0: "DATA",
    1: "HEADERS",
    2: "PRIORITY",
    3: "RST_STREAM",
    4: "SETTINGS",
    5: "PUSH_PROMISE",
    6: "PING",
    7: "GOAWAY",
    8: "WINDOW_UPDATE",
    9: "CONTINUATION",
  });

  function Http2Frame(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  Http2Frame.prototype._read = function() {
    this._debug.header = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.header = new FrameHeader(this._io, this, this._root);
    this.header._read();
    this._debug.header.end = this._io.pos;
    this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.payload = this._io.readBytes(this.header.length);
    this._debug.payload.end = this._io.pos;
  }

  /**
   * The fixed 9-byte frame header.
   */

  var FrameHeader = Http2Frame.FrameHeader = (function() {
    function FrameHeader(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    FrameHeader.prototype._read = function() {
      this._debug.length = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.length = this._io.readBitsIntBe(24);
      this._debug.length.end = this._io.pos;
      this._debug.type = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Http2Frame.FrameType" };
      this.type = this._io.readBitsIntBe(8);
      this._debug.type.end = this._io.pos;
      this._debug.unused0x80 = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.unused0x80 = this._io.readBitsIntBe(1) != 0;
      this._debug.unused0x80.end = this._io.pos;
      this._debug.unused0x40 = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.unused0x40 = this._io.readBitsIntBe(1) != 0;
      this._debug.unused0x40.end = this._io.pos;
      this._debug.priority = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.priority = this._io.readBitsIntBe(1) != 0;
      this._debug.priority.end = this._io.pos;
      this._debug.unused0x10 = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.unused0x10 = this._io.readBitsIntBe(1) != 0;
      this._debug.unused0x10.end = this._io.pos;
      this._debug.padded = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.padded = this._io.readBitsIntBe(1) != 0;
      this._debug.padded.end = this._io.pos;
      this._debug.endHeaders = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.endHeaders = this._io.readBitsIntBe(1) != 0;
      this._debug.endHeaders.end = this._io.pos;
      this._debug.unused0x02 = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.unused0x02 = this._io.readBitsIntBe(1) != 0;
      this._debug.unused0x02.end = this._io.pos;
      this._debug.endStreamOrAck = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.endStreamOrAck = this._io.readBitsIntBe(1) != 0;
      this._debug.endStreamOrAck.end = this._io.pos;
      this._debug.reserved = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.reserved = this._io.readBitsIntBe(1) != 0;
      this._debug.reserved.end = this._io.pos;
      this._debug.streamId = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.streamId = this._io.readBitsIntBe(31);
      this._debug.streamId.end = this._io.pos;
    }

    /**
     * Payload bytes (the 9 header bytes not included), 0 to 16777215.
     */

    /**
     * The frame type (one byte); unknown types must be ignored (RFC 9113 section 4.1).
     */

    /**
     * Flag 0x80, not defined for any type.
     */

    /**
     * Flag 0x40, not defined for any type.
     */

    /**
     * Flag 0x20, PRIORITY on HEADERS (exclusive bit, stream dependency and weight lead the payload).
     */

    /**
     * Flag 0x10, not defined for any type.
     */

    /**
     * Flag 0x08, PADDED on DATA, HEADERS and PUSH_PROMISE (a pad length byte leads the payload).
     */

    /**
     * Flag 0x04, END_HEADERS on HEADERS, PUSH_PROMISE and CONTINUATION (the header block ends here).
     */

    /**
     * Flag 0x02, not defined for any type.
     */

    /**
     * Flag 0x01, END_STREAM on DATA and HEADERS; ACK on SETTINGS and PING.
     */

    /**
     * The reserved bit R, sent as 0 and ignored on receipt.
     */

    /**
     * The stream identifier; 0 for frames about the whole connection (SETTINGS, PING, GOAWAY).
     */

    return FrameHeader;
  })();

  /**
   * The 9-byte frame header.
   */

  /**
   * The payload, header.length bytes; its layout depends on header.type (hyperframe reads it).
   */

  return Http2Frame;
})();
Http2Frame_.Http2Frame = Http2Frame;
});

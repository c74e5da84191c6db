// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.TcpFrame || (root.TcpFrame = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (TcpFrame_, KaitaiStream) {
/**
 * One frame of the EventMesh TCP protocol (magic, version, package length, header length, header, body).
 * The header and body meanings (command table, body types, JSON Schemas) are declared beside this file
 * in tcp_header.schema.json, bodies/ and commands.yaml, and decoded by inlong_proto.eventmesh.tcp.
 * 
 * Lengths exactly as Codec.Encoder computes them: package_length = 13 + header_length + body length
 * (magic, version, header and body; not the two 4-byte length fields), so a frame is package_length + 8
 * bytes; the body length is not sent. The Netty decoder finds the frame the same way
 * (LengthFieldBasedFrameDecoder at offset 13, adjustment -9). This spec nests header_length, header and
 * body in `package` (package_length - 9 bytes: everything after the length field) so that the frame size
 * is known from the first 17 bytes and both lengths are derived on encode.
 * 
 * Limits: the decoder refuses a frame whose package_length + 8 exceeds FRAME_MAX_LENGTH (4 MiB), i.e.
 * package_length > 4194296, while the Java encoder only refuses package_length > 4194304: frames with
 * 4194297..4194304 can be written but are refused by every current decoder (an off-by-8). This spec
 * follows the decoder, so the own codec never writes such a frame either.
 * 
 * Clients older than 1.9.0 (and the Go SDK to this day) write package_length = 8 + header_length + body
 * length; that legacy form is tcp_frame_legacy.ksy, a protocol of its own (eventmesh-legacy), since
 * nothing in a frame tells the two forms apart.
 * @see apache/eventmesh@2527428788cb eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java; docs/protocols/eventmesh.md, sections 1.1, 1.2, 1.9 and quirk 4.1
 */

var TcpFrame = (function() {
  function TcpFrame(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  TcpFrame.prototype._read = function() {
    this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.magic = this._io.readBytes(9);
    this._debug.magic.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([69, 118, 101, 110, 116, 77, 101, 115, 104])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([69, 118, 101, 110, 116, 77, 101, 115, 104]), this.magic, this._io, "/seq/0");
      this._debug.magic.validationError = _err;
      throw _err;
    }
    this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.version = this._io.readBytes(4);
    this._debug.version.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.version, new Uint8Array([48, 48, 48, 48])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([48, 48, 48, 48]), this.version, this._io, "/seq/1");
      this._debug.version.validationError = _err;
      throw _err;
    }
    this._debug.packageLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.packageLength = this._io.readS4be();
    this._debug.packageLength.end = this._io.pos;
    if (!(this.packageLength >= 13)) {
      var _err = new KaitaiStream.ValidationLessThanError(13, this.packageLength, this._io, "/seq/2");
      this._debug.packageLength.validationError = _err;
      throw _err;
    }
    if (!(this.packageLength <= 4194296)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(4194296, this.packageLength, this._io, "/seq/2");
      this._debug.packageLength.validationError = _err;
      throw _err;
    }
    this._debug.package = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._raw_package = this._io.readBytes(this.packageLength - 9);
    var _io__raw_package = new KaitaiStream(this._raw_package);
    this.package = new Package(_io__raw_package, this, this._root);
    this.package._read();
    this._debug.package.end = this._io.pos;
  }

  /**
   * The header length, the header JSON and the body, bounded by the frame's package length.
   */

  var Package = TcpFrame.Package = (function() {
    function Package(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Package.prototype._read = function() {
      this._debug.headerLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.headerLength = this._io.readS4be();
      this._debug.headerLength.end = this._io.pos;
      if (!(this.headerLength >= 1)) {
        var _err = new KaitaiStream.ValidationLessThanError(1, this.headerLength, this._io, "/types/package/seq/0");
        this._debug.headerLength.validationError = _err;
        throw _err;
      }
      this._debug.header = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.header = KaitaiStream.bytesToStr(this._io.readBytes(this.headerLength), "UTF-8");
      this._debug.header.end = this._io.pos;
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.body = this._io.readBytesFull();
      this._debug.body.end = this._io.pos;
    }

    /**
     * Bytes of header (its UTF-8 length).
     * The runtime reads 0 or less as "no header" and then refuses the message ("the incoming
     * message does not have a header"), so no usable frame has one. A header_length that reaches
     * past the package (more than package_length - 13) is malformed.
     */

    /**
     * The Header as compact UTF-8 JSON, see tcp_header.schema.json.
     * {"cmd":..,"code":..,"desc":..,"seq":..,"properties":{..},"command":..} as Jackson writes it.
     * Text as Jackson's writeValueAsBytes writes it (JsonUtils.toJSONBytes; FasterXML/jackson-core
     * UTF8JsonGenerator.java, _outputMultiByteChar): control characters escaped in upper-case hex,
     * other BMP characters raw UTF-8, and each UTF-16 surrogate as its own escape, so a character
     * outside the BMP is the pair \uD83D\uDE00, never 4 raw bytes (Jackson 2.14 to 2.20 alike; the
     * pre-1.9 encoder of tcp_frame_legacy.ksy wrote them raw). Readers take both forms to the same string.
     */

    /**
     * The body, package_length - 13 - header_length bytes; may be empty.
     * JSON, a JSON-quoted Java String, or the raw CloudEvents JSON when the header property
     * protocoltype is "cloudevents" (commands.yaml says which). JSON text as in the header:
     * characters outside the BMP written as escaped surrogate pairs (the CloudEvents SDK's
     * JsonFormat.serialize is writeValueAsBytes too).
     */

    return Package;
  })();

  /**
   * The 9 ASCII bytes "EventMesh" (CONSTANT_MAGIC_FLAG); anything else closes the channel.
   */

  /**
   * The 4 ASCII bytes "0000" (VERSION), checked together with the magic.
   */

  /**
   * Bytes of magic, version, header and body (the frame is this + 8).
   * Below 9 Netty refuses the frame; 9 to 12 leaves no room for header_length, so the runtime fails
   * reading it and closes the channel. Above 4194296 the frame exceeds the decoder's 4 MiB limit.
   */

  /**
   * Everything after the length field (header_length, header, body), package_length - 9 bytes.
   */

  return TcpFrame;
})();
TcpFrame_.TcpFrame = TcpFrame;
});

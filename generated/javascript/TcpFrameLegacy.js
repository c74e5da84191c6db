// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream', './TcpFrame'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'), require('./TcpFrame'));
  } else {
    factory(root.TcpFrameLegacy || (root.TcpFrameLegacy = {}), root.KaitaiStream, root.TcpFrame || (root.TcpFrame = {}));
  }
})(typeof self !== 'undefined' ? self : this, function (TcpFrameLegacy_, KaitaiStream, TcpFrame_) {
/**
 * The frame of tcp_frame.ksy with the length field of EventMesh up to 1.8.0.
 * Still written by the Go SDK and by the runtime's test client: package_length = 8 + header_length +
 * body length (the two length fields, the header and the body; not magic and version), so a frame is
 * package_length + 13 bytes.
 * 
 * The current runtime reads such a frame 5 bytes short (it takes package_length + 8), so the legacy form
 * is wire-incompatible with it. Nothing in a frame tells the two forms apart, hence a protocol of its
 * own: decode captures of old clients with protocol eventmesh-legacy (the decoded payload is flagged
 * length_form "legacy"). Old Java encoders refused package_length > 4 MiB and old decoders had no limit
 * (the Go SDK has none either); this spec takes the encoder's limit, so a frame is at most 4194304 + 13
 * bytes.
 * 
 * Text: the Java encoder up to 1.8.0 wrote the JSON as writeValueAsString(..).getBytes(UTF_8)
 * (apache/eventmesh, eventmesh-common/.../protocol/tcp/codec/Codec.java at tag v1.8.0), so a character
 * outside the BMP is 4 raw UTF-8 bytes and a lone surrogate '?', where 1.9.0 and later write Jackson's
 * escaped surrogate pairs (tcp_frame.ksy, header). Both read the same.
 * @see apache/eventmesh@2527428788cb eventmesh-sdks/eventmesh-sdk-go/common/protocol/tcp/codec/codec.go, and eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java up to 1.8.0; docs/protocols/eventmesh.md, section 1.9 and quirk 4.1
 */

var TcpFrameLegacy = (function() {
  function TcpFrameLegacy(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  TcpFrameLegacy.prototype._read = function() {
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
    if (!(this.packageLength >= 8)) {
      var _err = new KaitaiStream.ValidationLessThanError(8, this.packageLength, this._io, "/seq/2");
      this._debug.packageLength.validationError = _err;
      throw _err;
    }
    if (!(this.packageLength <= 4194304)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(4194304, this.packageLength, this._io, "/seq/2");
      this._debug.packageLength.validationError = _err;
      throw _err;
    }
    this._debug.package = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._raw_package = this._io.readBytes(this.packageLength - 4);
    var _io__raw_package = new KaitaiStream(this._raw_package);
    this.package = new TcpFrame_.TcpFrame.Package(_io__raw_package, null, null);
    this.package._read();
    this._debug.package.end = this._io.pos;
  }

  /**
   * The 9 ASCII bytes "EventMesh", as in the current form.
   */

  /**
   * The 4 ASCII bytes "0000", as in the current form.
   */

  /**
   * Bytes of both length fields, header and body (the frame is this + 13).
   * Below 8 leaves no room for header_length; above 4194304 the old Java encoder refused to write it.
   */

  /**
   * Everything after the length field (header_length, header, body), package_length - 4 bytes.
   */

  return TcpFrameLegacy;
})();
TcpFrameLegacy_.TcpFrameLegacy = TcpFrameLegacy;
});

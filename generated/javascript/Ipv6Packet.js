// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.Ipv6Packet || (root.Ipv6Packet = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (Ipv6Packet_, KaitaiStream) {
/**
 * An IPv6 packet as captured: the 40-byte fixed header (RFC 8200 section 3), then everything else the
 * capture holds. Extension headers (RFC 8200 section 4) are not decoded: next_header names the first of
 * them, and a reader that wants TCP takes only packets whose next_header is 6 (TCP directly after the
 * fixed header) and counts the others as packets it does not use.
 * @see RFC 8200 section 3 (IPv6 Header Format)
 */

var Ipv6Packet = (function() {
  function Ipv6Packet(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  Ipv6Packet.prototype._read = function() {
    this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.version = this._io.readBitsIntBe(4);
    this._debug.version.end = this._io.pos;
    if (!(this.version == 6)) {
      var _err = new KaitaiStream.ValidationNotEqualError(6, this.version, this._io, "/seq/0");
      this._debug.version.validationError = _err;
      throw _err;
    }
    this._debug.trafficClass = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.trafficClass = this._io.readBitsIntBe(8);
    this._debug.trafficClass.end = this._io.pos;
    this._debug.flowLabel = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.flowLabel = this._io.readBitsIntBe(20);
    this._debug.flowLabel.end = this._io.pos;
    this._io.alignToByte();
    this._debug.payloadLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.payloadLength = this._io.readU2be();
    this._debug.payloadLength.end = this._io.pos;
    this._debug.nextHeader = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.nextHeader = this._io.readU1();
    this._debug.nextHeader.end = this._io.pos;
    this._debug.hopLimit = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.hopLimit = this._io.readU1();
    this._debug.hopLimit.end = this._io.pos;
    this._debug.srcAddr = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.srcAddr = this._io.readBytes(16);
    this._debug.srcAddr.end = this._io.pos;
    this._debug.dstAddr = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dstAddr = this._io.readBytes(16);
    this._debug.dstAddr.end = this._io.pos;
    this._debug.rest = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.rest = this._io.readBytesFull();
    this._debug.rest.end = this._io.pos;
  }

  /**
   * IP version, 6.
   */

  /**
   * Traffic class (DSCP and ECN).
   */

  /**
   * Flow label.
   */

  /**
   * Bytes after the fixed header, extension headers included (0 only for jumbograms, unsupported).
   */

  /**
   * Type of the header after this one (6 TCP; IANA protocol numbers).
   */

  /**
   * Hop limit.
   */

  /**
   * Source address.
   */

  /**
   * Destination address.
   */

  /**
   * What the capture holds after the fixed header; its first payload_length bytes are the payload.
   */

  return Ipv6Packet;
})();
Ipv6Packet_.Ipv6Packet = Ipv6Packet;
});

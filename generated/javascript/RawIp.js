// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.RawIp || (root.RawIp = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (RawIp_, KaitaiStream) {
/**
 * No link-layer header: the packet is an IPv4 or IPv6 packet, told apart by the version in its first
 * four bits (RFC 791 section 3.1, RFC 8200 section 3). Only that nibble is read here; the packet is then
 * decoded with ipv4_packet or ipv6_packet from its first byte.
 * @see {@link https://www.tcpdump.org/linktypes/LINKTYPE_RAW.html|Source}
 */

var RawIp = (function() {
  function RawIp(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  RawIp.prototype._read = function() {
    this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.version = this._io.readBitsIntBe(4);
    this._debug.version.end = this._io.pos;
    this._debug.restOfFirstByte = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.restOfFirstByte = this._io.readBitsIntBe(4);
    this._debug.restOfFirstByte.end = this._io.pos;
  }

  /**
   * IP version, 4 or 6.
   */

  /**
   * The other half of the first byte (IPv4 header length or IPv6 traffic class bits).
   */

  return RawIp;
})();
RawIp_.RawIp = RawIp;
});

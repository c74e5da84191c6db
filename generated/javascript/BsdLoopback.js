// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.BsdLoopback || (root.BsdLoopback = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (BsdLoopback_, KaitaiStream) {
/**
 * A 4-byte address family, then the packet. With LINKTYPE_NULL (0) the family is in the byte order of
 * the host that captured (little-endian on every current platform, which is how `family` reads it);
 * with LINKTYPE_LOOP (108) it is big-endian, which `family_swapped` gives. IPv4 is AF_INET = 2; IPv6 is
 * 24, 28 or 30 depending on the BSD that wrote it.
 * @see {@link https://www.tcpdump.org/linktypes/LINKTYPE_NULL.html|Source}
 */

var BsdLoopback = (function() {
  function BsdLoopback(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  BsdLoopback.prototype._read = function() {
    this._debug.family = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.family = this._io.readU4le();
    this._debug.family.end = this._io.pos;
    this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.payload = this._io.readBytesFull();
    this._debug.payload.end = this._io.pos;
  }

  /**
   * The family read big-endian (LINKTYPE_LOOP, or LINKTYPE_NULL from a big-endian host).
   */
  Object.defineProperty(BsdLoopback.prototype, 'familySwapped', {
    get: function() {
      if (this._m_familySwapped !== undefined)
        return this._m_familySwapped;
      this._debug._m_familySwapped = {  };
      this._m_familySwapped = ((this.family >>> 24 & 255 | this.family >>> 8 & 65280) | this.family << 8 & 16711680) | this.family << 24 & 4278190080;
      return this._m_familySwapped;
    }
  });

  /**
   * Address family of the payload, read little-endian (LINKTYPE_NULL from a little-endian host).
   */

  /**
   * The IP packet.
   */

  return BsdLoopback;
})();
BsdLoopback_.BsdLoopback = BsdLoopback;
});

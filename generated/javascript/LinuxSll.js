// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.LinuxSll || (root.LinuxSll = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (LinuxSll_, KaitaiStream) {
/**
 * The 16-byte pseudo header libpcap writes for captures on Linux's "any" device with older libpcap
 * (LINKTYPE_LINUX_SLL, 113). The protocol field is an EtherType for IP packets.
 * @see {@link https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html|Source}
 */

var LinuxSll = (function() {
  function LinuxSll(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  LinuxSll.prototype._read = function() {
    this._debug.packetType = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.packetType = this._io.readU2be();
    this._debug.packetType.end = this._io.pos;
    this._debug.arphrdType = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.arphrdType = this._io.readU2be();
    this._debug.arphrdType.end = this._io.pos;
    this._debug.addressLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.addressLength = this._io.readU2be();
    this._debug.addressLength.end = this._io.pos;
    this._debug.address = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.address = this._io.readBytes(8);
    this._debug.address.end = this._io.pos;
    this._debug.protocol = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.protocol = this._io.readU2be();
    this._debug.protocol.end = this._io.pos;
    this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.payload = this._io.readBytesFull();
    this._debug.payload.end = this._io.pos;
  }

  /**
   * 0 to us, 1 broadcast, 2 multicast, 3 to another host, 4 sent by us (loopback shows 0 and 4).
   */

  /**
   * ARPHRD_ type of the device (772 loopback, 1 Ethernet).
   */

  /**
   * Bytes of the link-layer address that are meaningful.
   */

  /**
   * Link-layer source address, zero-padded to 8 bytes.
   */

  /**
   * EtherType of the payload (0x0800 IPv4, 0x86DD IPv6).
   */

  /**
   * The packet after the pseudo header.
   */

  return LinuxSll;
})();
LinuxSll_.LinuxSll = LinuxSll;
});

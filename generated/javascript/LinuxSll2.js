// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.LinuxSll2 || (root.LinuxSll2 = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (LinuxSll2_, KaitaiStream) {
/**
 * The 20-byte pseudo header current libpcap writes for captures on Linux's "any" device (tcpdump -i any,
 * LINKTYPE_LINUX_SLL2, 276). Unlike version 1 it starts with the protocol and names the interface.
 * @see {@link https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html|Source}
 */

var LinuxSll2 = (function() {
  function LinuxSll2(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  LinuxSll2.prototype._read = function() {
    this._debug.protocol = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.protocol = this._io.readU2be();
    this._debug.protocol.end = this._io.pos;
    this._debug.reserved = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.reserved = this._io.readU2be();
    this._debug.reserved.end = this._io.pos;
    this._debug.interfaceIndex = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.interfaceIndex = this._io.readU4be();
    this._debug.interfaceIndex.end = this._io.pos;
    this._debug.arphrdType = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.arphrdType = this._io.readU2be();
    this._debug.arphrdType.end = this._io.pos;
    this._debug.packetType = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.packetType = this._io.readU1();
    this._debug.packetType.end = this._io.pos;
    this._debug.addressLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.addressLength = this._io.readU1();
    this._debug.addressLength.end = this._io.pos;
    this._debug.address = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.address = this._io.readBytes(8);
    this._debug.address.end = this._io.pos;
    this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.payload = this._io.readBytesFull();
    this._debug.payload.end = this._io.pos;
  }

  /**
   * EtherType of the payload (0x0800 IPv4, 0x86DD IPv6).
   */

  /**
   * Reserved, 0.
   */

  /**
   * Index of the interface the packet was captured on (1 is usually lo).
   */

  /**
   * ARPHRD_ type of the device (772 loopback, 1 Ethernet).
   */

  /**
   * 0 to us, 1 broadcast, 2 multicast, 3 to another host, 4 sent by us.
   */

  /**
   * Bytes of the link-layer address that are meaningful.
   */

  /**
   * Link-layer source address, zero-padded to 8 bytes.
   */

  /**
   * The packet after the pseudo header.
   */

  return LinuxSll2;
})();
LinuxSll2_.LinuxSll2 = LinuxSll2;
});

// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.EthernetFrame || (root.EthernetFrame = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (EthernetFrame_, KaitaiStream) {
/**
 * An Ethernet II frame as libpcap captures it (LINKTYPE_ETHERNET, 1): destination and source MAC, the
 * EtherType, the payload. The frame check sequence is not captured. An EtherType of 0x8100 (802.1Q) or
 * 0x88A8 (802.1ad) means a VLAN tag follows, with the real EtherType after it; tags nest.
 * Short frames are padded to 60 bytes on the wire, so the payload may end with padding that the IP
 * header's own length excludes.
 * @see IEEE 802.3 clause 3.2 (MAC frame); IEEE 802.1Q clause 9 (tag format); https://www.tcpdump.org/linktypes/LINKTYPE_ETHERNET.html
 */

var EthernetFrame = (function() {
  function EthernetFrame(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  EthernetFrame.prototype._read = function() {
    this._debug.dstMac = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dstMac = this._io.readBytes(6);
    this._debug.dstMac.end = this._io.pos;
    this._debug.srcMac = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.srcMac = this._io.readBytes(6);
    this._debug.srcMac.end = this._io.pos;
    this._debug.etherType = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.etherType = this._io.readU2be();
    this._debug.etherType.end = this._io.pos;
    this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
    switch (this.etherType) {
    case 33024:
      this._raw_body = this._io.readBytesFull();
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new VlanTagged(_io__raw_body, this, this._root);
      this.body._read();
      break;
    case 34984:
      this._raw_body = this._io.readBytesFull();
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new VlanTagged(_io__raw_body, this, this._root);
      this.body._read();
      break;
    default:
      this.body = this._io.readBytesFull();
      break;
    }
    this._debug.body.end = this._io.pos;
  }

  /**
   * An 802.1Q tag control field and the EtherType it wraps (IEEE 802.1Q clause 9.6).
   */

  var VlanTagged = EthernetFrame.VlanTagged = (function() {
    function VlanTagged(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    VlanTagged.prototype._read = function() {
      this._debug.priority = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.priority = this._io.readBitsIntBe(3);
      this._debug.priority.end = this._io.pos;
      this._debug.dropEligible = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.dropEligible = this._io.readBitsIntBe(1) != 0;
      this._debug.dropEligible.end = this._io.pos;
      this._debug.vlanId = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.vlanId = this._io.readBitsIntBe(12);
      this._debug.vlanId.end = this._io.pos;
      this._io.alignToByte();
      this._debug.etherType = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.etherType = this._io.readU2be();
      this._debug.etherType.end = this._io.pos;
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      switch (this.etherType) {
      case 33024:
        this._raw_body = this._io.readBytesFull();
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new VlanTagged(_io__raw_body, this, this._root);
        this.body._read();
        break;
      case 34984:
        this._raw_body = this._io.readBytesFull();
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new VlanTagged(_io__raw_body, this, this._root);
        this.body._read();
        break;
      default:
        this.body = this._io.readBytesFull();
        break;
      }
      this._debug.body.end = this._io.pos;
    }

    /**
     * Priority code point (PCP).
     */

    /**
     * Drop eligible indicator (DEI).
     */

    /**
     * VLAN identifier (VID).
     */

    /**
     * Protocol of what follows, possibly another tag.
     */

    /**
     * Another tag, or the payload bytes.
     */

    return VlanTagged;
  })();

  /**
   * Destination MAC address.
   */

  /**
   * Source MAC address.
   */

  /**
   * Protocol of the payload (0x0800 IPv4, 0x86DD IPv6, 0x8100 / 0x88A8 a VLAN tag follows).
   */

  /**
   * The VLAN-tagged rest of the frame, or for any other EtherType the payload bytes.
   */

  return EthernetFrame;
})();
EthernetFrame_.EthernetFrame = EthernetFrame;
});

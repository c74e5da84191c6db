// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.Ipv4Packet || (root.Ipv4Packet = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (Ipv4Packet_, KaitaiStream) {
/**
 * An IPv4 packet as captured: the header (RFC 791 section 3.1) with its options kept as bytes, then
 * everything else the capture holds. `payload_length` says how much of `rest` is the IP payload: the
 * rest may be shorter (the capture's snap length cut the packet) or longer (Ethernet padding).
 * Fragments are not reassembled; a reader treats a fragment (more_fragments or a fragment offset) as
 * a packet it cannot use.
 * @see RFC 791 section 3.1 (Internet Header Format)
 */

var Ipv4Packet = (function() {
  function Ipv4Packet(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  Ipv4Packet.prototype._read = function() {
    this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.version = this._io.readBitsIntBe(4);
    this._debug.version.end = this._io.pos;
    if (!(this.version == 4)) {
      var _err = new KaitaiStream.ValidationNotEqualError(4, this.version, this._io, "/seq/0");
      this._debug.version.validationError = _err;
      throw _err;
    }
    this._debug.ihl = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ihl = this._io.readBitsIntBe(4);
    this._debug.ihl.end = this._io.pos;
    if (!(this.ihl >= 5)) {
      var _err = new KaitaiStream.ValidationLessThanError(5, this.ihl, this._io, "/seq/1");
      this._debug.ihl.validationError = _err;
      throw _err;
    }
    this._debug.dscp = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dscp = this._io.readBitsIntBe(6);
    this._debug.dscp.end = this._io.pos;
    this._debug.ecn = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ecn = this._io.readBitsIntBe(2);
    this._debug.ecn.end = this._io.pos;
    this._io.alignToByte();
    this._debug.totalLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.totalLength = this._io.readU2be();
    this._debug.totalLength.end = this._io.pos;
    var _ = this.totalLength;
    if (!(_ >= this.ihl * 4)) {
      var _err = new KaitaiStream.ValidationExprError(this.totalLength, this._io, "/seq/4");
      this._debug.totalLength.validationError = _err;
      throw _err;
    }
    this._debug.identification = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.identification = this._io.readU2be();
    this._debug.identification.end = this._io.pos;
    this._debug.reservedFlag = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.reservedFlag = this._io.readBitsIntBe(1) != 0;
    this._debug.reservedFlag.end = this._io.pos;
    this._debug.dontFragment = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dontFragment = this._io.readBitsIntBe(1) != 0;
    this._debug.dontFragment.end = this._io.pos;
    this._debug.moreFragments = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.moreFragments = this._io.readBitsIntBe(1) != 0;
    this._debug.moreFragments.end = this._io.pos;
    this._debug.fragmentOffset = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.fragmentOffset = this._io.readBitsIntBe(13);
    this._debug.fragmentOffset.end = this._io.pos;
    this._io.alignToByte();
    this._debug.ttl = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ttl = this._io.readU1();
    this._debug.ttl.end = this._io.pos;
    this._debug.protocol = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.protocol = this._io.readU1();
    this._debug.protocol.end = this._io.pos;
    this._debug.headerChecksum = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.headerChecksum = this._io.readU2be();
    this._debug.headerChecksum.end = this._io.pos;
    this._debug.srcAddr = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.srcAddr = this._io.readBytes(4);
    this._debug.srcAddr.end = this._io.pos;
    this._debug.dstAddr = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dstAddr = this._io.readBytes(4);
    this._debug.dstAddr.end = this._io.pos;
    this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.options = this._io.readBytes(this.ihl * 4 - 20);
    this._debug.options.end = this._io.pos;
    this._debug.rest = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.rest = this._io.readBytesFull();
    this._debug.rest.end = this._io.pos;
  }

  /**
   * Bytes of the IP payload on the wire.
   */
  Object.defineProperty(Ipv4Packet.prototype, 'payloadLength', {
    get: function() {
      if (this._m_payloadLength !== undefined)
        return this._m_payloadLength;
      this._debug._m_payloadLength = {  };
      this._m_payloadLength = this.totalLength - this.ihl * 4;
      return this._m_payloadLength;
    }
  });

  /**
   * IP version, 4.
   */

  /**
   * Header length in 32-bit words (5 without options).
   */

  /**
   * Differentiated services code point (RFC 2474; formerly type of service).
   */

  /**
   * Explicit congestion notification (RFC 3168).
   */

  /**
   * Length of the whole packet, header included.
   */

  /**
   * Identifies the fragments of one datagram.
   */

  /**
   * Reserved, 0.
   */

  /**
   * DF, do not fragment.
   */

  /**
   * MF, more fragments follow.
   */

  /**
   * Where this fragment goes in the datagram, in 8-byte units.
   */

  /**
   * Time to live.
   */

  /**
   * Protocol of the payload (6 TCP, 17 UDP, 1 ICMP; IANA protocol numbers).
   */

  /**
   * Header checksum (not verified; captures of outgoing packets carry offloaded, unset checksums).
   */

  /**
   * Source address.
   */

  /**
   * Destination address.
   */

  /**
   * Options (RFC 791 section 3.1), kept as bytes.
   */

  /**
   * What the capture holds after the header; its first payload_length bytes are the payload.
   */

  return Ipv4Packet;
})();
Ipv4Packet_.Ipv4Packet = Ipv4Packet;
});

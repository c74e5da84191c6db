// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.TcpSegment || (root.TcpSegment = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (TcpSegment_, KaitaiStream) {
/**
 * A TCP segment (RFC 9293 section 3.1, which obsoletes RFC 793): ports, sequence and acknowledgment
 * numbers, data offset, flags (with the ECN bits of RFC 3168), window, checksum, urgent pointer,
 * options kept as bytes, then the data. How many bytes of `data` are real is known only from the IP
 * header's length (a capture may cut the segment, or Ethernet padding may follow it).
 * @see RFC 9293 section 3.1 (Header Format); RFC 793 section 3.1; RFC 3168 section 6.1
 */

var TcpSegment = (function() {
  function TcpSegment(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  TcpSegment.prototype._read = function() {
    this._debug.srcPort = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.srcPort = this._io.readU2be();
    this._debug.srcPort.end = this._io.pos;
    this._debug.dstPort = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dstPort = this._io.readU2be();
    this._debug.dstPort.end = this._io.pos;
    this._debug.seqNum = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.seqNum = this._io.readU4be();
    this._debug.seqNum.end = this._io.pos;
    this._debug.ackNum = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ackNum = this._io.readU4be();
    this._debug.ackNum.end = this._io.pos;
    this._debug.dataOffset = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dataOffset = this._io.readBitsIntBe(4);
    this._debug.dataOffset.end = this._io.pos;
    if (!(this.dataOffset >= 5)) {
      var _err = new KaitaiStream.ValidationLessThanError(5, this.dataOffset, this._io, "/seq/4");
      this._debug.dataOffset.validationError = _err;
      throw _err;
    }
    this._debug.reserved = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.reserved = this._io.readBitsIntBe(3);
    this._debug.reserved.end = this._io.pos;
    this._debug.ns = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ns = this._io.readBitsIntBe(1) != 0;
    this._debug.ns.end = this._io.pos;
    this._debug.cwr = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.cwr = this._io.readBitsIntBe(1) != 0;
    this._debug.cwr.end = this._io.pos;
    this._debug.ece = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ece = this._io.readBitsIntBe(1) != 0;
    this._debug.ece.end = this._io.pos;
    this._debug.urg = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.urg = this._io.readBitsIntBe(1) != 0;
    this._debug.urg.end = this._io.pos;
    this._debug.ack = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.ack = this._io.readBitsIntBe(1) != 0;
    this._debug.ack.end = this._io.pos;
    this._debug.psh = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.psh = this._io.readBitsIntBe(1) != 0;
    this._debug.psh.end = this._io.pos;
    this._debug.rst = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.rst = this._io.readBitsIntBe(1) != 0;
    this._debug.rst.end = this._io.pos;
    this._debug.syn = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.syn = this._io.readBitsIntBe(1) != 0;
    this._debug.syn.end = this._io.pos;
    this._debug.fin = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.fin = this._io.readBitsIntBe(1) != 0;
    this._debug.fin.end = this._io.pos;
    this._io.alignToByte();
    this._debug.window = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.window = this._io.readU2be();
    this._debug.window.end = this._io.pos;
    this._debug.checksum = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.checksum = this._io.readU2be();
    this._debug.checksum.end = this._io.pos;
    this._debug.urgentPointer = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.urgentPointer = this._io.readU2be();
    this._debug.urgentPointer.end = this._io.pos;
    this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.options = this._io.readBytes(this.dataOffset * 4 - 20);
    this._debug.options.end = this._io.pos;
    this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.data = this._io.readBytesFull();
    this._debug.data.end = this._io.pos;
  }

  /**
   * Source port.
   */

  /**
   * Destination port.
   */

  /**
   * Sequence number of the first data byte (of the SYN itself when SYN is set); wraps at 2^32.
   */

  /**
   * Next sequence number the sender expects, when ack is set.
   */

  /**
   * Header length in 32-bit words (5 without options).
   */

  /**
   * Reserved, 0.
   */

  /**
   * ECN-nonce flag (RFC 3540, historic).
   */

  /**
   * Congestion window reduced (RFC 3168).
   */

  /**
   * ECN echo (RFC 3168).
   */

  /**
   * The urgent pointer is significant.
   */

  /**
   * The acknowledgment number is significant.
   */

  /**
   * Push function.
   */

  /**
   * Reset the connection.
   */

  /**
   * Synchronise sequence numbers (opens a connection; takes one sequence number).
   */

  /**
   * No more data from the sender (takes one sequence number).
   */

  /**
   * Receive window (scaled by the window scale option).
   */

  /**
   * Checksum over a pseudo header and the segment (not verified; offloaded on captured outgoing packets).
   */

  /**
   * Offset of the end of urgent data, when urg is set.
   */

  /**
   * Options (MSS, window scale, SACK, timestamps, ...), kept as bytes.
   */

  /**
   * The segment's data as captured (see the type's doc for how much of it is real).
   */

  return TcpSegment;
})();
TcpSegment_.TcpSegment = TcpSegment;
});

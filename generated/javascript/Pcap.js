// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.Pcap || (root.Pcap = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (Pcap_, KaitaiStream) {
/**
 * A classic libpcap capture file: a 24-byte global header, then one record per captured packet.
 * 
 * The file is written in the byte order of the host that captured it; the magic number, read here as a
 * big-endian u4, tells both that byte order and whether the second timestamp field counts microseconds
 * (magic A1B2C3D4) or nanoseconds (A1B23C4D, tcpdump --time-stamp-precision nano). Every later integer
 * (header and records) follows that byte order (`meta/endian` switches on the magic).
 * 
 * Record lengths are checked against the data present before anything is read; a record longer than
 * 262144 bytes (libpcap's MAXIMUM_SNAPLEN) is refused as corrupt rather than buffered.
 * @see {@link https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcap/|(PCAP Capture File Format, sections 4-5)}
 */

var Pcap = (function() {
  Pcap.Magic = Object.freeze({
    LE_NANO: 1295823521,
    BE_NANO: 2712812621,
    BE_MICRO: 2712847316,
    LE_MICRO: 3569595041,

    1295823521: "LE_NANO",
    2712812621: "BE_NANO",
    2712847316: "BE_MICRO",
    3569595041: "LE_MICRO",
  });

  function Pcap(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  Pcap.prototype._read = function() {
    this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Pcap.Magic" };
    this.magic = this._io.readU4be();
    this._debug.magic.end = this._io.pos;
    if (!Object.prototype.hasOwnProperty.call(Pcap.Magic, this.magic)) {
      var _err = new KaitaiStream.ValidationNotInEnumError(this.magic, this._io, "/seq/0");
      this._debug.magic.validationError = _err;
      throw _err;
    }
    this._debug.header = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.header = new Header(this._io, this, this._root);
    this.header._read();
    this._debug.header.end = this._io.pos;
    this._debug.packets = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._debug.packets.arr = [];
    this.packets = [];
    var i = 0;
    while (!this._io.isEof()) {
      this._debug.packets.arr[this.packets.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
      var _t_packets = new Packet(this._io, this, this._root);
      try {
        _t_packets._read();
      } finally {
        this.packets.push(_t_packets);
      }
      this._debug.packets.arr[this.packets.length - 1].end = this._io.pos;
      i++;
    }
    this._debug.packets.end = this._io.pos;
  }

  /**
   * File header after the magic (draft section 4).
   */

  var Header = Pcap.Header = (function() {
    function Header(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Header.prototype._read = function() {
      switch (this._parent.magic) {
      case Pcap.Magic.LE_MICRO:
        this._is_le = true;
        break;
      case Pcap.Magic.LE_NANO:
        this._is_le = true;
        break;
      case Pcap.Magic.BE_MICRO:
        this._is_le = false;
        break;
      case Pcap.Magic.BE_NANO:
        this._is_le = false;
        break;
      }

      if (this._is_le === true) {
        this._readLE();
      } else if (this._is_le === false) {
        this._readBE();
      } else {
        throw new KaitaiStream.UndecidedEndiannessError();
      }
    }
    Header.prototype._readLE = function() {
      this._debug.versionMajor = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.versionMajor = this._io.readU2le();
      this._debug.versionMajor.end = this._io.pos;
      if (!(this.versionMajor == 2)) {
        var _err = new KaitaiStream.ValidationNotEqualError(2, this.versionMajor, this._io, "/types/header/seq/0");
        this._debug.versionMajor.validationError = _err;
        throw _err;
      }
      this._debug.versionMinor = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.versionMinor = this._io.readU2le();
      this._debug.versionMinor.end = this._io.pos;
      this._debug.thiszone = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.thiszone = this._io.readS4le();
      this._debug.thiszone.end = this._io.pos;
      this._debug.sigfigs = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.sigfigs = this._io.readU4le();
      this._debug.sigfigs.end = this._io.pos;
      this._debug.snaplen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.snaplen = this._io.readU4le();
      this._debug.snaplen.end = this._io.pos;
      this._debug.linktype = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.linktype = this._io.readU4le();
      this._debug.linktype.end = this._io.pos;
    }
    Header.prototype._readBE = function() {
      this._debug.versionMajor = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.versionMajor = this._io.readU2be();
      this._debug.versionMajor.end = this._io.pos;
      if (!(this.versionMajor == 2)) {
        var _err = new KaitaiStream.ValidationNotEqualError(2, this.versionMajor, this._io, "/types/header/seq/0");
        this._debug.versionMajor.validationError = _err;
        throw _err;
      }
      this._debug.versionMinor = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.versionMinor = this._io.readU2be();
      this._debug.versionMinor.end = this._io.pos;
      this._debug.thiszone = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.thiszone = this._io.readS4be();
      this._debug.thiszone.end = this._io.pos;
      this._debug.sigfigs = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.sigfigs = this._io.readU4be();
      this._debug.sigfigs.end = this._io.pos;
      this._debug.snaplen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.snaplen = this._io.readU4be();
      this._debug.snaplen.end = this._io.pos;
      this._debug.linktype = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.linktype = this._io.readU4be();
      this._debug.linktype.end = this._io.pos;
    }

    /**
     * Major version, 2 since libpcap 0.4 (draft section 4).
     */

    /**
     * Minor version, 4 in files written today (draft section 4).
     */

    /**
     * Historic GMT-to-local correction in seconds; always 0 in practice and ignored (draft section 4).
     */

    /**
     * Historic timestamp accuracy; always 0 and ignored (draft section 4).
     */

    /**
     * The most bytes of one packet the capture kept (tcpdump -s); longer packets were cut (draft section 4).
     */

    /**
     * LINKTYPE_ value of every packet's link-layer header in the low 16 bits (1 Ethernet, 0 BSD loopback,
     * 101 raw IP, 113 Linux SLL, 276 Linux SLL2); the upper bits carry the FCS length flag (draft section 4,
     * https://www.tcpdump.org/linktypes.html).
     */

    return Header;
  })();

  /**
   * One packet record, a 16-byte header and the captured bytes (draft section 5).
   */

  var Packet = Pcap.Packet = (function() {
    function Packet(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Packet.prototype._read = function() {
      switch (this._root.magic) {
      case Pcap.Magic.LE_MICRO:
        this._is_le = true;
        break;
      case Pcap.Magic.LE_NANO:
        this._is_le = true;
        break;
      case Pcap.Magic.BE_MICRO:
        this._is_le = false;
        break;
      case Pcap.Magic.BE_NANO:
        this._is_le = false;
        break;
      }

      if (this._is_le === true) {
        this._readLE();
      } else if (this._is_le === false) {
        this._readBE();
      } else {
        throw new KaitaiStream.UndecidedEndiannessError();
      }
    }
    Packet.prototype._readLE = function() {
      this._debug.tsSec = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tsSec = this._io.readU4le();
      this._debug.tsSec.end = this._io.pos;
      this._debug.tsFrac = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tsFrac = this._io.readU4le();
      this._debug.tsFrac.end = this._io.pos;
      this._debug.inclLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.inclLen = this._io.readU4le();
      this._debug.inclLen.end = this._io.pos;
      if (!(this.inclLen <= 262144)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(262144, this.inclLen, this._io, "/types/packet/seq/2");
        this._debug.inclLen.validationError = _err;
        throw _err;
      }
      this._debug.origLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.origLen = this._io.readU4le();
      this._debug.origLen.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.inclLen);
      this._debug.data.end = this._io.pos;
    }
    Packet.prototype._readBE = function() {
      this._debug.tsSec = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tsSec = this._io.readU4be();
      this._debug.tsSec.end = this._io.pos;
      this._debug.tsFrac = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tsFrac = this._io.readU4be();
      this._debug.tsFrac.end = this._io.pos;
      this._debug.inclLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.inclLen = this._io.readU4be();
      this._debug.inclLen.end = this._io.pos;
      if (!(this.inclLen <= 262144)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(262144, this.inclLen, this._io, "/types/packet/seq/2");
        this._debug.inclLen.validationError = _err;
        throw _err;
      }
      this._debug.origLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.origLen = this._io.readU4be();
      this._debug.origLen.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.inclLen);
      this._debug.data.end = this._io.pos;
    }

    /**
     * Capture time, seconds since 1970-01-01 00:00:00 UTC (draft section 5).
     */

    /**
     * Fraction of the second, in microseconds or nanoseconds as the magic says (draft section 5).
     */

    /**
     * Bytes of the packet stored in this record (at most snaplen); larger values mean a corrupt file.
     */

    /**
     * Length of the packet on the wire; more than incl_len when the capture cut it (draft section 5).
     */

    /**
     * The captured bytes, starting with the link-layer header the file header's linktype names.
     */

    return Packet;
  })();

  /**
   * Magic number as the bytes appear in the file; says byte order and timestamp resolution (draft section 4).
   */

  /**
   * The rest of the file header, in the file's byte order.
   */

  /**
   * Every packet record up to the end of the file.
   */

  return Pcap;
})();
Pcap_.Pcap = Pcap;
});

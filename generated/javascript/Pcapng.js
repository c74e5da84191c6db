// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.Pcapng || (root.Pcapng = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (Pcapng_, KaitaiStream) {
/**
 * A pcapng file is a sequence of blocks, each `block_type`, `block_total_length`, a body padded to 32 bits
 * and `block_total_length` again. A Section Header Block (SHB) starts every section and fixes its byte
 * order through its byte-order magic; Interface Description Blocks (IDB) describe the interfaces packets
 * were captured on (link type, snap length, timestamp resolution `if_tsresol`); Enhanced and Simple
 * Packet Blocks (EPB, SPB) hold the packets. Blocks of any other type are kept as raw bodies and skipped
 * by their length, as the format requires of readers.
 * 
 * The root type reads a file of one section (what dumpcap, editcap and this project's writer produce):
 * the first SHB, then every block in the byte order that SHB declares. A file with several sections of
 * different byte orders is read section by section by the runtime (inlong_proto.capture), which decodes
 * each SHB with `section_header_block` and the blocks after it with `block` in that section's order.
 * 
 * Lengths are checked against the data present before anything is read, and a block longer than 16 MiB
 * is refused as corrupt.
 * @see {@link https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcapng/|(PCAP Now Generic (pcapng) Capture File Format)}
 */

var Pcapng = (function() {
  Pcapng.BlockType = Object.freeze({
    INTERFACE_DESCRIPTION: 1,
    SIMPLE_PACKET: 3,
    INTERFACE_STATISTICS: 5,
    ENHANCED_PACKET: 6,
    SECTION_HEADER: 168627466,

    1: "INTERFACE_DESCRIPTION",
    3: "SIMPLE_PACKET",
    5: "INTERFACE_STATISTICS",
    6: "ENHANCED_PACKET",
    168627466: "SECTION_HEADER",
  });

  Pcapng.ByteOrder = Object.freeze({
    BIG: 439041101,
    LITTLE: 1295788826,

    439041101: "BIG",
    1295788826: "LITTLE",
  });

  function Pcapng(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  Pcapng.prototype._read = function() {
    this._debug.sectionHeader = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.sectionHeader = new SectionHeaderBlock(this._io, this, this._root);
    this.sectionHeader._read();
    this._debug.sectionHeader.end = this._io.pos;
    this._debug.blocks = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._debug.blocks.arr = [];
    this.blocks = [];
    var i = 0;
    while (!this._io.isEof()) {
      this._debug.blocks.arr[this.blocks.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
      var _t_blocks = new Block(this._io, this, this._root);
      try {
        _t_blocks._read();
      } finally {
        this.blocks.push(_t_blocks);
      }
      this._debug.blocks.arr[this.blocks.length - 1].end = this._io.pos;
      i++;
    }
    this._debug.blocks.end = this._io.pos;
  }

  /**
   * Any block after the section header, in the section's byte order (draft section 3.1).
   */

  var Block = Pcapng.Block = (function() {
    function Block(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Block.prototype._read = function() {
      switch (this._root.sectionHeader.byteOrderMagic) {
      case Pcapng.ByteOrder.BIG:
        this._is_le = false;
        break;
      case Pcapng.ByteOrder.LITTLE:
        this._is_le = true;
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
    Block.prototype._readLE = function() {
      this._debug.blockType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Pcapng.BlockType" };
      this.blockType = this._io.readU4le();
      this._debug.blockType.end = this._io.pos;
      this._debug.blockTotalLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockTotalLength = this._io.readU4le();
      this._debug.blockTotalLength.end = this._io.pos;
      var _ = this.blockTotalLength;
      if (!( ((_ >= 12) && (_ <= 16777216) && (KaitaiStream.mod(_, 4) == 0)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.blockTotalLength, this._io, "/types/block/seq/1");
        this._debug.blockTotalLength.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      switch (this.blockType) {
      case Pcapng.BlockType.ENHANCED_PACKET:
        this._raw_body = this._io.readBytes(this.blockTotalLength - 12);
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new EnhancedPacketBlock(_io__raw_body, this, this._root, this._is_le);
        this.body._read();
        break;
      case Pcapng.BlockType.INTERFACE_DESCRIPTION:
        this._raw_body = this._io.readBytes(this.blockTotalLength - 12);
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new InterfaceDescriptionBlock(_io__raw_body, this, this._root, this._is_le);
        this.body._read();
        break;
      case Pcapng.BlockType.SIMPLE_PACKET:
        this._raw_body = this._io.readBytes(this.blockTotalLength - 12);
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new SimplePacketBlock(_io__raw_body, this, this._root, this._is_le);
        this.body._read();
        break;
      default:
        this.body = this._io.readBytes(this.blockTotalLength - 12);
        break;
      }
      this._debug.body.end = this._io.pos;
      this._debug.blockTotalLengthTrailer = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockTotalLengthTrailer = this._io.readU4le();
      this._debug.blockTotalLengthTrailer.end = this._io.pos;
      if (!(this.blockTotalLengthTrailer == this.blockTotalLength)) {
        var _err = new KaitaiStream.ValidationNotEqualError(this.blockTotalLength, this.blockTotalLengthTrailer, this._io, "/types/block/seq/3");
        this._debug.blockTotalLengthTrailer.validationError = _err;
        throw _err;
      }
    }
    Block.prototype._readBE = function() {
      this._debug.blockType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Pcapng.BlockType" };
      this.blockType = this._io.readU4be();
      this._debug.blockType.end = this._io.pos;
      this._debug.blockTotalLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockTotalLength = this._io.readU4be();
      this._debug.blockTotalLength.end = this._io.pos;
      var _ = this.blockTotalLength;
      if (!( ((_ >= 12) && (_ <= 16777216) && (KaitaiStream.mod(_, 4) == 0)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.blockTotalLength, this._io, "/types/block/seq/1");
        this._debug.blockTotalLength.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      switch (this.blockType) {
      case Pcapng.BlockType.ENHANCED_PACKET:
        this._raw_body = this._io.readBytes(this.blockTotalLength - 12);
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new EnhancedPacketBlock(_io__raw_body, this, this._root, this._is_le);
        this.body._read();
        break;
      case Pcapng.BlockType.INTERFACE_DESCRIPTION:
        this._raw_body = this._io.readBytes(this.blockTotalLength - 12);
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new InterfaceDescriptionBlock(_io__raw_body, this, this._root, this._is_le);
        this.body._read();
        break;
      case Pcapng.BlockType.SIMPLE_PACKET:
        this._raw_body = this._io.readBytes(this.blockTotalLength - 12);
        var _io__raw_body = new KaitaiStream(this._raw_body);
        this.body = new SimplePacketBlock(_io__raw_body, this, this._root, this._is_le);
        this.body._read();
        break;
      default:
        this.body = this._io.readBytes(this.blockTotalLength - 12);
        break;
      }
      this._debug.body.end = this._io.pos;
      this._debug.blockTotalLengthTrailer = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockTotalLengthTrailer = this._io.readU4be();
      this._debug.blockTotalLengthTrailer.end = this._io.pos;
      if (!(this.blockTotalLengthTrailer == this.blockTotalLength)) {
        var _err = new KaitaiStream.ValidationNotEqualError(this.blockTotalLength, this.blockTotalLengthTrailer, this._io, "/types/block/seq/3");
        this._debug.blockTotalLengthTrailer.validationError = _err;
        throw _err;
      }
    }

    /**
     * Enhanced Packet Block (draft section 4.3).
     */

    var EnhancedPacketBlock = Block.EnhancedPacketBlock = (function() {
      function EnhancedPacketBlock(_io, _parent, _root, _is_le) {
        this._io = _io;
        this._parent = _parent;
        this._root = _root;
        this._is_le = _is_le;
        this._debug = {};

      }
      EnhancedPacketBlock.prototype._read = function() {

        if (this._is_le === true) {
          this._readLE();
        } else if (this._is_le === false) {
          this._readBE();
        } else {
          throw new KaitaiStream.UndecidedEndiannessError();
        }
      }
      EnhancedPacketBlock.prototype._readLE = function() {
        this._debug.interfaceId = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.interfaceId = this._io.readU4le();
        this._debug.interfaceId.end = this._io.pos;
        this._debug.timestampHigh = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.timestampHigh = this._io.readU4le();
        this._debug.timestampHigh.end = this._io.pos;
        this._debug.timestampLow = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.timestampLow = this._io.readU4le();
        this._debug.timestampLow.end = this._io.pos;
        this._debug.capturedPacketLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.capturedPacketLength = this._io.readU4le();
        this._debug.capturedPacketLength.end = this._io.pos;
        this._debug.originalPacketLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.originalPacketLength = this._io.readU4le();
        this._debug.originalPacketLength.end = this._io.pos;
        this._debug.packetData = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.packetData = this._io.readBytes(this.capturedPacketLength);
        this._debug.packetData.end = this._io.pos;
        this._debug.padding = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.padding = this._io.readBytes(KaitaiStream.mod(4 - KaitaiStream.mod(this.capturedPacketLength, 4), 4));
        this._debug.padding.end = this._io.pos;
        this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this._debug.options.arr = [];
        this.options = [];
        var i = 0;
        while (!this._io.isEof()) {
          this._debug.options.arr[this.options.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
          var _t_options = new Option(this._io, this, this._root, this._is_le);
          try {
            _t_options._read();
          } finally {
            this.options.push(_t_options);
          }
          this._debug.options.arr[this.options.length - 1].end = this._io.pos;
          i++;
        }
        this._debug.options.end = this._io.pos;
      }
      EnhancedPacketBlock.prototype._readBE = function() {
        this._debug.interfaceId = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.interfaceId = this._io.readU4be();
        this._debug.interfaceId.end = this._io.pos;
        this._debug.timestampHigh = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.timestampHigh = this._io.readU4be();
        this._debug.timestampHigh.end = this._io.pos;
        this._debug.timestampLow = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.timestampLow = this._io.readU4be();
        this._debug.timestampLow.end = this._io.pos;
        this._debug.capturedPacketLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.capturedPacketLength = this._io.readU4be();
        this._debug.capturedPacketLength.end = this._io.pos;
        this._debug.originalPacketLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.originalPacketLength = this._io.readU4be();
        this._debug.originalPacketLength.end = this._io.pos;
        this._debug.packetData = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.packetData = this._io.readBytes(this.capturedPacketLength);
        this._debug.packetData.end = this._io.pos;
        this._debug.padding = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.padding = this._io.readBytes(KaitaiStream.mod(4 - KaitaiStream.mod(this.capturedPacketLength, 4), 4));
        this._debug.padding.end = this._io.pos;
        this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this._debug.options.arr = [];
        this.options = [];
        var i = 0;
        while (!this._io.isEof()) {
          this._debug.options.arr[this.options.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
          var _t_options = new Option(this._io, this, this._root, this._is_le);
          try {
            _t_options._read();
          } finally {
            this.options.push(_t_options);
          }
          this._debug.options.arr[this.options.length - 1].end = this._io.pos;
          i++;
        }
        this._debug.options.end = this._io.pos;
      }

      /**
       * Which interface of the section (its IDB's position) captured the packet.
       */

      /**
       * Upper 32 bits of the 64-bit timestamp, in the interface's if_tsresol units since 1970.
       */

      /**
       * Lower 32 bits of the timestamp.
       */

      /**
       * Bytes of the packet present in packet_data (without padding).
       */

      /**
       * Length of the packet on the wire.
       */

      /**
       * The captured bytes, starting with the interface's link-layer header.
       */

      /**
       * Zero bytes padding packet_data to 32 bits.
       */

      /**
       * Packet options (flags, hash, ...), kept as they are.
       */

      return EnhancedPacketBlock;
    })();

    /**
     * Interface Description Block (draft section 4.2); the n-th IDB of a section is interface n.
     */

    var InterfaceDescriptionBlock = Block.InterfaceDescriptionBlock = (function() {
      function InterfaceDescriptionBlock(_io, _parent, _root, _is_le) {
        this._io = _io;
        this._parent = _parent;
        this._root = _root;
        this._is_le = _is_le;
        this._debug = {};

      }
      InterfaceDescriptionBlock.prototype._read = function() {

        if (this._is_le === true) {
          this._readLE();
        } else if (this._is_le === false) {
          this._readBE();
        } else {
          throw new KaitaiStream.UndecidedEndiannessError();
        }
      }
      InterfaceDescriptionBlock.prototype._readLE = function() {
        this._debug.linktype = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.linktype = this._io.readU2le();
        this._debug.linktype.end = this._io.pos;
        this._debug.reserved = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.reserved = this._io.readU2le();
        this._debug.reserved.end = this._io.pos;
        this._debug.snaplen = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.snaplen = this._io.readU4le();
        this._debug.snaplen.end = this._io.pos;
        this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this._debug.options.arr = [];
        this.options = [];
        var i = 0;
        while (!this._io.isEof()) {
          this._debug.options.arr[this.options.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
          var _t_options = new Option(this._io, this, this._root, this._is_le);
          try {
            _t_options._read();
          } finally {
            this.options.push(_t_options);
          }
          this._debug.options.arr[this.options.length - 1].end = this._io.pos;
          i++;
        }
        this._debug.options.end = this._io.pos;
      }
      InterfaceDescriptionBlock.prototype._readBE = function() {
        this._debug.linktype = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.linktype = this._io.readU2be();
        this._debug.linktype.end = this._io.pos;
        this._debug.reserved = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.reserved = this._io.readU2be();
        this._debug.reserved.end = this._io.pos;
        this._debug.snaplen = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.snaplen = this._io.readU4be();
        this._debug.snaplen.end = this._io.pos;
        this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this._debug.options.arr = [];
        this.options = [];
        var i = 0;
        while (!this._io.isEof()) {
          this._debug.options.arr[this.options.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
          var _t_options = new Option(this._io, this, this._root, this._is_le);
          try {
            _t_options._read();
          } finally {
            this.options.push(_t_options);
          }
          this._debug.options.arr[this.options.length - 1].end = this._io.pos;
          i++;
        }
        this._debug.options.end = this._io.pos;
      }

      /**
       * LINKTYPE_ value of the interface's packets (as in pcap's header).
       */

      /**
       * Reserved, 0.
       */

      /**
       * The most bytes of a packet kept on this interface, 0 for no limit.
       */

      /**
       * Options; if_tsresol (code 9) gives the timestamp unit, 10^-6 s when absent.
       */

      return InterfaceDescriptionBlock;
    })();

    /**
     * One option (draft section 3.5); opt_endofopt (code 0) ends the list.
     */

    var Option = Block.Option = (function() {
      function Option(_io, _parent, _root, _is_le) {
        this._io = _io;
        this._parent = _parent;
        this._root = _root;
        this._is_le = _is_le;
        this._debug = {};

      }
      Option.prototype._read = function() {

        if (this._is_le === true) {
          this._readLE();
        } else if (this._is_le === false) {
          this._readBE();
        } else {
          throw new KaitaiStream.UndecidedEndiannessError();
        }
      }
      Option.prototype._readLE = function() {
        this._debug.code = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.code = this._io.readU2le();
        this._debug.code.end = this._io.pos;
        this._debug.length = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.length = this._io.readU2le();
        this._debug.length.end = this._io.pos;
        this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.value = this._io.readBytes(this.length);
        this._debug.value.end = this._io.pos;
        this._debug.padding = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.padding = this._io.readBytes(KaitaiStream.mod(4 - KaitaiStream.mod(this.length, 4), 4));
        this._debug.padding.end = this._io.pos;
      }
      Option.prototype._readBE = function() {
        this._debug.code = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.code = this._io.readU2be();
        this._debug.code.end = this._io.pos;
        this._debug.length = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.length = this._io.readU2be();
        this._debug.length.end = this._io.pos;
        this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.value = this._io.readBytes(this.length);
        this._debug.value.end = this._io.pos;
        this._debug.padding = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.padding = this._io.readBytes(KaitaiStream.mod(4 - KaitaiStream.mod(this.length, 4), 4));
        this._debug.padding.end = this._io.pos;
      }

      /**
       * Option code; its meaning depends on the block (9 in an IDB is if_tsresol).
       */

      /**
       * Bytes of value, without padding.
       */

      /**
       * The option's value.
       */

      /**
       * Zero bytes padding value to 32 bits.
       */

      return Option;
    })();

    /**
     * Simple Packet Block (draft section 4.4): a packet of interface 0 without timestamp. The captured
     * length is not stored: it is the smaller of original_packet_length and interface 0's snaplen, so
     * packet_data keeps the padding and the reader trims it.
     */

    var SimplePacketBlock = Block.SimplePacketBlock = (function() {
      function SimplePacketBlock(_io, _parent, _root, _is_le) {
        this._io = _io;
        this._parent = _parent;
        this._root = _root;
        this._is_le = _is_le;
        this._debug = {};

      }
      SimplePacketBlock.prototype._read = function() {

        if (this._is_le === true) {
          this._readLE();
        } else if (this._is_le === false) {
          this._readBE();
        } else {
          throw new KaitaiStream.UndecidedEndiannessError();
        }
      }
      SimplePacketBlock.prototype._readLE = function() {
        this._debug.originalPacketLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.originalPacketLength = this._io.readU4le();
        this._debug.originalPacketLength.end = this._io.pos;
        this._debug.packetData = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.packetData = this._io.readBytesFull();
        this._debug.packetData.end = this._io.pos;
      }
      SimplePacketBlock.prototype._readBE = function() {
        this._debug.originalPacketLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.originalPacketLength = this._io.readU4be();
        this._debug.originalPacketLength.end = this._io.pos;
        this._debug.packetData = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.packetData = this._io.readBytesFull();
        this._debug.packetData.end = this._io.pos;
      }

      /**
       * Length of the packet on the wire.
       */

      /**
       * The captured bytes and the padding to 32 bits.
       */

      return SimplePacketBlock;
    })();

    /**
     * What the body holds; unknown types keep their body as bytes.
     */

    /**
     * The whole block's length, header and trailer included; a multiple of 4 (draft section 3.1).
     */

    /**
     * The block's body; the types this reader needs are decoded, others are bytes.
     */

    /**
     * The total length repeated; must equal the first.
     */

    return Block;
  })();

  /**
   * Section Header Block (draft section 4.1). Its type, 0x0A0D0D0A, reads the same in both byte orders;
   * its length comes before the byte-order magic that says how to read it, so the length is kept as
   * bytes and read as a number once the magic is known (block_total_length).
   */

  var SectionHeaderBlock = Pcapng.SectionHeaderBlock = (function() {
    function SectionHeaderBlock(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    SectionHeaderBlock.prototype._read = function() {
      this._debug.blockType = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockType = this._io.readBytes(4);
      this._debug.blockType.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.blockType, new Uint8Array([10, 13, 13, 10])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([10, 13, 13, 10]), this.blockType, this._io, "/types/section_header_block/seq/0");
        this._debug.blockType.validationError = _err;
        throw _err;
      }
      this._debug.blockTotalLengthBytes = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockTotalLengthBytes = this._io.readBytes(4);
      this._debug.blockTotalLengthBytes.end = this._io.pos;
      this._debug.byteOrderMagic = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Pcapng.ByteOrder" };
      this.byteOrderMagic = this._io.readU4be();
      this._debug.byteOrderMagic.end = this._io.pos;
      if (!Object.prototype.hasOwnProperty.call(Pcapng.ByteOrder, this.byteOrderMagic)) {
        var _err = new KaitaiStream.ValidationNotInEnumError(this.byteOrderMagic, this._io, "/types/section_header_block/seq/2");
        this._debug.byteOrderMagic.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._raw_body = this._io.readBytes(this.blockTotalLength - 16);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new SectionHeaderBody(_io__raw_body, this, this._root);
      this.body._read();
      this._debug.body.end = this._io.pos;
      var _ = this.body;
      if (!( ((this.blockTotalLength >= 28) && (KaitaiStream.mod(this.blockTotalLength, 4) == 0) && (this.blockTotalLength <= 16777216)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.body, this._io, "/types/section_header_block/seq/3");
        this._debug.body.validationError = _err;
        throw _err;
      }
      this._debug.blockTotalLengthTrailer = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockTotalLengthTrailer = this._io.readBytes(4);
      this._debug.blockTotalLengthTrailer.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.blockTotalLengthTrailer, this.blockTotalLengthBytes) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(this.blockTotalLengthBytes, this.blockTotalLengthTrailer, this._io, "/types/section_header_block/seq/4");
        this._debug.blockTotalLengthTrailer.validationError = _err;
        throw _err;
      }
    }

    /**
     * What follows the byte-order magic (draft section 4.1).
     */

    var SectionHeaderBody = SectionHeaderBlock.SectionHeaderBody = (function() {
      function SectionHeaderBody(_io, _parent, _root) {
        this._io = _io;
        this._parent = _parent;
        this._root = _root;
        this._debug = {};

      }
      SectionHeaderBody.prototype._read = function() {
        switch (this._parent.byteOrderMagic) {
        case Pcapng.ByteOrder.BIG:
          this._is_le = false;
          break;
        case Pcapng.ByteOrder.LITTLE:
          this._is_le = true;
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
      SectionHeaderBody.prototype._readLE = function() {
        this._debug.majorVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.majorVersion = this._io.readU2le();
        this._debug.majorVersion.end = this._io.pos;
        if (!(this.majorVersion == 1)) {
          var _err = new KaitaiStream.ValidationNotEqualError(1, this.majorVersion, this._io, "/types/section_header_block/types/section_header_body/seq/0");
          this._debug.majorVersion.validationError = _err;
          throw _err;
        }
        this._debug.minorVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.minorVersion = this._io.readU2le();
        this._debug.minorVersion.end = this._io.pos;
        this._debug.sectionLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.sectionLength = this._io.readS8le();
        this._debug.sectionLength.end = this._io.pos;
        this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.options = this._io.readBytesFull();
        this._debug.options.end = this._io.pos;
      }
      SectionHeaderBody.prototype._readBE = function() {
        this._debug.majorVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.majorVersion = this._io.readU2be();
        this._debug.majorVersion.end = this._io.pos;
        if (!(this.majorVersion == 1)) {
          var _err = new KaitaiStream.ValidationNotEqualError(1, this.majorVersion, this._io, "/types/section_header_block/types/section_header_body/seq/0");
          this._debug.majorVersion.validationError = _err;
          throw _err;
        }
        this._debug.minorVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.minorVersion = this._io.readU2be();
        this._debug.minorVersion.end = this._io.pos;
        this._debug.sectionLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.sectionLength = this._io.readS8be();
        this._debug.sectionLength.end = this._io.pos;
        this._debug.options = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.options = this._io.readBytesFull();
        this._debug.options.end = this._io.pos;
      }

      /**
       * Major version of the format, 1.
       */

      /**
       * Minor version, 0 (writers that wrote 2 are read the same way).
       */

      /**
       * Bytes of the section after this block, or -1 when not given (tcpdump and dumpcap write -1).
       */

      /**
       * Section options (shb_hardware, shb_os, shb_userappl), kept as bytes; same layout as block::option.
       */

      return SectionHeaderBody;
    })();

    /**
     * The block's total length as a number, in the byte order the magic names.
     */
    Object.defineProperty(SectionHeaderBlock.prototype, 'blockTotalLength', {
      get: function() {
        if (this._m_blockTotalLength !== undefined)
          return this._m_blockTotalLength;
        this._debug._m_blockTotalLength = {  };
        this._m_blockTotalLength = (this.byteOrderMagic == Pcapng.ByteOrder.BIG ? ((this.blockTotalLengthBytes[0] << 24 | this.blockTotalLengthBytes[1] << 16) | this.blockTotalLengthBytes[2] << 8) | this.blockTotalLengthBytes[3] : ((this.blockTotalLengthBytes[3] << 24 | this.blockTotalLengthBytes[2] << 16) | this.blockTotalLengthBytes[1] << 8) | this.blockTotalLengthBytes[0]);
        return this._m_blockTotalLength;
      }
    });

    /**
     * Block type of an SHB, a palindrome so that it reads the same in either byte order.
     */

    /**
     * The block's total length (header and trailer included) in the section's byte order.
     */

    /**
     * 0x1A2B3C4D in the section's byte order; read big-endian here, so it names that order.
     */

    /**
     * Version, section length and options; at least 28 bytes in all, a multiple of 4.
     */

    /**
     * The total length repeated, so a reader can walk blocks backwards; must equal the first.
     */

    return SectionHeaderBlock;
  })();

  /**
   * The Section Header Block every file starts with.
   */

  /**
   * The blocks of the section, up to the end of the file.
   */

  return Pcapng;
})();
Pcapng_.Pcapng = Pcapng;
});

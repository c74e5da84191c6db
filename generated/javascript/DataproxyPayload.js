// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.DataproxyPayload || (root.DataproxyPayload = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (DataproxyPayload_, KaitaiStream) {
/**
 * The record layouts inside a (decompressed) body. Which one applies is decided by the frame: MsgType 5
 * uses text_items; MsgType 6 uses multi_body_attr_items; MsgType 2/3/4 join records with LF (no layout
 * needed); MsgType 7 uses bin_items, bin_items_with_attrs when ExtField bit 0 is set, or lf_block when
 * ExtField bit 5 is set. The server stops silently at the first bad MsgType 5 item and silently drops a
 * MsgType 6 body that is not in its layout; this spec reports both instead, so no record is ever dropped
 * without a word.
 * @see docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.5, 1.8, 1.9); apache/inlong inlong-common/src/main/java/org/apache/inlong/common/msg/InLongMsg.java (InLongMsg v3, MsgType 6)
 */

var DataproxyPayload = (function() {
  function DataproxyPayload(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  DataproxyPayload.prototype._read = function() {
  }

  /**
   * One MsgType 7 record.
   */

  var BinItem = DataproxyPayload.BinItem = (function() {
    function BinItem(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinItem.prototype._read = function() {
      this._debug.itemLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.itemLen = this._io.readU4be();
      this._debug.itemLen.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.itemLen);
      this._debug.data.end = this._io.pos;
    }

    /**
     * Bytes of data.
     */

    /**
     * The record.
     */

    return BinItem;
  })();

  /**
   * One MsgType 7 record followed by its attributes.
   */

  var BinItemWithAttrs = DataproxyPayload.BinItemWithAttrs = (function() {
    function BinItemWithAttrs(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinItemWithAttrs.prototype._read = function() {
      this._debug.itemLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.itemLen = this._io.readU4be();
      this._debug.itemLen.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.itemLen);
      this._debug.data.end = this._io.pos;
      this._debug.attrLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attrLen = this._io.readU4be();
      this._debug.attrLen.end = this._io.pos;
      this._debug.attr = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attr = KaitaiStream.bytesToStr(this._io.readBytes(this.attrLen), "UTF-8");
      this._debug.attr.end = this._io.pos;
    }

    /**
     * Bytes of data.
     */

    /**
     * The record.
     */

    /**
     * Bytes of the record's attributes.
     */

    /**
     * The record's attributes, `k=v&k=v`.
     */

    return BinItemWithAttrs;
  })();

  /**
   * MsgType 7 body (ExtField bits 0 and 5 clear), {len:u4, data} until the end.
   */

  var BinItems = DataproxyPayload.BinItems = (function() {
    function BinItems(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinItems.prototype._read = function() {
      this._debug.items = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.items.arr = [];
      this.items = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.items.arr[this.items.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_items = new BinItem(this._io, this, this._root);
        try {
          _t_items._read();
        } finally {
          this.items.push(_t_items);
        }
        this._debug.items.arr[this.items.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.items.end = this._io.pos;
    }

    /**
     * The records, in order.
     */

    return BinItems;
  })();

  /**
   * MsgType 7 body with ExtField bit 0, {len:u4, data, attr_len:u4, attr} until the end.
   */

  var BinItemsWithAttrs = DataproxyPayload.BinItemsWithAttrs = (function() {
    function BinItemsWithAttrs(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BinItemsWithAttrs.prototype._read = function() {
      this._debug.items = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.items.arr = [];
      this.items = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.items.arr[this.items.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_items = new BinItemWithAttrs(this._io, this, this._root);
        try {
          _t_items._read();
        } finally {
          this.items.push(_t_items);
        }
        this._debug.items.arr[this.items.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.items.end = this._io.pos;
    }

    /**
     * The records with their own attributes, in order.
     */

    return BinItemsWithAttrs;
  })();

  /**
   * MsgType 7 body with ExtField bit 5, exactly one {len:u4, records joined by LF}.
   */

  var LfBlock = DataproxyPayload.LfBlock = (function() {
    function LfBlock(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    LfBlock.prototype._read = function() {
      this._debug.blockLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockLen = this._io.readU4be();
      this._debug.blockLen.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.blockLen);
      this._debug.data.end = this._io.pos;
      var _ = this.data;
      if (!(this._io.isEof())) {
        var _err = new KaitaiStream.ValidationExprError(this.data, this._io, "/types/lf_block/seq/1");
        this._debug.data.validationError = _err;
        throw _err;
      }
    }

    /**
     * Bytes of the block.
     */

    /**
     * Records joined by LF; the block must fill the body.
     */

    return LfBlock;
  })();

  /**
   * One MsgType 6 record followed by its attributes (an InLongMsg v3 pair).
   */

  var MultiBodyAttrItem = DataproxyPayload.MultiBodyAttrItem = (function() {
    function MultiBodyAttrItem(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    MultiBodyAttrItem.prototype._read = function() {
      this._debug.itemLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.itemLen = this._io.readS4be();
      this._debug.itemLen.end = this._io.pos;
      if (!(this.itemLen >= 1)) {
        var _err = new KaitaiStream.ValidationLessThanError(1, this.itemLen, this._io, "/types/multi_body_attr_item/seq/0");
        this._debug.itemLen.validationError = _err;
        throw _err;
      }
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.itemLen);
      this._debug.data.end = this._io.pos;
      this._debug.attrLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attrLen = this._io.readS4be();
      this._debug.attrLen.end = this._io.pos;
      if (!(this.attrLen >= 1)) {
        var _err = new KaitaiStream.ValidationLessThanError(1, this.attrLen, this._io, "/types/multi_body_attr_item/seq/2");
        this._debug.attrLen.validationError = _err;
        throw _err;
      }
      this._debug.attr = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.attr = KaitaiStream.bytesToStr(this._io.readBytes(this.attrLen), "UTF-8");
      this._debug.attr.end = this._io.pos;
    }

    /**
     * Bytes of data; parseMixAttr stops at a length <= 0 (InLongMsg.java).
     */

    /**
     * The record.
     */

    /**
     * Bytes of the record's attributes; parseMixAttr stops at a length <= 0, so every record has some.
     */

    /**
     * The record's own attributes, `k=v&k=v`, appended to the message's with '&' downstream (Java reads
     * them with the platform charset, `new String(bytes)`; UTF-8 here).
     */

    return MultiBodyAttrItem;
  })();

  /**
   * MsgType 6 (MSG_MULTI_BODY_ATTR) body, after Snappy when the `cp` attribute is set: an InLongMsg v3
   * body, {item_len:s4, data}{attr_len:s4, attr} pairs until the end, each record followed by its own
   * attributes. The design document (section 1.4) and this project's first specs took the body for one
   * record; the code says otherwise, and the code wins:
   * - The server packs a MsgType 6 body whole into an InLongMsg *version 3* container, the only type it
   *   does so (`inLongMsgVer = 3` for MSG_MULTI_BODY_ATTR, then `addMsg(<message attrs>, bodyData)`;
   *   apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java,
   *   encEventPackage). InLongMsg's MAGIC3 (0x0f03) is commented "support msg_type = 6".
   * - For version 3, InLongMsg.addMsg first runs checkData over the body: it walks {len:s4, bytes}
   *   chunks to the end and returns false at a length past the end, and addMsg then returns false
   *   without storing the body. The server ignores that result: the (empty) message is forwarded and
   *   the SDK gets success (errCode 0), so the records are lost without a word. A negative length or 1-3
   *   bytes left for a length throw instead (NegativeArraySizeException, BufferUnderflowException) from
   *   encEventPackage, which ServerMessageHandler.processV0Msg calls outside its try: exceptionCaught
   *   closes the connection without a reply
   *   (apache/inlong inlong-common/src/main/java/org/apache/inlong/common/msg/InLongMsg.java, addMsg and
   *   checkData; apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/ServerMessageHandler.java,
   *   processV0Msg and exceptionCaught).
   * - The consumer side reads the stored body as pairs (InLongMsg.parseMixAttr, same file): data length,
   *   data, attribute length, attributes; a data or attribute length <= 0 stops the parse there and the
   *   rest of the body is dropped; a record's attributes are the message's joined with its own,
   *   `<message attrs>&<record attrs>`. checkData only counts chunks, so an odd number of chunks (a last
   *   record without attributes) and zero lengths pass the server and are lost downstream.
   * This spec accepts exactly what parseMixAttr reads to the end: both lengths at least 1, the pairs
   * filling the body. A body that is not so is well-formed on the wire (the server accepts it) but its
   * records are not readable; the runtime flags it (an error in FAILFAST, an error field otherwise).
   */

  var MultiBodyAttrItems = DataproxyPayload.MultiBodyAttrItems = (function() {
    function MultiBodyAttrItems(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    MultiBodyAttrItems.prototype._read = function() {
      this._debug.items = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.items.arr = [];
      this.items = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.items.arr[this.items.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_items = new MultiBodyAttrItem(this._io, this, this._root);
        try {
          _t_items._read();
        } finally {
          this.items.push(_t_items);
        }
        this._debug.items.arr[this.items.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.items.end = this._io.pos;
    }

    /**
     * The records with their own attributes, in order.
     */

    return MultiBodyAttrItems;
  })();

  /**
   * One MsgType 5 record.
   */

  var TextItem = DataproxyPayload.TextItem = (function() {
    function TextItem(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    TextItem.prototype._read = function() {
      this._debug.itemLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.itemLen = this._io.readS4be();
      this._debug.itemLen.end = this._io.pos;
      if (!(this.itemLen >= 1)) {
        var _err = new KaitaiStream.ValidationLessThanError(1, this.itemLen, this._io, "/types/text_item/seq/0");
        this._debug.itemLen.validationError = _err;
        throw _err;
      }
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.itemLen);
      this._debug.data.end = this._io.pos;
    }

    /**
     * Bytes of data; the server only accepts 0 < ItemLen <= what remains.
     */

    /**
     * The record.
     */

    return TextItem;
  })();

  /**
   * MsgType 5 body, {ItemLen:s4, ItemData} until the end.
   */

  var TextItems = DataproxyPayload.TextItems = (function() {
    function TextItems(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    TextItems.prototype._read = function() {
      this._debug.items = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.items.arr = [];
      this.items = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.items.arr[this.items.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_items = new TextItem(this._io, this, this._root);
        try {
          _t_items._read();
        } finally {
          this.items.push(_t_items);
        }
        this._debug.items.arr[this.items.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.items.end = this._io.pos;
    }

    /**
     * The records, in order.
     */

    return TextItems;
  })();

  return DataproxyPayload;
})();
DataproxyPayload_.DataproxyPayload = DataproxyPayload;
});

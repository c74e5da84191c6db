// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.TubemqFrame || (root.TubemqFrame = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (TubemqFrame_, KaitaiStream) {
/**
 * Begin token, serial number and a counted list of sized blocks. There is no total length: a frame ends
 * after its last block. The blocks' data, joined, is one stream of varint-length-delimited protobuf
 * messages (RpcConnHeader, then RequestHeader + RequestBody or ResponseHeader + RspResponseBody /
 * RspExceptionBody, see methods.yaml); writers cut that stream into blocks of exactly 8192 bytes, the
 * last one holding the rest, with no regard for message boundaries.
 * Limits differ per implementation (Java server: list_size <= 3584 and no block check; C++ client:
 * <= 1024 blocks of 1..8192 bytes); this spec takes the server's list limit and refuses blocks over
 * 8192 bytes, so a frame is at most 12 + 3584 * 8196 bytes (the default max_frame_size).
 * list_size 0 never completes in the Java decoder (quirk Q-T4), so it is refused here.
 * @see apache/inlong@a6c7a6a670c3 inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyProtocolEncoder.java, netty/NettyProtocolDecoder.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 2 (sections 2.1, 2.2)
 */

var TubemqFrame = (function() {
  function TubemqFrame(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  TubemqFrame.prototype._read = function() {
    this._debug.beginToken = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.beginToken = this._io.readBytes(4);
    this._debug.beginToken.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.beginToken, new Uint8Array([255, 127, 244, 254])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([255, 127, 244, 254]), this.beginToken, this._io, "/seq/0");
      this._debug.beginToken.validationError = _err;
      throw _err;
    }
    this._debug.serialNo = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.serialNo = this._io.readS4be();
    this._debug.serialNo.end = this._io.pos;
    this._debug.listSize = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.listSize = this._io.readS4be();
    this._debug.listSize.end = this._io.pos;
    if (!(this.listSize >= 1)) {
      var _err = new KaitaiStream.ValidationLessThanError(1, this.listSize, this._io, "/seq/2");
      this._debug.listSize.validationError = _err;
      throw _err;
    }
    if (!(this.listSize <= 3584)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(3584, this.listSize, this._io, "/seq/2");
      this._debug.listSize.validationError = _err;
      throw _err;
    }
    this._debug.blocks = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._debug.blocks.arr = [];
    this.blocks = [];
    for (var i = 0; i < this.listSize; i++) {
      this._debug.blocks.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
      var _t_blocks = new Block(this._io, this, this._root);
      try {
        _t_blocks._read();
      } finally {
        this.blocks.push(_t_blocks);
      }
      this._debug.blocks.arr[i].end = this._io.pos;
    }
    this._debug.blocks.end = this._io.pos;
  }

  /**
   * One piece of the message stream.
   */

  var Block = TubemqFrame.Block = (function() {
    function Block(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Block.prototype._read = function() {
      this._debug.blockLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blockLen = this._io.readS4be();
      this._debug.blockLen.end = this._io.pos;
      if (!(this.blockLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.blockLen, this._io, "/types/block/seq/0");
        this._debug.blockLen.validationError = _err;
        throw _err;
      }
      if (!(this.blockLen <= 8192)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(8192, this.blockLen, this._io, "/types/block/seq/0");
        this._debug.blockLen.validationError = _err;
        throw _err;
      }
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.blockLen);
      this._debug.data.end = this._io.pos;
    }

    /**
     * Bytes of data, at most RPC_MAX_BUFFER_SIZE (8192); negative or larger is malformed.
     */

    /**
     * The next block_len bytes of the message stream.
     */

    return Block;
  })();

  /**
   * RPC_PROTOCOL_BEGIN_TOKEN 0xFF7FF4FE; anything else is a protocol error (and where PERMISSIVE resyncs).
   */

  /**
   * Request id chosen by the caller; the response echoes it.
   */

  /**
   * Number of blocks (MAX_FRAME_MAX_LIST_SIZE = 3584 on the server).
   */

  /**
   * The blocks, whose data joined is the RPC message stream.
   */

  return TubemqFrame;
})();
TubemqFrame_.TubemqFrame = TubemqFrame;
});

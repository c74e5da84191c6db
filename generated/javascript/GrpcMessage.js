// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.GrpcMessage || (root.GrpcMessage = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (GrpcMessage_, KaitaiStream) {
/**
 * One gRPC message as it travels in the DATA frames of an HTTP/2 stream (gRPC over HTTP/2,
 * "Length-Prefixed-Message"): a compressed flag, a 4-byte length, then the message. A message may be cut
 * across any number of DATA frames and a DATA frame may hold several messages; the reader joins a
 * stream's DATA payloads first (inlong_proto.eventmesh.h2). EventMesh's messages are the protobuf types
 * of eventmesh-service.proto (CloudEvent, CloudEventBatch) and, before 1.9.0, eventmesh-client.proto.
 * @see {@link https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md|(Requests: Length-Prefixed-Message)}
 */

var GrpcMessage = (function() {
  function GrpcMessage(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  GrpcMessage.prototype._read = function() {
    this._debug.prefix = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.prefix = new MessagePrefix(this._io, this, this._root);
    this.prefix._read();
    this._debug.prefix.end = this._io.pos;
    this._debug.message = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.message = this._io.readBytes(this.prefix.length);
    this._debug.message.end = this._io.pos;
  }

  /**
   * Compressed flag and message length.
   */

  var MessagePrefix = GrpcMessage.MessagePrefix = (function() {
    function MessagePrefix(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    MessagePrefix.prototype._read = function() {
      this._debug.compressed = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.compressed = this._io.readU1();
      this._debug.compressed.end = this._io.pos;
      if (!(this.compressed <= 1)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(1, this.compressed, this._io, "/types/message_prefix/seq/0");
        this._debug.compressed.validationError = _err;
        throw _err;
      }
      this._debug.length = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.length = this._io.readU4be();
      this._debug.length.end = this._io.pos;
    }

    /**
     * 1 when the message is compressed with the algorithm the stream's grpc-encoding header names
     * (gzip, deflate, ...), 0 when it is not; other values are a protocol error.
     */

    /**
     * Bytes of the message that follows (as sent, compressed or not).
     */

    return MessagePrefix;
  })();

  /**
   * The 5-byte prefix.
   */

  /**
   * The message bytes, compressed with the stream's grpc-encoding when prefix.compressed is 1.
   */

  return GrpcMessage;
})();
GrpcMessage_.GrpcMessage = GrpcMessage;
});

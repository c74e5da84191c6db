// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream', './BracketedTimestamp'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'), require('./BracketedTimestamp'));
  } else {
    factory(root.BroadcastFrame || (root.BroadcastFrame = {}), root.KaitaiStream, root.BracketedTimestamp || (root.BracketedTimestamp = {}));
  }
})(typeof self !== 'undefined' ? self : this, function (BroadcastFrame_, KaitaiStream, BracketedTimestamp_) {
/**
 * One frame of the simple broadcasting protocol: a client asks for everything after the last value it
 * holds, the server replays its history and then pushes each new value in real time.
 * 
 * Decisions on what the seed leaves open (the same in codec, server and client):
 * * Integers are big-endian two's complement (Java DataOutputStream's `int`).
 * * Timestamps include their brackets: 25 ASCII bytes (see bracketed_timestamp). A request frame is
 *   therefore 37 bytes and a response frame 38 bytes; no other size is valid.
 * * A client that holds no data yet sends the epoch timestamp `[1970-01-01 00:00:00.000]` with
 *   last_data 0; the server finds no match and answers with status last_data_not_found.
 * * The server matches a request by timestamp and value. When it finds them it replays every later
 *   item with status history; when it does not, the first replayed item carries status
 *   last_data_not_found and the rest of the history carries status history. Items produced after the
 *   replay carry status real_time. An empty history sends nothing until the first real-time item.
 * * A frame is exactly as long as its total_length says, header included; total_length must equal
 *   8 plus the size of the body its command_id names.
 * @see docs/protocols/broadcast.md (the Simple Broadcasting Protocol)
 */

var BroadcastFrame = (function() {
  BroadcastFrame.Command = Object.freeze({
    DATA_REQUEST: 0,
    DATA_RESPONSE: 1,

    0: "DATA_REQUEST",
    1: "DATA_RESPONSE",
  });

  BroadcastFrame.Status = Object.freeze({
    LAST_DATA_NOT_FOUND: 48,
    HISTORY: 49,
    REAL_TIME: 50,

    48: "LAST_DATA_NOT_FOUND",
    49: "HISTORY",
    50: "REAL_TIME",
  });

  function BroadcastFrame(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  BroadcastFrame.prototype._read = function() {
    this._debug.totalLength = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.totalLength = this._io.readS4be();
    this._debug.totalLength.end = this._io.pos;
    if (!(this.totalLength >= 37)) {
      var _err = new KaitaiStream.ValidationLessThanError(37, this.totalLength, this._io, "/seq/0");
      this._debug.totalLength.validationError = _err;
      throw _err;
    }
    if (!(this.totalLength <= 38)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(38, this.totalLength, this._io, "/seq/0");
      this._debug.totalLength.validationError = _err;
      throw _err;
    }
    this._debug.commandId = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "BroadcastFrame.Command" };
    this.commandId = this._io.readS4be();
    this._debug.commandId.end = this._io.pos;
    if (!Object.prototype.hasOwnProperty.call(BroadcastFrame.Command, this.commandId)) {
      var _err = new KaitaiStream.ValidationNotInEnumError(this.commandId, this._io, "/seq/1");
      this._debug.commandId.validationError = _err;
      throw _err;
    }
    this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
    switch (this.commandId) {
    case BroadcastFrame.Command.DATA_REQUEST:
      this._raw_body = this._io.readBytes(this.totalLength - 8);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataRequest(_io__raw_body, this, this._root);
      this.body._read();
      break;
    case BroadcastFrame.Command.DATA_RESPONSE:
      this._raw_body = this._io.readBytes(this.totalLength - 8);
      var _io__raw_body = new KaitaiStream(this._raw_body);
      this.body = new DataResponse(_io__raw_body, this, this._root);
      this.body._read();
      break;
    default:
      this.body = this._io.readBytes(this.totalLength - 8);
      break;
    }
    this._debug.body.end = this._io.pos;
    var _ = this.body;
    if (!(this.totalLength == 8 + (this.commandId == BroadcastFrame.Command.DATA_REQUEST ? 29 : 30))) {
      var _err = new KaitaiStream.ValidationExprError(this.body, this._io, "/seq/2");
      this._debug.body.validationError = _err;
      throw _err;
    }
  }

  /**
   * Sent by a client on connect (and after every reconnect) to resume after its last value.
   */

  var DataRequest = BroadcastFrame.DataRequest = (function() {
    function DataRequest(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DataRequest.prototype._read = function() {
      this._debug.lastTimestamp = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lastTimestamp = new BracketedTimestamp_.BracketedTimestamp(this._io, null, null);
      this.lastTimestamp._read();
      this._debug.lastTimestamp.end = this._io.pos;
      this._debug.lastData = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lastData = this._io.readS4be();
      this._debug.lastData.end = this._io.pos;
      if (!(this.lastData >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lastData, this._io, "/types/data_request/seq/1");
        this._debug.lastData.validationError = _err;
        throw _err;
      }
      if (!(this.lastData <= 99)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(99, this.lastData, this._io, "/types/data_request/seq/1");
        this._debug.lastData.validationError = _err;
        throw _err;
      }
    }

    /**
     * Timestamp of the last value the client holds (the epoch timestamp if it holds none).
     */

    /**
     * The last value the client holds, in [0, 100) (0 if it holds none).
     */

    return DataRequest;
  })();

  /**
   * One value pushed by the server, tagged with how it relates to the client's request.
   */

  var DataResponse = BroadcastFrame.DataResponse = (function() {
    function DataResponse(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DataResponse.prototype._read = function() {
      this._debug.status = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "BroadcastFrame.Status" };
      this.status = this._io.readU1();
      this._debug.status.end = this._io.pos;
      if (!Object.prototype.hasOwnProperty.call(BroadcastFrame.Status, this.status)) {
        var _err = new KaitaiStream.ValidationNotInEnumError(this.status, this._io, "/types/data_response/seq/0");
        this._debug.status.validationError = _err;
        throw _err;
      }
      this._debug.timestamp = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.timestamp = new BracketedTimestamp_.BracketedTimestamp(this._io, null, null);
      this.timestamp._read();
      this._debug.timestamp.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readS4be();
      this._debug.data.end = this._io.pos;
      if (!(this.data >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.data, this._io, "/types/data_response/seq/2");
        this._debug.data.validationError = _err;
        throw _err;
      }
      if (!(this.data <= 99)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(99, this.data, this._io, "/types/data_response/seq/2");
        this._debug.data.validationError = _err;
        throw _err;
      }
    }

    /**
     * One ASCII digit saying whether the value is replayed history or real time.
     */

    /**
     * When the server produced the value.
     */

    /**
     * The value, a random integer in [0, 100).
     */

    return DataResponse;
  })();

  /**
   * Length of the whole frame in bytes, header included (= header.length + body.length).
   * Derived on encode. Only 37 (request) and 38 (response) exist, so any other value is rejected from
   * the header alone and garbage is detected before a body is awaited.
   */

  /**
   * Which body follows; 0 = data request (client to server), 1 = data response (server to client).
   */

  /**
   * The message body; its size must be exactly the size of the body type command_id names.
   */

  return BroadcastFrame;
})();
BroadcastFrame_.BroadcastFrame = BroadcastFrame;
});

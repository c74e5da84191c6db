// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.EventmeshWireFrame || (root.EventmeshWireFrame = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (EventmeshWireFrame_, KaitaiStream) {
/**
 * (The file is eventmesh_wire_frame.ksy, after upstream's package common/wire, rather than eventmesh_frame.ksy:
 * the compiled backend's generator names a protocol's C function and its layout's alike, frame_<name>, so a
 * layout named like its protocol, eventmesh_frame for eventmesh-frame, would define one function twice.)
 * 
 * One EventMeshFrame: a fixed 14-byte big-endian header, key_count attributes (a UTF-8 name and a UTF-8
 * value each), then data_len bytes of data. The runtime converts every public message to this frame
 * (a CloudEvent becomes an EVENT frame: each attribute and extension a key, its data the frame's data; a
 * streaming request or chunk becomes a STREAM_REQ or STREAM_CHUNK frame) and back at the edge.
 * 
 * There is no total length: a frame ends after its data, so a dump of concatenated frames is cut by
 * walking the attributes. Upstream's decode reads exactly one frame from a byte array and ignores any bytes
 * after it; nothing upstream writes frames back to back, the dumps this protocol reads do.
 * 
 * Limits (upstream's decode checks only the magic, the version and the header length, then lets Java's
 * ByteBuffer fail; these are the checks that failure amounts to, plus three stricter ones, marked):
 * - magic 0xEF and version 1, else "bad frame magic" / "unsupported frame version";
 * - data_len and every value_len are Java ints (getInt): negative ones fail (NegativeArraySizeException);
 * - any length reaching past the input fails (BufferUnderflowException): here, truncated;
 * - msg_type 1..3 (stricter: upstream decodes any byte, but no factory writes another and toCloudEvent /
 *   toChunk / toStreamRequest refuse it);
 * - flags bits 3..7 zero (stricter: "reserved", never written);
 * - names and values valid UTF-8 (stricter: Java's new String replaces a malformed sequence with U+FFFD
 *   silently, so such a frame cannot have come from upstream's encode, which writes getBytes(UTF_8));
 * - the whole frame at most 4 MiB (max-frame-size; upstream has no frame limit of its own, 4 MiB is the
 *   default maxMessageSize of RocketMQ, the storage these frames are written to; raise it with max_frame_size).
 * Attribute order is the LinkedHashMap's insertion order and is kept. Two attributes of one name are kept
 * here as they are on the wire; upstream's map keeps the later value in the earlier one's place (its
 * encode never writes a name twice).
 * @see apache/eventmesh@0be4e8369dac eventmesh-common/src/main/java/org/apache/eventmesh/common/wire/EventMeshFrame.java; docs/protocols/eventmesh.md, section 5
 */

var EventmeshWireFrame = (function() {
  EventmeshWireFrame.MsgType = Object.freeze({
    STREAM_REQ: 1,
    STREAM_CHUNK: 2,
    EVENT: 3,

    1: "STREAM_REQ",
    2: "STREAM_CHUNK",
    3: "EVENT",
  });

  function EventmeshWireFrame(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  EventmeshWireFrame.prototype._read = function() {
    this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.magic = this._io.readBytes(1);
    this._debug.magic.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([239])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([239]), this.magic, this._io, "/seq/0");
      this._debug.magic.validationError = _err;
      throw _err;
    }
    this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.version = this._io.readBytes(1);
    this._debug.version.end = this._io.pos;
    if (!((KaitaiStream.byteArrayCompare(this.version, new Uint8Array([1])) == 0))) {
      var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([1]), this.version, this._io, "/seq/1");
      this._debug.version.validationError = _err;
      throw _err;
    }
    this._debug.msgType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "EventmeshWireFrame.MsgType" };
    this.msgType = this._io.readU1();
    this._debug.msgType.end = this._io.pos;
    if (!Object.prototype.hasOwnProperty.call(EventmeshWireFrame.MsgType, this.msgType)) {
      var _err = new KaitaiStream.ValidationNotInEnumError(this.msgType, this._io, "/seq/2");
      this._debug.msgType.validationError = _err;
      throw _err;
    }
    this._debug.flags = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.flags = this._io.readU1();
    this._debug.flags.end = this._io.pos;
    if (!(this.flags <= 7)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(7, this.flags, this._io, "/seq/3");
      this._debug.flags.validationError = _err;
      throw _err;
    }
    this._debug.seq = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.seq = this._io.readS4be();
    this._debug.seq.end = this._io.pos;
    this._debug.keyCount = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.keyCount = this._io.readU2be();
    this._debug.keyCount.end = this._io.pos;
    this._debug.dataLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.dataLen = this._io.readS4be();
    this._debug.dataLen.end = this._io.pos;
    if (!(this.dataLen >= 0)) {
      var _err = new KaitaiStream.ValidationLessThanError(0, this.dataLen, this._io, "/seq/6");
      this._debug.dataLen.validationError = _err;
      throw _err;
    }
    if (!(this.dataLen <= 4194290)) {
      var _err = new KaitaiStream.ValidationGreaterThanError(4194290, this.dataLen, this._io, "/seq/6");
      this._debug.dataLen.validationError = _err;
      throw _err;
    }
    this._debug.attributes = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._debug.attributes.arr = [];
    this.attributes = [];
    for (var i = 0; i < this.keyCount; i++) {
      this._debug.attributes.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
      var _t_attributes = new Attribute(this._io, this, this._root);
      try {
        _t_attributes._read();
      } finally {
        this.attributes.push(_t_attributes);
      }
      this._debug.attributes.arr[i].end = this._io.pos;
    }
    this._debug.attributes.end = this._io.pos;
    this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this.data = this._io.readBytes(this.dataLen);
    this._debug.data.end = this._io.pos;
  }

  /**
   * One attribute, a UTF-8 name and a UTF-8 value.
   */

  var Attribute = EventmeshWireFrame.Attribute = (function() {
    function Attribute(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Attribute.prototype._read = function() {
      this._debug.nameLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.nameLen = this._io.readU2be();
      this._debug.nameLen.end = this._io.pos;
      this._debug.name = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.name = KaitaiStream.bytesToStr(this._io.readBytes(this.nameLen), "UTF-8");
      this._debug.name.end = this._io.pos;
      this._debug.valueLen = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.valueLen = this._io.readS4be();
      this._debug.valueLen.end = this._io.pos;
      if (!(this.valueLen >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.valueLen, this._io, "/types/attribute/seq/2");
        this._debug.valueLen.validationError = _err;
        throw _err;
      }
      if (!(this.valueLen <= 4194288)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(4194288, this.valueLen, this._io, "/types/attribute/seq/2");
        this._debug.valueLen.validationError = _err;
        throw _err;
      }
      this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.value = KaitaiStream.bytesToStr(this._io.readBytes(this.valueLen), "UTF-8");
      this._debug.value.end = this._io.pos;
    }

    /**
     * Bytes of name (putShort, read back unsigned), 0..65535.
     */

    /**
     * The name, UTF-8 (CloudEvent attribute and extension names, or the stream keys sid, replyTo, ...).
     */

    /**
     * Bytes of value; a Java int (getInt): negative fails upstream's decode. At most 4194304 - 16 (the
     * header and this attribute's two length fields), so that the frame fits the frame limit.
     */

    /**
     * The value, UTF-8 (the toString of the source value).
     */

    return Attribute;
  })();

  /**
   * Flag bit 0 (FLAG_DONE), the stream's last chunk (a terminal chunk, also the runtime's timeout chunk).
   */
  Object.defineProperty(EventmeshWireFrame.prototype, 'done', {
    get: function() {
      if (this._m_done !== undefined)
        return this._m_done;
      this._debug._m_done = {  };
      this._m_done = (this.flags & 1) != 0;
      return this._m_done;
    }
  });

  /**
   * Flag bit 1 (FLAG_HAS_ERROR), set with an "err" attribute.
   */
  Object.defineProperty(EventmeshWireFrame.prototype, 'hasError', {
    get: function() {
      if (this._m_hasError !== undefined)
        return this._m_hasError;
      this._debug._m_hasError = {  };
      this._m_hasError = (this.flags & 2) != 0;
      return this._m_hasError;
    }
  });

  /**
   * Flag bit 2 (FLAG_HAS_META), set with a "meta" attribute (its JSON).
   */
  Object.defineProperty(EventmeshWireFrame.prototype, 'hasMeta', {
    get: function() {
      if (this._m_hasMeta !== undefined)
        return this._m_hasMeta;
      this._debug._m_hasMeta = {  };
      this._m_hasMeta = (this.flags & 4) != 0;
      return this._m_hasMeta;
    }
  });

  /**
   * MAGIC 0xEF; anything else is "bad frame magic" (and where PERMISSIVE resyncs).
   */

  /**
   * VERSION 1; any other is "unsupported frame version".
   */

  /**
   * 1 STREAM_REQ, 2 STREAM_CHUNK, 3 EVENT. Upstream's decode takes any byte here; this spec refuses
   * the others (no upstream writer sends them, and every reader of a frame refuses them).
   */

  /**
   * bit0 done (the stream's last chunk), bit1 hasError (an "err" attribute follows), bit2 hasMeta (a
   * "meta" attribute of JSON follows); bits 3..7 reserved, never written, refused here. Only STREAM_CHUNK
   * frames set any; STREAM_REQ and EVENT frames carry 0.
   */

  /**
   * The stream sequence of a STREAM_CHUNK (0 in other frames); a Java int (putInt), so signed: the runtime's
   * own timeout chunk carries -1.
   */

  /**
   * Number of attributes, 0..65535 (putShort of the map's size, read back unsigned).
   */

  /**
   * Bytes of data after the attributes; a Java int (getInt): a negative length fails upstream's decode.
   * At most 4194304 - 14, so that the frame fits the frame limit.
   */

  /**
   * The key/value attributes in the writer's insertion order: for EVENT the CloudEvent's attributes
   * (id, source, type, specversion, datacontenttype, subject, time, dataschema) and extensions, each value
   * as its toString (time as an ISO-8601 offset date-time, source and dataschema as URIs); for STREAM_REQ
   * sid, replyTo, model, conv; for STREAM_CHUNK sid, err, etype, meta (JSON).
   */

  /**
   * The data: the CloudEvent's data (EVENT), the prompt (STREAM_REQ) or the chunk text (STREAM_CHUNK),
   * both of the latter UTF-8.
   */

  return EventmeshWireFrame;
})();
EventmeshWireFrame_.EventmeshWireFrame = EventmeshWireFrame;
});

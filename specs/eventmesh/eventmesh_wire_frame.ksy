meta:
  id: eventmesh_wire_frame
  title: Apache EventMesh EventMeshFrame (the new runtime's one internal wire format)
  license: Apache-2.0
  ks-version: "0.11"
  endian: be
  encoding: UTF-8
-inlong:
  protocol: eventmesh-frame
  frame: true
  max-frame-size: 4194304
  registry:
    framing: frames
    doc: Apache EventMesh's EventMeshFrame (the new runtime's internal frame of events and stream chunks), as dumps of concatenated frames
    ports: []  # no port of its own: frames travel inside storage messages and /events/lite/*-bytes bodies
    detect: {order: 80}  # two magic bytes, a type and a flag byte: weak, so it is tried last
    extension: inlong_proto.eventmesh.frame
    payload-type: inlong_proto.eventmesh.frame:FramePayload
    vectors: eventmesh/frame
    # decode's table: the message type, the sequence, the event's id and type or the stream's session, the data
    summary: ["{message_type}", "seq={payload.seq}", "id={payload.attributes.id}", "type={payload.attributes.type}",
              "sid={payload.attributes.sid}", "err={payload.attributes.err}", "{payload.data}"]
doc: |
  (The file is eventmesh_wire_frame.ksy, after upstream's package common/wire, rather than eventmesh_frame.ksy:
  the compiled backend's generator names a protocol's C function and its layout's alike, frame_<name>, so a
  layout named like its protocol, eventmesh_frame for eventmesh-frame, would define one function twice.)

  One EventMeshFrame: a fixed 14-byte big-endian header, key_count attributes (a UTF-8 name and a UTF-8
  value each), then data_len bytes of data. The runtime converts every public message to this frame
  (a CloudEvent becomes an EVENT frame: each attribute and extension a key, its data the frame's data; a
  streaming request or chunk becomes a STREAM_REQ or STREAM_CHUNK frame) and back at the edge.

  There is no total length: a frame ends after its data, so a dump of concatenated frames is cut by
  walking the attributes. Upstream's decode reads exactly one frame from a byte array and ignores any bytes
  after it; nothing upstream writes frames back to back, the dumps this protocol reads do.

  Limits (upstream's decode checks only the magic, the version and the header length, then lets Java's
  ByteBuffer fail; these are the checks that failure amounts to, plus three stricter ones, marked):
  - magic 0xEF and version 1, else "bad frame magic" / "unsupported frame version";
  - data_len and every value_len are Java ints (getInt): negative ones fail (NegativeArraySizeException);
  - any length reaching past the input fails (BufferUnderflowException): here, truncated;
  - msg_type 1..3 (stricter: upstream decodes any byte, but no factory writes another and toCloudEvent /
    toChunk / toStreamRequest refuse it);
  - flags bits 3..7 zero (stricter: "reserved", never written);
  - names and values valid UTF-8 (stricter: Java's new String replaces a malformed sequence with U+FFFD
    silently, so such a frame cannot have come from upstream's encode, which writes getBytes(UTF_8));
  - the whole frame at most 4 MiB (max-frame-size; upstream has no frame limit of its own, 4 MiB is the
    default maxMessageSize of RocketMQ, the storage these frames are written to; raise it with max_frame_size).
  Attribute order is the LinkedHashMap's insertion order and is kept. Two attributes of one name are kept
  here as they are on the wire; upstream's map keeps the later value in the earlier one's place (its
  encode never writes a name twice).
doc-ref: "apache/eventmesh@0be4e8369dac eventmesh-common/src/main/java/org/apache/eventmesh/common/wire/EventMeshFrame.java; docs/protocols/eventmesh.md, section 5"
seq:
  - id: magic
    contents: [0xef]
    doc: MAGIC 0xEF; anything else is "bad frame magic" (and where PERMISSIVE resyncs).
  - id: version
    contents: [0x01]
    doc: VERSION 1; any other is "unsupported frame version".
  - id: msg_type
    type: u1
    enum: msg_type
    valid:
      in-enum: true
    doc: |
      1 STREAM_REQ, 2 STREAM_CHUNK, 3 EVENT. Upstream's decode takes any byte here; this spec refuses
      the others (no upstream writer sends them, and every reader of a frame refuses them).
  - id: flags
    type: u1
    valid:
      max: 7
    doc: |
      bit0 done (the stream's last chunk), bit1 hasError (an "err" attribute follows), bit2 hasMeta (a
      "meta" attribute of JSON follows); bits 3..7 reserved, never written, refused here. Only STREAM_CHUNK
      frames set any; STREAM_REQ and EVENT frames carry 0.
  - id: seq
    type: s4
    doc: |
      The stream sequence of a STREAM_CHUNK (0 in other frames); a Java int (putInt), so signed: the runtime's
      own timeout chunk carries -1.
  - id: key_count
    type: u2
    doc: Number of attributes, 0..65535 (putShort of the map's size, read back unsigned).
  - id: data_len
    type: s4
    valid:
      min: 0
      max: 4194290
    doc: |
      Bytes of data after the attributes; a Java int (getInt): a negative length fails upstream's decode.
      At most 4194304 - 14, so that the frame fits the frame limit.
  - id: attributes
    type: attribute
    repeat: expr
    repeat-expr: key_count
    doc: |
      The key/value attributes in the writer's insertion order: for EVENT the CloudEvent's attributes
      (id, source, type, specversion, datacontenttype, subject, time, dataschema) and extensions, each value
      as its toString (time as an ISO-8601 offset date-time, source and dataschema as URIs); for STREAM_REQ
      sid, replyTo, model, conv; for STREAM_CHUNK sid, err, etype, meta (JSON).
  - id: data
    size: data_len
    doc: |
      The data: the CloudEvent's data (EVENT), the prompt (STREAM_REQ) or the chunk text (STREAM_CHUNK),
      both of the latter UTF-8.
instances:
  done:
    value: (flags & 1) != 0
    doc: Flag bit 0 (FLAG_DONE), the stream's last chunk (a terminal chunk, also the runtime's timeout chunk).
  has_error:
    value: (flags & 2) != 0
    doc: Flag bit 1 (FLAG_HAS_ERROR), set with an "err" attribute.
  has_meta:
    value: (flags & 4) != 0
    doc: Flag bit 2 (FLAG_HAS_META), set with a "meta" attribute (its JSON).
types:
  attribute:
    doc: One attribute, a UTF-8 name and a UTF-8 value.
    seq:
      - id: name_len
        type: u2
        doc: Bytes of name (putShort, read back unsigned), 0..65535.
      - id: name
        type: str
        size: name_len
        doc: The name, UTF-8 (CloudEvent attribute and extension names, or the stream keys sid, replyTo, ...).
      - id: value_len
        type: s4
        valid:
          min: 0
          max: 4194288
        doc: |
          Bytes of value; a Java int (getInt): negative fails upstream's decode. At most 4194304 - 16 (the
          header and this attribute's two length fields), so that the frame fits the frame limit.
      - id: value
        type: str
        size: value_len
        doc: The value, UTF-8 (the toString of the source value).
enums:
  msg_type:
    1: stream_req
    2: stream_chunk
    3: event

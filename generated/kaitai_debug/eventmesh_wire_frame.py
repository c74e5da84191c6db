# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class EventmeshWireFrame(KaitaiStruct):
    """(The file is eventmesh_wire_frame.ksy, after upstream's package common/wire, rather than eventmesh_frame.ksy:
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
    
    .. seealso::
       apache/eventmesh@0be4e8369dac eventmesh-common/src/main/java/org/apache/eventmesh/common/wire/EventMeshFrame.java; docs/protocols/eventmesh.md, section 5
    """

    class MsgType(IntEnum):
        stream_req = 1
        stream_chunk = 2
        event = 3
    SEQ_FIELDS = ["magic", "version", "msg_type", "flags", "seq", "key_count", "data_len", "attributes", "data"]
    def __init__(self, _io, _parent=None, _root=None):
        super(EventmeshWireFrame, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['magic']['start'] = self._io.pos()
        self.magic = self._io.read_bytes(1)
        self._debug['magic']['end'] = self._io.pos()
        if not self.magic == b"\xEF":
            raise kaitaistruct.ValidationNotEqualError(b"\xEF", self.magic, self._io, u"/seq/0")
        self._debug['version']['start'] = self._io.pos()
        self.version = self._io.read_bytes(1)
        self._debug['version']['end'] = self._io.pos()
        if not self.version == b"\x01":
            raise kaitaistruct.ValidationNotEqualError(b"\x01", self.version, self._io, u"/seq/1")
        self._debug['msg_type']['start'] = self._io.pos()
        self.msg_type = KaitaiStream.resolve_enum(EventmeshWireFrame.MsgType, self._io.read_u1())
        self._debug['msg_type']['end'] = self._io.pos()
        if not isinstance(self.msg_type, EventmeshWireFrame.MsgType):
            raise kaitaistruct.ValidationNotInEnumError(self.msg_type, self._io, u"/seq/2")
        self._debug['flags']['start'] = self._io.pos()
        self.flags = self._io.read_u1()
        self._debug['flags']['end'] = self._io.pos()
        if not self.flags <= 7:
            raise kaitaistruct.ValidationGreaterThanError(7, self.flags, self._io, u"/seq/3")
        self._debug['seq']['start'] = self._io.pos()
        self.seq = self._io.read_s4be()
        self._debug['seq']['end'] = self._io.pos()
        self._debug['key_count']['start'] = self._io.pos()
        self.key_count = self._io.read_u2be()
        self._debug['key_count']['end'] = self._io.pos()
        self._debug['data_len']['start'] = self._io.pos()
        self.data_len = self._io.read_s4be()
        self._debug['data_len']['end'] = self._io.pos()
        if not self.data_len >= 0:
            raise kaitaistruct.ValidationLessThanError(0, self.data_len, self._io, u"/seq/6")
        if not self.data_len <= 4194290:
            raise kaitaistruct.ValidationGreaterThanError(4194290, self.data_len, self._io, u"/seq/6")
        self._debug['attributes']['start'] = self._io.pos()
        self._debug['attributes']['arr'] = []
        self.attributes = []
        for i in range(self.key_count):
            self._debug['attributes']['arr'].append({'start': self._io.pos()})
            _t_attributes = EventmeshWireFrame.Attribute(self._io, self, self._root)
            try:
                _t_attributes._read()
            finally:
                self.attributes.append(_t_attributes)
            self._debug['attributes']['arr'][i]['end'] = self._io.pos()

        self._debug['attributes']['end'] = self._io.pos()
        self._debug['data']['start'] = self._io.pos()
        self.data = self._io.read_bytes(self.data_len)
        self._debug['data']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass
        for i in range(len(self.attributes)):
            pass
            self.attributes[i]._fetch_instances()


    class Attribute(KaitaiStruct):
        """One attribute, a UTF-8 name and a UTF-8 value."""
        SEQ_FIELDS = ["name_len", "name", "value_len", "value"]
        def __init__(self, _io, _parent=None, _root=None):
            super(EventmeshWireFrame.Attribute, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['name_len']['start'] = self._io.pos()
            self.name_len = self._io.read_u2be()
            self._debug['name_len']['end'] = self._io.pos()
            self._debug['name']['start'] = self._io.pos()
            self.name = (self._io.read_bytes(self.name_len)).decode(u"UTF-8")
            self._debug['name']['end'] = self._io.pos()
            self._debug['value_len']['start'] = self._io.pos()
            self.value_len = self._io.read_s4be()
            self._debug['value_len']['end'] = self._io.pos()
            if not self.value_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.value_len, self._io, u"/types/attribute/seq/2")
            if not self.value_len <= 4194288:
                raise kaitaistruct.ValidationGreaterThanError(4194288, self.value_len, self._io, u"/types/attribute/seq/2")
            self._debug['value']['start'] = self._io.pos()
            self.value = (self._io.read_bytes(self.value_len)).decode(u"UTF-8")
            self._debug['value']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass


    @property
    def done(self):
        """Flag bit 0 (FLAG_DONE), the stream's last chunk (a terminal chunk, also the runtime's timeout chunk)."""
        if hasattr(self, '_m_done'):
            return self._m_done

        self._m_done = self.flags & 1 != 0
        return getattr(self, '_m_done', None)

    @property
    def has_error(self):
        """Flag bit 1 (FLAG_HAS_ERROR), set with an "err" attribute."""
        if hasattr(self, '_m_has_error'):
            return self._m_has_error

        self._m_has_error = self.flags & 2 != 0
        return getattr(self, '_m_has_error', None)

    @property
    def has_meta(self):
        """Flag bit 2 (FLAG_HAS_META), set with a "meta" attribute (its JSON)."""
        if hasattr(self, '_m_has_meta'):
            return self._m_has_meta

        self._m_has_meta = self.flags & 4 != 0
        return getattr(self, '_m_has_meta', None)



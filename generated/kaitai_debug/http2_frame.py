# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Http2Frame(KaitaiStruct):
    """One HTTP/2 frame (RFC 9113 section 4.1): a 9-byte header (payload length, type, flags, reserved bit and
    stream identifier) and the payload. EventMesh's gRPC endpoint (default port 10205) speaks gRPC over
    HTTP/2; inlong_proto.eventmesh.h2 frames each direction of a connection with this spec and hands the
    payloads to python-hyper's hyperframe (payload semantics per type) and hpack (header blocks).
    
    The client's connection preface (the 24 bytes "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", RFC 9113 section
    3.4) comes before its first frame and is not a frame; the reader takes it off first.
    
    The flag bits are named once here for every type: 0x01 is END_STREAM on DATA and HEADERS and ACK on
    SETTINGS and PING; 0x04 END_HEADERS (HEADERS, PUSH_PROMISE, CONTINUATION); 0x08 PADDED (DATA, HEADERS,
    PUSH_PROMISE); 0x20 PRIORITY (HEADERS). The other bits are unused and must be ignored.
    
    Length: a receiver may refuse a frame longer than its SETTINGS_MAX_FRAME_SIZE (16384 unless raised,
    at most 16777215); a passive reader does not know every setting, so it takes any 24-bit length.
    
    .. seealso::
       RFC 9113 section 4.1 (Frame Format), section 6 (Frame Definitions), section 11.2 (Frame Type Registry)
    """

    class FrameType(IntEnum):
        data = 0
        headers = 1
        priority = 2
        rst_stream = 3
        settings = 4
        push_promise = 5
        ping = 6
        goaway = 7
        window_update = 8
        continuation = 9
    SEQ_FIELDS = ["header", "payload"]
    def __init__(self, _io, _parent=None, _root=None):
        super(Http2Frame, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['header']['start'] = self._io.pos()
        self.header = Http2Frame.FrameHeader(self._io, self, self._root)
        self.header._read()
        self._debug['header']['end'] = self._io.pos()
        self._debug['payload']['start'] = self._io.pos()
        self.payload = self._io.read_bytes(self.header.length)
        self._debug['payload']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass
        self.header._fetch_instances()

    class FrameHeader(KaitaiStruct):
        """The fixed 9-byte frame header."""
        SEQ_FIELDS = ["length", "type", "unused_0x80", "unused_0x40", "priority", "unused_0x10", "padded", "end_headers", "unused_0x02", "end_stream_or_ack", "reserved", "stream_id"]
        def __init__(self, _io, _parent=None, _root=None):
            super(Http2Frame.FrameHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['length']['start'] = self._io.pos()
            self.length = self._io.read_bits_int_be(24)
            self._debug['length']['end'] = self._io.pos()
            self._debug['type']['start'] = self._io.pos()
            self.type = KaitaiStream.resolve_enum(Http2Frame.FrameType, self._io.read_bits_int_be(8))
            self._debug['type']['end'] = self._io.pos()
            self._debug['unused_0x80']['start'] = self._io.pos()
            self.unused_0x80 = self._io.read_bits_int_be(1) != 0
            self._debug['unused_0x80']['end'] = self._io.pos()
            self._debug['unused_0x40']['start'] = self._io.pos()
            self.unused_0x40 = self._io.read_bits_int_be(1) != 0
            self._debug['unused_0x40']['end'] = self._io.pos()
            self._debug['priority']['start'] = self._io.pos()
            self.priority = self._io.read_bits_int_be(1) != 0
            self._debug['priority']['end'] = self._io.pos()
            self._debug['unused_0x10']['start'] = self._io.pos()
            self.unused_0x10 = self._io.read_bits_int_be(1) != 0
            self._debug['unused_0x10']['end'] = self._io.pos()
            self._debug['padded']['start'] = self._io.pos()
            self.padded = self._io.read_bits_int_be(1) != 0
            self._debug['padded']['end'] = self._io.pos()
            self._debug['end_headers']['start'] = self._io.pos()
            self.end_headers = self._io.read_bits_int_be(1) != 0
            self._debug['end_headers']['end'] = self._io.pos()
            self._debug['unused_0x02']['start'] = self._io.pos()
            self.unused_0x02 = self._io.read_bits_int_be(1) != 0
            self._debug['unused_0x02']['end'] = self._io.pos()
            self._debug['end_stream_or_ack']['start'] = self._io.pos()
            self.end_stream_or_ack = self._io.read_bits_int_be(1) != 0
            self._debug['end_stream_or_ack']['end'] = self._io.pos()
            self._debug['reserved']['start'] = self._io.pos()
            self.reserved = self._io.read_bits_int_be(1) != 0
            self._debug['reserved']['end'] = self._io.pos()
            self._debug['stream_id']['start'] = self._io.pos()
            self.stream_id = self._io.read_bits_int_be(31)
            self._debug['stream_id']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass




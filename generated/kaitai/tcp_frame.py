# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class TcpFrame(KaitaiStruct):
    """One frame of the EventMesh TCP protocol (magic, version, package length, header length, header, body).
    The header and body meanings (command table, body types, JSON Schemas) are declared beside this file
    in tcp_header.schema.json, bodies/ and commands.yaml, and decoded by inlong_proto.eventmesh.tcp.
    
    Lengths exactly as Codec.Encoder computes them: package_length = 13 + header_length + body length
    (magic, version, header and body; not the two 4-byte length fields), so a frame is package_length + 8
    bytes; the body length is not sent. The Netty decoder finds the frame the same way
    (LengthFieldBasedFrameDecoder at offset 13, adjustment -9). This spec nests header_length, header and
    body in `package` (package_length - 9 bytes: everything after the length field) so that the frame size
    is known from the first 17 bytes and both lengths are derived on encode.
    
    Limits: the decoder refuses a frame whose package_length + 8 exceeds FRAME_MAX_LENGTH (4 MiB), i.e.
    package_length > 4194296, while the Java encoder only refuses package_length > 4194304: frames with
    4194297..4194304 can be written but are refused by every current decoder (an off-by-8). This spec
    follows the decoder, so the own codec never writes such a frame either.
    
    Clients older than 1.9.0 (and the Go SDK to this day) write package_length = 8 + header_length + body
    length; that legacy form is tcp_frame_legacy.ksy, a protocol of its own (eventmesh-legacy), since
    nothing in a frame tells the two forms apart.
    
    .. seealso::
       apache/eventmesh@2527428788cb eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java; docs/protocols/eventmesh.md, sections 1.1, 1.2, 1.9 and quirk 4.1
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(TcpFrame, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.magic = self._io.read_bytes(9)
        if not self.magic == b"\x45\x76\x65\x6E\x74\x4D\x65\x73\x68":
            raise kaitaistruct.ValidationNotEqualError(b"\x45\x76\x65\x6E\x74\x4D\x65\x73\x68", self.magic, self._io, u"/seq/0")
        self.version = self._io.read_bytes(4)
        if not self.version == b"\x30\x30\x30\x30":
            raise kaitaistruct.ValidationNotEqualError(b"\x30\x30\x30\x30", self.version, self._io, u"/seq/1")
        self.package_length = self._io.read_s4be()
        if not self.package_length >= 13:
            raise kaitaistruct.ValidationLessThanError(13, self.package_length, self._io, u"/seq/2")
        if not self.package_length <= 4194296:
            raise kaitaistruct.ValidationGreaterThanError(4194296, self.package_length, self._io, u"/seq/2")
        self._raw_package = self._io.read_bytes(self.package_length - 9)
        _io__raw_package = KaitaiStream(BytesIO(self._raw_package))
        self.package = TcpFrame.Package(_io__raw_package, self, self._root)


    def _fetch_instances(self):
        pass
        self.package._fetch_instances()

    class Package(KaitaiStruct):
        """The header length, the header JSON and the body, bounded by the frame's package length."""
        def __init__(self, _io, _parent=None, _root=None):
            super(TcpFrame.Package, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.header_length = self._io.read_s4be()
            if not self.header_length >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.header_length, self._io, u"/types/package/seq/0")
            self.header = (self._io.read_bytes(self.header_length)).decode(u"UTF-8")
            self.body = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass




# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import tcp_frame


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class TcpFrameLegacy(KaitaiStruct):
    """The frame of tcp_frame.ksy with the length field of EventMesh up to 1.8.0.
    Still written by the Go SDK and by the runtime's test client: package_length = 8 + header_length +
    body length (the two length fields, the header and the body; not magic and version), so a frame is
    package_length + 13 bytes.
    
    The current runtime reads such a frame 5 bytes short (it takes package_length + 8), so the legacy form
    is wire-incompatible with it. Nothing in a frame tells the two forms apart, hence a protocol of its
    own: decode captures of old clients with protocol eventmesh-legacy (the decoded payload is flagged
    length_form "legacy"). Old Java encoders refused package_length > 4 MiB and old decoders had no limit
    (the Go SDK has none either); this spec takes the encoder's limit, so a frame is at most 4194304 + 13
    bytes.
    
    Text: the Java encoder up to 1.8.0 wrote the JSON as writeValueAsString(..).getBytes(UTF_8)
    (apache/eventmesh, eventmesh-common/.../protocol/tcp/codec/Codec.java at tag v1.8.0), so a character
    outside the BMP is 4 raw UTF-8 bytes and a lone surrogate '?', where 1.9.0 and later write Jackson's
    escaped surrogate pairs (tcp_frame.ksy, header). Both read the same.
    
    .. seealso::
       apache/eventmesh@2527428788cb eventmesh-sdks/eventmesh-sdk-go/common/protocol/tcp/codec/codec.go, and eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java up to 1.8.0; docs/protocols/eventmesh.md, section 1.9 and quirk 4.1
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(TcpFrameLegacy, self).__init__(_io)
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
        if not self.package_length >= 8:
            raise kaitaistruct.ValidationLessThanError(8, self.package_length, self._io, u"/seq/2")
        if not self.package_length <= 4194304:
            raise kaitaistruct.ValidationGreaterThanError(4194304, self.package_length, self._io, u"/seq/2")
        self._raw_package = self._io.read_bytes(self.package_length - 4)
        _io__raw_package = KaitaiStream(BytesIO(self._raw_package))
        self.package = tcp_frame.TcpFrame.Package(_io__raw_package)


    def _fetch_instances(self):
        pass
        self.package._fetch_instances()



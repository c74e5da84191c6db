# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Ipv6Packet(KaitaiStruct):
    """An IPv6 packet as captured: the 40-byte fixed header (RFC 8200 section 3), then everything else the
    capture holds. Extension headers (RFC 8200 section 4) are not decoded: next_header names the first of
    them, and a reader that wants TCP takes only packets whose next_header is 6 (TCP directly after the
    fixed header) and counts the others as packets it does not use.
    
    .. seealso::
       RFC 8200 section 3 (IPv6 Header Format)
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(Ipv6Packet, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.version = self._io.read_bits_int_be(4)
        if not self.version == 6:
            raise kaitaistruct.ValidationNotEqualError(6, self.version, self._io, u"/seq/0")
        self.traffic_class = self._io.read_bits_int_be(8)
        self.flow_label = self._io.read_bits_int_be(20)
        self.payload_length = self._io.read_u2be()
        self.next_header = self._io.read_u1()
        self.hop_limit = self._io.read_u1()
        self.src_addr = self._io.read_bytes(16)
        self.dst_addr = self._io.read_bytes(16)
        self.rest = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass



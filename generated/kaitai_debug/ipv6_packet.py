# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


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
    SEQ_FIELDS = ["version", "traffic_class", "flow_label", "payload_length", "next_header", "hop_limit", "src_addr", "dst_addr", "rest"]
    def __init__(self, _io, _parent=None, _root=None):
        super(Ipv6Packet, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['version']['start'] = self._io.pos()
        self.version = self._io.read_bits_int_be(4)
        self._debug['version']['end'] = self._io.pos()
        if not self.version == 6:
            raise kaitaistruct.ValidationNotEqualError(6, self.version, self._io, u"/seq/0")
        self._debug['traffic_class']['start'] = self._io.pos()
        self.traffic_class = self._io.read_bits_int_be(8)
        self._debug['traffic_class']['end'] = self._io.pos()
        self._debug['flow_label']['start'] = self._io.pos()
        self.flow_label = self._io.read_bits_int_be(20)
        self._debug['flow_label']['end'] = self._io.pos()
        self._debug['payload_length']['start'] = self._io.pos()
        self.payload_length = self._io.read_u2be()
        self._debug['payload_length']['end'] = self._io.pos()
        self._debug['next_header']['start'] = self._io.pos()
        self.next_header = self._io.read_u1()
        self._debug['next_header']['end'] = self._io.pos()
        self._debug['hop_limit']['start'] = self._io.pos()
        self.hop_limit = self._io.read_u1()
        self._debug['hop_limit']['end'] = self._io.pos()
        self._debug['src_addr']['start'] = self._io.pos()
        self.src_addr = self._io.read_bytes(16)
        self._debug['src_addr']['end'] = self._io.pos()
        self._debug['dst_addr']['start'] = self._io.pos()
        self.dst_addr = self._io.read_bytes(16)
        self._debug['dst_addr']['end'] = self._io.pos()
        self._debug['rest']['start'] = self._io.pos()
        self.rest = self._io.read_bytes_full()
        self._debug['rest']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass



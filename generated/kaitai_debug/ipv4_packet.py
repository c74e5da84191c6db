# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Ipv4Packet(KaitaiStruct):
    """An IPv4 packet as captured: the header (RFC 791 section 3.1) with its options kept as bytes, then
    everything else the capture holds. `payload_length` says how much of `rest` is the IP payload: the
    rest may be shorter (the capture's snap length cut the packet) or longer (Ethernet padding).
    Fragments are not reassembled; a reader treats a fragment (more_fragments or a fragment offset) as
    a packet it cannot use.
    
    .. seealso::
       RFC 791 section 3.1 (Internet Header Format)
    """
    SEQ_FIELDS = ["version", "ihl", "dscp", "ecn", "total_length", "identification", "reserved_flag", "dont_fragment", "more_fragments", "fragment_offset", "ttl", "protocol", "header_checksum", "src_addr", "dst_addr", "options", "rest"]
    def __init__(self, _io, _parent=None, _root=None):
        super(Ipv4Packet, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['version']['start'] = self._io.pos()
        self.version = self._io.read_bits_int_be(4)
        self._debug['version']['end'] = self._io.pos()
        if not self.version == 4:
            raise kaitaistruct.ValidationNotEqualError(4, self.version, self._io, u"/seq/0")
        self._debug['ihl']['start'] = self._io.pos()
        self.ihl = self._io.read_bits_int_be(4)
        self._debug['ihl']['end'] = self._io.pos()
        if not self.ihl >= 5:
            raise kaitaistruct.ValidationLessThanError(5, self.ihl, self._io, u"/seq/1")
        self._debug['dscp']['start'] = self._io.pos()
        self.dscp = self._io.read_bits_int_be(6)
        self._debug['dscp']['end'] = self._io.pos()
        self._debug['ecn']['start'] = self._io.pos()
        self.ecn = self._io.read_bits_int_be(2)
        self._debug['ecn']['end'] = self._io.pos()
        self._debug['total_length']['start'] = self._io.pos()
        self.total_length = self._io.read_u2be()
        self._debug['total_length']['end'] = self._io.pos()
        _ = self.total_length
        if not _ >= self.ihl * 4:
            raise kaitaistruct.ValidationExprError(self.total_length, self._io, u"/seq/4")
        self._debug['identification']['start'] = self._io.pos()
        self.identification = self._io.read_u2be()
        self._debug['identification']['end'] = self._io.pos()
        self._debug['reserved_flag']['start'] = self._io.pos()
        self.reserved_flag = self._io.read_bits_int_be(1) != 0
        self._debug['reserved_flag']['end'] = self._io.pos()
        self._debug['dont_fragment']['start'] = self._io.pos()
        self.dont_fragment = self._io.read_bits_int_be(1) != 0
        self._debug['dont_fragment']['end'] = self._io.pos()
        self._debug['more_fragments']['start'] = self._io.pos()
        self.more_fragments = self._io.read_bits_int_be(1) != 0
        self._debug['more_fragments']['end'] = self._io.pos()
        self._debug['fragment_offset']['start'] = self._io.pos()
        self.fragment_offset = self._io.read_bits_int_be(13)
        self._debug['fragment_offset']['end'] = self._io.pos()
        self._debug['ttl']['start'] = self._io.pos()
        self.ttl = self._io.read_u1()
        self._debug['ttl']['end'] = self._io.pos()
        self._debug['protocol']['start'] = self._io.pos()
        self.protocol = self._io.read_u1()
        self._debug['protocol']['end'] = self._io.pos()
        self._debug['header_checksum']['start'] = self._io.pos()
        self.header_checksum = self._io.read_u2be()
        self._debug['header_checksum']['end'] = self._io.pos()
        self._debug['src_addr']['start'] = self._io.pos()
        self.src_addr = self._io.read_bytes(4)
        self._debug['src_addr']['end'] = self._io.pos()
        self._debug['dst_addr']['start'] = self._io.pos()
        self.dst_addr = self._io.read_bytes(4)
        self._debug['dst_addr']['end'] = self._io.pos()
        self._debug['options']['start'] = self._io.pos()
        self.options = self._io.read_bytes(self.ihl * 4 - 20)
        self._debug['options']['end'] = self._io.pos()
        self._debug['rest']['start'] = self._io.pos()
        self.rest = self._io.read_bytes_full()
        self._debug['rest']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass

    @property
    def payload_length(self):
        """Bytes of the IP payload on the wire."""
        if hasattr(self, '_m_payload_length'):
            return self._m_payload_length

        self._m_payload_length = self.total_length - self.ihl * 4
        return getattr(self, '_m_payload_length', None)



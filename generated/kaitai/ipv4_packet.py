# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


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
    def __init__(self, _io, _parent=None, _root=None):
        super(Ipv4Packet, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.version = self._io.read_bits_int_be(4)
        if not self.version == 4:
            raise kaitaistruct.ValidationNotEqualError(4, self.version, self._io, u"/seq/0")
        self.ihl = self._io.read_bits_int_be(4)
        if not self.ihl >= 5:
            raise kaitaistruct.ValidationLessThanError(5, self.ihl, self._io, u"/seq/1")
        self.dscp = self._io.read_bits_int_be(6)
        self.ecn = self._io.read_bits_int_be(2)
        self.total_length = self._io.read_u2be()
        _ = self.total_length
        if not _ >= self.ihl * 4:
            raise kaitaistruct.ValidationExprError(self.total_length, self._io, u"/seq/4")
        self.identification = self._io.read_u2be()
        self.reserved_flag = self._io.read_bits_int_be(1) != 0
        self.dont_fragment = self._io.read_bits_int_be(1) != 0
        self.more_fragments = self._io.read_bits_int_be(1) != 0
        self.fragment_offset = self._io.read_bits_int_be(13)
        self.ttl = self._io.read_u1()
        self.protocol = self._io.read_u1()
        self.header_checksum = self._io.read_u2be()
        self.src_addr = self._io.read_bytes(4)
        self.dst_addr = self._io.read_bytes(4)
        self.options = self._io.read_bytes(self.ihl * 4 - 20)
        self.rest = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass

    @property
    def payload_length(self):
        """Bytes of the IP payload on the wire."""
        if hasattr(self, '_m_payload_length'):
            return self._m_payload_length

        self._m_payload_length = self.total_length - self.ihl * 4
        return getattr(self, '_m_payload_length', None)



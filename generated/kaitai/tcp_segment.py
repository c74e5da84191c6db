# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class TcpSegment(KaitaiStruct):
    """A TCP segment (RFC 9293 section 3.1, which obsoletes RFC 793): ports, sequence and acknowledgment
    numbers, data offset, flags (with the ECN bits of RFC 3168), window, checksum, urgent pointer,
    options kept as bytes, then the data. How many bytes of `data` are real is known only from the IP
    header's length (a capture may cut the segment, or Ethernet padding may follow it).
    
    .. seealso::
       RFC 9293 section 3.1 (Header Format); RFC 793 section 3.1; RFC 3168 section 6.1
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(TcpSegment, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.src_port = self._io.read_u2be()
        self.dst_port = self._io.read_u2be()
        self.seq_num = self._io.read_u4be()
        self.ack_num = self._io.read_u4be()
        self.data_offset = self._io.read_bits_int_be(4)
        if not self.data_offset >= 5:
            raise kaitaistruct.ValidationLessThanError(5, self.data_offset, self._io, u"/seq/4")
        self.reserved = self._io.read_bits_int_be(3)
        self.ns = self._io.read_bits_int_be(1) != 0
        self.cwr = self._io.read_bits_int_be(1) != 0
        self.ece = self._io.read_bits_int_be(1) != 0
        self.urg = self._io.read_bits_int_be(1) != 0
        self.ack = self._io.read_bits_int_be(1) != 0
        self.psh = self._io.read_bits_int_be(1) != 0
        self.rst = self._io.read_bits_int_be(1) != 0
        self.syn = self._io.read_bits_int_be(1) != 0
        self.fin = self._io.read_bits_int_be(1) != 0
        self.window = self._io.read_u2be()
        self.checksum = self._io.read_u2be()
        self.urgent_pointer = self._io.read_u2be()
        self.options = self._io.read_bytes(self.data_offset * 4 - 20)
        self.data = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass



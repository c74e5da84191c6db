# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class RawIp(KaitaiStruct):
    """No link-layer header: the packet is an IPv4 or IPv6 packet, told apart by the version in its first
    four bits (RFC 791 section 3.1, RFC 8200 section 3). Only that nibble is read here; the packet is then
    decoded with ipv4_packet or ipv6_packet from its first byte.
    
    .. seealso::
       Source - https://www.tcpdump.org/linktypes/LINKTYPE_RAW.html
    """
    SEQ_FIELDS = ["version", "rest_of_first_byte"]
    def __init__(self, _io, _parent=None, _root=None):
        super(RawIp, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['version']['start'] = self._io.pos()
        self.version = self._io.read_bits_int_be(4)
        self._debug['version']['end'] = self._io.pos()
        self._debug['rest_of_first_byte']['start'] = self._io.pos()
        self.rest_of_first_byte = self._io.read_bits_int_be(4)
        self._debug['rest_of_first_byte']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass



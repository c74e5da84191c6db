# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class LinuxSll(KaitaiStruct):
    """The 16-byte pseudo header libpcap writes for captures on Linux's "any" device with older libpcap
    (LINKTYPE_LINUX_SLL, 113). The protocol field is an EtherType for IP packets.
    
    .. seealso::
       Source - https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html
    """
    SEQ_FIELDS = ["packet_type", "arphrd_type", "address_length", "address", "protocol", "payload"]
    def __init__(self, _io, _parent=None, _root=None):
        super(LinuxSll, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['packet_type']['start'] = self._io.pos()
        self.packet_type = self._io.read_u2be()
        self._debug['packet_type']['end'] = self._io.pos()
        self._debug['arphrd_type']['start'] = self._io.pos()
        self.arphrd_type = self._io.read_u2be()
        self._debug['arphrd_type']['end'] = self._io.pos()
        self._debug['address_length']['start'] = self._io.pos()
        self.address_length = self._io.read_u2be()
        self._debug['address_length']['end'] = self._io.pos()
        self._debug['address']['start'] = self._io.pos()
        self.address = self._io.read_bytes(8)
        self._debug['address']['end'] = self._io.pos()
        self._debug['protocol']['start'] = self._io.pos()
        self.protocol = self._io.read_u2be()
        self._debug['protocol']['end'] = self._io.pos()
        self._debug['payload']['start'] = self._io.pos()
        self.payload = self._io.read_bytes_full()
        self._debug['payload']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass



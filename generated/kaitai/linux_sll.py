# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class LinuxSll(KaitaiStruct):
    """The 16-byte pseudo header libpcap writes for captures on Linux's "any" device with older libpcap
    (LINKTYPE_LINUX_SLL, 113). The protocol field is an EtherType for IP packets.
    
    .. seealso::
       Source - https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(LinuxSll, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.packet_type = self._io.read_u2be()
        self.arphrd_type = self._io.read_u2be()
        self.address_length = self._io.read_u2be()
        self.address = self._io.read_bytes(8)
        self.protocol = self._io.read_u2be()
        self.payload = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass



# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class LinuxSll2(KaitaiStruct):
    """The 20-byte pseudo header current libpcap writes for captures on Linux's "any" device (tcpdump -i any,
    LINKTYPE_LINUX_SLL2, 276). Unlike version 1 it starts with the protocol and names the interface.
    
    .. seealso::
       Source - https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL2.html
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(LinuxSll2, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.protocol = self._io.read_u2be()
        self.reserved = self._io.read_u2be()
        self.interface_index = self._io.read_u4be()
        self.arphrd_type = self._io.read_u2be()
        self.packet_type = self._io.read_u1()
        self.address_length = self._io.read_u1()
        self.address = self._io.read_bytes(8)
        self.payload = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass



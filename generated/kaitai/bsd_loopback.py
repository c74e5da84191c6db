# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class BsdLoopback(KaitaiStruct):
    """A 4-byte address family, then the packet. With LINKTYPE_NULL (0) the family is in the byte order of
    the host that captured (little-endian on every current platform, which is how `family` reads it);
    with LINKTYPE_LOOP (108) it is big-endian, which `family_swapped` gives. IPv4 is AF_INET = 2; IPv6 is
    24, 28 or 30 depending on the BSD that wrote it.
    
    .. seealso::
       Source - https://www.tcpdump.org/linktypes/LINKTYPE_NULL.html
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(BsdLoopback, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.family = self._io.read_u4le()
        self.payload = self._io.read_bytes_full()


    def _fetch_instances(self):
        pass

    @property
    def family_swapped(self):
        """The family read big-endian (LINKTYPE_LOOP, or LINKTYPE_NULL from a big-endian host)."""
        if hasattr(self, '_m_family_swapped'):
            return self._m_family_swapped

        self._m_family_swapped = ((self.family >> 24 & 255 | self.family >> 8 & 65280) | self.family << 8 & 16711680) | self.family << 24 & 4278190080
        return getattr(self, '_m_family_swapped', None)



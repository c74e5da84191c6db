# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Pcap(KaitaiStruct):
    """A classic libpcap capture file: a 24-byte global header, then one record per captured packet.
    
    The file is written in the byte order of the host that captured it; the magic number, read here as a
    big-endian u4, tells both that byte order and whether the second timestamp field counts microseconds
    (magic A1B2C3D4) or nanoseconds (A1B23C4D, tcpdump --time-stamp-precision nano). Every later integer
    (header and records) follows that byte order (`meta/endian` switches on the magic).
    
    Record lengths are checked against the data present before anything is read; a record longer than
    262144 bytes (libpcap's MAXIMUM_SNAPLEN) is refused as corrupt rather than buffered.
    
    .. seealso::
       (PCAP Capture File Format, sections 4-5) - https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcap/
    """

    class Magic(IntEnum):
        le_nano = 1295823521
        be_nano = 2712812621
        be_micro = 2712847316
        le_micro = 3569595041
    def __init__(self, _io, _parent=None, _root=None):
        super(Pcap, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.magic = KaitaiStream.resolve_enum(Pcap.Magic, self._io.read_u4be())
        if not isinstance(self.magic, Pcap.Magic):
            raise kaitaistruct.ValidationNotInEnumError(self.magic, self._io, u"/seq/0")
        self.header = Pcap.Header(self._io, self, self._root)
        self.packets = []
        i = 0
        while not self._io.is_eof():
            self.packets.append(Pcap.Packet(self._io, self, self._root))
            i += 1



    def _fetch_instances(self):
        pass
        self.header._fetch_instances()
        for i in range(len(self.packets)):
            pass
            self.packets[i]._fetch_instances()


    class Header(KaitaiStruct):
        """File header after the magic (draft section 4)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Pcap.Header, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            _on = self._parent.magic
            if _on == Pcap.Magic.le_micro:
                pass
                self._is_le = True
            elif _on == Pcap.Magic.le_nano:
                pass
                self._is_le = True
            elif _on == Pcap.Magic.be_micro:
                pass
                self._is_le = False
            elif _on == Pcap.Magic.be_nano:
                pass
                self._is_le = False
            if not hasattr(self, '_is_le'):
                raise kaitaistruct.UndecidedEndiannessError("/types/header")
            elif self._is_le == True:
                self._read_le()
            elif self._is_le == False:
                self._read_be()

        def _read_le(self):
            self.version_major = self._io.read_u2le()
            if not self.version_major == 2:
                raise kaitaistruct.ValidationNotEqualError(2, self.version_major, self._io, u"/types/header/seq/0")
            self.version_minor = self._io.read_u2le()
            self.thiszone = self._io.read_s4le()
            self.sigfigs = self._io.read_u4le()
            self.snaplen = self._io.read_u4le()
            self.linktype = self._io.read_u4le()

        def _read_be(self):
            self.version_major = self._io.read_u2be()
            if not self.version_major == 2:
                raise kaitaistruct.ValidationNotEqualError(2, self.version_major, self._io, u"/types/header/seq/0")
            self.version_minor = self._io.read_u2be()
            self.thiszone = self._io.read_s4be()
            self.sigfigs = self._io.read_u4be()
            self.snaplen = self._io.read_u4be()
            self.linktype = self._io.read_u4be()


        def _fetch_instances(self):
            pass


    class Packet(KaitaiStruct):
        """One packet record, a 16-byte header and the captured bytes (draft section 5)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Pcap.Packet, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            _on = self._root.magic
            if _on == Pcap.Magic.le_micro:
                pass
                self._is_le = True
            elif _on == Pcap.Magic.le_nano:
                pass
                self._is_le = True
            elif _on == Pcap.Magic.be_micro:
                pass
                self._is_le = False
            elif _on == Pcap.Magic.be_nano:
                pass
                self._is_le = False
            if not hasattr(self, '_is_le'):
                raise kaitaistruct.UndecidedEndiannessError("/types/packet")
            elif self._is_le == True:
                self._read_le()
            elif self._is_le == False:
                self._read_be()

        def _read_le(self):
            self.ts_sec = self._io.read_u4le()
            self.ts_frac = self._io.read_u4le()
            self.incl_len = self._io.read_u4le()
            if not self.incl_len <= 262144:
                raise kaitaistruct.ValidationGreaterThanError(262144, self.incl_len, self._io, u"/types/packet/seq/2")
            self.orig_len = self._io.read_u4le()
            self.data = self._io.read_bytes(self.incl_len)

        def _read_be(self):
            self.ts_sec = self._io.read_u4be()
            self.ts_frac = self._io.read_u4be()
            self.incl_len = self._io.read_u4be()
            if not self.incl_len <= 262144:
                raise kaitaistruct.ValidationGreaterThanError(262144, self.incl_len, self._io, u"/types/packet/seq/2")
            self.orig_len = self._io.read_u4be()
            self.data = self._io.read_bytes(self.incl_len)


        def _fetch_instances(self):
            pass




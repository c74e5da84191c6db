# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class EthernetFrame(KaitaiStruct):
    """An Ethernet II frame as libpcap captures it (LINKTYPE_ETHERNET, 1): destination and source MAC, the
    EtherType, the payload. The frame check sequence is not captured. An EtherType of 0x8100 (802.1Q) or
    0x88A8 (802.1ad) means a VLAN tag follows, with the real EtherType after it; tags nest.
    Short frames are padded to 60 bytes on the wire, so the payload may end with padding that the IP
    header's own length excludes.
    
    .. seealso::
       IEEE 802.3 clause 3.2 (MAC frame); IEEE 802.1Q clause 9 (tag format); https://www.tcpdump.org/linktypes/LINKTYPE_ETHERNET.html
    """
    SEQ_FIELDS = ["dst_mac", "src_mac", "ether_type", "body"]
    def __init__(self, _io, _parent=None, _root=None):
        super(EthernetFrame, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['dst_mac']['start'] = self._io.pos()
        self.dst_mac = self._io.read_bytes(6)
        self._debug['dst_mac']['end'] = self._io.pos()
        self._debug['src_mac']['start'] = self._io.pos()
        self.src_mac = self._io.read_bytes(6)
        self._debug['src_mac']['end'] = self._io.pos()
        self._debug['ether_type']['start'] = self._io.pos()
        self.ether_type = self._io.read_u2be()
        self._debug['ether_type']['end'] = self._io.pos()
        self._debug['body']['start'] = self._io.pos()
        _on = self.ether_type
        if _on == 33024:
            pass
            self._raw_body = self._io.read_bytes_full()
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = EthernetFrame.VlanTagged(_io__raw_body, self, self._root)
            self.body._read()
        elif _on == 34984:
            pass
            self._raw_body = self._io.read_bytes_full()
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = EthernetFrame.VlanTagged(_io__raw_body, self, self._root)
            self.body._read()
        else:
            pass
            self.body = self._io.read_bytes_full()
        self._debug['body']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass
        _on = self.ether_type
        if _on == 33024:
            pass
            self.body._fetch_instances()
        elif _on == 34984:
            pass
            self.body._fetch_instances()
        else:
            pass

    class VlanTagged(KaitaiStruct):
        """An 802.1Q tag control field and the EtherType it wraps (IEEE 802.1Q clause 9.6)."""
        SEQ_FIELDS = ["priority", "drop_eligible", "vlan_id", "ether_type", "body"]
        def __init__(self, _io, _parent=None, _root=None):
            super(EthernetFrame.VlanTagged, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['priority']['start'] = self._io.pos()
            self.priority = self._io.read_bits_int_be(3)
            self._debug['priority']['end'] = self._io.pos()
            self._debug['drop_eligible']['start'] = self._io.pos()
            self.drop_eligible = self._io.read_bits_int_be(1) != 0
            self._debug['drop_eligible']['end'] = self._io.pos()
            self._debug['vlan_id']['start'] = self._io.pos()
            self.vlan_id = self._io.read_bits_int_be(12)
            self._debug['vlan_id']['end'] = self._io.pos()
            self._debug['ether_type']['start'] = self._io.pos()
            self.ether_type = self._io.read_u2be()
            self._debug['ether_type']['end'] = self._io.pos()
            self._debug['body']['start'] = self._io.pos()
            _on = self.ether_type
            if _on == 33024:
                pass
                self._raw_body = self._io.read_bytes_full()
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = EthernetFrame.VlanTagged(_io__raw_body, self, self._root)
                self.body._read()
            elif _on == 34984:
                pass
                self._raw_body = self._io.read_bytes_full()
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = EthernetFrame.VlanTagged(_io__raw_body, self, self._root)
                self.body._read()
            else:
                pass
                self.body = self._io.read_bytes_full()
            self._debug['body']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass
            _on = self.ether_type
            if _on == 33024:
                pass
                self.body._fetch_instances()
            elif _on == 34984:
                pass
                self.body._fetch_instances()
            else:
                pass




# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Pcapng(KaitaiStruct):
    """A pcapng file is a sequence of blocks, each `block_type`, `block_total_length`, a body padded to 32 bits
    and `block_total_length` again. A Section Header Block (SHB) starts every section and fixes its byte
    order through its byte-order magic; Interface Description Blocks (IDB) describe the interfaces packets
    were captured on (link type, snap length, timestamp resolution `if_tsresol`); Enhanced and Simple
    Packet Blocks (EPB, SPB) hold the packets. Blocks of any other type are kept as raw bodies and skipped
    by their length, as the format requires of readers.
    
    The root type reads a file of one section (what dumpcap, editcap and this project's writer produce):
    the first SHB, then every block in the byte order that SHB declares. A file with several sections of
    different byte orders is read section by section by the runtime (inlong_proto.capture), which decodes
    each SHB with `section_header_block` and the blocks after it with `block` in that section's order.
    
    Lengths are checked against the data present before anything is read, and a block longer than 16 MiB
    is refused as corrupt.
    
    .. seealso::
       (PCAP Now Generic (pcapng) Capture File Format) - https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcapng/
    """

    class BlockType(IntEnum):
        interface_description = 1
        simple_packet = 3
        interface_statistics = 5
        enhanced_packet = 6
        section_header = 168627466

    class ByteOrder(IntEnum):
        big = 439041101
        little = 1295788826
    SEQ_FIELDS = ["section_header", "blocks"]
    def __init__(self, _io, _parent=None, _root=None):
        super(Pcapng, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['section_header']['start'] = self._io.pos()
        self.section_header = Pcapng.SectionHeaderBlock(self._io, self, self._root)
        self.section_header._read()
        self._debug['section_header']['end'] = self._io.pos()
        self._debug['blocks']['start'] = self._io.pos()
        self._debug['blocks']['arr'] = []
        self.blocks = []
        i = 0
        while not self._io.is_eof():
            self._debug['blocks']['arr'].append({'start': self._io.pos()})
            _t_blocks = Pcapng.Block(self._io, self, self._root)
            try:
                _t_blocks._read()
            finally:
                self.blocks.append(_t_blocks)
            self._debug['blocks']['arr'][len(self.blocks) - 1]['end'] = self._io.pos()
            i += 1

        self._debug['blocks']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass
        self.section_header._fetch_instances()
        for i in range(len(self.blocks)):
            pass
            self.blocks[i]._fetch_instances()


    class Block(KaitaiStruct):
        """Any block after the section header, in the section's byte order (draft section 3.1)."""
        SEQ_FIELDS = ["block_type", "block_total_length", "body", "block_total_length_trailer"]
        def __init__(self, _io, _parent=None, _root=None):
            super(Pcapng.Block, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            _on = self._root.section_header.byte_order_magic
            if _on == Pcapng.ByteOrder.big:
                pass
                self._is_le = False
            elif _on == Pcapng.ByteOrder.little:
                pass
                self._is_le = True
            if not hasattr(self, '_is_le'):
                raise kaitaistruct.UndecidedEndiannessError("/types/block")
            elif self._is_le == True:
                self._read_le()
            elif self._is_le == False:
                self._read_be()

        def _read_le(self):
            self._debug['block_type']['start'] = self._io.pos()
            self.block_type = KaitaiStream.resolve_enum(Pcapng.BlockType, self._io.read_u4le())
            self._debug['block_type']['end'] = self._io.pos()
            self._debug['block_total_length']['start'] = self._io.pos()
            self.block_total_length = self._io.read_u4le()
            self._debug['block_total_length']['end'] = self._io.pos()
            _ = self.block_total_length
            if not  ((_ >= 12) and (_ <= 16777216) and (_ % 4 == 0)) :
                raise kaitaistruct.ValidationExprError(self.block_total_length, self._io, u"/types/block/seq/1")
            self._debug['body']['start'] = self._io.pos()
            _on = self.block_type
            if _on == Pcapng.BlockType.enhanced_packet:
                pass
                self._raw_body = self._io.read_bytes(self.block_total_length - 12)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = Pcapng.Block.EnhancedPacketBlock(_io__raw_body, self, self._root, self._is_le)
                self.body._read()
            elif _on == Pcapng.BlockType.interface_description:
                pass
                self._raw_body = self._io.read_bytes(self.block_total_length - 12)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = Pcapng.Block.InterfaceDescriptionBlock(_io__raw_body, self, self._root, self._is_le)
                self.body._read()
            elif _on == Pcapng.BlockType.simple_packet:
                pass
                self._raw_body = self._io.read_bytes(self.block_total_length - 12)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = Pcapng.Block.SimplePacketBlock(_io__raw_body, self, self._root, self._is_le)
                self.body._read()
            else:
                pass
                self.body = self._io.read_bytes(self.block_total_length - 12)
            self._debug['body']['end'] = self._io.pos()
            self._debug['block_total_length_trailer']['start'] = self._io.pos()
            self.block_total_length_trailer = self._io.read_u4le()
            self._debug['block_total_length_trailer']['end'] = self._io.pos()
            if not self.block_total_length_trailer == self.block_total_length:
                raise kaitaistruct.ValidationNotEqualError(self.block_total_length, self.block_total_length_trailer, self._io, u"/types/block/seq/3")

        def _read_be(self):
            self._debug['block_type']['start'] = self._io.pos()
            self.block_type = KaitaiStream.resolve_enum(Pcapng.BlockType, self._io.read_u4be())
            self._debug['block_type']['end'] = self._io.pos()
            self._debug['block_total_length']['start'] = self._io.pos()
            self.block_total_length = self._io.read_u4be()
            self._debug['block_total_length']['end'] = self._io.pos()
            _ = self.block_total_length
            if not  ((_ >= 12) and (_ <= 16777216) and (_ % 4 == 0)) :
                raise kaitaistruct.ValidationExprError(self.block_total_length, self._io, u"/types/block/seq/1")
            self._debug['body']['start'] = self._io.pos()
            _on = self.block_type
            if _on == Pcapng.BlockType.enhanced_packet:
                pass
                self._raw_body = self._io.read_bytes(self.block_total_length - 12)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = Pcapng.Block.EnhancedPacketBlock(_io__raw_body, self, self._root, self._is_le)
                self.body._read()
            elif _on == Pcapng.BlockType.interface_description:
                pass
                self._raw_body = self._io.read_bytes(self.block_total_length - 12)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = Pcapng.Block.InterfaceDescriptionBlock(_io__raw_body, self, self._root, self._is_le)
                self.body._read()
            elif _on == Pcapng.BlockType.simple_packet:
                pass
                self._raw_body = self._io.read_bytes(self.block_total_length - 12)
                _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
                self.body = Pcapng.Block.SimplePacketBlock(_io__raw_body, self, self._root, self._is_le)
                self.body._read()
            else:
                pass
                self.body = self._io.read_bytes(self.block_total_length - 12)
            self._debug['body']['end'] = self._io.pos()
            self._debug['block_total_length_trailer']['start'] = self._io.pos()
            self.block_total_length_trailer = self._io.read_u4be()
            self._debug['block_total_length_trailer']['end'] = self._io.pos()
            if not self.block_total_length_trailer == self.block_total_length:
                raise kaitaistruct.ValidationNotEqualError(self.block_total_length, self.block_total_length_trailer, self._io, u"/types/block/seq/3")


        def _fetch_instances(self):
            pass
            _on = self.block_type
            if _on == Pcapng.BlockType.enhanced_packet:
                pass
                self.body._fetch_instances()
            elif _on == Pcapng.BlockType.interface_description:
                pass
                self.body._fetch_instances()
            elif _on == Pcapng.BlockType.simple_packet:
                pass
                self.body._fetch_instances()
            else:
                pass

        class EnhancedPacketBlock(KaitaiStruct):
            """Enhanced Packet Block (draft section 4.3)."""
            SEQ_FIELDS = ["interface_id", "timestamp_high", "timestamp_low", "captured_packet_length", "original_packet_length", "packet_data", "padding", "options"]
            def __init__(self, _io, _parent=None, _root=None, _is_le=None):
                super(Pcapng.Block.EnhancedPacketBlock, self).__init__(_io)
                self._parent = _parent
                self._root = _root
                self._is_le = _is_le
                self._debug = collections.defaultdict(dict)

            def _read(self):
                if not hasattr(self, '_is_le'):
                    raise kaitaistruct.UndecidedEndiannessError("/types/block/types/enhanced_packet_block")
                elif self._is_le == True:
                    self._read_le()
                elif self._is_le == False:
                    self._read_be()

            def _read_le(self):
                self._debug['interface_id']['start'] = self._io.pos()
                self.interface_id = self._io.read_u4le()
                self._debug['interface_id']['end'] = self._io.pos()
                self._debug['timestamp_high']['start'] = self._io.pos()
                self.timestamp_high = self._io.read_u4le()
                self._debug['timestamp_high']['end'] = self._io.pos()
                self._debug['timestamp_low']['start'] = self._io.pos()
                self.timestamp_low = self._io.read_u4le()
                self._debug['timestamp_low']['end'] = self._io.pos()
                self._debug['captured_packet_length']['start'] = self._io.pos()
                self.captured_packet_length = self._io.read_u4le()
                self._debug['captured_packet_length']['end'] = self._io.pos()
                self._debug['original_packet_length']['start'] = self._io.pos()
                self.original_packet_length = self._io.read_u4le()
                self._debug['original_packet_length']['end'] = self._io.pos()
                self._debug['packet_data']['start'] = self._io.pos()
                self.packet_data = self._io.read_bytes(self.captured_packet_length)
                self._debug['packet_data']['end'] = self._io.pos()
                self._debug['padding']['start'] = self._io.pos()
                self.padding = self._io.read_bytes((4 - self.captured_packet_length % 4) % 4)
                self._debug['padding']['end'] = self._io.pos()
                self._debug['options']['start'] = self._io.pos()
                self._debug['options']['arr'] = []
                self.options = []
                i = 0
                while not self._io.is_eof():
                    self._debug['options']['arr'].append({'start': self._io.pos()})
                    _t_options = Pcapng.Block.Option(self._io, self, self._root, self._is_le)
                    try:
                        _t_options._read()
                    finally:
                        self.options.append(_t_options)
                    self._debug['options']['arr'][len(self.options) - 1]['end'] = self._io.pos()
                    i += 1

                self._debug['options']['end'] = self._io.pos()

            def _read_be(self):
                self._debug['interface_id']['start'] = self._io.pos()
                self.interface_id = self._io.read_u4be()
                self._debug['interface_id']['end'] = self._io.pos()
                self._debug['timestamp_high']['start'] = self._io.pos()
                self.timestamp_high = self._io.read_u4be()
                self._debug['timestamp_high']['end'] = self._io.pos()
                self._debug['timestamp_low']['start'] = self._io.pos()
                self.timestamp_low = self._io.read_u4be()
                self._debug['timestamp_low']['end'] = self._io.pos()
                self._debug['captured_packet_length']['start'] = self._io.pos()
                self.captured_packet_length = self._io.read_u4be()
                self._debug['captured_packet_length']['end'] = self._io.pos()
                self._debug['original_packet_length']['start'] = self._io.pos()
                self.original_packet_length = self._io.read_u4be()
                self._debug['original_packet_length']['end'] = self._io.pos()
                self._debug['packet_data']['start'] = self._io.pos()
                self.packet_data = self._io.read_bytes(self.captured_packet_length)
                self._debug['packet_data']['end'] = self._io.pos()
                self._debug['padding']['start'] = self._io.pos()
                self.padding = self._io.read_bytes((4 - self.captured_packet_length % 4) % 4)
                self._debug['padding']['end'] = self._io.pos()
                self._debug['options']['start'] = self._io.pos()
                self._debug['options']['arr'] = []
                self.options = []
                i = 0
                while not self._io.is_eof():
                    self._debug['options']['arr'].append({'start': self._io.pos()})
                    _t_options = Pcapng.Block.Option(self._io, self, self._root, self._is_le)
                    try:
                        _t_options._read()
                    finally:
                        self.options.append(_t_options)
                    self._debug['options']['arr'][len(self.options) - 1]['end'] = self._io.pos()
                    i += 1

                self._debug['options']['end'] = self._io.pos()


            def _fetch_instances(self):
                pass
                for i in range(len(self.options)):
                    pass
                    self.options[i]._fetch_instances()



        class InterfaceDescriptionBlock(KaitaiStruct):
            """Interface Description Block (draft section 4.2); the n-th IDB of a section is interface n."""
            SEQ_FIELDS = ["linktype", "reserved", "snaplen", "options"]
            def __init__(self, _io, _parent=None, _root=None, _is_le=None):
                super(Pcapng.Block.InterfaceDescriptionBlock, self).__init__(_io)
                self._parent = _parent
                self._root = _root
                self._is_le = _is_le
                self._debug = collections.defaultdict(dict)

            def _read(self):
                if not hasattr(self, '_is_le'):
                    raise kaitaistruct.UndecidedEndiannessError("/types/block/types/interface_description_block")
                elif self._is_le == True:
                    self._read_le()
                elif self._is_le == False:
                    self._read_be()

            def _read_le(self):
                self._debug['linktype']['start'] = self._io.pos()
                self.linktype = self._io.read_u2le()
                self._debug['linktype']['end'] = self._io.pos()
                self._debug['reserved']['start'] = self._io.pos()
                self.reserved = self._io.read_u2le()
                self._debug['reserved']['end'] = self._io.pos()
                self._debug['snaplen']['start'] = self._io.pos()
                self.snaplen = self._io.read_u4le()
                self._debug['snaplen']['end'] = self._io.pos()
                self._debug['options']['start'] = self._io.pos()
                self._debug['options']['arr'] = []
                self.options = []
                i = 0
                while not self._io.is_eof():
                    self._debug['options']['arr'].append({'start': self._io.pos()})
                    _t_options = Pcapng.Block.Option(self._io, self, self._root, self._is_le)
                    try:
                        _t_options._read()
                    finally:
                        self.options.append(_t_options)
                    self._debug['options']['arr'][len(self.options) - 1]['end'] = self._io.pos()
                    i += 1

                self._debug['options']['end'] = self._io.pos()

            def _read_be(self):
                self._debug['linktype']['start'] = self._io.pos()
                self.linktype = self._io.read_u2be()
                self._debug['linktype']['end'] = self._io.pos()
                self._debug['reserved']['start'] = self._io.pos()
                self.reserved = self._io.read_u2be()
                self._debug['reserved']['end'] = self._io.pos()
                self._debug['snaplen']['start'] = self._io.pos()
                self.snaplen = self._io.read_u4be()
                self._debug['snaplen']['end'] = self._io.pos()
                self._debug['options']['start'] = self._io.pos()
                self._debug['options']['arr'] = []
                self.options = []
                i = 0
                while not self._io.is_eof():
                    self._debug['options']['arr'].append({'start': self._io.pos()})
                    _t_options = Pcapng.Block.Option(self._io, self, self._root, self._is_le)
                    try:
                        _t_options._read()
                    finally:
                        self.options.append(_t_options)
                    self._debug['options']['arr'][len(self.options) - 1]['end'] = self._io.pos()
                    i += 1

                self._debug['options']['end'] = self._io.pos()


            def _fetch_instances(self):
                pass
                for i in range(len(self.options)):
                    pass
                    self.options[i]._fetch_instances()



        class Option(KaitaiStruct):
            """One option (draft section 3.5); opt_endofopt (code 0) ends the list."""
            SEQ_FIELDS = ["code", "length", "value", "padding"]
            def __init__(self, _io, _parent=None, _root=None, _is_le=None):
                super(Pcapng.Block.Option, self).__init__(_io)
                self._parent = _parent
                self._root = _root
                self._is_le = _is_le
                self._debug = collections.defaultdict(dict)

            def _read(self):
                if not hasattr(self, '_is_le'):
                    raise kaitaistruct.UndecidedEndiannessError("/types/block/types/option")
                elif self._is_le == True:
                    self._read_le()
                elif self._is_le == False:
                    self._read_be()

            def _read_le(self):
                self._debug['code']['start'] = self._io.pos()
                self.code = self._io.read_u2le()
                self._debug['code']['end'] = self._io.pos()
                self._debug['length']['start'] = self._io.pos()
                self.length = self._io.read_u2le()
                self._debug['length']['end'] = self._io.pos()
                self._debug['value']['start'] = self._io.pos()
                self.value = self._io.read_bytes(self.length)
                self._debug['value']['end'] = self._io.pos()
                self._debug['padding']['start'] = self._io.pos()
                self.padding = self._io.read_bytes((4 - self.length % 4) % 4)
                self._debug['padding']['end'] = self._io.pos()

            def _read_be(self):
                self._debug['code']['start'] = self._io.pos()
                self.code = self._io.read_u2be()
                self._debug['code']['end'] = self._io.pos()
                self._debug['length']['start'] = self._io.pos()
                self.length = self._io.read_u2be()
                self._debug['length']['end'] = self._io.pos()
                self._debug['value']['start'] = self._io.pos()
                self.value = self._io.read_bytes(self.length)
                self._debug['value']['end'] = self._io.pos()
                self._debug['padding']['start'] = self._io.pos()
                self.padding = self._io.read_bytes((4 - self.length % 4) % 4)
                self._debug['padding']['end'] = self._io.pos()


            def _fetch_instances(self):
                pass


        class SimplePacketBlock(KaitaiStruct):
            """Simple Packet Block (draft section 4.4): a packet of interface 0 without timestamp. The captured
            length is not stored: it is the smaller of original_packet_length and interface 0's snaplen, so
            packet_data keeps the padding and the reader trims it.
            """
            SEQ_FIELDS = ["original_packet_length", "packet_data"]
            def __init__(self, _io, _parent=None, _root=None, _is_le=None):
                super(Pcapng.Block.SimplePacketBlock, self).__init__(_io)
                self._parent = _parent
                self._root = _root
                self._is_le = _is_le
                self._debug = collections.defaultdict(dict)

            def _read(self):
                if not hasattr(self, '_is_le'):
                    raise kaitaistruct.UndecidedEndiannessError("/types/block/types/simple_packet_block")
                elif self._is_le == True:
                    self._read_le()
                elif self._is_le == False:
                    self._read_be()

            def _read_le(self):
                self._debug['original_packet_length']['start'] = self._io.pos()
                self.original_packet_length = self._io.read_u4le()
                self._debug['original_packet_length']['end'] = self._io.pos()
                self._debug['packet_data']['start'] = self._io.pos()
                self.packet_data = self._io.read_bytes_full()
                self._debug['packet_data']['end'] = self._io.pos()

            def _read_be(self):
                self._debug['original_packet_length']['start'] = self._io.pos()
                self.original_packet_length = self._io.read_u4be()
                self._debug['original_packet_length']['end'] = self._io.pos()
                self._debug['packet_data']['start'] = self._io.pos()
                self.packet_data = self._io.read_bytes_full()
                self._debug['packet_data']['end'] = self._io.pos()


            def _fetch_instances(self):
                pass



    class SectionHeaderBlock(KaitaiStruct):
        """Section Header Block (draft section 4.1). Its type, 0x0A0D0D0A, reads the same in both byte orders;
        its length comes before the byte-order magic that says how to read it, so the length is kept as
        bytes and read as a number once the magic is known (block_total_length).
        """
        SEQ_FIELDS = ["block_type", "block_total_length_bytes", "byte_order_magic", "body", "block_total_length_trailer"]
        def __init__(self, _io, _parent=None, _root=None):
            super(Pcapng.SectionHeaderBlock, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['block_type']['start'] = self._io.pos()
            self.block_type = self._io.read_bytes(4)
            self._debug['block_type']['end'] = self._io.pos()
            if not self.block_type == b"\x0A\x0D\x0D\x0A":
                raise kaitaistruct.ValidationNotEqualError(b"\x0A\x0D\x0D\x0A", self.block_type, self._io, u"/types/section_header_block/seq/0")
            self._debug['block_total_length_bytes']['start'] = self._io.pos()
            self.block_total_length_bytes = self._io.read_bytes(4)
            self._debug['block_total_length_bytes']['end'] = self._io.pos()
            self._debug['byte_order_magic']['start'] = self._io.pos()
            self.byte_order_magic = KaitaiStream.resolve_enum(Pcapng.ByteOrder, self._io.read_u4be())
            self._debug['byte_order_magic']['end'] = self._io.pos()
            if not isinstance(self.byte_order_magic, Pcapng.ByteOrder):
                raise kaitaistruct.ValidationNotInEnumError(self.byte_order_magic, self._io, u"/types/section_header_block/seq/2")
            self._debug['body']['start'] = self._io.pos()
            self._raw_body = self._io.read_bytes(self.block_total_length - 16)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = Pcapng.SectionHeaderBlock.SectionHeaderBody(_io__raw_body, self, self._root)
            self.body._read()
            self._debug['body']['end'] = self._io.pos()
            _ = self.body
            if not  ((self.block_total_length >= 28) and (self.block_total_length % 4 == 0) and (self.block_total_length <= 16777216)) :
                raise kaitaistruct.ValidationExprError(self.body, self._io, u"/types/section_header_block/seq/3")
            self._debug['block_total_length_trailer']['start'] = self._io.pos()
            self.block_total_length_trailer = self._io.read_bytes(4)
            self._debug['block_total_length_trailer']['end'] = self._io.pos()
            if not self.block_total_length_trailer == self.block_total_length_bytes:
                raise kaitaistruct.ValidationNotEqualError(self.block_total_length_bytes, self.block_total_length_trailer, self._io, u"/types/section_header_block/seq/4")


        def _fetch_instances(self):
            pass
            self.body._fetch_instances()

        class SectionHeaderBody(KaitaiStruct):
            """What follows the byte-order magic (draft section 4.1)."""
            SEQ_FIELDS = ["major_version", "minor_version", "section_length", "options"]
            def __init__(self, _io, _parent=None, _root=None):
                super(Pcapng.SectionHeaderBlock.SectionHeaderBody, self).__init__(_io)
                self._parent = _parent
                self._root = _root
                self._debug = collections.defaultdict(dict)

            def _read(self):
                _on = self._parent.byte_order_magic
                if _on == Pcapng.ByteOrder.big:
                    pass
                    self._is_le = False
                elif _on == Pcapng.ByteOrder.little:
                    pass
                    self._is_le = True
                if not hasattr(self, '_is_le'):
                    raise kaitaistruct.UndecidedEndiannessError("/types/section_header_block/types/section_header_body")
                elif self._is_le == True:
                    self._read_le()
                elif self._is_le == False:
                    self._read_be()

            def _read_le(self):
                self._debug['major_version']['start'] = self._io.pos()
                self.major_version = self._io.read_u2le()
                self._debug['major_version']['end'] = self._io.pos()
                if not self.major_version == 1:
                    raise kaitaistruct.ValidationNotEqualError(1, self.major_version, self._io, u"/types/section_header_block/types/section_header_body/seq/0")
                self._debug['minor_version']['start'] = self._io.pos()
                self.minor_version = self._io.read_u2le()
                self._debug['minor_version']['end'] = self._io.pos()
                self._debug['section_length']['start'] = self._io.pos()
                self.section_length = self._io.read_s8le()
                self._debug['section_length']['end'] = self._io.pos()
                self._debug['options']['start'] = self._io.pos()
                self.options = self._io.read_bytes_full()
                self._debug['options']['end'] = self._io.pos()

            def _read_be(self):
                self._debug['major_version']['start'] = self._io.pos()
                self.major_version = self._io.read_u2be()
                self._debug['major_version']['end'] = self._io.pos()
                if not self.major_version == 1:
                    raise kaitaistruct.ValidationNotEqualError(1, self.major_version, self._io, u"/types/section_header_block/types/section_header_body/seq/0")
                self._debug['minor_version']['start'] = self._io.pos()
                self.minor_version = self._io.read_u2be()
                self._debug['minor_version']['end'] = self._io.pos()
                self._debug['section_length']['start'] = self._io.pos()
                self.section_length = self._io.read_s8be()
                self._debug['section_length']['end'] = self._io.pos()
                self._debug['options']['start'] = self._io.pos()
                self.options = self._io.read_bytes_full()
                self._debug['options']['end'] = self._io.pos()


            def _fetch_instances(self):
                pass


        @property
        def block_total_length(self):
            """The block's total length as a number, in the byte order the magic names."""
            if hasattr(self, '_m_block_total_length'):
                return self._m_block_total_length

            self._m_block_total_length = (((KaitaiStream.byte_array_index(self.block_total_length_bytes, 0) << 24 | KaitaiStream.byte_array_index(self.block_total_length_bytes, 1) << 16) | KaitaiStream.byte_array_index(self.block_total_length_bytes, 2) << 8) | KaitaiStream.byte_array_index(self.block_total_length_bytes, 3) if self.byte_order_magic == Pcapng.ByteOrder.big else ((KaitaiStream.byte_array_index(self.block_total_length_bytes, 3) << 24 | KaitaiStream.byte_array_index(self.block_total_length_bytes, 2) << 16) | KaitaiStream.byte_array_index(self.block_total_length_bytes, 1) << 8) | KaitaiStream.byte_array_index(self.block_total_length_bytes, 0))
            return getattr(self, '_m_block_total_length', None)




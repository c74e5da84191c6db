# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class DataproxyPayload(KaitaiStruct):
    """The record layouts inside a (decompressed) body. Which one applies is decided by the frame: MsgType 5
    uses text_items; MsgType 2/3/4 join records with LF and MsgType 6 is one record (no layout needed);
    MsgType 7 uses bin_items, bin_items_with_attrs when ExtField bit 0 is set, or lf_block when ExtField
    bit 5 is set. The server stops silently at the first bad MsgType 5 item; this spec reports it instead,
    so no record is ever dropped without a word.
    
    .. seealso::
       shared/design/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.5, 1.8, 1.9)
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(DataproxyPayload, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        pass


    def _fetch_instances(self):
        pass

    class BinItem(KaitaiStruct):
        """One MsgType 7 record."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItem, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.item_len = self._io.read_u4be()
            self.data = self._io.read_bytes(self.item_len)


        def _fetch_instances(self):
            pass


    class BinItemWithAttrs(KaitaiStruct):
        """One MsgType 7 record followed by its attributes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItemWithAttrs, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.item_len = self._io.read_u4be()
            self.data = self._io.read_bytes(self.item_len)
            self.attr_len = self._io.read_u4be()
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")


        def _fetch_instances(self):
            pass


    class BinItems(KaitaiStruct):
        """MsgType 7 body (ExtField bits 0 and 5 clear), {len:u4, data} until the end."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItems, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.items = []
            i = 0
            while not self._io.is_eof():
                self.items.append(DataproxyPayload.BinItem(self._io, self, self._root))
                i += 1



        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



    class BinItemsWithAttrs(KaitaiStruct):
        """MsgType 7 body with ExtField bit 0, {len:u4, data, attr_len:u4, attr} until the end."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItemsWithAttrs, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.items = []
            i = 0
            while not self._io.is_eof():
                self.items.append(DataproxyPayload.BinItemWithAttrs(self._io, self, self._root))
                i += 1



        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



    class LfBlock(KaitaiStruct):
        """MsgType 7 body with ExtField bit 5, exactly one {len:u4, records joined by LF}."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.LfBlock, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.block_len = self._io.read_u4be()
            self.data = self._io.read_bytes(self.block_len)
            _ = self.data
            if not self._io.is_eof():
                raise kaitaistruct.ValidationExprError(self.data, self._io, u"/types/lf_block/seq/1")


        def _fetch_instances(self):
            pass


    class TextItem(KaitaiStruct):
        """One MsgType 5 record."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.TextItem, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.item_len = self._io.read_s4be()
            if not self.item_len >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.item_len, self._io, u"/types/text_item/seq/0")
            self.data = self._io.read_bytes(self.item_len)


        def _fetch_instances(self):
            pass


    class TextItems(KaitaiStruct):
        """MsgType 5 body, {ItemLen:s4, ItemData} until the end."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.TextItems, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.items = []
            i = 0
            while not self._io.is_eof():
                self.items.append(DataproxyPayload.TextItem(self._io, self, self._root))
                i += 1



        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()





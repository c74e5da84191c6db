# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class DataproxyPayload(KaitaiStruct):
    """The record layouts inside a (decompressed) body. Which one applies is decided by the frame: MsgType 5
    uses text_items; MsgType 6 uses multi_body_attr_items; MsgType 2/3/4 join records with LF (no layout
    needed); MsgType 7 uses bin_items, bin_items_with_attrs when ExtField bit 0 is set, or lf_block when
    ExtField bit 5 is set. The server stops silently at the first bad MsgType 5 item and silently drops a
    MsgType 6 body that is not in its layout; this spec reports both instead, so no record is ever dropped
    without a word.
    
    .. seealso::
       docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.5, 1.8, 1.9); apache/inlong inlong-common/src/main/java/org/apache/inlong/common/msg/InLongMsg.java (InLongMsg v3, MsgType 6)
    """
    SEQ_FIELDS = []
    def __init__(self, _io, _parent=None, _root=None):
        super(DataproxyPayload, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        pass


    def _fetch_instances(self):
        pass

    class BinItem(KaitaiStruct):
        """One MsgType 7 record."""
        SEQ_FIELDS = ["item_len", "data"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItem, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['item_len']['start'] = self._io.pos()
            self.item_len = self._io.read_u4be()
            self._debug['item_len']['end'] = self._io.pos()
            self._debug['data']['start'] = self._io.pos()
            self.data = self._io.read_bytes(self.item_len)
            self._debug['data']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass


    class BinItemWithAttrs(KaitaiStruct):
        """One MsgType 7 record followed by its attributes."""
        SEQ_FIELDS = ["item_len", "data", "attr_len", "attr"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItemWithAttrs, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['item_len']['start'] = self._io.pos()
            self.item_len = self._io.read_u4be()
            self._debug['item_len']['end'] = self._io.pos()
            self._debug['data']['start'] = self._io.pos()
            self.data = self._io.read_bytes(self.item_len)
            self._debug['data']['end'] = self._io.pos()
            self._debug['attr_len']['start'] = self._io.pos()
            self.attr_len = self._io.read_u4be()
            self._debug['attr_len']['end'] = self._io.pos()
            self._debug['attr']['start'] = self._io.pos()
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self._debug['attr']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass


    class BinItems(KaitaiStruct):
        """MsgType 7 body (ExtField bits 0 and 5 clear), {len:u4, data} until the end."""
        SEQ_FIELDS = ["items"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItems, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['items']['start'] = self._io.pos()
            self._debug['items']['arr'] = []
            self.items = []
            i = 0
            while not self._io.is_eof():
                self._debug['items']['arr'].append({'start': self._io.pos()})
                _t_items = DataproxyPayload.BinItem(self._io, self, self._root)
                try:
                    _t_items._read()
                finally:
                    self.items.append(_t_items)
                self._debug['items']['arr'][len(self.items) - 1]['end'] = self._io.pos()
                i += 1

            self._debug['items']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



    class BinItemsWithAttrs(KaitaiStruct):
        """MsgType 7 body with ExtField bit 0, {len:u4, data, attr_len:u4, attr} until the end."""
        SEQ_FIELDS = ["items"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.BinItemsWithAttrs, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['items']['start'] = self._io.pos()
            self._debug['items']['arr'] = []
            self.items = []
            i = 0
            while not self._io.is_eof():
                self._debug['items']['arr'].append({'start': self._io.pos()})
                _t_items = DataproxyPayload.BinItemWithAttrs(self._io, self, self._root)
                try:
                    _t_items._read()
                finally:
                    self.items.append(_t_items)
                self._debug['items']['arr'][len(self.items) - 1]['end'] = self._io.pos()
                i += 1

            self._debug['items']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



    class LfBlock(KaitaiStruct):
        """MsgType 7 body with ExtField bit 5, exactly one {len:u4, records joined by LF}."""
        SEQ_FIELDS = ["block_len", "data"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.LfBlock, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['block_len']['start'] = self._io.pos()
            self.block_len = self._io.read_u4be()
            self._debug['block_len']['end'] = self._io.pos()
            self._debug['data']['start'] = self._io.pos()
            self.data = self._io.read_bytes(self.block_len)
            self._debug['data']['end'] = self._io.pos()
            _ = self.data
            if not self._io.is_eof():
                raise kaitaistruct.ValidationExprError(self.data, self._io, u"/types/lf_block/seq/1")


        def _fetch_instances(self):
            pass


    class MultiBodyAttrItem(KaitaiStruct):
        """One MsgType 6 record followed by its attributes (an InLongMsg v3 pair)."""
        SEQ_FIELDS = ["item_len", "data", "attr_len", "attr"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.MultiBodyAttrItem, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['item_len']['start'] = self._io.pos()
            self.item_len = self._io.read_s4be()
            self._debug['item_len']['end'] = self._io.pos()
            if not self.item_len >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.item_len, self._io, u"/types/multi_body_attr_item/seq/0")
            self._debug['data']['start'] = self._io.pos()
            self.data = self._io.read_bytes(self.item_len)
            self._debug['data']['end'] = self._io.pos()
            self._debug['attr_len']['start'] = self._io.pos()
            self.attr_len = self._io.read_s4be()
            self._debug['attr_len']['end'] = self._io.pos()
            if not self.attr_len >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.attr_len, self._io, u"/types/multi_body_attr_item/seq/2")
            self._debug['attr']['start'] = self._io.pos()
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self._debug['attr']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass


    class MultiBodyAttrItems(KaitaiStruct):
        """MsgType 6 (MSG_MULTI_BODY_ATTR) body, after Snappy when the `cp` attribute is set: an InLongMsg v3
        body, {item_len:s4, data}{attr_len:s4, attr} pairs until the end, each record followed by its own
        attributes. The design document (section 1.4) and this project's first specs took the body for one
        record; the code says otherwise, and the code wins:
        - The server packs a MsgType 6 body whole into an InLongMsg *version 3* container, the only type it
          does so (`inLongMsgVer = 3` for MSG_MULTI_BODY_ATTR, then `addMsg(<message attrs>, bodyData)`;
          apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java,
          encEventPackage). InLongMsg's MAGIC3 (0x0f03) is commented "support msg_type = 6".
        - For version 3, InLongMsg.addMsg first runs checkData over the body: it walks {len:s4, bytes}
          chunks to the end and returns false at a length past the end, and addMsg then returns false
          without storing the body. The server ignores that result: the (empty) message is forwarded and
          the SDK gets success (errCode 0), so the records are lost without a word. A negative length or 1-3
          bytes left for a length throw instead (NegativeArraySizeException, BufferUnderflowException) from
          encEventPackage, which ServerMessageHandler.processV0Msg calls outside its try: exceptionCaught
          closes the connection without a reply
          (apache/inlong inlong-common/src/main/java/org/apache/inlong/common/msg/InLongMsg.java, addMsg and
          checkData; apache/inlong inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/ServerMessageHandler.java,
          processV0Msg and exceptionCaught).
        - The consumer side reads the stored body as pairs (InLongMsg.parseMixAttr, same file): data length,
          data, attribute length, attributes; a data or attribute length <= 0 stops the parse there and the
          rest of the body is dropped; a record's attributes are the message's joined with its own,
          `<message attrs>&<record attrs>`. checkData only counts chunks, so an odd number of chunks (a last
          record without attributes) and zero lengths pass the server and are lost downstream.
        This spec accepts exactly what parseMixAttr reads to the end: both lengths at least 1, the pairs
        filling the body. A body that is not so is well-formed on the wire (the server accepts it) but its
        records are not readable; the runtime flags it (an error in FAILFAST, an error field otherwise).
        """
        SEQ_FIELDS = ["items"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.MultiBodyAttrItems, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['items']['start'] = self._io.pos()
            self._debug['items']['arr'] = []
            self.items = []
            i = 0
            while not self._io.is_eof():
                self._debug['items']['arr'].append({'start': self._io.pos()})
                _t_items = DataproxyPayload.MultiBodyAttrItem(self._io, self, self._root)
                try:
                    _t_items._read()
                finally:
                    self.items.append(_t_items)
                self._debug['items']['arr'][len(self.items) - 1]['end'] = self._io.pos()
                i += 1

            self._debug['items']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



    class TextItem(KaitaiStruct):
        """One MsgType 5 record."""
        SEQ_FIELDS = ["item_len", "data"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.TextItem, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['item_len']['start'] = self._io.pos()
            self.item_len = self._io.read_s4be()
            self._debug['item_len']['end'] = self._io.pos()
            if not self.item_len >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.item_len, self._io, u"/types/text_item/seq/0")
            self._debug['data']['start'] = self._io.pos()
            self.data = self._io.read_bytes(self.item_len)
            self._debug['data']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass


    class TextItems(KaitaiStruct):
        """MsgType 5 body, {ItemLen:s4, ItemData} until the end."""
        SEQ_FIELDS = ["items"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyPayload.TextItems, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['items']['start'] = self._io.pos()
            self._debug['items']['arr'] = []
            self.items = []
            i = 0
            while not self._io.is_eof():
                self._debug['items']['arr'].append({'start': self._io.pos()})
                _t_items = DataproxyPayload.TextItem(self._io, self, self._root)
                try:
                    _t_items._read()
                finally:
                    self.items.append(_t_items)
                self._debug['items']['arr'][len(self.items) - 1]['end'] = self._io.pos()
                i += 1

            self._debug['items']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass
            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()





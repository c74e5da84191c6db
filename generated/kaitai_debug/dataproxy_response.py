# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import dataproxy_common
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class DataproxyResponse(KaitaiStruct):
    """Same header as a request (TotalLen + MsgType), but responses always carry the plain base type (no flag
    bits are ever echoed) and MsgType 1 and 7 have layouts of their own. The Java SDK refuses responses over
    64 KiB including the length prefix.
    
    .. seealso::
       apache/inlong@a6c7a6a670c3 inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java, CodecTextMsg.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/utils/MessageUtils.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.6, 1.10-1.12)
    """
    SEQ_FIELDS = ["total_len", "auth", "encrypted", "compressed", "base_type", "body"]
    def __init__(self, _io, _parent=None, _root=None):
        super(DataproxyResponse, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['total_len']['start'] = self._io.pos()
        self.total_len = self._io.read_u4be()
        self._debug['total_len']['end'] = self._io.pos()
        if not self.total_len >= 1:
            raise kaitaistruct.ValidationLessThanError(1, self.total_len, self._io, u"/seq/0")
        if not self.total_len <= 20971516:
            raise kaitaistruct.ValidationGreaterThanError(20971516, self.total_len, self._io, u"/seq/0")
        self._debug['auth']['start'] = self._io.pos()
        self.auth = self._io.read_bits_int_be(1) != 0
        self._debug['auth']['end'] = self._io.pos()
        self._debug['encrypted']['start'] = self._io.pos()
        self.encrypted = self._io.read_bits_int_be(1) != 0
        self._debug['encrypted']['end'] = self._io.pos()
        self._debug['compressed']['start'] = self._io.pos()
        self.compressed = self._io.read_bits_int_be(1) != 0
        self._debug['compressed']['end'] = self._io.pos()
        self._debug['base_type']['start'] = self._io.pos()
        self.base_type = KaitaiStream.resolve_enum(dataproxy_common.DataproxyCommon.MsgType, self._io.read_bits_int_be(5))
        self._debug['base_type']['end'] = self._io.pos()
        if not isinstance(self.base_type, dataproxy_common.DataproxyCommon.MsgType):
            raise kaitaistruct.ValidationNotInEnumError(self.base_type, self._io, u"/seq/4")
        self._debug['body']['start'] = self._io.pos()
        _on = self.base_type
        if _on == dataproxy_common.DataproxyCommon.MsgType.ack_service:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.bin_heartbeat:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.BinHeartbeat(_io__raw_body)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.bin_multi_body:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = DataproxyResponse.BinResponse(_io__raw_body, self, self._root)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.common_service:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.heartbeat:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = DataproxyResponse.LegacyHeartbeatReply(_io__raw_body, self, self._root)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.multi_body:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.multi_body_attr:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
            self.body._read()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.original_return:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
            self.body._read()
        else:
            pass
            self.body = self._io.read_bytes(self.total_len - 1)
        self._debug['body']['end'] = self._io.pos()
        _ = self.body
        if not  ((self.base_type != dataproxy_common.DataproxyCommon.MsgType.heartbeat) or (self.total_len == 1)) :
            raise kaitaistruct.ValidationExprError(self.body, self._io, u"/seq/5")


    def _fetch_instances(self):
        pass
        _on = self.base_type
        if _on == dataproxy_common.DataproxyCommon.MsgType.ack_service:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.bin_heartbeat:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.bin_multi_body:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.common_service:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.heartbeat:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.multi_body:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.multi_body_attr:
            pass
            self.body._fetch_instances()
        elif _on == dataproxy_common.DataproxyCommon.MsgType.original_return:
            pass
            self.body._fetch_instances()
        else:
            pass

    class BinResponse(KaitaiStruct):
        """The response to MsgType 7, a shorter layout than the request (quirk Q4): no body, no GroupNum or
        DataTime. TotalLen = 9 + attr_len.
        """
        SEQ_FIELDS = ["unique_id", "attr_len", "attr", "magic", "trailing"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyResponse.BinResponse, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['unique_id']['start'] = self._io.pos()
            self.unique_id = self._io.read_u4be()
            self._debug['unique_id']['end'] = self._io.pos()
            self._debug['attr_len']['start'] = self._io.pos()
            self.attr_len = self._io.read_s2be()
            self._debug['attr_len']['end'] = self._io.pos()
            if not self.attr_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.attr_len, self._io, u"/types/bin_response/seq/1")
            self._debug['attr']['start'] = self._io.pos()
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self._debug['attr']['end'] = self._io.pos()
            self._debug['magic']['start'] = self._io.pos()
            self.magic = self._io.read_bytes(2)
            self._debug['magic']['end'] = self._io.pos()
            if not self.magic == b"\xEE\x01":
                raise kaitaistruct.ValidationNotEqualError(b"\xEE\x01", self.magic, self._io, u"/types/bin_response/seq/3")
            self._debug['trailing']['start'] = self._io.pos()
            self.trailing = self._io.read_bytes_full()
            self._debug['trailing']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass


    class LegacyHeartbeatReply(KaitaiStruct):
        """The fixed reply to MsgType 1, 00 00 00 01 01 (TotalLen 1, MsgType 1, nothing else)."""
        SEQ_FIELDS = []
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyResponse.LegacyHeartbeatReply, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            pass


        def _fetch_instances(self):
            pass




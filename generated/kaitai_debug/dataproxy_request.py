# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import dataproxy_common
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class DataproxyRequest(KaitaiStruct):
    """TotalLen (u4) + MsgType (1 byte) + a payload whose layout the MsgType's low 5 bits select.
    TotalLen counts the MsgType byte and the payload but not its own 4 bytes (the public document is vague
    here; the server's LengthFieldBasedFrameDecoder and both SDKs agree). The server's default frame limit
    is 64 KiB including the 4 length bytes (max-msg-length, configurable up to 20 MiB).
    A MsgType byte of 0 would start a protobuf "v1" message, which this spec does not cover: it is rejected.
    
    .. seealso::
       apache/inlong@a6c7a6a670c3 inlong-sdk/dataproxy-sdk/src/main/java/org/apache/inlong/sdk/dataproxy/network/tcp/codec/ProtocolEncoder.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/*.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1 (sections 1.1-1.12)
    """
    SEQ_FIELDS = ["total_len", "auth", "encrypted", "compressed", "base_type", "body"]
    def __init__(self, _io, _parent=None, _root=None):
        super(DataproxyRequest, self).__init__(_io)
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
            self.body = DataproxyRequest.BinMessage(_io__raw_body, self, self._root)
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
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
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

    class BinMessage(KaitaiStruct):
        """MsgType 7, the binary data message (25 fixed bytes after TotalLen, then body, attr and the magic).
        TotalLen = 25 + body_len + attr_len in every frame the SDKs write.
        """
        SEQ_FIELDS = ["group_num", "stream_num", "ext_field", "data_time", "msg_cnt", "unique_id", "body_len", "body", "attr_len", "attr", "magic", "trailing"]
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyRequest.BinMessage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['group_num']['start'] = self._io.pos()
            self.group_num = self._io.read_u2be()
            self._debug['group_num']['end'] = self._io.pos()
            self._debug['stream_num']['start'] = self._io.pos()
            self.stream_num = self._io.read_u2be()
            self._debug['stream_num']['end'] = self._io.pos()
            self._debug['ext_field']['start'] = self._io.pos()
            self.ext_field = dataproxy_common.DataproxyCommon.ExtField(self._io)
            self.ext_field._read()
            self._debug['ext_field']['end'] = self._io.pos()
            self._debug['data_time']['start'] = self._io.pos()
            self.data_time = self._io.read_u4be()
            self._debug['data_time']['end'] = self._io.pos()
            self._debug['msg_cnt']['start'] = self._io.pos()
            self.msg_cnt = self._io.read_u2be()
            self._debug['msg_cnt']['end'] = self._io.pos()
            self._debug['unique_id']['start'] = self._io.pos()
            self.unique_id = self._io.read_u4be()
            self._debug['unique_id']['end'] = self._io.pos()
            self._debug['body_len']['start'] = self._io.pos()
            self.body_len = self._io.read_s4be()
            self._debug['body_len']['end'] = self._io.pos()
            if not self.body_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.body_len, self._io, u"/types/bin_message/seq/6")
            self._debug['body']['start'] = self._io.pos()
            self.body = self._io.read_bytes(self.body_len)
            self._debug['body']['end'] = self._io.pos()
            self._debug['attr_len']['start'] = self._io.pos()
            self.attr_len = self._io.read_s2be()
            self._debug['attr_len']['end'] = self._io.pos()
            if not self.attr_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.attr_len, self._io, u"/types/bin_message/seq/8")
            self._debug['attr']['start'] = self._io.pos()
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self._debug['attr']['end'] = self._io.pos()
            self._debug['magic']['start'] = self._io.pos()
            self.magic = self._io.read_bytes(2)
            self._debug['magic']['end'] = self._io.pos()
            if not self.magic == b"\xEE\x01":
                raise kaitaistruct.ValidationNotEqualError(b"\xEE\x01", self.magic, self._io, u"/types/bin_message/seq/10")
            self._debug['trailing']['start'] = self._io.pos()
            self.trailing = self._io.read_bytes_full()
            self._debug['trailing']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass
            self.ext_field._fetch_instances()




# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import dataproxy_common


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
    def __init__(self, _io, _parent=None, _root=None):
        super(DataproxyRequest, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.total_len = self._io.read_u4be()
        if not self.total_len >= 1:
            raise kaitaistruct.ValidationLessThanError(1, self.total_len, self._io, u"/seq/0")
        if not self.total_len <= 20971516:
            raise kaitaistruct.ValidationGreaterThanError(20971516, self.total_len, self._io, u"/seq/0")
        self.auth = self._io.read_bits_int_be(1) != 0
        self.encrypted = self._io.read_bits_int_be(1) != 0
        self.compressed = self._io.read_bits_int_be(1) != 0
        self.base_type = KaitaiStream.resolve_enum(dataproxy_common.DataproxyCommon.MsgType, self._io.read_bits_int_be(5))
        if not isinstance(self.base_type, dataproxy_common.DataproxyCommon.MsgType):
            raise kaitaistruct.ValidationNotInEnumError(self.base_type, self._io, u"/seq/4")
        _on = self.base_type
        if _on == dataproxy_common.DataproxyCommon.MsgType.ack_service:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.bin_heartbeat:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.BinHeartbeat(_io__raw_body)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.bin_multi_body:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = DataproxyRequest.BinMessage(_io__raw_body, self, self._root)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.common_service:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.heartbeat:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.multi_body:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.multi_body_attr:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
        elif _on == dataproxy_common.DataproxyCommon.MsgType.original_return:
            pass
            self._raw_body = self._io.read_bytes(self.total_len - 1)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = dataproxy_common.DataproxyCommon.TextMessage(_io__raw_body)
        else:
            pass
            self.body = self._io.read_bytes(self.total_len - 1)


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
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyRequest.BinMessage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.group_num = self._io.read_u2be()
            self.stream_num = self._io.read_u2be()
            self.ext_field = dataproxy_common.DataproxyCommon.ExtField(self._io)
            self.data_time = self._io.read_u4be()
            self.msg_cnt = self._io.read_u2be()
            self.unique_id = self._io.read_u4be()
            self.body_len = self._io.read_s4be()
            if not self.body_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.body_len, self._io, u"/types/bin_message/seq/6")
            self.body = self._io.read_bytes(self.body_len)
            self.attr_len = self._io.read_s2be()
            if not self.attr_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.attr_len, self._io, u"/types/bin_message/seq/8")
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self.magic = self._io.read_bytes(2)
            if not self.magic == b"\xEE\x01":
                raise kaitaistruct.ValidationNotEqualError(b"\xEE\x01", self.magic, self._io, u"/types/bin_message/seq/10")
            self.trailing = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass
            self.ext_field._fetch_instances()




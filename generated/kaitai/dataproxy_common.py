# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class DataproxyCommon(KaitaiStruct):
    """Types, enums and layouts that DataProxy requests and responses share (see dataproxy_request and
    dataproxy_response for the frames). All integers are big-endian. The public document's figures are
    missing; every layout here follows the code of the Java SDK and server (apache/inlong), and where
    the document and the code disagree the code wins and the field's doc says so.
    
    .. seealso::
       apache/inlong@a6c7a6a670c3 inlong-common/src/main/java/org/apache/inlong/common/msg/MsgType.java, inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/*.java, inlong-sdk/dataproxy-sdk/src/main/java/org/apache/inlong/sdk/dataproxy/network/tcp/codec/*.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 1
    """

    class ErrCode(IntEnum):
        success = 0
        sink_service_unready = 1
        service_closed = 2
        conf_service_unready = 3
        illegal_visit_ip = 10
        http_decode_req_failure = 31
        http_unsupported_method = 32
        http_req_uri_blank = 33
        http_decode_req_uri_failure = 34
        http_unsupported_service_uri = 35
        http_unsupported_content_type = 36
        field_magic_not_equal = 94
        field_length_value_not_equal = 95
        uncompress_data_error = 96
        miss_required_groupid_argument = 100
        miss_required_streamid_argument = 101
        miss_required_dt_argument = 102
        miss_required_body_argument = 103
        body_exceed_max_len = 104
        body_length_zero = 105
        body_length_less_zero = 106
        attr_length_less_zero = 107
        error_process_logic = 108
        split_attr_error = 109
        unsupported_msg_type = 110
        empty_msg = 111
        unsupported_extend_field_value = 112
        unconfigured_groupid_or_streamid = 113
        put_event_to_channel_failure = 114
        topic_is_blank = 115
        no_available_producer = 116
        producer_is_null = 117
        send_request_to_mq_failure = 118
        mq_return_error = 119
        duplicated_message = 120
        groupid_or_streamid_not_configure = 121
        groupid_or_streamid_inconstant = 122
        msg_body_items_invalid = 123
        attr_order_control_conflict_error = 150
        attr_proxy_control_conflict_error = 151
        unknown_error = 2147483647

    class MsgType(IntEnum):
        heartbeat = 1
        common_service = 2
        ack_service = 3
        original_return = 4
        multi_body = 5
        multi_body_attr = 6
        bin_multi_body = 7
        bin_heartbeat = 8
    def __init__(self, _io, _parent=None, _root=None):
        super(DataproxyCommon, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        pass


    def _fetch_instances(self):
        pass

    class BinHeartbeat(KaitaiStruct):
        """MsgType 8, the binary heartbeat, in both directions (the response uses the same layout, with the node
        load as a 2-byte body and the request's attr echoed verbatim).
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyCommon.BinHeartbeat, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.data_time = self._io.read_u4be()
            self.version = self._io.read_u1()
            self.body_len = self._io.read_s4be()
            if not self.body_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.body_len, self._io, u"/types/bin_heartbeat/seq/2")
            self.body = self._io.read_bytes(self.body_len)
            self.attr_len = self._io.read_s2be()
            if not self.attr_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.attr_len, self._io, u"/types/bin_heartbeat/seq/4")
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            self.magic = self._io.read_bytes(2)
            if not self.magic == b"\xEE\x01":
                raise kaitaistruct.ValidationNotEqualError(b"\xEE\x01", self.magic, self._io, u"/types/bin_heartbeat/seq/6")
            self.trailing = self._io.read_bytes_full()


        def _fetch_instances(self):
            pass


    class ExtField(KaitaiStruct):
        """The 16 ExtField flag bits of MsgType 7 (bit 0 is the least significant)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyCommon.ExtField, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.reserved = self._io.read_bits_int_be(10)
            self.separated_by_lf = self._io.read_bits_int_be(1) != 0
            self.index_message = self._io.read_bits_int_be(1) != 0
            self.file_check = self._io.read_bits_int_be(1) != 0
            self.ids_as_strings = self._io.read_bits_int_be(1) != 0
            self.trace = self._io.read_bits_int_be(1) != 0
            self.per_record_attributes = self._io.read_bits_int_be(1) != 0


        def _fetch_instances(self):
            pass


    class TextMessage(KaitaiStruct):
        """The "text" layout of MsgType 2-6 requests and of the responses to them (also the Go SDK's MsgType 1
        heartbeat request, whose lengths are both 0). TotalLen must be exactly 9 + body_len + attr_len:
        the server answers BODY_EXCEED_MAX_LEN (104) otherwise, and this spec rejects the frame.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(DataproxyCommon.TextMessage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.body_len = self._io.read_s4be()
            if not self.body_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.body_len, self._io, u"/types/text_message/seq/0")
            self.body = self._io.read_bytes(self.body_len)
            self.attr_len = self._io.read_s4be()
            if not self.attr_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.attr_len, self._io, u"/types/text_message/seq/2")
            self.attr = (self._io.read_bytes(self.attr_len)).decode(u"UTF-8")
            _ = self.attr
            if not self._io.is_eof():
                raise kaitaistruct.ValidationExprError(self.attr, self._io, u"/types/text_message/seq/3")


        def _fetch_instances(self):
            pass




"""Generated from specs/dataproxy/conformance.yaml. Do not edit."""

DATA = {'doc': 'What the strict DataProxy peers check (inlong_proto/core/conformance.py reads this table): the '
        'server\n'
        '(`inlong-proto dataproxy serve --strict FILE`) checks every byte an SDK sends, the sender\n'
        '(`inlong-proto dataproxy send --strict FILE`) every reply the server sends. Each server rule is one '
        'the\n'
        'real server enforces (the `upstream` file, at the commit '
        'docs/protocols/inlong-dataproxy-and-tubemq.md\n'
        'was verified against) and `answer` is what it does then, which the reference server does too; '
        'rules\n'
        "without `upstream` are the spec's, which the real server leaves unchecked or which only an SDK "
        'checks.\n',
 'rules': [{'id': 'dataproxy.total-len',
            'expects': "a frame's TotalLen is 1 to 20 MiB - 4 (it counts the MsgType byte and the payload, "
                       'not itself)',
            'spec': 'specs/dataproxy/dataproxy_request.ksy#id: total_len',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/ServerMessageHandler.java',
            'answer': 'no reply; the connection is closed'},
           {'id': 'dataproxy.msg-type',
            'expects': "the MsgType byte's bits 4-0 are a known base type (1-8)",
            'spec': 'specs/dataproxy/dataproxy_request.ksy#id: base_type',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/ServerMessageHandler.java',
            'answer': 'no reply; the connection is closed'},
           {'id': 'dataproxy.max-frame-size',
            'expects': "a frame, length prefix included, is at most the server's max-msg-length (65536 by "
                       'default)',
            'spec': 'specs/dataproxy/dataproxy_request.ksy#max-frame-size',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/ServerMessageFactory.java',
            'answer': 'no reply; the connection is closed (LengthFieldBasedFrameDecoder, failFast)'},
           {'id': 'dataproxy.layout',
            'expects': "a frame's payload has the layout its base type selects, with lengths that add up to "
                       'TotalLen',
            'spec': 'specs/dataproxy/dataproxy_request.ksy#id: body',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java',
            'answer': 'no reply; the connection is closed'},
           {'id': 'dataproxy.whole-frames',
            'expects': 'a client closes its connection between frames, never inside one',
            'spec': 'specs/dataproxy/dataproxy_request.ksy#TotalLen - 1 bytes',
            'answer': 'the bytes of the cut frame are dropped'},
           {'id': 'dataproxy.magic',
            'expects': 'a MsgType 7 or 8 frame ends with the integrity mark 0xEE01',
            'spec': 'specs/dataproxy/dataproxy_request.ksy#Integrity mark 0xEE01',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java',
            'answer': 'MsgType 7, errCode 94 FIELD_MAGIC_NOT_EQUAL echoing the UniqueId; MsgType 8, the '
                      'connection is closed'},
           {'id': 'dataproxy.ext-field',
            'expects': 'a MsgType 7 ExtField has neither the file-check nor the index bit set',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#id: file_check',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecBinMsg.java',
            'answer': 'errCode 112 UNSUPPORTED_EXTEND_FIELD_VALUE'},
           {'id': 'dataproxy.body-present',
            'expects': 'a data message (MsgType 2-7) has a body of at least one byte',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#105: {id: body_length_zero',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java',
            'answer': 'errCode 105 BODY_LENGTH_ZERO'},
           {'id': 'dataproxy.attr-syntax',
            'expects': "the attr is k=v entries joined by '&', each with one '=', no empty entry and no key "
                       'twice',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#Attributes `k=v&k=v` (UTF-8)',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/AbsV0MsgCodec.java',
            'answer': 'errCode 109 SPLIT_ATTR_ERROR'},
           {'id': 'dataproxy.ack-conflict',
            'expects': 'a message with isAck=false has neither syncSend=true nor proxySend=true (they need '
                       'the reply that isAck=false suppresses)',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#150: {id: attr_order_control_conflict_error',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/AbsV0MsgCodec.java',
            'answer': 'errCode 150 (syncSend) or 151 (proxySend), answered although isAck=false'},
           {'id': 'dataproxy.compressed-body',
            'expects': 'a text message whose attr has cp=snappy carries a Snappy block that decompresses to '
                       'data',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#96: {id: uncompress_data_error',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java',
            'answer': 'errCode 96 UNCOMPRESS_DATA_ERROR (no reply with isAck=false)'},
           {'id': 'dataproxy.body-items',
            'expects': 'a MsgType 5 body is length-prefixed items, at least one of them valid',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#123: {id: msg_body_items_invalid',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java',
            'answer': 'errCode 123 MSG_BODY_ITEMS_INVALID (no reply with isAck=false)'},
           {'id': 'dataproxy.group-id',
            'expects': 'a text message, and a MsgType 7 message whose ExtField says the ids are strings, '
                       'carries a non-blank groupId attribute',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#100: {id: miss_required_groupid_argument',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java',
            'answer': 'errCode 100 MISS_REQUIRED_GROUPID_ARGUMENT (no reply with isAck=false)'},
           {'id': 'dataproxy.inlongmsg-v3',
            'expects': 'a MsgType 6 body is InLongMsg v3 {len, data}{len, attr} pairs up to its end',
            'spec': 'specs/dataproxy/dataproxy_payload.ksy#multi_body_attr_items:',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/source/v0msg/CodecTextMsg.java',
            'answer': 'errCode 0; the records are lost without an error code'},
           {'id': 'dataproxy.bin-body',
            'expects': 'a MsgType 7 body is what its flags say (a Snappy block when MsgType bit 5 is set, '
                       'then the items ExtField selects)',
            'spec': 'specs/dataproxy/dataproxy_request.ksy#MsgType bit 5 (0x20)',
            'answer': 'errCode 0; the server forwards the body unread and a consumer cannot read it'},
           {'id': 'dataproxy.idle',
            'expects': 'a client sends a whole frame (data or a MsgType 8 heartbeat) at least every idle '
                       "timeout (the real server's maxReadIdleTime, 180 s) and reads the replies it asked "
                       'for',
            'spec': 'specs/dataproxy/dataproxy_common.ksy#MsgType 8, the binary heartbeat',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-dataproxy/dataproxy-source/src/main/java/org/apache/inlong/dataproxy/consts/SourceConstants.java',
            'answer': 'the connection is closed'},
           {'id': 'dataproxy.response-frame',
            'expects': 'every frame the server sends decodes as a response (the Java SDK also refuses one '
                       'over 64 KiB)',
            'spec': 'specs/dataproxy/dataproxy_response.ksy#The Java SDK refuses responses over',
            'answer': "the SDK's decoder drops the connection"},
           {'id': 'dataproxy.response-match',
            'expects': 'every reply answers a message sent on the connection and still waiting (the UniqueId '
                       'of a MsgType 7 reply, the messageId attr of a text reply, a heartbeat reply a '
                       'heartbeat), once',
            'spec': "specs/dataproxy/dataproxy_response.ksy#The request's UniqueId, echoed",
            'answer': 'the sender counts it as unexpected'},
           {'id': 'dataproxy.response-type',
            'expects': 'a reply carries the base type of the message it answers',
            'spec': "specs/dataproxy/dataproxy_response.ksy#The request's base type",
            'answer': 'the sender takes the errCode all the same'}]}

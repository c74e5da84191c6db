"""Generated from specs/tubemq/methods.yaml. Do not edit."""

DATA = {'upstream': {'repository': 'apache/inlong', 'commit': 'a6c7a6a670c3b935c68138d080f82f7d0f925dbc'},
 'path_prefixes': {'TC': 'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq',
                   'TP': 'inlong-tubemq/tubemq-core/src/main/proto',
                   'TS': 'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server',
                   'TCL': 'inlong-tubemq/tubemq-client/src/main/java/org/apache/inlong/tubemq/client',
                   'TGO': 'inlong-tubemq/tubemq-client-twins/tubemq-client-go',
                   'TCPP': 'inlong-tubemq/tubemq-client-twins/tubemq-client-cpp'},
 'proto_files': ['tubemq/RPC.proto', 'tubemq/MasterService.proto', 'tubemq/BrokerService.proto'],
 'envelope': {'doc': 'The frame payload is one byte stream of varint-length-delimited messages, in this '
                     'order. The business message is serialized without a length prefix into the named bytes '
                     'field. The response body is RspResponseBody when ResponseHeader.status is SUCCESS, '
                     'otherwise RspExceptionBody.',
              'source': 'TC/corerpc/netty/NettyClient.java (call); TC/corerpc/netty/NettyRequestContext.java '
                        '(prepareResponse); TC/corerpc/codec/PbEnDecoder.java (pbEncode)',
              'request': ['RpcConnHeader', 'RequestHeader', 'RequestBody'],
              'request_payload_field': 'RequestBody.request',
              'response_success': ['RpcConnHeader', 'ResponseHeader', 'RspResponseBody'],
              'response_failure': ['RpcConnHeader', 'ResponseHeader', 'RspExceptionBody'],
              'response_payload_field': 'RspResponseBody.data'},
 'frame': {'RPC_PROTOCOL_BEGIN_TOKEN': {'value': 4286575870,
                                        'doc': 'First 4 bytes of every frame (u32 big-endian); a frame '
                                               'without it is a protocol error.',
                                        'source': 'TC/corerpc/RpcConstants.java'},
           'RPC_MAX_BUFFER_SIZE': {'value': 8192,
                                   'doc': 'Payload bytes per block; the stream is cut into blocks of exactly '
                                          'this size, the last one holding the rest. Docs say 8196, which is '
                                          'the block size including its 4-byte length.',
                                   'source': 'TC/corerpc/RpcConstants.java'},
           'MAX_FRAME_MAX_LIST_SIZE': {'value': 3584,
                                       'doc': 'Most blocks per frame the Java decoder accepts ((20 MiB + 8 '
                                              'MiB) / 8192).',
                                       'source': 'TC/corerpc/RpcConstants.java; '
                                                 'TC/corebase/TBaseConstants.java'},
           'CPP_MAX_FRAME_LIST_COUNT': {'value': 1024,
                                        'doc': 'Most blocks per frame the C++ client accepts (8 MiB / 8192); '
                                               'it also rejects blocks of 0 or more than 8192 bytes.',
                                        'source': 'TCPP/src/const_rpc.h (kRpcMaxFrameListCnt); '
                                                  'TCPP/src/tubemq_codec.h (Check)'},
           'DEFAULT_REQUEST_TIMEOUT_MS': {'value': 10000,
                                          'doc': "Java client's RequestBody.timeout when rpc.request.timeout "
                                                 'is not configured (docs "10 seconds").',
                                          'source': 'TC/corerpc/RpcServiceInvoker.java '
                                                    '(conf.getInt(RpcConstants.REQUEST_TIMEOUT, 10000))'}},
 'enums': {'service_type': {'doc': 'RequestHeader.serviceType. The server validates the method id against '
                                   'it; 4 and 5 are defined but always rejected ("Service Type is invalid!", '
                                   'status ERROR).',
                            'source': 'TC/corerpc/RpcConstants.java; TC/corerpc/codec/PbEnDecoder.java '
                                      '(isValidServiceTypeAndMethod)',
                            'constant_prefix': 'RPC_SERVICE_TYPE_',
                            'values': {'MASTER_SERVICE': 1,
                                       'BROKER_READ_SERVICE': 2,
                                       'BROKER_WRITE_SERVICE': 3,
                                       'BROKER_ADMIN_SERVICE': 4,
                                       'MASTER_ADMIN_SERVICE': 5},
                            'value_docs': {'MASTER_SERVICE': 'accepts methods 1-9 and 20-22',
                                           'BROKER_READ_SERVICE': 'accepts methods 11, 12, 13, 15, 16, 17, '
                                                                  "18, 19 (code; the facts document's "
                                                                  'summary "11..19" wrongly includes 14, '
                                                                  'which the code only accepts on '
                                                                  'BROKER_WRITE_SERVICE)',
                                           'BROKER_WRITE_SERVICE': 'accepts methods 11, 12, 13, 14',
                                           'BROKER_ADMIN_SERVICE': 'defined, rejected by the server',
                                           'MASTER_ADMIN_SERVICE': 'defined, rejected by the server'}},
           'protocol_version': {'doc': 'RequestHeader.protocolVer (and ResponseHeader.protocolVer, where the '
                                       'server writes its own, 3). The Java client sends 3, the Go and C++ '
                                       'clients send 2. The only effect is the package prefix the server '
                                       'gives exception class names in RspExceptionBody.exceptionName.',
                                'source': 'TC/corerpc/protocol/RpcProtocol.java; '
                                          'TC/corerpc/utils/MixUtils.java (replaceClassNamePrefix)',
                                'values': {'RPC_PROTOCOL_VERSION_OLD_1': 1,
                                           'RPC_PROTOCOL_VERSION_TUBEMQ': 2,
                                           'RPC_PROTOCOL_VERSION': 3},
                                'value_docs': {'RPC_PROTOCOL_VERSION_OLD_1': 'exception names rewritten to '
                                                                             'com.tencent.tubemq.*',
                                               'RPC_PROTOCOL_VERSION_TUBEMQ': 'exception names rewritten to '
                                                                              'com.apache.tubemq.* (code; '
                                                                              "the constant's comment says "
                                                                              'org.apache.tubemq)',
                                               'RPC_PROTOCOL_VERSION': 'current '
                                                                       '(org.apache.inlong.tubemq.*), names '
                                                                       'left unchanged'}},
           'rpc_flag': {'doc': 'RpcConnHeader.flag. The server ignores the value it receives and always '
                               'answers with MSG_TYPE_RESPONSE.',
                        'source': 'TC/corerpc/RpcConstants.java',
                        'constant_prefix': 'RPC_FLAG_',
                        'values': {'MSG_TYPE_REQUEST': 0, 'MSG_TYPE_RESPONSE': 1}},
           'response_status': {'doc': 'ResponseHeader.status; the same values as the nested enum '
                                      'ResponseHeader.Status in RPC.proto, repeated here so the table is '
                                      'self-contained.',
                               'source': 'TP/RPC.proto; TC/corerpc/netty/NettyRpcServer.java (channelRead); '
                                         'TC/corerpc/protocol/RpcProtocol.java (handleRequest)',
                               'values': {'SUCCESS': 0, 'ERROR': 1, 'FATAL': 2},
                               'value_docs': {'SUCCESS': 'RspResponseBody follows; business failures are '
                                                         'success=false + errCode inside it',
                                              'ERROR': 'the service method threw, or the method id does not '
                                                       'belong to the service type',
                                              'FATAL': 'request not decodable, method id without a message '
                                                       'mapping, or server not ready'}},
           'register_op_type': {'doc': 'RegisterRequestC2B.opType: method 15 both registers a consumer on a '
                                       'partition and, with MSG_OPTYPE_UNREGISTER, releases it (the '
                                       'consumer\'s "close" at the broker).',
                                'source': 'TC/corerpc/RpcConstants.java',
                                'values': {'MSG_OPTYPE_REGISTER': 31, 'MSG_OPTYPE_UNREGISTER': 32}},
           'event_type': {'doc': 'EventProto.opType: the rebalance instruction. The master sends DISCONNECT '
                                 '/ ONLY_DISCONNECT and CONNECT / ONLY_CONNECT; consumers treat ONLY_* like '
                                 'the plain ones.',
                          'source': 'TC/corebase/balance/EventType.java',
                          'values': {'CONNECT': 1,
                                     'DISCONNECT': 2,
                                     'REPORT': 3,
                                     'REFRESH': 4,
                                     'STOPREBALANCE': 5,
                                     'ONLY_CONNECT': 10,
                                     'ONLY_DISCONNECT': 20,
                                     'UNKNOWN': -1},
                          'value_docs': {'CONNECT': 'connect to the listed partitions after disconnecting '
                                                    'from others',
                                         'DISCONNECT': 'disconnect from the listed partitions',
                                         'REPORT': 'report the current subscription',
                                         'REFRESH': 'refresh the whole published-topic view',
                                         'STOPREBALANCE': 'stop the rebalance thread',
                                         'ONLY_CONNECT': 'connect only (nothing was removed)',
                                         'ONLY_DISCONNECT': 'disconnect only (nothing to add)',
                                         'UNKNOWN': 'any value not listed'}},
           'event_status': {'doc': 'EventProto.status: the master creates an event as TODO and marks it '
                                   'PROCESSING when it is delivered in a heartbeat response; the consumer '
                                   'reports DONE in its next heartbeat.',
                            'source': 'TC/corebase/balance/EventStatus.java',
                            'values': {'TODO': 0, 'PROCESSING': 1, 'DONE': 2, 'UNKNOWN': -1, 'FAILED': -2}},
           'consume_model': {'doc': 'RegisterRequestC2B.readStatus and HeartBeatRequestC2B.readStatus, where '
                                    'a consumer starts reading.',
                             'source': 'TC/corebase/TBaseConstants.java',
                             'constant_prefix': 'CONSUME_MODEL_',
                             'values': {'READ_NORMAL': 0, 'READ_FROM_MAX': 1, 'READ_FROM_MAX_ALWAYS': 2}},
           'error_code': {'doc': 'errCode of the business responses (TErrCodeConstants). Business errors '
                                 'travel in SUCCESS responses with success=false (or, in the V2 messages, '
                                 'errCode alone), never as exceptions.',
                          'source': 'TC/corebase/TErrCodeConstants.java',
                          'values': {'SUCCESS': 200,
                                     'NOT_READY': 201,
                                     'MOVED': 301,
                                     'BAD_REQUEST': 400,
                                     'UNAUTHORIZED': 401,
                                     'CONNECT_RETURN_NULL': 402,
                                     'FORBIDDEN': 403,
                                     'NOT_FOUND': 404,
                                     'ALL_PARTITION_FROZEN': 405,
                                     'NO_PARTITION_ASSIGNED': 406,
                                     'ALL_PARTITION_WAITING': 407,
                                     'ALL_PARTITION_INUSE': 408,
                                     'PARTITION_OCCUPIED': 410,
                                     'HB_NO_NODE': 411,
                                     'DUPLICATE_PARTITION': 412,
                                     'CERTIFICATE_FAILURE': 415,
                                     'SERVER_RECEIVE_OVERFLOW': 419,
                                     'CLIENT_SHUTDOWN': 420,
                                     'CLIENT_HIGH_FREQUENCY_REQUEST': 421,
                                     'PARTITION_UNSUBSCRIBABLE': 422,
                                     'PARTITION_UNPUBLISHABLE': 423,
                                     'CLIENT_INCONSISTENT_CONSUMETYPE': 424,
                                     'CLIENT_INCONSISTENT_TOPICSET': 425,
                                     'CLIENT_INCONSISTENT_FILTERSET': 426,
                                     'CLIENT_INCONSISTENT_SESSIONKEY': 427,
                                     'CLIENT_INCONSISTENT_SELECTBIG': 428,
                                     'CLIENT_INCONSISTENT_SOURCECOUNT': 429,
                                     'CLIENT_DUPLICATE_INDEXID': 430,
                                     'TOPIC_NOT_DEPLOYED': 431,
                                     'PARAMETER_MSG_NULL': 440,
                                     'PARAMETER_MSG_TOPIC_BLANK': 441,
                                     'PARAMETER_MSG_BODY_EMPTY': 442,
                                     'PARAMETER_MSG_TOPIC_UNPUBLISHED': 443,
                                     'PARAMETER_MSG_TOPIC_NO_PARTITION': 444,
                                     'PARAMETER_MSG_OVER_MAX_LENGTH': 445,
                                     'CONSUME_GROUP_FORBIDDEN': 450,
                                     'SERVER_CONSUME_SPEED_LIMIT': 452,
                                     'CONSUME_CONTENT_FORBIDDEN': 455,
                                     'INTERNAL_SERVER_ERROR': 500,
                                     'SERVICE_UNAVAILABLE': 503,
                                     'INTERNAL_SERVER_ERROR_MSGSET_NULL': 510,
                                     'UNSPECIFIED_ABNORMAL': 599},
                          'value_docs': {'FORBIDDEN': "also the broker's answer to a SendMessageRequestP2B "
                                                      'whose checkSum does not match',
                                         'PARTITION_OCCUPIED': 'another consumer of the group still holds '
                                                               'the partition (retry next rebalance)',
                                         'HB_NO_NODE': 'used in HeartBeatResponseB2C.failureInfo entries',
                                         'DUPLICATE_PARTITION': 'used in HeartBeatResponseB2C.failureInfo '
                                                                'entries'},
                          'sets': {'IGNORE_ERROR_SET': [400, 404, 405, 406, 407, 408]}}},
 'methods': [{'id': 1,
              'name': 'producerRegisterP2M',
              'constant': 'RPC_MSG_MASTER_PRODUCER_REGISTER',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'RegisterRequestP2M',
              'response': 'RegisterResponseM2P',
              'doc': 'A producer registers with the master and receives the broker list.'},
             {'id': 2,
              'name': 'producerHeartbeatP2M',
              'constant': 'RPC_MSG_MASTER_PRODUCER_HEARTBEAT',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'HeartRequestP2M',
              'response': 'HeartResponseM2P',
              'doc': 'Producer heartbeat; the answer carries topic partitions and, if changed, brokers.'},
             {'id': 3,
              'name': 'producerCloseClientP2M',
              'constant': 'RPC_MSG_MASTER_PRODUCER_CLOSECLIENT',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'CloseRequestP2M',
              'response': 'CloseResponseM2P',
              'doc': 'A producer leaves the master.'},
             {'id': 4,
              'name': 'consumerRegisterC2M',
              'constant': 'RPC_MSG_MASTER_CONSUMER_REGISTER',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'RegisterRequestC2M',
              'response': 'RegisterResponseM2C',
              'doc': 'A group consumer registers with the master (partitions come later, in heartbeats).'},
             {'id': 5,
              'name': 'consumerHeartbeatC2M',
              'constant': 'RPC_MSG_MASTER_CONSUMER_HEARTBEAT',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'HeartRequestC2M',
              'response': 'HeartResponseM2C',
              'doc': 'Consumer heartbeat; carries rebalance events (EventProto) both ways.'},
             {'id': 6,
              'name': 'consumerCloseClientC2M',
              'constant': 'RPC_MSG_MASTER_CONSUMER_CLOSECLIENT',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'CloseRequestC2M',
              'response': 'CloseResponseM2C',
              'doc': 'A consumer leaves the master.'},
             {'id': 7,
              'name': 'brokerRegisterB2M',
              'constant': 'RPC_MSG_MASTER_BROKER_REGISTER',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'RegisterRequestB2M',
              'response': 'RegisterResponseM2B',
              'doc': 'A broker registers with the master and receives its configuration.'},
             {'id': 8,
              'name': 'brokerHeartbeatB2M',
              'constant': 'RPC_MSG_MASTER_BROKER_HEARTBEAT',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'HeartRequestB2M',
              'response': 'HeartResponseM2B',
              'doc': 'Broker heartbeat; the answer may carry configuration changes and stop orders.'},
             {'id': 9,
              'name': 'brokerCloseClientB2M',
              'constant': 'RPC_MSG_MASTER_BROKER_CLOSECLIENT',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'CloseRequestB2M',
              'response': 'CloseResponseM2B',
              'doc': 'A broker leaves the master.'},
             {'id': 13,
              'name': 'sendMessageP2B',
              'constant': 'RPC_MSG_BROKER_PRODUCER_SENDMESSAGE',
              'service_type': 'BROKER_WRITE_SERVICE',
              'accepted_service_types': ['BROKER_WRITE_SERVICE', 'BROKER_READ_SERVICE'],
              'request': 'SendMessageRequestP2B',
              'response': 'SendMessageResponseB2P',
              'doc': 'A producer sends one message to a broker partition. The Java and C++ clients send '
                     'service type 3; the Go client sends 2, which the server also accepts.'},
             {'id': 15,
              'name': 'consumerRegisterC2B',
              'constant': 'RPC_MSG_BROKER_CONSUMER_REGISTER',
              'service_type': 'BROKER_READ_SERVICE',
              'accepted_service_types': ['BROKER_READ_SERVICE'],
              'request': 'RegisterRequestC2B',
              'response': 'RegisterResponseB2C',
              'doc': 'A consumer takes (opType 31) or releases (opType 32) a partition at the broker; the '
                     "release is the consumer's close towards the broker."},
             {'id': 16,
              'name': 'consumerHeartbeatC2B',
              'constant': 'RPC_MSG_BROKER_CONSUMER_HEARTBEAT',
              'service_type': 'BROKER_READ_SERVICE',
              'accepted_service_types': ['BROKER_READ_SERVICE'],
              'request': 'HeartBeatRequestC2B',
              'response': 'HeartBeatResponseB2C',
              'doc': 'Consumer heartbeat to a broker for the partitions it holds there.'},
             {'id': 17,
              'name': 'getMessagesC2B',
              'constant': 'RPC_MSG_BROKER_CONSUMER_GETMESSAGE',
              'service_type': 'BROKER_READ_SERVICE',
              'accepted_service_types': ['BROKER_READ_SERVICE'],
              'request': 'GetMessageRequestC2B',
              'response': 'GetMessageResponseB2C',
              'doc': 'A consumer pulls messages from a partition.'},
             {'id': 18,
              'name': 'consumerCommitC2B',
              'constant': 'RPC_MSG_BROKER_CONSUMER_COMMIT',
              'service_type': 'BROKER_READ_SERVICE',
              'accepted_service_types': ['BROKER_READ_SERVICE'],
              'request': 'CommitOffsetRequestC2B',
              'response': 'CommitOffsetResponseB2C',
              'doc': 'A consumer confirms its last pull (pull and commit come in pairs).'},
             {'id': 20,
              'name': 'consumerRegisterC2MV2',
              'constant': 'RPC_MSG_MASTER_CONSUMER_REGISTER_V2',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'RegisterRequestC2MV2',
              'response': 'RegisterResponseM2CV2',
              'doc': 'V2 (client-side balancing) consumer registration with the master.'},
             {'id': 21,
              'name': 'consumerHeartbeatC2MV2',
              'constant': 'RPC_MSG_MASTER_CONSUMER_HEARTBEAT_V2',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'HeartRequestC2MV2',
              'response': 'HeartResponseM2CV2',
              'doc': 'V2 consumer heartbeat to the master.'},
             {'id': 22,
              'name': 'consumerGetPartMetaInfoC2M',
              'constant': 'RPC_MSG_MASTER_CONSUMER_GET_PART_META',
              'service_type': 'MASTER_SERVICE',
              'accepted_service_types': ['MASTER_SERVICE'],
              'request': 'GetPartMetaRequestC2M',
              'response': 'GetPartMetaResponseM2C',
              'doc': 'A V2 consumer fetches partition metadata newer than the ids it holds.'}],
 'methods_source': 'TC/corerpc/RpcConstants.java (RPC_MSG_*); TC/corerpc/codec/PbEnDecoder.java (name map, '
                   'pbDecode, isValidServiceTypeAndMethod)',
 'unsupported_methods': {'doc': 'Ids with an RpcConstants name that pass the service-type check but have no '
                                'message mapping: the server fails to decode them and answers status FATAL, '
                                'stackTrace "IPC server handle request error :Unsupported method ID :<id>" '
                                '(see answers.unsupported_method). No client sends them.',
                         'source': 'TC/corerpc/RpcConstants.java; TC/corerpc/codec/PbEnDecoder.java '
                                   '(pbDecode)',
                         'entries': [{'id': 11,
                                      'constant': 'RPC_MSG_BROKER_PRODUCER_REGISTER',
                                      'accepted_service_types': ['BROKER_READ_SERVICE',
                                                                 'BROKER_WRITE_SERVICE']},
                                     {'id': 12,
                                      'constant': 'RPC_MSG_BROKER_PRODUCER_HEARTBEAT',
                                      'accepted_service_types': ['BROKER_READ_SERVICE',
                                                                 'BROKER_WRITE_SERVICE']},
                                     {'id': 14,
                                      'constant': 'RPC_MSG_BROKER_PRODUCER_CLOSE',
                                      'accepted_service_types': ['BROKER_WRITE_SERVICE']},
                                     {'id': 19,
                                      'constant': 'RPC_MSG_BROKER_CONSUMER_CLOSE',
                                      'accepted_service_types': ['BROKER_READ_SERVICE']}]},
 'unmapped_messages': {'doc': 'Top-level exchange messages in the .proto files that no method id selects and '
                              'no Java code uses at the studied commit (the V2 broker <-> master exchange). '
                              'The helper messages they are built from (BrokerConfigInfo, BrokerOperateInfo, '
                              '...) are not listed.',
                       'source': 'TP/MasterService.proto; TC/corerpc/codec/PbEnDecoder.java',
                       'messages': ['RegisterRequest_V2_B2M',
                                    'RegisterResponse_V2_M2B',
                                    'HeartRequest_V2_B2M',
                                    'HeartResponse_V2_M2B',
                                    'CloseRequest_V2_B2M',
                                    'CloseResponse_V2_M2B']},
 'answers': {'doc': 'Which ResponseHeader fields each kind of answer sets, and the text of FATAL answers. '
                    'SUCCESS and ERROR answers are written by NettyRequestContext.prepareResponse, which '
                    "sets status and protocolVer (the server's, 3). FATAL answers are written by "
                    "NettyRpcServer's own prepareResponse, straight from channelRead: the request could not "
                    'be read (or the server is not running yet), or its message could not be decoded or '
                    'handed over (a method id without a message mapping); that builder sets only status, so '
                    'a FATAL ResponseHeader is the 2 bytes 08 02 and has no protocolVer. Its '
                    "RspExceptionBody carries the exception's class name (rewritten by the request's "
                    'protocolVer as for ERROR, see protocol_version) and, as stackTrace, a fixed prefix '
                    "directly followed by the exception's message. No serviceType in any answer. Checked at "
                    'the commit in `upstream`.',
             'source': 'TC/corerpc/netty/NettyRequestContext.java (prepareResponse); '
                       'TC/corerpc/netty/NettyRpcServer.java (NettyServerHandler.channelRead, '
                       'NettyServerHandler.prepareResponse); TC/corerpc/utils/MixUtils.java '
                       '(replaceClassNamePrefix)',
             'response_header_fields': {'SUCCESS': ['status', 'protocolVer'],
                                        'ERROR': ['status', 'protocolVer'],
                                        'FATAL': ['status']},
             'fatal_stack_trace_prefixes': {'read': {'text': 'IPC server unable to read call parameters:',
                                                     'doc': 'RpcConnHeader, RequestHeader or RequestBody '
                                                            'could not be parsed, or the server is not '
                                                            'running yet (ServerNotReadyException, '
                                                            '"RpcServer is not running yet").'},
                                            'handle': {'text': 'IPC server handle request error :',
                                                       'doc': 'The envelope was read but the request could '
                                                              'not be handed to its service: the business '
                                                              'message did not decode, or its method id has '
                                                              'no message mapping (unsupported_method).'}},
             'unsupported_method': {'exception_name': 'java.lang.Exception',
                                    'message_format': 'Unsupported method ID :{id}',
                                    'stage': 'handle',
                                    'source': 'TC/corerpc/codec/PbEnDecoder.java (pbDecode)'},
             'unreadable_request': {'doc': 'A request whose frame is whole but whose envelope '
                                           '(RpcConnHeader, RequestHeader, RequestBody) protobuf-java cannot '
                                           'parse (stage read), or whose business message pbDecode cannot '
                                           "parse (stage handle): the parser's exception, answered FATAL "
                                           "under the frame's serial; the connection stays open and the next "
                                           "frame is read. The text after the prefix is protobuf-java's own "
                                           'message, which the reference servers do not reproduce: they '
                                           "write their decoder's reason there.",
                                    'exception_name': 'com.google.protobuf.InvalidProtocolBufferException',
                                    'envelope_stage': 'read',
                                    'message_stage': 'handle',
                                    'source': 'TC/corerpc/netty/NettyRpcServer.java '
                                              '(NettyServerHandler.channelRead)'}}}

"""Generated from specs/tubemq/conformance.yaml. Do not edit."""

DATA = {'doc': 'What the strict TubeMQ peers check (inlong_proto/core/conformance.py reads this table): the master '
        'and the\n'
        'broker (`inlong-proto tubemq master|broker --strict FILE`) check every byte a client sends, the '
        'producer and\n'
        'the consumer (`inlong-proto tubemq produce|consume --strict FILE`) every answer. Each rule with '
        '`upstream`\n'
        'is one the real server enforces (the file, at the commit '
        'docs/protocols/inlong-dataproxy-and-tubemq.md was\n'
        'verified against), and `answer` is what it does then, which the reference servers do too; rules '
        'without\n'
        "`upstream` are the specs', which the real server leaves unchecked.\n",
 'rules': [{'id': 'tubemq.begin-token',
            'expects': 'every frame starts with the begin token FF 7F F4 FE',
            'spec': 'specs/tubemq/tubemq_frame.ksy#id: begin_token',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyProtocolDecoder.java',
            'answer': 'no answer; the connection is closed'},
           {'id': 'tubemq.list-size',
            'expects': "a frame's list size is 1 to 3584 blocks (0 never completes in the Java decoder)",
            'spec': 'specs/tubemq/tubemq_frame.ksy#id: list_size',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyProtocolDecoder.java',
            'answer': 'no answer; the connection is closed'},
           {'id': 'tubemq.block-len',
            'expects': 'every block holds 0 to 8192 bytes (RPC_MAX_BUFFER_SIZE; the C++ client refuses more)',
            'spec': 'specs/tubemq/tubemq_frame.ksy#id: block_len',
            'answer': 'no answer; the connection is closed (the Java server reads any block length)'},
           {'id': 'tubemq.max-frame-size',
            'expects': "a request frame fits the server's frame limit (3584 blocks of 8192 bytes at most)",
            'spec': 'specs/tubemq/tubemq_frame.ksy#max-frame-size',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyProtocolDecoder.java',
            'answer': 'no answer; the connection is closed'},
           {'id': 'tubemq.whole-frames',
            'expects': 'a client closes its connection between frames, never inside one',
            'spec': 'specs/tubemq/tubemq_frame.ksy#There is no total length',
            'answer': 'the bytes of the cut frame are dropped'},
           {'id': 'tubemq.rpc-envelope',
            'expects': "a request's blocks hold RpcConnHeader, RequestHeader and RequestBody, each "
                       'length-delimited, and the business message its method id names',
            'spec': 'specs/tubemq/methods.yaml#request: [RpcConnHeader, RequestHeader, RequestBody]',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyRpcServer.java',
            'answer': 'FATAL under the frame\'s serial ("IPC server unable to read call parameters:" for the '
                      'envelope, "IPC server handle request error :" for the business message; methods.yaml '
                      'answers.unreadable_request), and the connection goes on'},
           {'id': 'tubemq.serial-order',
            'expects': "a client numbers its requests on a connection upwards (as the Java client's counter "
                       'does), so no serial repeats one whose answer may still be on its way',
            'spec': 'specs/tubemq/tubemq_frame.ksy#Request id chosen by the caller',
            'answer': 'answered as usual; the client may match the answer to the wrong call'},
           {'id': 'tubemq.method-known',
            'expects': "a request's method id is one with a message mapping (not 11, 12, 14, 19 or unknown)",
            'spec': 'specs/tubemq/methods.yaml#unsupported_method:',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/codec/PbEnDecoder.java',
            'answer': 'a FATAL answer "Unsupported method ID :<id>"'},
           {'id': 'tubemq.service-method',
            'expects': "a request goes to the server that serves its method (the master's methods to the "
                       "master, the broker's to the broker)",
            'spec': 'specs/tubemq/methods.yaml#accepted_service_types: every service type',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/protocol/RpcProtocol.java',
            'answer': 'an ERROR answer, java.lang.Exception "Unsupported method <id>in service type '
                      '<type>!"'},
           {'id': 'tubemq.timeout',
            'expects': "a request carries a positive RequestBody.timeout (the Java client's default is 10000 "
                       'ms)',
            'spec': 'specs/tubemq/RPC.proto#optional int64 timeout = 2',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyRpcServer.java',
            'answer': 'no answer (the request counts as expired)'},
           {'id': 'tubemq.required-fields',
            'expects': 'a register with the master names its clientId, at least one topic and, for a '
                       'consumer, its group',
            'spec': 'specs/tubemq/MasterService.proto#required string clientId = 1',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/master/TMaster.java',
            'answer': 'success=false, errCode 400 "Request miss necessary <field> field!"'},
           {'id': 'tubemq.register-first',
            'expects': 'a client registers before it heartbeats the master, and a consumer registers on a '
                       'partition at the broker before it fetches, commits, heartbeats or releases it',
            'spec': 'specs/tubemq/methods.yaml#A group consumer registers with the master',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/master/TMaster.java',
            'answer': "errCode 411 HB_NO_NODE (at the broker's heartbeat, a 411 failureInfo entry)"},
           {'id': 'tubemq.heartbeat-timeout',
            'expects': 'a registered client heartbeats (a consumer also fetches) within the session timeout '
                       '(30 s here), or it is forgotten and must register again',
            'spec': 'specs/tubemq/methods.yaml#Producer heartbeat; the answer carries',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/master/TMaster.java',
            'answer': 'errCode 411 HB_NO_NODE, the client forgotten'},
           {'id': 'tubemq.partition-owner',
            'expects': 'a consumer fetches, commits and heartbeats only the partitions it holds at the '
                       'broker',
            'spec': 'specs/tubemq/methods.yaml#A consumer pulls messages from a partition',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/broker/BrokerServiceServer.java',
            'answer': 'errCode 412 DUPLICATE_PARTITION (401 for a commit, a 412 failureInfo entry for a '
                      'heartbeat)'},
           {'id': 'tubemq.register-op',
            'expects': "a consumer's register at the broker has opType 31 (register) or 32 (release)",
            'spec': 'specs/tubemq/methods.yaml#MSG_OPTYPE_REGISTER: 31',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/broker/BrokerServiceServer.java',
            'answer': 'errCode 400 "Invalid request:<opType>"'},
           {'id': 'tubemq.message-size',
            'expects': "a message's data is 1 byte to the topic's maximum message size (1 MiB by default)",
            'spec': 'specs/tubemq/BrokerService.proto#required bytes data = 4',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/broker/BrokerServiceServer.java',
            'answer': 'errCode 400 "data length is zero!" or "data length over max length, ..."'},
           {'id': 'tubemq.checksum',
            'expects': "a message's checkSum is -1 or CRC32(data) & 0x7FFFFFFF",
            'spec': 'specs/tubemq/BrokerService.proto#CRC32(data) & 0x7FFFFFFF, or -1',
            'upstream': 'apache/inlong@a6c7a6a670c3 '
                        'inlong-tubemq/tubemq-server/src/main/java/org/apache/inlong/tubemq/server/broker/BrokerServiceServer.java',
            'answer': 'errCode 403 "Checksum msg data failure ..."'},
           {'id': 'tubemq.message-flag',
            'expects': 'a message whose flag has bit 0 set starts its data with a readable attribute header '
                       "(the Java producer's quirk Q-T11 sets the bit for an empty attribute without one)",
            'spec': 'specs/tubemq/BrokerService.proto#Bit 0 (0x1) = "data starts with an attribute header"',
            'answer': 'stored as sent (errCode 200); consumers misread the message'},
           {'id': 'tubemq.idle',
            'expects': 'a client sends a whole frame (a heartbeat at least) on every connection within the '
                       "idle timeout (the real server's 180 s read idle) and reads the answers it asked for",
            'spec': 'specs/tubemq/methods.yaml#Consumer heartbeat to a broker',
            'answer': 'the connection is closed'},
           {'id': 'tubemq.response-frame',
            'expects': 'every frame a server sends decodes as an RPC answer',
            'spec': 'specs/tubemq/tubemq_frame.ksy#RPC frame (both directions)',
            'answer': 'the client skips the bytes'},
           {'id': 'tubemq.response-serial',
            'expects': 'every answer echoes the serial of a request sent on the connection and still '
                       'waiting, once',
            'spec': 'specs/tubemq/tubemq_frame.ksy#the response echoes it',
            'answer': 'the client drops the answer; the call it was meant for times out'}]}

"""Generated from specs/eventmesh/conformance.yaml. Do not edit."""

DATA = {'doc': 'What the strict EventMesh peers check in the bytes the other side sends '
        '(inlong_proto/core/conformance.py\n'
        'reads this table): `inlong-proto eventmesh serve --strict FILE` (TCP), `http-serve --strict FILE` '
        '(the\n'
        'legacy request-code HTTP API) and `grpc-serve --strict FILE` check their clients; `eventmesh '
        'client`,\n'
        '`http-client` and `grpc-client` with --strict check the server. The frame rules (tcp-magic to '
        'tcp-body)\n'
        'hold in both directions. Each rule names the upstream code that enforces it at apache/eventmesh\n'
        '2527428788cb (1.12.0; facts in docs/protocols/eventmesh.md) and what the runtime answers; the '
        'strict peers\n'
        "answer the same, they only report. gRPC hides the bytes of a call, so a gRPC finding's offset is "
        'the\n'
        'number of the offending message on its call (0 for a unary request).\n',
 'rules': [{'id': 'eventmesh.tcp-magic',
            'expects': 'every frame starts with the magic "EventMesh" and the version "0000"',
            'spec': 'specs/eventmesh/tcp_frame.ksy#contents: EventMesh',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java',
            'answer': 'the connection is closed, silently (Codec.Decoder validateFlag; every decode error '
                      'closes the channel)'},
           {'id': 'eventmesh.tcp-package-length',
            'expects': 'the package length is 13 + header length + body length, at least 13, at most 4194296 '
                       '(a frame of at most 4 MiB), and the bytes it claims are sent',
            'spec': 'specs/eventmesh/tcp_frame.ksy#max: 4194296',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java',
            'answer': 'the connection is closed (TooLongFrameException / CorruptedFrameException in the '
                      'decoder)'},
           {'id': 'eventmesh.tcp-header-length',
            'expects': 'the header length is at least 1 and leaves the header inside the package',
            'spec': 'specs/eventmesh/tcp_frame.ksy#id: header_length',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java',
            'answer': 'the connection is closed'},
           {'id': 'eventmesh.tcp-header',
            'expects': 'the header is a UTF-8 JSON object of Header (code an int, seq and desc strings, '
                       'properties an object)',
            'spec': 'specs/eventmesh/tcp_header.schema.json#"title": "TcpHeader"',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/Header.java',
            'answer': 'the connection is closed (Jackson fails in Codec.Decoder)'},
           {'id': 'eventmesh.tcp-command',
            'expects': "the header's cmd names a Command (its enum name, case-sensitive, or its ordinal "
                       '0..36)',
            'spec': 'specs/eventmesh/tcp_header.schema.json#"x-inlong-enum": "Command"',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/Command.java',
            'answer': 'the connection is closed'},
           {'id': 'eventmesh.tcp-body',
            'expects': 'the body binds to the type its command carries (a UserAgent, a Subscription, a '
                       'message of its protocoltype, a JSON string)',
            'spec': 'specs/eventmesh/commands.yaml#body-kinds',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/tcp/codec/Codec.java',
            'answer': 'the connection is closed (deserializeBody fails)'},
           {'id': 'eventmesh.tcp-hello-first',
            'expects': 'a client opens its session with HELLO_REQUEST (only it and RECOMMEND_REQUEST go '
                       'without a session)',
            'spec': 'specs/eventmesh/commands.yaml#Opens a session; allowed without one',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/AbstractTCPServer.java',
            'answer': 'the command\'s reply with code 1 and desc "java.lang.Exception: no session is found", '
                      'same seq'},
           {'id': 'eventmesh.tcp-served-command',
            'expects': 'a client sends only the commands the runtime has a processor for (not server '
                       'commands, not the declared-only 28, 29, 31-34)',
            'spec': 'specs/eventmesh/commands.yaml#`sender` says who writes the command',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/EventMeshTCPServer.java',
            'answer': 'the same command echoed with code 1 and a NullPointerException text'},
           {'id': 'eventmesh.tcp-seq',
            'expects': 'every request a client sends carries a seq, which the reply echoes',
            'spec': 'specs/eventmesh/tcp_header.schema.json#Correlation id, echoed by the reply',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-sdks/eventmesh-sdk-java/src/main/java/org/apache/eventmesh/client/tcp/common/MessageUtils.java',
            'answer': 'answered as usual, with no seq to correlate by'},
           {'id': 'eventmesh.tcp-user-agent',
            'expects': 'HELLO_REQUEST\'s UserAgent has a version, a non-blank group and purpose "pub" or '
                       '"sub"',
            'spec': 'specs/eventmesh/bodies/user_agent.schema.json#HELLO also requires version',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/tcp/client/processor/HelloProcessor.java',
            'answer': 'HELLO_RESPONSE with code 1, then the session is closed'},
           {'id': 'eventmesh.tcp-subscription',
            'expects': 'SUBSCRIBE_REQUEST has a body whose topicList is not null (an empty one subscribes to '
                       'nothing), each item with a topic, a mode and a type',
            'spec': 'specs/eventmesh/bodies/subscription.schema.json#topicList',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/tcp/client/processor/SubscribeProcessor.java',
            'answer': 'SUBSCRIBE_RESPONSE with code 1 (no topicList is a NullPointerException there; an '
                      'unusable item is refused by this reference server)'},
           {'id': 'eventmesh.tcp-protocol-properties',
            'expects': 'a message to the server has the header properties protocoltype, protocolversion and '
                       'protocoldesc',
            'spec': 'specs/eventmesh/tcp_header.schema.json#protocoltype, protocolversion, protocoldesc on '
                    'messages',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-protocol-plugin/eventmesh-protocol-meshmessage/src/main/java/org/apache/eventmesh/protocol/meshmessage/resolver/tcp/TcpMessageProtocolResolver.java',
            'answer': "the message's ack with code 1 (a NullPointerException text)"},
           {'id': 'eventmesh.tcp-message',
            'expects': 'a message to the server is an event the runtime can convert (a protocoltype of '
                       'cloudevents or eventmeshmessage with a body of that type, a topic, extension names '
                       'of a-z and 0-9 only)',
            'spec': 'specs/eventmesh/commands.yaml#protocol-types',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/tcp/client/processor/MessageTransferProcessor.java',
            'answer': 'the message\'s ack with code 1 ("event is null" or the conversion\'s exception text)'},
           {'id': 'eventmesh.tcp-event-size',
            'expects': "a message's data is at most eventMesh.server.maxEventSize characters (1000 by "
                       'default)',
            'spec': 'specs/eventmesh/http.yaml#max-event-size',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/tcp/client/processor/MessageTransferProcessor.java',
            'answer': 'the message\'s ack with code 1, "event size exceeds the limit"'},
           {'id': 'eventmesh.tcp-ack-seq',
            'expects': 'a *_TO_CLIENT_ACK carries the seq of a push still awaiting its ack',
            'spec': 'specs/eventmesh/commands.yaml#Ack of ASYNC_MESSAGE_TO_CLIENT',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/tcp/client/processor/MessageAckProcessor.java',
            'answer': 'nothing (the ack matches no push and is dropped)'},
           {'id': 'eventmesh.tcp-heartbeat',
            'expects': 'a client sends a whole frame (its heartbeat, every 30 s in the Java SDK) within the '
                       'idle timeout',
            'spec': 'specs/eventmesh/commands.yaml#Client heartbeat (every 30 s in the Java SDK)',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/EventMeshTCPServer.java',
            'answer': 'the connection is closed (the idle handler)'},
           {'id': 'eventmesh.tcp-reply-seq',
            'expects': 'a reply echoes the seq of a request still waiting for it; pushes, LISTEN_RESPONSE, '
                       'redirects and goodbyes aside',
            'spec': 'specs/eventmesh/tcp_header.schema.json#Correlation id, echoed by the reply',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-sdks/eventmesh-sdk-java/src/main/java/org/apache/eventmesh/client/tcp/impl/AbstractEventMeshTCPSubHandler.java',
            'answer': 'the Java SDK drops a reply it finds no request for'},
           {'id': 'eventmesh.http-message',
            'expects': 'the bytes are HTTP/1.1 requests, each head at most 65536 bytes and each body within '
                       'the size limit',
            'spec': 'specs/eventmesh/http.yaml#max-head-bytes',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/AbstractHTTPServer.java',
            'answer': '400 (431, 413 for a head or body over the limit) with an empty body, then the '
                      'connection is closed'},
           {'id': 'eventmesh.http-method',
            'expects': 'a request is a GET or a POST',
            'spec': 'specs/eventmesh/http.yaml#allowed: [GET, POST]',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/AbstractHTTPServer.java',
            'answer': '405 with an empty body, then the connection is closed'},
           {'id': 'eventmesh.http-version',
            'expects': 'the version header is blank, 1.0 or 2.0',
            'spec': 'specs/eventmesh/http.yaml#allowed: ["1.0", "2.0"]',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/AbstractHTTPServer.java',
            'answer': '400 with an empty body, then the connection is closed'},
           {'id': 'eventmesh.http-request-code',
            'expects': 'the code header (the query parameter code for GET) is the decimal number of a served '
                       'request code',
            'spec': 'specs/eventmesh/http.yaml#The text must be exactly the decimal number of a served code',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/AbstractHTTPServer.java',
            'answer': '400 with retCode 2 "requestCode can\'t be null, or must be number"'},
           {'id': 'eventmesh.http-content-type',
            'expects': 'a POST body is sent as application/x-www-form-urlencoded',
            'spec': 'specs/eventmesh/http.yaml#content-type: application/x-www-form-urlencoded',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/util/HttpRequestUtil.java',
            'answer': 'nothing; the body is read as a form whatever its content type'},
           {'id': 'eventmesh.http-form',
            'expects': 'the form fields decode (no empty name or bad %-escape; JSON fields hold the JSON of '
                       'their type)',
            'spec': 'specs/eventmesh/http.yaml#an empty name or a bad %-escape makes the decoder',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/util/HttpRequestUtil.java',
            'answer': '500 with an empty body, then the connection is closed'},
           {'id': 'eventmesh.http-header-checks',
            'expects': 'where the request code has header checks (104, 203, 206, 207), the idc and sys '
                       'headers are non-blank and pid is all digits',
            'spec': 'specs/eventmesh/http.yaml#header-check',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/http/processor/SendAsyncMessageProcessor.java',
            'answer': 'retCode 6 "eventMesh protocol[header] error"'},
           {'id': 'eventmesh.http-required-fields',
            'expects': "every required form field of the request code's body is there and non-blank",
            'spec': 'specs/eventmesh/http.yaml#missing-ret-code',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/http/processor/SubscribeProcessor.java',
            'answer': 'retCode 7 "eventMesh protocol[body] error"'},
           {'id': 'eventmesh.http-event-size',
            'expects': "a message's content is at most eventMesh.server.maxEventSize characters (1000 by "
                       'default)',
            'spec': 'specs/eventmesh/http.yaml#max-event-size',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/http/processor/SendAsyncMessageProcessor.java',
            'answer': 'retCode 8 "event size exceeds the limit" (7 for MSG_SEND_SYNC)'},
           {'id': 'eventmesh.http-answer',
            'expects': 'the runtime answers a request with text/plain JSON holding retCode, retMsg and '
                       'resTime, and a code header naming the request code',
            'spec': 'specs/eventmesh/http.yaml#content-type: "text/plain; charset=UTF-8"',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/http/HttpCommand.java',
            'answer': 'the Java SDK fails the call when the answer does not parse'},
           {'id': 'eventmesh.grpc-method',
            'expects': 'a call names a method of PublisherService, ConsumerService or HeartbeatService in '
                       'package org.apache.eventmesh.cloudevents.v1',
            'spec': 'specs/eventmesh/eventmesh-service.proto#service PublisherService',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/boot/EventMeshGrpcServer.java',
            'answer': 'UNIMPLEMENTED'},
           {'id': 'eventmesh.grpc-message',
            'expects': "each request message parses as the method's protobuf message (CloudEvent or "
                       'CloudEventBatch)',
            'spec': 'specs/eventmesh/eventmesh-cloudevents.proto#message CloudEvent {',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-common/src/main/java/org/apache/eventmesh/common/protocol/grpc/cloudevents/CloudEvent.java',
            'answer': 'INTERNAL (the message does not deserialize)'},
           {'id': 'eventmesh.grpc-cloudevent',
            'expects': 'a CloudEvent has the attributes the CloudEvents specification requires (id, source, '
                       'spec_version and type), with spec_version 1.0 or 0.3',
            'spec': 'specs/eventmesh/eventmesh-cloudevents.proto#string spec_version = 3',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-protocol-plugin/eventmesh-protocol-cloudevents/src/main/java/org/apache/eventmesh/protocol/cloudevents/resolver/grpc/GrpcEventMeshCloudEventProtocolResolver.java',
            'answer': "the runtime reads the event with the CloudEvents SDK's protobuf format, whose builder "
                      'refuses an event without them (the answer that makes was not verified); the reference '
                      'server answers as for any event'},
           {'id': 'eventmesh.grpc-identity',
            'expects': 'the attributes idc, env, ip, pid (all digits), sys, username, passwd and language '
                       'are non-empty',
            'spec': 'specs/eventmesh/eventmesh-cloudevents.proto#spec_version and type are top-level',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/service/ServiceUtils.java',
            'answer': 'statuscode "6" EVENTMESH_PROTOCOL_HEADER_ERR'},
           {'id': 'eventmesh.grpc-publish',
            'expects': 'a published event has uniqueid, producergroup, subject and ttl, and data in the '
                       'oneof case its datacontenttype calls for',
            'spec': 'specs/eventmesh/eventmesh-cloudevents.proto#spec_version and type are top-level',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/service/ServiceUtils.java',
            'answer': 'statuscode "7" EVENTMESH_PROTOCOL_BODY_ERR'},
           {'id': 'eventmesh.grpc-subscription',
            'expects': 'a subscription has a consumergroup and text_data holding a JSON array of items, each '
                       'with a topic and a known mode and type',
            'spec': 'specs/eventmesh/eventmesh-service.proto#rpc subscribe(CloudEvent) returns (CloudEvent);',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/service/ConsumerService.java',
            'answer': 'statuscode "7" EVENTMESH_PROTOCOL_BODY_ERR'},
           {'id': 'eventmesh.grpc-heartbeat',
            'expects': 'a heartbeat has clienttype as ce_integer 1 (PUB) or 2 (SUB), the group that type '
                       'needs, and text_data holding a JSON array of items with a topic',
            'spec': 'specs/eventmesh/eventmesh-service.proto#service HeartbeatService',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/service/ServiceUtils.java',
            'answer': 'statuscode "7" EVENTMESH_PROTOCOL_BODY_ERR'},
           {'id': 'eventmesh.grpc-reply',
            'expects': 'a subscription_reply on a stream carries the seqnum or uniqueid of a requestReply '
                       'still waiting',
            'spec': 'specs/eventmesh/eventmesh-service.proto#rpc subscribeStream(stream CloudEvent) returns '
                    '(stream CloudEvent);',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/service/ConsumerService.java',
            'answer': 'nothing (the reply is dropped)'},
           {'id': 'eventmesh.grpc-stream-heartbeat',
            'expects': 'a stream subscriber sends something on its stream or a heartbeat within the idle '
                       'timeout',
            'spec': 'specs/eventmesh/eventmesh-service.proto#service HeartbeatService',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/consumer/ConsumerManager.java',
            'answer': 'the client is removed (eventMeshSessionExpiredInMills); its next heartbeat gets '
                      'statuscode "30" CLIENT_RESUBSCRIBE. The reference server also ends the stream with a '
                      '"30" message'},
           {'id': 'eventmesh.grpc-answer',
            'expects': "the runtime's answer is a CloudEvent with attributes statuscode (a known code, "
                       'ce_string) and responsemessage',
            'spec': 'specs/eventmesh/eventmesh-cloudevents.proto#statuscode / responsemessage',
            'upstream': 'apache/eventmesh@2527428788cb '
                        'eventmesh-runtime/src/main/java/org/apache/eventmesh/runtime/core/protocol/grpc/service/ServiceUtils.java',
            'answer': 'the Java SDK reads a missing statuscode as an empty, unknown code'}]}

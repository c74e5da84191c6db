"""TubeMQ RPC: frames (generated from specs/tubemq/tubemq_frame.ksy) and the protobuf layer inside."""
from inlong_proto.tubemq.rpc import (Call, MessageData, RpcException, RpcMessage, decode_rpc, exception_frame,
                                     fatal_frame, message_data, pair_calls, request_frame, response_frame,
                                     unsupported_method_frame)

__all__ = ["Call", "MessageData", "RpcException", "RpcMessage", "decode_rpc", "exception_frame", "fatal_frame",
           "message_data", "pair_calls", "request_frame", "response_frame", "unsupported_method_frame"]

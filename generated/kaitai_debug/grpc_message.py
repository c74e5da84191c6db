# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class GrpcMessage(KaitaiStruct):
    """One gRPC message as it travels in the DATA frames of an HTTP/2 stream (gRPC over HTTP/2,
    "Length-Prefixed-Message"): a compressed flag, a 4-byte length, then the message. A message may be cut
    across any number of DATA frames and a DATA frame may hold several messages; the reader joins a
    stream's DATA payloads first (inlong_proto.eventmesh.h2). EventMesh's messages are the protobuf types
    of eventmesh-service.proto (CloudEvent, CloudEventBatch) and, before 1.9.0, eventmesh-client.proto.
    
    .. seealso::
       (Requests: Length-Prefixed-Message) - https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md
    """
    SEQ_FIELDS = ["prefix", "message"]
    def __init__(self, _io, _parent=None, _root=None):
        super(GrpcMessage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['prefix']['start'] = self._io.pos()
        self.prefix = GrpcMessage.MessagePrefix(self._io, self, self._root)
        self.prefix._read()
        self._debug['prefix']['end'] = self._io.pos()
        self._debug['message']['start'] = self._io.pos()
        self.message = self._io.read_bytes(self.prefix.length)
        self._debug['message']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass
        self.prefix._fetch_instances()

    class MessagePrefix(KaitaiStruct):
        """Compressed flag and message length."""
        SEQ_FIELDS = ["compressed", "length"]
        def __init__(self, _io, _parent=None, _root=None):
            super(GrpcMessage.MessagePrefix, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['compressed']['start'] = self._io.pos()
            self.compressed = self._io.read_u1()
            self._debug['compressed']['end'] = self._io.pos()
            if not self.compressed <= 1:
                raise kaitaistruct.ValidationGreaterThanError(1, self.compressed, self._io, u"/types/message_prefix/seq/0")
            self._debug['length']['start'] = self._io.pos()
            self.length = self._io.read_u4be()
            self._debug['length']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass




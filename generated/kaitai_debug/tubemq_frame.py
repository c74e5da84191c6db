# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
import collections


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class TubemqFrame(KaitaiStruct):
    """Begin token, serial number and a counted list of sized blocks. There is no total length: a frame ends
    after its last block. The blocks' data, joined, is one stream of varint-length-delimited protobuf
    messages (RpcConnHeader, then RequestHeader + RequestBody or ResponseHeader + RspResponseBody /
    RspExceptionBody, see methods.yaml); writers cut that stream into blocks of exactly 8192 bytes, the
    last one holding the rest, with no regard for message boundaries.
    Limits differ per implementation (Java server: list_size <= 3584 and no block check; C++ client:
    <= 1024 blocks of 1..8192 bytes); this spec takes the server's list limit and refuses blocks over
    8192 bytes, so a frame is at most 12 + 3584 * 8196 bytes (the default max_frame_size).
    list_size 0 never completes in the Java decoder (quirk Q-T4), so it is refused here.
    
    .. seealso::
       apache/inlong@a6c7a6a670c3 inlong-tubemq/tubemq-core/src/main/java/org/apache/inlong/tubemq/corerpc/netty/NettyProtocolEncoder.java, netty/NettyProtocolDecoder.java; docs/protocols/inlong-dataproxy-and-tubemq.md, Part 2 (sections 2.1, 2.2)
    """
    SEQ_FIELDS = ["begin_token", "serial_no", "list_size", "blocks"]
    def __init__(self, _io, _parent=None, _root=None):
        super(TubemqFrame, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._debug = collections.defaultdict(dict)

    def _read(self):
        self._debug['begin_token']['start'] = self._io.pos()
        self.begin_token = self._io.read_bytes(4)
        self._debug['begin_token']['end'] = self._io.pos()
        if not self.begin_token == b"\xFF\x7F\xF4\xFE":
            raise kaitaistruct.ValidationNotEqualError(b"\xFF\x7F\xF4\xFE", self.begin_token, self._io, u"/seq/0")
        self._debug['serial_no']['start'] = self._io.pos()
        self.serial_no = self._io.read_s4be()
        self._debug['serial_no']['end'] = self._io.pos()
        self._debug['list_size']['start'] = self._io.pos()
        self.list_size = self._io.read_s4be()
        self._debug['list_size']['end'] = self._io.pos()
        if not self.list_size >= 1:
            raise kaitaistruct.ValidationLessThanError(1, self.list_size, self._io, u"/seq/2")
        if not self.list_size <= 3584:
            raise kaitaistruct.ValidationGreaterThanError(3584, self.list_size, self._io, u"/seq/2")
        self._debug['blocks']['start'] = self._io.pos()
        self._debug['blocks']['arr'] = []
        self.blocks = []
        for i in range(self.list_size):
            self._debug['blocks']['arr'].append({'start': self._io.pos()})
            _t_blocks = TubemqFrame.Block(self._io, self, self._root)
            try:
                _t_blocks._read()
            finally:
                self.blocks.append(_t_blocks)
            self._debug['blocks']['arr'][i]['end'] = self._io.pos()

        self._debug['blocks']['end'] = self._io.pos()


    def _fetch_instances(self):
        pass
        for i in range(len(self.blocks)):
            pass
            self.blocks[i]._fetch_instances()


    class Block(KaitaiStruct):
        """One piece of the message stream."""
        SEQ_FIELDS = ["block_len", "data"]
        def __init__(self, _io, _parent=None, _root=None):
            super(TubemqFrame.Block, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._debug = collections.defaultdict(dict)

        def _read(self):
            self._debug['block_len']['start'] = self._io.pos()
            self.block_len = self._io.read_s4be()
            self._debug['block_len']['end'] = self._io.pos()
            if not self.block_len >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.block_len, self._io, u"/types/block/seq/0")
            if not self.block_len <= 8192:
                raise kaitaistruct.ValidationGreaterThanError(8192, self.block_len, self._io, u"/types/block/seq/0")
            self._debug['data']['start'] = self._io.pos()
            self.data = self._io.read_bytes(self.block_len)
            self._debug['data']['end'] = self._io.pos()


        def _fetch_instances(self):
            pass




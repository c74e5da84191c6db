# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import bracketed_timestamp
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class BroadcastFrame(KaitaiStruct):
    """One frame of the simple broadcasting protocol: a client asks for everything after the last value it
    holds, the server replays its history and then pushes each new value in real time.
    
    Decisions on what the seed leaves open (the same in codec, server and client):
    * Integers are big-endian two's complement (Java DataOutputStream's `int`).
    * Timestamps include their brackets: 25 ASCII bytes (see bracketed_timestamp). A request frame is
      therefore 37 bytes and a response frame 38 bytes; no other size is valid.
    * A client that holds no data yet sends the epoch timestamp `[1970-01-01 00:00:00.000]` with
      last_data 0; the server finds no match and answers with status last_data_not_found.
    * The server matches a request by timestamp and value. When it finds them it replays every later
      item with status history; when it does not, the first replayed item carries status
      last_data_not_found and the rest of the history carries status history. Items produced after the
      replay carry status real_time. An empty history sends nothing until the first real-time item.
    * A frame is exactly as long as its total_length says, header included; total_length must equal
      8 plus the size of the body its command_id names.
    
    .. seealso::
       docs/protocols/broadcast.md (the Simple Broadcasting Protocol)
    """

    class Command(IntEnum):
        data_request = 0
        data_response = 1

    class Status(IntEnum):
        last_data_not_found = 48
        history = 49
        real_time = 50
    def __init__(self, _io, _parent=None, _root=None):
        super(BroadcastFrame, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.total_length = self._io.read_s4be()
        if not self.total_length >= 37:
            raise kaitaistruct.ValidationLessThanError(37, self.total_length, self._io, u"/seq/0")
        if not self.total_length <= 38:
            raise kaitaistruct.ValidationGreaterThanError(38, self.total_length, self._io, u"/seq/0")
        self.command_id = KaitaiStream.resolve_enum(BroadcastFrame.Command, self._io.read_s4be())
        if not isinstance(self.command_id, BroadcastFrame.Command):
            raise kaitaistruct.ValidationNotInEnumError(self.command_id, self._io, u"/seq/1")
        _on = self.command_id
        if _on == BroadcastFrame.Command.data_request:
            pass
            self._raw_body = self._io.read_bytes(self.total_length - 8)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = BroadcastFrame.DataRequest(_io__raw_body, self, self._root)
        elif _on == BroadcastFrame.Command.data_response:
            pass
            self._raw_body = self._io.read_bytes(self.total_length - 8)
            _io__raw_body = KaitaiStream(BytesIO(self._raw_body))
            self.body = BroadcastFrame.DataResponse(_io__raw_body, self, self._root)
        else:
            pass
            self.body = self._io.read_bytes(self.total_length - 8)
        _ = self.body
        if not self.total_length == 8 + (29 if self.command_id == BroadcastFrame.Command.data_request else 30):
            raise kaitaistruct.ValidationExprError(self.body, self._io, u"/seq/2")


    def _fetch_instances(self):
        pass
        _on = self.command_id
        if _on == BroadcastFrame.Command.data_request:
            pass
            self.body._fetch_instances()
        elif _on == BroadcastFrame.Command.data_response:
            pass
            self.body._fetch_instances()
        else:
            pass

    class DataRequest(KaitaiStruct):
        """Sent by a client on connect (and after every reconnect) to resume after its last value."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BroadcastFrame.DataRequest, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.last_timestamp = bracketed_timestamp.BracketedTimestamp(self._io)
            self.last_data = self._io.read_s4be()
            if not self.last_data >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.last_data, self._io, u"/types/data_request/seq/1")
            if not self.last_data <= 99:
                raise kaitaistruct.ValidationGreaterThanError(99, self.last_data, self._io, u"/types/data_request/seq/1")


        def _fetch_instances(self):
            pass
            self.last_timestamp._fetch_instances()


    class DataResponse(KaitaiStruct):
        """One value pushed by the server, tagged with how it relates to the client's request."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BroadcastFrame.DataResponse, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.status = KaitaiStream.resolve_enum(BroadcastFrame.Status, self._io.read_u1())
            if not isinstance(self.status, BroadcastFrame.Status):
                raise kaitaistruct.ValidationNotInEnumError(self.status, self._io, u"/types/data_response/seq/0")
            self.timestamp = bracketed_timestamp.BracketedTimestamp(self._io)
            self.data = self._io.read_s4be()
            if not self.data >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.data, self._io, u"/types/data_response/seq/2")
            if not self.data <= 99:
                raise kaitaistruct.ValidationGreaterThanError(99, self.data, self._io, u"/types/data_response/seq/2")


        def _fetch_instances(self):
            pass
            self.timestamp._fetch_instances()




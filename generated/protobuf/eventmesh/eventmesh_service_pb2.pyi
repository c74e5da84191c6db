from google.protobuf import empty_pb2 as _empty_pb2
from eventmesh import eventmesh_cloudevents_pb2 as _eventmesh_cloudevents_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

"""Generated: protocol name -> ((direction or None, frame codec module), ...). Do not edit."""

PROTOCOLS = {
    'broadcast': ((None, 'inlong_proto.generated.codec.broadcast.broadcast_frame'),),
    'dataproxy': (('request', 'inlong_proto.generated.codec.dataproxy.dataproxy_request'), ('response', 'inlong_proto.generated.codec.dataproxy.dataproxy_response')),
    'eventmesh': ((None, 'inlong_proto.generated.codec.eventmesh.tcp_frame'),),
    'eventmesh-frame': ((None, 'inlong_proto.generated.codec.eventmesh.eventmesh_wire_frame'),),
    'eventmesh-legacy': ((None, 'inlong_proto.generated.codec.eventmesh.tcp_frame_legacy'),),
    'tubemq': ((None, 'inlong_proto.generated.codec.tubemq.tubemq_frame'),),
}

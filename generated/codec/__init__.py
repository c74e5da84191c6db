"""Generated: protocol name -> frame codec module. Do not edit."""

PROTOCOLS = {
    'broadcast': 'inlong_proto.generated.codec.broadcast.broadcast_frame',
}

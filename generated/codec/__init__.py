"""Generated: protocol name -> ((direction or None, frame codec module), ...). Do not edit."""

PROTOCOLS = {
    'broadcast': ((None, 'inlong_proto.generated.codec.broadcast.broadcast_frame'),),
}

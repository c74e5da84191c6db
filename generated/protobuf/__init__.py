"""Generated protobuf messages and gRPC stubs. Do not edit."""

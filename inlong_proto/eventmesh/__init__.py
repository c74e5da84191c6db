"""Apache EventMesh runtime protocols (TCP, HTTP, gRPC)."""

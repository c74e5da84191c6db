"""inlong-proto: spec-driven codecs for the Apache InLong and EventMesh wire protocols."""

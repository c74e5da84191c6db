"""The project's own .ksy -> Python codec generator (decode, encode, frame probe, Arrow schema)."""

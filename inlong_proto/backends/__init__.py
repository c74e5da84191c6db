"""The backends behind one switch (``inlong_proto.backend()``): the compiled scanners, encoders and capture walker
(``compiled*``, over the C extensions built from generated/native) and the Kaitai reference parsers. The pure-Python
path is the core itself; these modules only make it faster or check it."""

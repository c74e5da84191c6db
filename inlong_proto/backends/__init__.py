"""The backends behind one switch (``inlong_proto.backend()``, backends.compiled.backend): the compiled scanners,
encoders, capture walker and payload layers (``compiled*``, over the one C extension inlong_proto._compiled built
from generated/native) and the Kaitai reference parsers. The pure-Python path is the core itself; these modules
only make it faster or check it."""

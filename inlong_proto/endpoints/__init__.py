"""Reference servers and clients for each protocol, the recording relay (tap) and the demo: examples of a kind,
built on the codecs; nothing below the command line imports them."""

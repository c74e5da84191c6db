"""Generated codecs. Do not edit."""

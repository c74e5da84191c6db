"""Simple broadcasting protocol: reference server and client over the generated codec."""

"""The official Kaitai Struct compiler's kaitai output, made importable by tools/ksygen/references.py.
Generated. Do not edit."""

# spec id -> why its module cannot be imported (the compiler wrote ??? for what its target lacks)
INCOMPLETE = {
}

"""Everything `make generate` writes from specs/. Never edited by hand."""

"""Generated from the YAML tables under specs/. Do not edit."""

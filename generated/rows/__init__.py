"""Generated Arrow row builders of the frame specs (tools/ksygen/rows.py). Do not edit."""

"""Generated Arrow row builders. Do not edit."""

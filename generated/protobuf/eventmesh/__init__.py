"""Generated. Do not edit."""

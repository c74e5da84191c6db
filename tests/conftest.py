import sys
from pathlib import Path

# tests import their helpers (vectors, backends, strategies) and tools/ by path.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

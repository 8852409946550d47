"""``python -m slotmath.cli`` (as ``python -m slotmath``)."""

import sys

from slotmath.cli import main

sys.exit(main())

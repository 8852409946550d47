import sys

from slotmath.cli import main

sys.exit(main())

"""slotmath: exact slot-game mathematics."""
__version__ = "0.1.0"

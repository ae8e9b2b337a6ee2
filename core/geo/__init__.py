"""Map providers behind one protocol, coordinates, and region packs."""

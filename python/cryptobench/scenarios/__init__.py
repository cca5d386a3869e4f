"""Application scenarios (DESIGN.md): each a module of its own."""

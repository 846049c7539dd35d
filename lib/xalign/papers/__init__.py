"""One package per paper: what that paper adds, its profiles, metadata, tables and figure assembly."""

"""Infrastructure: encoders, the offline model, the cache, paths and runtime helpers. Imports nothing above it."""

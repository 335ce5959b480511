// Compute pipelines: built on first use (not implemented yet).

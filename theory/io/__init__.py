"""File formats: the graph document (JSON) read and written with clear errors."""

"""reviewtool: reads a patch series the way a senior maintainer does."""

__version__ = "0.1.0"
TOOL_NAME = "reviewtool"

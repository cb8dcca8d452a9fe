"""``python -m kgagents.cli``: the same CLI as the ``kgagents`` script (MCP clients launch the tool server this way)."""

from kgagents.cli import app

app()

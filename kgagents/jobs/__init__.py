"""The application layer: what a user asks for (load these ontologies, match them, align this KG pair), as
functions the CLI and the public API both call. Benchmarks (the top-level ``benchmarks`` package, which the library
never imports) call them too and only add scoring and results files; nothing here writes a file unless given a path.
"""

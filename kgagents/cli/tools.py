"""``kgagents compile``, ``extract`` and ``serve-tools``: ontology-to-tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from kgagents.cli.common import (
    App,
    chat_or_none,
    config_option,
    connected,
    console,
    errors,
    input_file,
    job_settings,
    output_file,
    set_option,
)
from kgagents.errors import KgAgentsError

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

#: the extraction's on/off choices, shared by ``extract`` and ``bench text2kgbench`` (None: the setting's default)
RELATION_REPAIR = typer.Option(None, "--relation-repair/--no-relation-repair",
                               help="a fact refused for an entity's class: repaired with the relation named after "
                               "the class before re-typing the entity (setting relation_repair)")
RETYPE_OBJECTS = typer.Option(None, "--retype-objects/--no-retype-objects",
                              help="a fact refused for its object's class: repaired by re-typing the object, or "
                              "(--no-retype-objects) left out (setting retype_objects)")
REQUIRE_IN_TEXT = typer.Option(None, "--require-in-text/--any-names",
                               help="leave out entities and facts with a name that shares no word with the text "
                               "(setting require_in_text)")


@commands.command("compile")
def compile_cmd(
    ontology: Path = typer.Argument(..., help="T-Box: OWL (RDF/XML, Turtle, N-Triples) or a Text2KGBench ontology "
                                    "JSON"),
    json_out: Path = typer.Option(None, "--json", help="also write the catalogue (names, groups, JSON schemas) here"),
    markdown_out: Path = typer.Option(None, "--markdown", help="also write the catalogue as a markdown table here"),
) -> None:
    """Compile an ontology into typed tools and print the tool catalogue (no LLM, deterministic)."""
    from kgagents.tools.catalogue_view import catalogue_markdown, catalogue_table
    from kgagents.tools.compiler import compile_ontology

    output_file(json_out, "--json")
    output_file(markdown_out, "--markdown")
    catalogue = compile_ontology(ontology)
    console.print(catalogue_table(catalogue, console.width))
    if json_out is not None:
        import json

        json_out.write_text(json.dumps(catalogue.as_json(), indent=2) + "\n", encoding="utf-8")
        console.print(f"catalogue written to {json_out}")
    if markdown_out is not None:
        markdown_out.write_text(catalogue_markdown(catalogue, command=f"kgagents compile {ontology} --markdown "
                                                   f"{markdown_out}"), encoding="utf-8")
        console.print(f"catalogue written to {markdown_out}")


@commands.command("extract")
def extract_cmd(
    ontology: Path = typer.Option(..., "--ontology", help="T-Box (OWL or Text2KGBench JSON) whose tools are used"),
    text: str = typer.Option(None, "--text", help="the document text"),
    text_file: Path = typer.Option(None, "--text-file", help="read the document from this file"),
    triples: Path = typer.Option(None, "--triples", help="no-LLM mode: feed these given triples through the tools "
                                 "(TSV subject<TAB>relation<TAB>object, or JSON lines: {sub, rel, obj}, "
                                 "or either Text2KGBench shape, see docs/tools.md)"),
    abox: str = typer.Option(None, help="A-Box to write into (default: the ontology's name)"),
    no_llm: bool = typer.Option(False, "--no-llm", help="do not use a chat model"),
    no_feedback: bool = typer.Option(False, "--no-feedback", help="ablation: the agent sees only 'rejected'"),
    max_repairs: int = typer.Option(None, min=0, help="repair turns per document (default 4)"),
    ground_kg: str = typer.Option(None, help="ground created instances in this loaded KG (owl:sameAs)"),
    check_floor: float = typer.Option(None, help="check each stated fact with one one-token call and write it only "
                                      "when the model's log-odds of yes reach this (check_min_log_odds)"),
    propose_floor: float = typer.Option(None, help="also propose the facts whose signature fits two typed entities, "
                                        "written when the check's log-odds reach this (propose_min_log_odds)"),
    turtle: Path = typer.Option(None, help="write the resulting A-Box as Turtle here"),
    relation_repair: bool = RELATION_REPAIR,
    retype_objects: bool = RETYPE_OBJECTS,
    require_in_text: bool = REQUIRE_IN_TEXT,
    set_: list[str] = set_option("extract", "max_facts=24"),
    config: Path = config_option(),
) -> None:
    """Extract a document into Neo4j through the compiled tools: only valid instances are written; the run is
    recorded as a (:Run {job: 'extraction'})."""
    from kgagents.jobs.extraction import extract
    from kgagents.tools.compiler import compile_ontology
    from kgagents.tools.export import export_turtle
    from kgagents.tools.feed import read_triples_file

    output_file(turtle, "--turtle")
    input_file(ontology, "--ontology")
    input_file(text_file, "--text-file")
    given = read_triples_file(input_file(triples, "--triples")) if triples is not None else None
    if given is None and (text is None) == (text_file is None):
        raise KgAgentsError("give the document as --text TEXT or --text-file FILE (or --triples FILE to feed "
                            "given triples through the tools)")
    document = text if text is not None or text_file is None else text_file.read_text(encoding="utf-8")
    catalogue = compile_ontology(ontology)
    chat = None if given is not None else chat_or_none(no_llm)
    if chat is None and given is None:
        raise KgAgentsError("no_llm: without a chat model nothing is extracted from text; pass --triples FILE to feed "
                            "given triples through the tools (the documented no-LLM mode)")
    settings = job_settings("extract", sets=set_, config=config, chat=chat, feedback=False if no_feedback else None,
                            ground_kg=ground_kg, max_repairs=max_repairs, check_min_log_odds=check_floor,
                            propose_min_log_odds=propose_floor, relation_repair=relation_repair,
                            retype_objects=retype_objects, require_in_text=require_in_text).settings
    with connected() as graph:
        with console.status("extracting…"):
            run = extract(graph, catalogue, text=None if given is not None else document, triples=given, chat=chat,
                          settings=settings, abox=abox)
        _render_extraction(run)
        if turtle is not None:
            turtle.write_text(export_turtle(graph, run.output[0].abox), encoding="utf-8")
            console.print(f"A-Box written to {turtle}")


def _render_extraction(run: Any) -> None:
    import json

    [doc] = run.output
    for call in doc.calls:
        result = call["result"]
        outcome = "ok" if result.get("ok") else f"{result.get('error_type')}: {result.get('message')}"
        console.print(escape(f"[{call['step']}] {call['tool']}({json.dumps(call['args'], ensure_ascii=False)}) "
                             f"-> {outcome}"))
    p = run.properties
    console.print(escape(f"[{run.model}] run {run.run_id}, A-Box '{doc.abox}': {p['triples_written']} triples, "
                         f"{p['instances']} instances, {p['tool_calls']} tool calls ({p['rejected_calls']} rejected, "
                         f"{p['repairs']} repair turns), {p['grounded']} grounded, {run.llm.calls} LLM calls in "
                         f"{run.seconds:.1f}s"))


@commands.command("serve-tools")
def serve_tools_cmd(
    ontology: Path = typer.Argument(..., help="T-Box to compile (OWL or Text2KGBench JSON)"),
    http: int = typer.Option(None, "--http", min=1, max=65535,
                             help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio"),
    abox: str = typer.Option(None, help="A-Box the tools write (default: the ontology's name)"),
    token: str = typer.Option(None, "--token", envvar="KGAGENTS_MCP_TOKEN",
                              help="with --http: the bearer token clients must send (default: a new random one, "
                              "printed once on stderr)"),
) -> None:
    """Run the MCP server for an ontology's compiled tools (stdio by default; nothing else goes to stdout). Over
    HTTP, every request must carry `Authorization: Bearer <token>`; others get 401."""
    import secrets

    import anyio

    from kgagents.graph.connection import Graph
    from kgagents.tools.compiler import compile_ontology
    from kgagents.tools.mcp_server import serve_http, serve_stdio
    from kgagents.tools.runtime import ToolRuntime

    try:
        catalogue = compile_ontology(ontology)
        with Graph() as graph:
            runtime = ToolRuntime(graph, catalogue, abox=abox)
            errors.print(escape(f"{len(catalogue)} tools for {catalogue.tbox.name}, A-Box '{runtime.abox}', "
                                f"{f'http://127.0.0.1:{http}/mcp' if http else 'stdio'}"))
            if http:
                if token is None:
                    token = secrets.token_urlsafe(24)
                    errors.print(f"token (send it as 'Authorization: Bearer <token>'): {token}", highlight=False,
                                 soft_wrap=True)
                serve_http(runtime, http, token)
            else:
                anyio.run(serve_stdio, runtime)
    except KgAgentsError as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None

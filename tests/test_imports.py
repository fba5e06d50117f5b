"""The import graph has no cycles: not between modules, nor between the folders that name a job.

Imports inside functions count too: a lazy import only hides a cycle, it does not remove it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dokocam.engine
import dokocam.service
import dokocam.vision

ROOTS = {pkg.__name__: Path(next(iter(pkg.__path__))) for pkg in (dokocam.engine, dokocam.vision, dokocam.service)}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for name, root in ROOTS.items():
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([name, *parts])] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The dokocam modules ``name`` imports anywhere in its body (``from P import m`` counts m when it is a module)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        out |= {t for t in targets if t in MODULES and t != name}
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _area(module: str) -> str:
    """The folder a module belongs to: ``dokocam.vision.detector.model`` -> ``dokocam.vision.detector``."""
    path = MODULES[module]
    folder = path.parent if path.name != "__init__.py" else path.parent
    for name, root in ROOTS.items():
        if folder.is_relative_to(root):
            return ".".join([name, *folder.relative_to(root).parts])
    raise AssertionError(module)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read() -> None:
    assert "dokocam.engine.cards" in GRAPH["dokocam.engine.trick"]
    assert len(MODULES) > 50


def test_no_module_cycles() -> None:
    assert _cycles(GRAPH) == []


def _nested(a: str, b: str) -> bool:
    return a.startswith(b + ".") or b.startswith(a + ".")


def test_no_folder_cycles() -> None:
    """Sibling folders (``vision/synth``, ``vision/detector``) never import each other both ways.

    A folder and its own subfolders may (an app and its routers, as in FastAPI's template).
    """
    folders: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        here = _area(module)
        folders.setdefault(here, set()).update(
            _area(t) for t in targets if _area(t) != here and not _nested(_area(t), here)
        )
    assert _cycles(folders) == []


@pytest.mark.parametrize(
    ("graph", "expected"), [({"a": {"b"}, "b": {"a"}}, [["a", "b"]]), ({"a": {"b"}, "b": set()}, [])]
)
def test_cycles_are_found(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert _cycles(graph) == expected

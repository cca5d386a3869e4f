"""The package's layering, checked: the rules of docs/architecture.md ("Layers") and
STYLE.md ("Data flows one way ... nothing imports the command line; SQL lives only in the
store"), read from the code itself.

The layer order is read from the fenced `layers` block of docs/architecture.md, the same block
the document shows as its picture, so the test and the picture cannot disagree: a module may
import its own layer and the ones below it, never one above; every module of the package
stands in exactly one layer (a new file without a place fails until the picture names it).

Imports are read with `ast`, every one of them: at module level and inside functions (a lazy
import is a dependency too, only a later one). Imports by string (`importlib`, the scenario
registry's `lazy`) are not imports of the code and are not seen.
"""

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "cryptobench"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
MAX_LINES = 600
# Where Python files of the project live (the package, its tests, the Python runner).
PYTHON_TREES = (ROOT / "python", ROOT / "runners" / "python")


# ---- reading the package ---------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    target: str  # the module imported, dotted ("cryptobench.store.db")
    line: int


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, modules: set[str]) -> list[Import]:
    """Every import of a module of the package in one file, resolved to the module it loads:
    `from cryptobench import store` is the module cryptobench.store, `from cryptobench.store
    import Store` is cryptobench.store (its __init__)."""
    tree = ast.parse(path.read_text(), str(path))
    here = module_name(path)
    is_package = path.name == "__init__.py"
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "cryptobench":
                    found.append(Import(_nearest(alias.name, modules), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "cryptobench":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                target = sub if sub in modules else _nearest(base, modules)
                found.append(Import(target, node.lineno))
    return [i for i in found if i.target != here]


def _nearest(name: str, modules: set[str]) -> str:
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


@cache
def graph() -> dict[str, list[Import]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(f) for f in files}
    return {module_name(f): imports_of(f, modules) for f in files}


@cache
def files() -> dict[str, Path]:
    return {module_name(f): f for f in sorted(PACKAGE.rglob("*.py"))}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
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
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _show(component: list[str], edges: dict[str, set[str]]) -> str:
    inside = set(component)
    return "; ".join(
        f"{a} -> {b}" for a in component for b in sorted(edges.get(a, ())) if b in inside
    )


def child_of(package: str, module: str) -> str | None:
    """The direct child of `package` that holds `module` (`package.__init__` for the package's
    own __init__), or None when the module is outside it."""
    if module == package:
        return f"{package}.__init__"
    if not module.startswith(package + "."):
        return None
    return package + "." + module[len(package) + 1 :].split(".")[0]


# ---- the layers of docs/architecture.md --------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    name: str
    members: tuple[str, ...]  # paths under python/cryptobench: "store/", "plan.py"


def read_layers(text: str) -> list[Layer]:
    """The fenced `layers` block: one layer a line, top first, `name: member, member, ...`."""
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    assert block, f"{ARCHITECTURE} has no ```layers block"
    layers = []
    for line in block.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith(("│", "▲", "▼", "|")):
            continue
        name, _, members = line.partition(":")
        layers.append(
            Layer(name.strip(), tuple(m.strip() for m in members.split(",") if m.strip()))
        )
    return layers


def layer_of(module: str, layers: list[Layer]) -> int | None:
    """The index of the layer holding a module, counted from the bottom (0); a member naming a
    folder holds everything in it, the longest member that matches wins."""
    path = files()[module].relative_to(PACKAGE).as_posix()
    best: tuple[int, int] | None = None
    for i, layer in enumerate(reversed(layers)):
        for m in layer.members:
            hit = path == m or (m.endswith("/") and path.startswith(m))
            if hit and (best is None or len(m) > best[0]):
                best = (len(m), i)
    return None if best is None else best[1]


@cache
def layers() -> list[Layer]:
    return read_layers(ARCHITECTURE.read_text())


# ---- the rules ------------------------------------------------------------------------------


def test_no_import_cycle_between_modules():
    edges = {m: {i.target for i in imps} for m, imps in graph().items()}
    found = cycles(edges)
    assert not found, "import cycles: " + " | ".join(_show(c, edges) for c in found)


def packages() -> list[str]:
    return sorted(module_name(f) for f in PACKAGE.rglob("__init__.py"))


@pytest.mark.parametrize("package", packages())
def test_no_import_cycle_between_the_parts_of_a_package(package):
    """Within each package, its direct parts (modules and subpackages, each taken whole) import
    each other one way: `report` and `scenarios` may not lean on each other."""
    edges: dict[str, set[str]] = {}
    for module, imps in graph().items():
        a = child_of(package, module)
        if a is None:
            continue
        for imp in imps:
            b = child_of(package, imp.target)
            if b is not None and b != a:
                edges.setdefault(a, set()).add(b)
    found = cycles(edges)
    assert not found, f"{package}: " + " | ".join(_show(c, edges) for c in found)


def test_nothing_imports_the_command_line():
    bad = [
        f"{files()[m].relative_to(ROOT)}:{i.line} imports {i.target}"
        for m, imps in graph().items()
        if m != "cryptobench.__main__"
        for i in imps
        if i.target == "cryptobench.cli"
    ]
    assert not bad, "\n".join(bad)


SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)"
    r"|ALTER\s+TABLE|DROP\s+TABLE|PRAGMA\s+\w+)\b",
    re.S,
)


def sql_outside_the_store(path: Path) -> Iterable[str]:
    tree = ast.parse(path.read_text(), str(path))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for name in names:
                if name and name.split(".")[0] in ("sqlite3", "sqlalchemy", "alembic"):
                    yield f"{where}:{node.lineno} imports {name}"
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL.search(node.value)
        ):
            yield f"{where}:{node.lineno} holds SQL: {node.value[:60]!r}"


def test_sql_lives_only_in_the_store():
    store = PACKAGE / "store"
    bad = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if store not in path.parents
        for line in sql_outside_the_store(path)
    ]
    assert not bad, "\n".join(bad)


def test_the_sql_check_sees_sql(tmp_path):
    """The check above can fail: a query in a string and an sqlite3 import are found."""
    sample = tmp_path / "sample.py"
    sample.write_text('import sqlite3\nQ = "SELECT id FROM runs WHERE id = ?"\n')
    found = list(sql_outside_the_store(sample))
    assert len(found) == 2, found


def test_no_python_file_is_longer_than_600_lines():
    too_long = []
    for tree in PYTHON_TREES:
        for path in sorted(tree.rglob("*.py")):
            if any(p.startswith(".") or p in ("build", "__pycache__") for p in path.parts):
                continue
            lines = len(path.read_text().splitlines())
            if lines > MAX_LINES:
                too_long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not too_long, "\n".join(too_long)


def test_every_module_stands_in_one_layer_of_the_picture():
    names = [layer.name for layer in layers()]
    assert len(names) == len(set(names)), f"a layer named twice: {names}"
    members = [m for layer in layers() for m in layer.members]
    assert len(members) == len(set(members)), "a member in two layers"
    for m in members:
        assert (PACKAGE / m).exists(), f"docs/architecture.md names {m}, which is not there"
    lost = [m for m in graph() if layer_of(m, layers()) is None]
    assert not lost, f"modules on no layer of docs/architecture.md: {lost}"


def test_imports_follow_the_layers():
    """A module uses its own layer and the ones below, never one above (the picture's order)."""
    order = layers()
    bottom_up = list(reversed(order))
    against = []
    for module, imps in graph().items():
        mine = layer_of(module, order)
        for imp in imps:
            theirs = layer_of(imp.target, order)
            if mine is not None and theirs is not None and theirs > mine:
                against.append(
                    f"{files()[module].relative_to(ROOT)}:{imp.line}: {module} "
                    f"({bottom_up[mine].name}) imports {imp.target} ({bottom_up[theirs].name})"
                )
    assert not against, "\n".join(against)


def test_the_layer_check_sees_an_upward_import():
    """The rule above can fail: the store importing the report would stand against the order."""
    order = layers()
    assert layer_of("cryptobench.report", order) > layer_of("cryptobench.store.db", order)
    assert layer_of("cryptobench.cli", order) == len(order) - 1

"""Which tests can behave differently when the real files (../shared/data) are absent.

CI runs the whole suite with the real files beside the checkout, then the fast tier again as a clone with
nothing beside it would (``SHARED_DATA`` set to a missing folder). A test can only come out differently the
second time if its code reaches a value read from ``SHARED_DATA``; every other fast test does the same thing
both times, so the second run repeats only the tests found here (``tests/conftest.py`` marks them
``shared_path``).

Found from the source (``ast``), so a new reader of the variable is found the day it is written. A unit is a
top-level function, a class with its methods, or a module-level statement; what it refers to is resolved
through the module's imports (those inside functions too), so ``fs.sample`` is ``sample`` of
``tests/fault_samples.py`` and a local ``sample`` is not:
- roots: a unit that reads the variable (``os.environ.get("SHARED_DATA")``, ``os.environ["SHARED_DATA"]``,
  ``os.getenv("SHARED_DATA")``);
- a unit that refers to a tainted name taints the names it defines, until nothing changes;
- a test is marked when its own function (decorators included), one of its fixtures, or a top-level statement
  of its module that defines nothing (or sets ``pytestmark``) refers to a tainted name.
A unit is taken whole (any branch, any local name), so the analysis can add a test that does not need to run
twice, never leave out one that does.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ENV = "SHARED_DATA"
Ref = tuple[str, str]  # (module file, name defined at its top level)


@dataclass
class Unit:
    names: set[str]
    refs: set[Ref]
    reads_env: bool


@dataclass
class Module:
    units: list[Unit] = field(default_factory=list)
    by_name: dict[str, set[Ref]] = field(default_factory=dict)  # a defined name -> what its units refer to
    body_refs: set[Ref] = field(default_factory=set)  # statements run on import that define nothing


def _is_env_read(n: ast.AST) -> bool:
    if isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value == ENV:
        f = n.func
        return (isinstance(f, ast.Attribute) and f.attr in ("get", "getenv", "pop", "setdefault")) or (
            isinstance(f, ast.Name) and f.id == "getenv")
    return (isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and isinstance(n.slice, ast.Constant)
            and n.slice.value == ENV)


class Resolver:
    """Module names to files, for the modules of one folder (``tests.x`` and, for conftest, ``conftest``)."""

    def __init__(self, folder: Path):
        self.folder = folder.resolve()
        self.files = {p.stem: str(p.resolve()) for p in sorted(self.folder.glob("*.py"))}

    def module(self, dotted: str) -> str | None:
        head, _, stem = dotted.rpartition(".")
        return self.files.get(stem) if head in ("", self.folder.name) else None


def _imports(nodes, resolver: Resolver) -> tuple[dict[str, str], dict[str, Ref]]:
    """(alias -> module file, alias -> (module file, name)) of the import statements among ``nodes``."""
    modules: dict[str, str] = {}
    names: dict[str, Ref] = {}
    for n in nodes:
        if isinstance(n, ast.Import):
            for a in n.names:
                f = resolver.module(a.name)
                if f:
                    modules[a.asname or a.name] = f
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            src = resolver.module(n.module)
            for a in n.names:
                sub = resolver.module(f"{n.module}.{a.name}")
                if sub and not src:
                    modules[a.asname or a.name] = sub  # from tests import fault_samples as fs
                elif src:
                    names[a.asname or a.name] = (src, a.name)
    return modules, names


def _refs(node: ast.AST, here: str, top: set[str], modules: dict[str, str], names: dict[str, Ref],
          resolver: Resolver) -> set[Ref]:
    local_modules, local_names = _imports(ast.walk(node), resolver)
    modules, names = {**modules, **local_modules}, {**names, **local_names}
    refs: set[Ref] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if n.id in names:
                refs.add(names[n.id])
            elif n.id in top:
                refs.add((here, n.id))
        elif isinstance(n, ast.Attribute):
            v = n.value
            if isinstance(v, ast.Name) and v.id in modules:
                refs.add((modules[v.id], n.attr))
            elif (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "__import__" and v.args
                  and isinstance(v.args[0], ast.Constant) and resolver.module(str(v.args[0].value))):
                refs.add((resolver.module(str(v.args[0].value)) or "", n.attr))
    return refs


def _defines(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def analyse(source: str, here: str, resolver: Resolver) -> Module:
    body = ast.parse(source).body
    top = set().union(*(_defines(s) for s in body)) if body else set()
    modules, names = _imports(body, resolver)
    mod = Module()
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        refs = _refs(stmt, here, top, modules, names, resolver)
        defined = _defines(stmt)
        if not defined or "pytestmark" in defined:  # run on import, or read by pytest for every test
            mod.body_refs |= refs
        mod.units.append(Unit(defined, refs, any(_is_env_read(n) for n in ast.walk(stmt))))
        for name in defined:
            mod.by_name.setdefault(name, set()).update(refs)
    return mod


def tainted_refs(modules: dict[str, Module]) -> set[Ref]:
    """Every top-level name, with its module, whose value can depend on ``SHARED_DATA``."""
    tainted = {(f, name) for f, m in modules.items() for u in m.units if u.reads_env for name in u.names}
    changed = True
    while changed:
        changed = False
        for f, m in modules.items():
            for u in m.units:
                mine = {(f, name) for name in u.names}
                if mine - tainted and u.refs & tainted:
                    tainted |= mine
                    changed = True
    return tainted


class Finder:
    """Reads every module of a folder once; ``depends(...)`` then answers per test."""

    def __init__(self, folder: Path):
        self.resolver = Resolver(Path(folder))
        self.modules = {f: analyse(Path(f).read_text("utf-8"), f, self.resolver)
                        for f in self.resolver.files.values()}
        self.tainted = tainted_refs(self.modules)

    def reaches(self, path, name: str) -> bool:
        """True when ``name`` at the top of the module at ``path`` is, or refers to, a tainted name."""
        f = str(Path(path).resolve())
        mod = self.modules.get(f)
        return mod is not None and ((f, name) in self.tainted or bool(mod.by_name.get(name, set()) & self.tainted))

    def depends(self, path, function: str, fixtures) -> bool:
        """Whether a test (its module's file, its function or class name, and its fixtures as
        ``(file, function name)``) can come out differently without the real files."""
        mod = self.modules.get(str(Path(path).resolve()))
        if mod is None:
            return False
        return (bool(mod.body_refs & self.tainted) or self.reaches(path, function)
                or any(self.reaches(f, n) for f, n in fixtures))


def files_to_repeat(folder: Path) -> list[str]:
    """The test files that can hold a test ``Finder.depends`` marks, for CI's second run to collect alone
    (collecting every file costs each worker more than the tests it then runs). A file is listed when any of its
    top-level pieces refers to a tainted name, or names one as a string or an argument (a fixture of
    conftest.py taken by name, ``usefixtures``): a superset of the files with marked tests."""
    finder = Finder(folder)
    conftest = finder.resolver.files.get("conftest")
    fixtures = {name for f, name in finder.tainted if f == conftest}
    if conftest:  # and the fixtures of conftest.py that take one of those, however many steps away
        defs = [n for n in ast.parse(Path(conftest).read_text("utf-8")).body if isinstance(n, ast.FunctionDef)]
        changed = True
        while changed:
            grown = {d.name for d in defs if {a.arg for a in d.args.args} & fixtures}
            changed = not grown <= fixtures
            fixtures |= grown
    out = []
    for stem, f in finder.resolver.files.items():
        if not stem.startswith("test_"):
            continue
        mod = finder.modules[f]
        hit = any(u.refs & finder.tainted or {(f, n) for n in u.names} & finder.tainted for u in mod.units)
        tree = ast.parse(Path(f).read_text("utf-8"))
        named = {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                 for a in n.posonlyargs + n.args + n.kwonlyargs}
        named |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if hit or named & fixtures:
            out.append(str(Path(f).relative_to(finder.resolver.folder.parent)))
    return out


if __name__ == "__main__":  # python -m tests.shared_deps: the files CI's second run collects (Makefile)
    print(" ".join(files_to_repeat(Path(__file__).resolve().parent)))

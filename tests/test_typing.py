"""balout ships its types (PEP 561): a ``py.typed`` marker, annotations in
the Python modules and ``_core.pyi`` for the native extension. Type checkers
and editors then know ``State.legal_actions() -> List[int]`` instead of
``Any``, and flag a misspelt method in a bot author's code.

mypy is a test requirement (``pip install ".[test]"``)."""
import ast
import importlib.resources
import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from balout import _core

ROOT = Path(__file__).parent.parent
STUB = ROOT / "src" / "balout" / "_core.pyi"


def mypy(args, cwd):
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(Path(cwd) / ".mypy_cache"), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_package_ships_its_types():
    files = importlib.resources.files("balout")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("_core.pyi").is_file()


def test_the_package_type_checks(tmp_path):
    """mypy over src/balout (settings in pyproject.toml) finds nothing. What
    mypy infers depends on numpy's stubs: checked with numpy 2.0 to 2.5 and
    mypy 1.19 to 2.4 (Python 3.9 to 3.13, 2026-12-02)."""
    out = mypy(["--config-file", str(ROOT / "pyproject.toml"), str(ROOT / "src" / "balout")], tmp_path)
    assert out.returncode == 0 and "Success" in out.stdout, out.stdout + out.stderr


def _python_blocks(path: Path) -> list:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_user_code_is_type_checked_against_balout(tmp_path):
    """The README's tour, search and own-bot examples and the bot guide's
    code type-check against the installed balout; and mistakes in user code
    are found, so the types are real, not Any. (The README's batch example
    indexes ``sim.hands``, which is None for an aggregate-only run: mypy
    rightly asks for a check there, so it is left out.)"""
    tour, _batch, search, own, _openspiel = _python_blocks(ROOT / "README.md")
    bot, measure, _ = _python_blocks(ROOT / "docs" / "your-own-bot.md")
    # the README's own bot is a Bot, as the arena and make_bot take them
    own += "\nfrom balout.bots import Bot\nmine: Bot = FirstLegal()\n"
    (tmp_path / "examples.py").write_text("\n".join([tour, search, own]))
    (tmp_path / "guide.py").write_text(bot + "\n" + measure)
    (tmp_path / "mistakes.py").write_text(textwrap.dedent("""\
        from balout import State
        from balout.search import Solver
        from balout.bots import Bot, make_bot

        s = State("belote", seed=1)
        s.legal_actionz()
        n: str = s.to_act
        Solver().pimc(s, worlds="many")
        make_bot("hard", 1).act(s).upper()
        s.resample(1).apply_action(3).phase


        class NotABot:
            def play(self, state: State) -> int:
                return 0


        bot: Bot = NotABot()
        """))
    clean = mypy(["examples.py", "guide.py"], tmp_path)
    assert clean.returncode == 0 and "Success" in clean.stdout, clean.stdout + clean.stderr
    bad = mypy(["mistakes.py"], tmp_path)
    lines = {int(m) for m in re.findall(r"^mistakes\.py:(\d+): error", bad.stdout, re.M)}
    assert lines == {6, 7, 8, 9, 10, 18}, bad.stdout


def _stub_members():
    """{name: None} for the stub's module-level names, and {class: {member:
    'property' or 'method'}} for its classes."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    decorators = {d.id for d in item.decorator_list if isinstance(d, ast.Name)}
                    members[item.name] = "property" if "property" in decorators else "method"
            classes[node.name] = members
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names - {"_S"}, classes


def _runtime_kind(cls, name):
    attr = inspect.getattr_static(cls, name)
    if isinstance(attr, (staticmethod, classmethod)) or callable(attr):
        return "method"
    return "property"   # property, getset and member descriptors


def test_the_stub_names_what_the_extension_has():
    """Every name of the extension is in _core.pyi and every name there in
    the extension; each class's members alike, properties as properties."""
    names, classes = _stub_members()
    runtime = {n for n in dir(_core) if not n.startswith("__") and n != "np"}
    assert names == runtime, (sorted(runtime - names), sorted(names - runtime))
    for cls_name, members in classes.items():
        cls = getattr(_core, cls_name)
        own = {n for n in vars(cls) if not (n.startswith("__") and n.endswith("__")) and n != "__pyx_vtable__"}
        declared = {n for n in members if not (n.startswith("__") and n.endswith("__"))}
        assert declared == own, (cls_name, sorted(own - declared), sorted(declared - own))
        for name, kind in members.items():
            if name in ("__init__",):
                continue
            assert _runtime_kind(cls, name) == kind, (cls_name, name, kind)


def _source_signatures() -> dict:
    """{(class or None, function): parameter names} of the extension's
    Python-visible functions, from its Cython sources (Cython keeps no
    signature that inspect can read)."""
    out = {}
    for path in sorted((ROOT / "src" / "_core").glob("*.p[yx]*")):
        if path.suffix not in (".pyx", ".pxi"):
            continue
        cls = None
        for m in re.finditer(r"^(cdef class (\w+)|([ \t]*)(?:def|cpdef [\w ]+?) (\w+)\((.*?)\)(?: except [^:]+)?:)",
                             path.read_text(encoding="utf-8"), re.M | re.S):
            if m.group(2):
                cls = m.group(2)
                continue
            owner = cls if m.group(3) else None
            params = []
            for arg in m.group(5).split(","):
                arg = arg.split("=")[0].replace(" not None", "").strip()
                if arg and arg not in ("self", "*args", "**kwargs"):
                    params.append(arg.split()[-1])
            out[(owner, m.group(4))] = params
    return out


def test_the_stub_signatures_take_what_the_extension_takes():
    """The stub's parameter names, in order, are the Cython sources' (for
    every function and method but the dunder ones)."""
    source = _source_signatures()
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    checked = 0
    for owner, node in [(None, n) for n in tree.body] + [
            (c.name, n) for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body]:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("__") and node.name != "__init__":
            continue
        if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            continue
        name = "__cinit__" if node.name == "__init__" and (owner, "__init__") not in source else node.name
        if (owner, name) not in source:   # an alias such as push = apply_action
            assert owner is not None and name in ("push", "pop"), (owner, node.name)
            continue
        stub = [a.arg for a in node.args.args if a.arg != "self"]
        assert stub == source[(owner, name)], (owner, node.name, stub, source[(owner, name)])
        checked += 1
    assert checked > 40

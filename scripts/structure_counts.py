"""Counts of the analysis side's structure and of who owns the decision, read from the code
(before/after figures of a restructuring).

    python scripts/structure_counts.py [ROOT]

Prints, for the checkout at ROOT (default: this one):

* band declarations: module-level names holding a band (``*SESOI*``, ``*THRESHOLD*``) in the
  packages, boundary numbers (0.93, 1.07, 0.934579, 1.075269) typed in the packages' code, and
  the profile lines that hold one;
* CI-vs-band readers: the functions :data:`READERS` names that read a CI against a band, where they
  are still defined;
* ``ALPHA`` / ``CONFIDENCE`` definitions and the 0.95 literals in the packages' code;
* analysis modules that write the book's sentences (string constants of six or more words);
* analysis modules per folder and the depth of their import graph (levels);
* lines of ``runner/profiles/paper.toml`` and ``claims.toml``;
* functions of the packages called only from tests, and called from nowhere;
* who owns the decision (``decision``, :func:`decision_owners`): functions that read a CI's
  ends against an edge, paired log-ratio t-interval implementations, median bootstraps,
  every-size combinations, bands rebuilt from the smallest effect outside its owner,
  ``fmt_size`` definitions and files that type the reports' published numbers.

The counts are heuristics over the syntax tree (a name is "called" where it appears as a name
or attribute anywhere outside its own definition); they are for comparing two commits, not
for proofs. Standard library only.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

#: the packages, old names included (the decision's package is ``blockstats`` in older
#: commits), so that two commits compare
ALL_PACKAGES = ("runner", "rundir", "decision", "blockstats", "analysis")
PACKAGES = ALL_PACKAGES
BAND_NAME = re.compile(r"SESOI|THRESHOLD")
#: the CI-against-a-band readers an earlier restructuring named: (module under analysis/,
#: wherever its layer folder puts it, qualified function name)
READERS = (("stats", "decide"), ("stats", "classify_ratio"), ("stats", "approx_verdict"),
           ("stats", "threshold_verdict"), ("claims/why", "Factor.differs"))
#: the files that own the decision: the band and the reading of a CI against a rule
BAND_OWNERS = ("decision/band.py", "decision/claimtable.py", "blockstats/claimtable.py")
RULE_OWNER = "decision/rule.py"
#: names of a CI's ends in the code
ENDS = {"lo", "hi", "ci_lo", "ci_hi", "low", "high"}
#: functions whose lo/hi are no CI's ends (a value's allowed range, an axis's span, the gaps
#: between edges): listed, not counted
NOT_CI = ("_Checker.", "_thin_", "log_ticks", "_one_hot")
#: the reports' published numbers (a few that only they print), typed where they are read
PUBLISHED = ("7111.74", "66.42", "30.61", "695.33", "418.56", "22.31", "43.90", "61.04",
             "23.73", "58.63")


def sesoi_of(root: Path) -> float:
    """The band's t as the checkout declares it (``SESOI = ...`` in its band's owner)."""
    for name in BAND_OWNERS:
        f = root / name
        if f.exists():
            for node in parse(f).body:
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "SESOI" for t in node.targets) \
                        and isinstance(node.value, ast.Constant):
                    return float(node.value.value)
    return 0.12


def boundaries(root: Path) -> tuple[str, ...]:
    """The band's edges and the inverted band's, as profiles and code would type them."""
    t = sesoi_of(root)
    return tuple(f"{x:.6f}".rstrip("0") for x in (1 - t, 1 + t, 1 / (1 + t), 1 / (1 - t)))
SENTENCE_WORDS = 6


def py_files(root: Path, pkgs: tuple[str, ...] = PACKAGES) -> list[Path]:
    return [f for p in pkgs if (root / p).is_dir() for f in sorted((root / p).rglob("*.py"))]


def parse(f: Path) -> ast.Module:
    return ast.parse(f.read_text(), filename=str(f))


def rel(root: Path, f: Path) -> str:
    return str(f.relative_to(root))


def module_assigns(tree: ast.Module) -> list[tuple[str, int]]:
    """Module-level names assigned, each with its line; " (alias)" appended to the name where
    the value is another name (``THRESHOLD = SESOI``)."""
    out = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        alias = isinstance(value, (ast.Name, ast.Attribute))
        out += [(f"{t.id}{' (alias)' if alias else ''}", node.lineno) for t in targets
                if isinstance(t, ast.Name)]
    return out


def numbers(tree: ast.Module) -> list[tuple[float, int]]:
    return [(n.value, n.lineno) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, float)]


def band_declarations(root: Path) -> list[str]:
    edges = boundaries(root)
    edge_re = re.compile(r"(?<![\d.])(?:" + "|".join(re.escape(b) for b in edges) + r")(?![\d])")
    lines = []
    for f in py_files(root):
        tree = parse(f)
        lines += [f"  name     {rel(root, f)}:{ln} {name}" for name, ln in module_assigns(tree)
                  if BAND_NAME.search(name)]
        lines += [f"  literal  {rel(root, f)}:{ln} {v}" for v, ln in numbers(tree)
                  if any(v == float(b) for b in edges)]
    for f in sorted((root / "runner" / "profiles").glob("*.toml")):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if edge_re.search(code):
                lines.append(f"  profile  {rel(root, f)}:{i}")
    return lines


def module_file(root: Path, name: str) -> Path | None:
    """``analysis/<name>.py``, or where a layer folder holds it (``analysis/*/<name>.py``)."""
    found = [root / "analysis" / f"{name}.py", *sorted((root / "analysis").glob(f"*/{name}.py"))]
    return next((f for f in found if f.is_file()), None)


def defined(f: Path | None, qual: str) -> bool:
    if f is None:
        return False
    tree = parse(f)
    cls, _, fn = qual.rpartition(".")
    scope: list[ast.stmt] = tree.body
    if cls:
        scope = [b for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls
                 for b in n.body]
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn
               for n in scope)


def readers(root: Path) -> list[str]:
    out = []
    for name, qual in READERS:
        f = module_file(root, name)
        if defined(f, qual):
            out.append(f"  {rel(root, f)}:{qual}")
    return out


def alpha_confidence(root: Path) -> tuple[list[str], list[str]]:
    defs, lits = [], []
    for f in py_files(root):
        tree = parse(f)
        defs += [f"  {rel(root, f)}:{ln} {name}" for name, ln in module_assigns(tree)
                 if re.fullmatch(r"(\w+_)?(ALPHA|CONFIDENCE)( \(alias\))?", name)]
        lits += [f"  {rel(root, f)}:{ln}" for v, ln in numbers(tree) if v == 0.95]
    return defs, lits


def _strings(tree: ast.Module) -> list[str]:
    """String constants, f-strings' literal parts joined with a placeholder word; docstrings
    left out."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)}
    out, inside_f = [], set()
    for n in ast.walk(tree):
        if isinstance(n, ast.JoinedStr):
            parts = []
            for v in n.values:
                inside_f.add(id(v))
                parts.append(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str)
                             else " X ")
            out.append("".join(parts))
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs \
                and id(n) not in inside_f:
            out.append(n.value)
    return out


def sentence_modules(root: Path) -> list[str]:
    out = []
    for f in py_files(root, ("analysis",)):
        n = sum(1 for s in _strings(parse(f))
                if len(re.findall(r"[A-Za-z][A-Za-z'-]*", s)) >= SENTENCE_WORDS)
        if n >= 3:
            out.append(f"  {rel(root, f)} ({n} strings of {SENTENCE_WORDS}+ words)")
    return out


def _modname(root: Path, f: Path) -> str:
    parts = f.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, pkg: str) -> dict[str, set[str]]:
    files = {_modname(root, f): f for f in sorted((root / pkg).rglob("*.py"))}

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, f in files.items():
        base = name if f.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for n in ast.walk(parse(f)):
            if isinstance(n, ast.Import):
                out.update(filter(None, (known(a.name) for a in n.names)))
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    up = base.split(".")
                    up = up[:len(up) - (n.level - 1)]
                    mod = ".".join(up + ([n.module] if n.module else []))
                else:
                    mod = n.module or ""
                if mod.split(".")[0] != pkg:
                    continue
                for a in n.names:
                    k = known(f"{mod}.{a.name}") or known(mod)
                    if k:
                        out.add(k)
        out.discard(name)
        graph[name] = out
    return graph


def levels(graph: dict[str, set[str]]) -> tuple[dict[str, int], list[str]]:
    """Each module's level (1 + the highest level it imports; cycles cut and reported)."""
    level: dict[str, int] = {}
    cycles: list[str] = []

    def visit(m: str, stack: tuple[str, ...]) -> int:
        if m in level:
            return level[m]
        if m in stack:
            cycles.append(" -> ".join(stack[stack.index(m):] + (m,)))
            return 0
        lv = 1 + max((visit(t, stack + (m,)) for t in graph.get(m, ())), default=0)
        level[m] = lv
        return lv

    for m in sorted(graph):
        visit(m, ())
    return level, sorted(set(cycles))


def declared_layers(root: Path) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(ANALYSIS_LAYERS, ANALYSIS_ENTRY_POINTS) as tests/test_layout.py declares them, or None
    where it declares no analysis layers."""
    f = root / "tests" / "test_layout.py"
    found: dict[str, tuple[str, ...]] = {}
    for node in parse(f).body if f.exists() else []:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("ANALYSIS_LAYERS", "ANALYSIS_ENTRY_POINTS"):
            found[node.targets[0].id] = tuple(ast.literal_eval(node.value))
    if "ANALYSIS_LAYERS" not in found:
        return None
    return found["ANALYSIS_LAYERS"], found.get("ANALYSIS_ENTRY_POINTS", ())


def layer_problems(root: Path, graph: dict[str, set[str]], layers: tuple[str, ...],
                   entry: tuple[str, ...]) -> list[str]:
    """The layer check of tests/test_layout.py, recomputed: folders that are no layer (and
    layers with no folder), modules outside the folders, imports of a higher folder."""
    folders = {d.name for d in (root / "analysis").iterdir() if (d / "__init__.py").is_file()}
    bad = [f"folder {f}/ is no layer" for f in sorted(folders - set(layers))]
    bad += [f"layer {f} has no folder" for f in layers if f not in folders]

    def level(m: str) -> int | None:
        parts = m.split(".")[1:]
        if not parts:
            return -1
        if len(parts) == 1 and parts[0] in entry:
            return len(layers)
        return layers.index(parts[0]) if parts[0] in layers else None

    for m in sorted(graph):
        lm = level(m)
        if lm is None:
            if m.split(".")[1] not in folders:
                bad.append(f"{m} outside the layer folders")
            continue
        for d in sorted(graph[m]):
            ld = level(d)
            if ld is not None and ld > lm:
                bad.append(f"{m} imports {d} (a higher folder)")
    return bad


def analysis_layout(root: Path) -> list[str]:
    graph = import_graph(root, "analysis")
    level, cycles = levels(graph)
    per_folder: dict[str, list[str]] = defaultdict(list)
    for m in graph:
        parts = m.split(".")
        folder = "/".join(parts[:-1]) if (root / "/".join(parts)).is_dir() is False else \
            "/".join(parts)
        per_folder[folder or "analysis"].append(m)
    out = [f"  {folder}/: {len(ms)} modules" for folder, ms in sorted(per_folder.items())]
    out.append(f"  import levels (longest chain of analysis imports): {max(level.values())}")
    declared = declared_layers(root)
    if declared is None:
        out.append("  layer order checked by tests/test_layout.py: no (no ANALYSIS_LAYERS)")
    else:
        problems = layer_problems(root, graph, *declared)
        out.append(f"  layer order checked by tests/test_layout.py: yes, ANALYSIS_LAYERS = "
                   f"{' < '.join(declared[0])}; violations: {len(problems)}")
        out += [f"    {p}" for p in problems]
    plots_users = [m for m, ts in graph.items() if m.rpartition(".")[2] == "counts"
                   and any(t.rpartition(".")[2] == "plots" for t in ts)]
    out.append(f"  analysis' counts module imports plots: {'yes' if plots_users else 'no'}")
    code = [f for f in py_files(root, ("rundir", "decision", "analysis"))
            + sorted((root / "notebooks").glob("*.py"))]
    readers_ = sorted(rel(root, f) for f in code
                      if re.search(r"['\"]runner['\"]\s*/\s*['\"]profiles['\"]", f.read_text()))
    out.append(f"  files outside runner/ that build the path of runner/profiles: {len(readers_)} "
               f"({', '.join(readers_)})")
    if cycles:
        out.append(f"  import cycles: {len(cycles)}")
    return out


def _defs(tree: ast.Module) -> list[tuple[str, int]]:
    out = []
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((n.name, n.lineno))
        elif isinstance(n, ast.ClassDef):
            out += [(b.name, b.lineno) for b in n.body
                    if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not b.name.startswith("__")
                    and not any(isinstance(d, ast.Name) and d.id == "property"
                                for d in b.decorator_list)]
    return out


def _names(tree: ast.AST) -> list[str]:
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
        elif isinstance(n, ast.alias):
            out.append(n.name.rpartition(".")[2])
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) \
                and re.fullmatch(r"[A-Za-z_][\w.:]*", n.value):
            out.append(n.value.rpartition(".")[2].rpartition(":")[2])
    return out


def test_only(root: Path) -> tuple[list[str], list[str]]:
    """(functions referenced only from tests/, functions referenced nowhere)."""
    prod: dict[str, int] = defaultdict(int)
    tests: dict[str, int] = defaultdict(int)
    own: dict[str, int] = defaultdict(int)  # each def's own name counts once per def
    prod_files = py_files(root) + sorted((root / "notebooks").glob("*.py")) \
        + sorted((root / "scripts").rglob("*.py")) + sorted((root / "book").rglob("*.py"))
    for f in prod_files:
        if "_build" in f.parts or "_generated" in f.parts:
            continue
        for name in _names(parse(f)):
            prod[name] += 1
    for f in sorted((root / "tests").rglob("*.py")):
        for name in _names(parse(f)):
            tests[name] += 1
    text = " ".join(p.read_text(errors="replace") for pat in ("Makefile", "mk/*.mk", "book/**/*.md")
                    for p in sorted(root.glob(pat)) if p.is_file())
    only_tests, nowhere = [], []
    for f in py_files(root):
        for name, ln in _defs(parse(f)):
            if name in ("main", "__getattr__") or name.startswith("test"):
                continue
            own[name] += 1
    for f in py_files(root):
        for name, ln in _defs(parse(f)):
            if name in ("main", "__getattr__") or name.startswith("test"):
                continue
            used = prod[name] > 0 or re.search(rf"\b{re.escape(name)}\b", text)
            if used:
                continue
            where = f"  {rel(root, f)}:{ln} {name}"
            (only_tests if tests[name] else nowhere).append(where)
    return only_tests, nowhere


# ------------------------------------------------------------- who owns the decision

def code_files(root: Path) -> list[Path]:
    """The packages, the notebooks' sources and the scripts (this one left out)."""
    return py_files(root) + sorted((root / "notebooks").glob("*.py")) + \
        [f for f in sorted((root / "scripts").rglob("*.py")) if f.name != Path(__file__).name]


def _functions(tree: ast.Module):
    """(qualified name, node) of every function and method, nested ones too."""
    def walk(node: ast.AST, prefix: str):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = f"{prefix}{ch.name}"
                yield q, ch
                yield from walk(ch, q + ".")
            elif isinstance(ch, ast.ClassDef):
                yield from walk(ch, f"{prefix}{ch.name}.")
    yield from walk(tree, "")


def _own_nodes(fn: ast.AST):
    """The nodes of a function, its nested functions left out (they count on their own)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def _end(n: ast.AST) -> bool:
    return (isinstance(n, ast.Name) and n.id in ENDS) or \
        (isinstance(n, ast.Attribute) and n.attr in ENDS)


def _number(n: ast.AST) -> bool:
    return (isinstance(n, ast.Constant) and isinstance(n.value, (int, float))) or \
        (isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Constant))


def ci_readers(root: Path) -> tuple[list[str], list[str]]:
    """(functions that compare a CI's end with something other than another end or a plain
    number: a CI read against an edge; the ones :data:`NOT_CI` names, whose lo/hi are no CI)."""
    found, other = [], []
    for f in code_files(root):
        for q, fn in _functions(parse(f)):
            for n in _own_nodes(fn):
                if isinstance(n, ast.Compare) and all(
                        isinstance(o, (ast.Lt, ast.Gt, ast.LtE, ast.GtE)) for o in n.ops):
                    ops = [n.left, *n.comparators]
                    if any(map(_end, ops)) and any(not _end(o) and not _number(o) for o in ops):
                        where = f"  {rel(root, f)}:{q}"
                        (other if any(q.startswith(x) or x in q for x in NOT_CI)
                         else found).append(where)
                        break
    return found, other


def _call_name(n: ast.Call) -> str:
    f = n.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def t_intervals(root: Path) -> list[str]:
    """Functions that compute a t interval's half-width, q x sd / sqrt(n): a product divided
    by a square root (the paired log-ratio CI, fixed or repeated, and its inversions)."""
    out = []
    for f in code_files(root):
        for q, fn in _functions(parse(f)):
            if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)
                   and isinstance(n.right, ast.Call) and _call_name(n.right) == "sqrt"
                   and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, ast.Mult)
                   for n in _own_nodes(fn)):
                out.append(f"  {rel(root, f)}:{q}")
    return out


def median_bootstraps(root: Path) -> list[str]:
    """Functions that call ``bootstrap`` with the median as the statistic."""
    out = []
    for f in code_files(root):
        for q, fn in _functions(parse(f)):
            for n in _own_nodes(fn):
                if isinstance(n, ast.Call) and _call_name(n) == "bootstrap" and any(
                        isinstance(a, ast.Attribute) and a.attr == "median" for a in n.args):
                    out.append(f"  {rel(root, f)}:{q}")
                    break
    return out


def every_size(root: Path) -> list[str]:
    """Definitions of the every-size combination (a verdict from per-size outcomes: the names
    it has had) and of a per-size contrary outcome set."""
    names = {"every", "every_verdict", "contrary"}
    return [f"  {rel(root, f)}:{q}" for f in code_files(root) for q, _ in _functions(parse(f))
            if q.rpartition(".")[2] in names]


def band_rebuilt(root: Path) -> list[str]:
    """1 - t / 1 + t written outside the band's owners, t the smallest effect (a name or
    attribute SESOI, sesoi, threshold or t)."""
    owners = {*BAND_OWNERS, RULE_OWNER}
    out = []
    for f in code_files(root):
        if rel(root, f) in owners:
            continue
        for n in ast.walk(parse(f)):
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)) \
                    and isinstance(n.left, ast.Constant) and n.left.value in (1, 1.0):
                r = n.right
                name = r.id if isinstance(r, ast.Name) else r.attr \
                    if isinstance(r, ast.Attribute) else ""
                if name in ("SESOI", "sesoi", "threshold", "t"):
                    out.append(f"  {rel(root, f)}:{n.lineno}")
    return list(dict.fromkeys(out))  # a line that writes both edges counts once


def fmt_sizes(root: Path) -> list[str]:
    return [f"  {rel(root, f)}:{q}" for f in code_files(root) for q, _ in _functions(parse(f))
            if q.rpartition(".")[2] == "fmt_size"]


def published_typed(root: Path) -> list[str]:
    """The files whose code types a published number (:data:`PUBLISHED`, docstrings and
    comments left out)."""
    out = []
    for f in code_files(root):
        tree = parse(f)
        texts = [str(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant)
                 and isinstance(n.value, (str, float))] + _strings(tree)
        hits = sorted({p for p in PUBLISHED for t in texts if p in t or t == float(p)})
        if hits:
            out.append(f"  {rel(root, f)} ({', '.join(hits)})")
    return out


def decision_owners(root: Path) -> list[str]:
    readers_, not_ci = ci_readers(root)
    rows = [("functions that read a CI's ends against an edge", readers_),
            ("paired log-ratio t-interval implementations (q sd / sqrt(n))", t_intervals(root)),
            ("median bootstraps", median_bootstraps(root)),
            ("every-size combinations", every_size(root)),
            ("bands rebuilt from the smallest effect outside its owner", band_rebuilt(root)),
            ("fmt_size definitions", fmt_sizes(root)),
            ("files that type the reports' published numbers", published_typed(root))]
    out = []
    for what, found in rows:
        modules = {x.strip().split(":")[0].split(" ")[0] for x in found}
        out.append(f"{what}: {len(found)} in {len(modules)} file(s)")
        out += found
    out.append(f"  (lo/hi compared where they are no CI, not counted: {len(not_ci)})")
    return out


def lines(f: Path) -> int:
    return len(f.read_text().splitlines()) if f.exists() else 0


USAGE = "usage: python scripts/structure_counts.py [ROOT]"


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(f"{USAGE}\n\n{__doc__.strip()}")
        return 0
    if len(argv) > 1 or argv[:1] and argv[0].startswith("-"):
        print(f"{USAGE} (ROOT: a copybench checkout; no options but --help)", file=sys.stderr)
        return 2
    root = Path(argv[0] if argv else Path(__file__).resolve().parent.parent).resolve()
    if not (root / "analysis").is_dir():
        print(f"structure_counts: {root} has no analysis/ (not a copybench checkout)",
              file=sys.stderr)
        return 2
    bands = band_declarations(root)
    kinds = defaultdict(int)
    for b in bands:
        kinds[b.split()[0] + (" alias" if b.endswith("(alias)") else "")] += 1
    print(f"band declarations: {len(bands) - kinds['name alias']} (names with a value "
          f"{kinds['name']}, literals in code {kinds['literal']}, profile lines "
          f"{kinds['profile']}); aliases of a declared band: {kinds['name alias']}")
    print("\n".join(bands))
    rd = readers(root)
    print(f"CI-vs-band readers (of the five READERS): {len(rd)}")
    print("\n".join(rd))
    defs, lits = alpha_confidence(root)
    n_alias = sum(d.endswith("(alias)") for d in defs)
    print(f"ALPHA/CONFIDENCE definitions: {len(defs) - n_alias} (and {n_alias} aliases)")
    print("\n".join(defs))
    print(f"0.95 literals in code: {len(lits)}")
    print("\n".join(lits))
    sm = sentence_modules(root)
    print(f"analysis modules that write sentences: {len(sm)}")
    print("\n".join(sm))
    print("analysis layout:")
    print("\n".join(analysis_layout(root)))
    for p in ("paper.toml", "claims.toml"):
        print(f"lines in runner/profiles/{p}: {lines(root / 'runner' / 'profiles' / p)}")
    print("\n".join(decision_owners(root)))
    only, nowhere = test_only(root)
    print(f"functions called only from tests: {len(only)}")
    print("\n".join(only))
    print(f"functions called from nowhere: {len(nowhere)}")
    print("\n".join(nowhere))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

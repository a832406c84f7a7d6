"""Output of a result: terminal table, CSV, Parquet, PNG plots, Markdown report."""
from __future__ import annotations

import csv
import io
import json
import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .._files import atomic_write, file_path
from .experiment import Plot, Result
from .stats import Estimate

__all__ = ["text_table", "markdown_table", "write_csv", "write_parquet", "write_plots", "write_report", "save",
           "sections"]


# ------------------------------------------------------------------ formatting

def _fmt(e: Estimate, x: Optional[float]) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    if e.percent:
        return f"{100 * x:.2f}%"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.3f}"


def _needed(e: Estimate) -> str:
    if e.needed is None:
        return "-"
    if e.needed >= 1e9:
        return f"{e.needed:.2e}"
    return f"{e.needed:,}"


def sections(result: Result) -> List[Tuple[str, Tuple[str, ...], List[Estimate]]]:
    """Estimates grouped by (metric, factor columns), in order."""
    out: Dict[Tuple[str, Tuple[str, ...]], List[Estimate]] = {}
    for e in result.estimates:
        out.setdefault((e.metric, tuple(e.group)), []).append(e)
    return [(m, names, rows) for (m, names), rows in out.items()]


def _title(metric: str, names: Sequence[str]) -> str:
    return metric + (" by " + ", ".join(names) if names else "")


def _section_rows(names: Sequence[str], rows: List[Estimate], unit: str) -> Tuple[List[str], List[List[str]]]:
    head = list(names) + ["n", "value", "95% interval", f"{unit} for +-precision"]
    body = []
    for e in rows:
        body.append([str(e.group[k]) for k in names] + [
            f"{e.n:,}", _fmt(e, e.value), f"[{_fmt(e, e.lo)}, {_fmt(e, e.hi)}]",
            "-" if e.needed is None else f"{_needed(e)} (+-{_fmt(e, e.precision) if e.percent else f'{e.precision:g}'})"])
    return head, body


def _header_lines(result: Result) -> List[str]:
    exp = result.experiment
    pol = result.policy if isinstance(result.policy, str) else ",".join(result.policy)
    lines = [f"{exp.name}: {exp.description}",
             f"variant {result.variant}  policy {pol}  seed {result.seed}  {result.hands:,} {exp.unit}"
             + (f" x {len(result.runs)} runs" if len(result.runs) > 1 else "")
             + f"  {result.elapsed:.1f} s"]
    for r in result.runs:
        opts = {**dict(result.options), **dict(r.options)}
        lines.append(f"  run {r.label}: options {json.dumps(opts) if opts else '(defaults)'}"
                     + (f", policy {r.policy}" if r.policy else ""))
    if result.options and not result.runs:
        lines.append(f"  options {json.dumps(dict(result.options))}")
    if result.interrupted:
        lines.append("interrupted: the figures cover what finished before Ctrl-C")
    return lines


def text_table(result: Result) -> str:
    """The result as aligned text tables, one per metric and factor set."""
    lines = _header_lines(result)
    for metric, names, rows in sections(result):
        head, body = _section_rows(names, rows, result.experiment.unit)
        widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
        lines.append("")
        lines.append(_title(metric, names))
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
        for r in body:
            lines.append("  ".join(c.ljust(w) if i < len(names) else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        notes = {e.note for e in rows if e.note}
        for n in sorted(notes):
            lines.append(f"  ({n})")
    return "\n".join(lines)


def markdown_table(names: Sequence[str], rows: List[Estimate], unit: str) -> str:
    head, body = _section_rows(names, rows, unit)
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in body:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


# ------------------------------------------------------------------ files

def _atomic_write(path: str, data: bytes) -> None:
    atomic_write(path, lambda f: f.write(data))


def write_csv(result: Result, path: str) -> str:
    recs = result.records()
    buf = io.StringIO()
    if recs:
        w = csv.DictWriter(buf, fieldnames=list(recs[0]), lineterminator="\n")
        w.writeheader()
        for r in recs:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    _atomic_write(path, buf.getvalue().encode("utf-8"))
    return path


def write_parquet(result: Result, path: str) -> Optional[str]:
    """Write the rows as Parquet; None (nothing written) without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    recs = result.records()
    cols: Dict[str, list] = {k: [] for k in (recs[0] if recs else {})}
    for r in recs:
        for k in cols:
            v = r[k]
            cols[k].append(v)
    factor_cols = set(result.columns())
    arrays = {}
    for k, v in cols.items():
        if k in factor_cols or k in ("experiment", "variant", "metric", "kind", "note"):
            arrays[k] = pa.array(["" if x is None else str(x) for x in v], pa.string())
        elif k in ("n",):
            arrays[k] = pa.array(v, pa.int64())
        else:
            arrays[k] = pa.array([None if x is None else float(x) for x in v], pa.float64())
    table = pa.table(arrays)
    meta = {"command": result.command(), "seed": str(result.seed), "policy": str(result.policy)}
    table = table.replace_schema_metadata(meta)
    atomic_write(path, lambda f: pq.write_table(table, f))
    return path


def _plot_rows(result: Result, plot: Plot) -> List[Estimate]:
    want = {plot.x} | ({plot.series} if plot.series else set()) | set(plot.where)
    rows = []
    for e in result.rows(plot.metric):
        if set(e.group) != want:
            continue
        if any(e.group.get(k) != v for k, v in plot.where.items()):
            continue
        rows.append(e)
    return rows


def write_plots(result: Result, out_dir: str) -> List[Tuple[Plot, str]]:
    """Draw the experiment's plots as PNG; [] without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    written = []
    for k, plot in enumerate(result.experiment.plots, 1):
        rows = _plot_rows(result, plot)
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
        pct = rows[0].percent
        scale = 100.0 if pct else 1.0
        if plot.kind == "heatmap" and plot.series:
            xs = sorted({e.group[plot.x] for e in rows})
            ys = sorted({e.group[plot.series] for e in rows})
            grid = [[float("nan")] * len(xs) for _ in ys]
            for e in rows:
                grid[ys.index(e.group[plot.series])][xs.index(e.group[plot.x])] = e.value * scale
            im = ax.imshow(grid, origin="lower", cmap="RdBu", vmin=0 if pct else None,
                           vmax=100 if pct else None, aspect="auto")
            ax.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=45)
            ax.set_yticks(range(len(ys)), [str(y) for y in ys])
            ax.set_xlabel(plot.x)
            ax.set_ylabel(plot.series)
            for i, _ in enumerate(ys):
                for j, _ in enumerate(xs):
                    v = grid[i][j]
                    if math.isfinite(v):
                        ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=6)
            fig.colorbar(im, ax=ax, label=plot.ylabel or (plot.metric + (" (%)" if pct else "")))
        else:
            series: List[Any] = [None] if not plot.series else list(dict.fromkeys(e.group[plot.series] for e in rows))
            xs = list(dict.fromkeys(e.group[plot.x] for e in rows))
            width = 0.8 / max(len(series), 1)
            for si, s in enumerate(series):
                sub = [e for e in rows if s is None or e.group[str(plot.series)] == s]
                pos = [xs.index(e.group[plot.x]) for e in sub]
                val = [e.value * scale for e in sub]
                err = [[max(0.0, (e.value - e.lo) * scale) for e in sub], [max(0.0, (e.hi - e.value) * scale) for e in sub]]
                label = None if s is None else f"{plot.series} = {s}"
                if plot.kind == "bar":
                    off = [p - 0.4 + width * (si + 0.5) for p in pos]
                    ax.bar(off, val, width=width * 0.95, yerr=err, capsize=3, label=label)
                else:
                    ax.errorbar(pos, val, yerr=err, marker="o", capsize=3, label=label)
            ax.set_xticks(range(len(xs)), [str(x) for x in xs])
            ax.set_xlabel(plot.x)
            ax.set_ylabel(plot.ylabel or (plot.metric + (" (%)" if pct else "")))
            if plot.series:
                ax.legend(fontsize=8)
            ax.axhline(0, color="grey", lw=0.5)
            ax.grid(alpha=0.3)
        ax.set_title((plot.title or _title(plot.metric, [plot.x])) + "\n(95% intervals)" if plot.kind != "heatmap"
                     else (plot.title or plot.metric), fontsize=10)
        fig.tight_layout()
        path = os.path.join(out_dir, f"{result.name}-{k}.png")
        fig.savefig(path)
        plt.close(fig)
        written.append((plot, path))
    return written


def write_report(result: Result, path: str, figures: Sequence[Tuple[Plot, str]] = (),
                 data_files: Sequence[str] = ()) -> str:
    exp = result.experiment
    pol = result.policy if isinstance(result.policy, str) else ",".join(result.policy)
    lines = [f"# {exp.name}", "", exp.description, "",
             "Regenerate this report with:", "", "```sh", result.command() + f" --out {os.path.dirname(path) or '.'}",
             "```", "",
             "| parameter | value |", "|---|---|",
             f"| variant | `{result.variant}` |", f"| policy | `{pol}` |", f"| seed | {result.seed} |",
             f"| {exp.unit} | {result.hands:,}" + (f" per run, {len(result.runs)} runs on the same deals" if len(result.runs) > 1 else "") + " |",
             f"| time | {result.elapsed:.1f} s |"]
    for r in result.runs:
        opts = {**dict(result.options), **dict(r.options)}
        lines.append(f"| run `{r.label}` | options `{json.dumps(opts) if opts else '{}'}`"
                     + (f", policy `{r.policy}`" if r.policy else "") + " |")
    if result.interrupted:
        lines += ["", "**Interrupted**: the figures cover what finished before Ctrl-C."]
    if exp.notes:
        lines += ["", "## Method", "", exp.notes]
    lines += ["", "Every figure has a 95% interval (Wilson for rates and shares, normal for means; paired rows "
              "are means of per-hand differences between runs on the same deals). The last column is the "
              f"number of {exp.unit} that would give a 95% half-width of the stated precision."]
    if figures:
        lines += ["", "## Figures", ""]
        for plot, fp in figures:
            lines.append(f"![{plot.title or plot.metric}]({os.path.basename(fp)})")
            lines.append("")
    lines += ["## Tables"]
    for metric, names, rows in sections(result):
        lines += ["", f"### {_title(metric, names)}", "", markdown_table(names, rows, exp.unit)]
        notes = {e.note for e in rows if e.note}
        for n in sorted(notes):
            lines += ["", f"*{n}*"]
    if data_files:
        lines += ["", "## Data", ""] + [f"- [{os.path.basename(f)}]({os.path.basename(f)})" for f in data_files]
    _atomic_write(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return path


def save(result: Result, out_dir: str, plots: bool = True) -> Dict[str, List[str]]:
    """Write CSV, Parquet (with pyarrow), PNG plots (with matplotlib) and
    ``report.md`` into ``out_dir``; returns the paths by kind."""
    out_dir = file_path(out_dir, "the output folder")
    os.makedirs(out_dir, exist_ok=True)
    data = [write_csv(result, os.path.join(out_dir, f"{result.name}.csv"))]
    pq = write_parquet(result, os.path.join(out_dir, f"{result.name}.parquet"))
    if pq:
        data.append(pq)
    figs = write_plots(result, out_dir) if plots else []
    rep = write_report(result, os.path.join(out_dir, "report.md"), figs, data)
    return {"data": data, "plots": [p for _, p in figs], "report": [rep]}

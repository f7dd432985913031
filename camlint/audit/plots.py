"""The HTML page's plots, drawn with matplotlib and inlined as SVG (no file, no URL to fetch)."""
from __future__ import annotations

import io
import re

from camlint.audit.record import CITATIONS
from camlint.core.keys import KEYS, STATUSES

STATUS_COLOURS = {"reported": "#2e7d32", "partial": "#f9a825", "missing": "#c62828", "not_applicable": "#bdbdbd"}
CITATION_COLOURS = {"cnn_only": "#c62828", "library_only": "#ef6c00", "justified": "#2e7d32",
                    "unexplained": "#9e9e9e"}
MAX_GROUPS = 40          # venues or years on one plot (the most papers first)


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "svg.hashsalt": "camlint"})
    return plt.subplots(figsize=(width, height))


def _svg(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None,
                                                                   "Format": None, "Type": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]                  # no XML prolog or DOCTYPE (an external DTD)
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)


def stacked(rows: list[str], series: dict[str, list[float]], colours: dict[str, str], labels: dict[str, str],
            title: str, ncol: int = 4) -> str:
    """Horizontal bars, one per row, stacked by series (shares 0..1)."""
    fig, ax = _figure(7.5, 0.3 * len(rows) + 1.2)
    left = [0.0] * len(rows)
    for name, values in series.items():
        vals = [v or 0.0 for v in values]
        ax.barh(rows, vals, left=left, color=colours[name], label=labels.get(name, name), edgecolor="white")
        left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda x, _: f"{100 * x:.0f}%")
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08 if len(rows) > 6 else -0.2), ncol=ncol,
              frameon=False)
    return _svg(fig)


def key_status_plot(key_rates: dict) -> str:
    return stacked(list(KEYS), {s: [key_rates[k][s] for k in KEYS] for s in STATUSES}, STATUS_COLOURS,
                   {"not_applicable": "not applicable"}, "Per-key status (papers using CAM on a transformer)")


def _top(groups: dict) -> list[str]:
    names = sorted(groups, key=lambda g: -groups[g]["uses_cam_on_transformer"])[:MAX_GROUPS]
    return sorted(names)


def group_heatmap(groups: dict, grouping: str) -> str:
    """Reported share per key (columns) for each venue or year (rows)."""
    names = _top(groups)
    fig, ax = _figure(8.5, 0.32 * len(names) + 1.6)
    grid = [[groups[g]["key_rates"][k]["reported"] for k in KEYS] for g in names]
    shown = [[v if v is not None else float("nan") for v in row] for row in grid]
    im = ax.imshow(shown, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(KEYS)), KEYS, rotation=40, ha="right")
    ax.set_yticks(range(len(names)), [f"{g} ({groups[g]['uses_cam_on_transformer']})" for g in names])
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v is not None:
                ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, fraction=0.03, format=lambda x, _: f"{100 * x:.0f}%")
    ax.set_title(f"Reporting rate per key by {grouping} (papers using CAM on a transformer)")
    return _svg(fig)


def group_citation_plot(groups: dict, grouping: str) -> str:
    from camlint.audit.record import CITATION_LABELS

    names = _top(groups)
    series = {c: [groups[g]["citation"][c]["share"] for g in names] for c in CITATIONS}
    return stacked([f"{g} ({groups[g]['uses_cam_on_transformer']})" for g in names], series, CITATION_COLOURS,
                   CITATION_LABELS, f"How the transformer adaptation is justified, by {grouping}", ncol=2)


def truth_plot(truth: dict) -> str:
    """Reported share per key: camlint next to the hand labels."""
    fig, ax = _figure(7.5, 3.2)
    xs = range(len(KEYS))
    ours = [truth["keys"][k]["camlint"]["reported"] or 0 for k in KEYS]
    theirs = [truth["keys"][k]["labels"]["reported"] or 0 for k in KEYS]
    ax.bar([x - 0.2 for x in xs], ours, width=0.4, label="camlint", color="#1565c0")
    ax.bar([x + 0.2 for x in xs], theirs, width=0.4, label="hand labels", color="#90a4ae")
    ax.set_xticks(list(xs), KEYS, rotation=40, ha="right")
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(lambda y, _: f"{100 * y:.0f}%")
    ax.set_title("Reporting rate per key: camlint and the hand labels")
    ax.legend(frameon=False)
    return _svg(fig)

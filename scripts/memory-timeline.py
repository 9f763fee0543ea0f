#!/usr/bin/env python3
"""Draws a function's memory timeline: the live bytes the remat report
predicts after every allocation and free (the buffer plan's run of the
compiled function), the live bytes the runtime's allocator measured (tadc
run --memory-trace), and the budget. With a trace it also says whether the
two agree event for event.

    tadc run model.tad --entry f_grad --remat-budget=2MiB \\
        --remat-report=report.json --memory-trace=trace.json
    scripts/memory-timeline.py --report report.json --trace trace.json \\
        --svg timeline.svg --chrome timeline.json [--png timeline.png]

The SVG puts both on one axis: the planned events in order, and the
allocator's events in order, each stretched over the width. The chrome
trace (chrome://tracing or ui.perfetto.dev) has two counter tracks: the
measured live bytes at their real times, and the predicted ones, each
labelled with the source location of the buffer, at the time of the
measured event of the same index when the two have as many events (the
prediction has an order, not times), spread evenly over the call
otherwise.
"""
import argparse
import json
import sys


def load_prediction(path, function):
    with open(path) as f:
        functions = json.load(f)["functions"]
    if not functions:
        sys.exit(f"{path}: the report has no function")
    if function is None:
        return functions[0]
    for fn in functions:
        if fn["function"] == function:
            return fn
    sys.exit(f"{path}: no function '{function}' in the report")


def load_measured(path):
    """(microseconds, live bytes) after each allocation and free."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return [(e["ts"], e["args"]["measured"]) for e in events
            if e.get("ph") == "C"]


def human(n):
    for unit in ["B", "KiB", "MiB", "GiB"]:
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def svg(fn, measured, path):
    width, height, left, right, top, bottom = 900, 420, 80, 20, 40, 50
    predicted = [p["live_bytes"] for p in fn["timeline"]]
    top_bytes = max([fn["budget"], fn["store_all_peak"], *predicted,
                     *(b for _, b in measured)] or [1]) * 1.05
    plot_w, plot_h = width - left - right, height - top - bottom

    def points(values):
        n = max(len(values) - 1, 1)
        return " ".join(
            f"{left + plot_w * i / n:.1f},"
            f"{top + plot_h * (1 - v / top_bytes):.1f}"
            for i, v in enumerate(values))

    y_budget = top + plot_h * (1 - fn["budget"] / top_bytes)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="20" font-size="14">memory of @{fn["function"]}:'
        f' budget {human(fn["budget"])}, predicted peak '
        f'{human(fn["predicted_peak"])}, store-all peak '
        f'{human(fn["store_all_peak"])}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
        f'y2="{top + plot_h}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" '
        f'stroke="black"/>',
    ]
    for i in range(5):
        value = top_bytes * i / 4
        y = top + plot_h * (1 - i / 4)
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{human(value)}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 12}" '
                 'text-anchor="middle">allocations and frees in order '
                 '(predicted: the buffer plan; measured: the allocator)'
                 '</text>')
    parts.append(f'<line x1="{left}" y1="{y_budget:.1f}" '
                 f'x2="{left + plot_w}" y2="{y_budget:.1f}" stroke="#c00" '
                 'stroke-dasharray="6,4"/>')
    parts.append(f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" '
                 f'points="{points(predicted)}"/>')
    if measured:
        parts.append(f'<polyline fill="none" stroke="#ff7f0e" '
                     f'stroke-width="1.5" points="'
                     f'{points([b for _, b in measured])}"/>')
    legend = [("#1f77b4", "predicted (buffer plan, remat report)"),
              ("#c00", "budget")]
    if measured:
        legend.insert(1, ("#ff7f0e", "measured (runtime allocator)"))
    for i, (color, label) in enumerate(legend):
        x = left + plot_w - 230
        y = top + 14 + 18 * i
        parts.append(f'<line x1="{x}" y1="{y - 4}" x2="{x + 24}" '
                     f'y2="{y - 4}" stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{x + 30}" y="{y}">{label}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def png(fn, measured, path):
    """The same picture through matplotlib (scripts/install-deps.sh
    installs it)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("--png needs matplotlib: scripts/install-deps.sh "
                 "(or use --svg, which needs nothing)")
    predicted = [p["live_bytes"] for p in fn["timeline"]]
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=100)
    unit = 1024.0
    ax.plot([i / max(len(predicted) - 1, 1) for i in range(len(predicted))],
            [v / unit for v in predicted], label="predicted (buffer plan, remat report)",
            color="#1f77b4", linewidth=2)
    if measured:
        ax.plot([i / max(len(measured) - 1, 1) for i in range(len(measured))],
                [b / unit for _, b in measured], color="#ff7f0e",
                linewidth=1.5, label="measured (runtime allocator)")
    ax.axhline(fn["budget"] / unit, color="#c00", linestyle="--",
               label="budget")
    ax.set_xlabel("allocations and frees in order (predicted: the buffer "
                  "plan; measured: the allocator)")
    ax.set_ylabel("live KiB")
    ax.set_title(f"memory of @{fn['function']}: budget {human(fn['budget'])}"
                 f", predicted peak {human(fn['predicted_peak'])}, "
                 f"store-all peak {human(fn['store_all_peak'])}", fontsize=10)
    ax.set_ylim(0, max([fn["budget"], *predicted, *(b for _, b in measured)]) / unit * 1.08)
    ax.legend(loc="upper right", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)


def chrome(fn, measured, path):
    duration = measured[-1][0] if measured else float(len(fn["timeline"]))
    n = max(len(fn["timeline"]), 1)
    events = [
        {"name": "process_name", "ph": "M", "pid": 1,
         "args": {"name": f"predicted: @{fn['function']} (buffer plan)"}},
        {"name": "process_name", "ph": "M", "pid": 2,
         "args": {"name": "measured: runtime allocator"}},
    ]
    same_length = len(measured) == len(fn["timeline"])
    for i, p in enumerate(fn["timeline"]):
        ts = measured[i][0] if same_length else duration * i / n
        events.append({"name": "live bytes", "ph": "C", "pid": 1, "ts": ts,
                       "args": {"predicted": p["live_bytes"]}})
        events.append({"name": p["event"], "ph": "i", "s": "p", "pid": 1,
                       "tid": 1, "ts": ts})
    for ts, live in measured:
        events.append({"name": "live bytes", "ph": "C", "pid": 2, "ts": ts,
                       "args": {"measured": live}})
    with open(path, "w") as f:
        json.dump({"displayTimeUnit": "ns", "traceEvents": events}, f)
        f.write("\n")


def compare(fn, measured):
    """One line: whether the planned and measured live bytes agree."""
    planned = [p["live_bytes"] for p in fn["timeline"]]
    live = [b for _, b in measured]
    head = (f"timeline of @{fn['function']}: {len(planned)} planned events, "
            f"{len(live)} measured")
    if fn.get("timeline_truncated"):
        head += " (the plan's timeline is truncated)"
    for i, (p, m) in enumerate(zip(planned, live)):
        if p != m:
            return f"{head}, first difference at event {i}: planned {p}, measured {m}"
    if len(planned) != len(live):
        return f"{head}, equal as far as both go"
    return f"{head}, equal"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", required=True,
                        help="tadc --remat-report output")
    parser.add_argument("--function", help="default: the report's first")
    parser.add_argument("--trace", help="tadc run --memory-trace output")
    parser.add_argument("--svg", help="write the picture here")
    parser.add_argument("--png", help="write the picture here, as PNG "
                        "(needs matplotlib)")
    parser.add_argument("--chrome", help="write the chrome trace here")
    args = parser.parse_args()
    if not args.svg and not args.png and not args.chrome:
        parser.error("nothing to write: give --svg, --png and/or --chrome")
    fn = load_prediction(args.report, args.function)
    measured = load_measured(args.trace) if args.trace else []
    if args.svg:
        svg(fn, measured, args.svg)
    if args.png:
        png(fn, measured, args.png)
    if args.chrome:
        chrome(fn, measured, args.chrome)
    if args.trace:
        print(compare(fn, measured))


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: GPL-2.0
"""Markdown pieces shared by the report's parts (report.py and the part
modules it imports, which cannot import report.py back)."""


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if isinstance(x, int):
        return f"{x:,}"
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def md_targets(results, prefix):
    rows = []
    for t in results:
        if t["id"] in prefix:
            v = t["value"]
            rows.append([t["id"], t["target"], fmt(v) + "x", t["limit"] if
                         isinstance(t["limit"], str) else f"{t['limit']}x",
                         f"**{t['status']}**"])
    return md_table(["", "target", "measured", "limit", ""], rows) if rows \
        else "_not measured in this run_"

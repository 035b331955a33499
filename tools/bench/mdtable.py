# SPDX-License-Identifier: GPL-2.0
"""Markdown pieces shared by the report's parts (report.py and the part
modules it imports, which cannot import report.py back)."""


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)

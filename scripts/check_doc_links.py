#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/**/*.md: every linked
file exists, and every #anchor into a Markdown file names one of its
headings (as GitHub makes anchors of them). Prints each broken link as
FILE:LINE: message and exits 1 if there is one.

    /usr/bin/python3 scripts/check_doc_links.py [ROOT]
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchors(path, cache={}):
    """The anchors GitHub gives the headings of the Markdown file `path`."""
    if path not in cache:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                if fenced or not line.startswith("#"):
                    continue
                text = line.lstrip("#").strip()
                # GitHub: lower case, drop punctuation but hyphens and
                # underscores, spaces to hyphens; repeats get -1, -2, ...
                text = re.sub(r"`", "", text).lower()
                slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                found.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = found
    return cache[path]


def check(root):
    files = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    broken = []
    for md in files:
        fenced = False
        with open(md, encoding="utf-8") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            # Code spans hold syntax, not links: `fn f[B](x)`.
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                where = os.path.relpath(md, root)
                dest = (os.path.normpath(os.path.join(os.path.dirname(md),
                                                      path))
                        if path else md)
                if not os.path.exists(dest):
                    broken.append(f"{where}:{number}: no file {target}")
                elif anchor and dest.endswith(".md") and \
                        anchor not in anchors(dest):
                    broken.append(f"{where}:{number}: no heading #{anchor} "
                                  f"in {os.path.relpath(dest, root)}")
    return broken


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    broken = check(root)
    for line in broken:
        print(line)
    if broken:
        sys.exit(1)
    print("doc links: all resolve")


if __name__ == "__main__":
    main()

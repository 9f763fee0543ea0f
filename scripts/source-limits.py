#!/usr/bin/env python3
"""Checks two limits of tad's C++ sources (issue 48): no function longer
than --limit lines (150 by default), and no namespace-scope mutable state.

    scripts/source-limits.py [--limit 150] [--allow NAME ...] [DIR|FILE ...]

Without paths it checks lib/, tools/ and dialects/. Universal Ctags (the
Debian package universal-ctags) finds the functions and the variables;
each finding is a line

    PATH:LINE: function NAME is N lines (limit 150)
    PATH:LINE: namespace-scope mutable variable NAME

and the script exits 1 when there is one, 0 when there is none, 2 when it
cannot run. A function's length counts from the line of its name to its
closing brace, both included; lambdas count towards the function around
them. --allow NAME (repeatable; NAME or CLASS::NAME) exempts a function
that is a table, where splitting would not help a reader.

A variable is mutable unless the object itself is const: declared
constexpr, or const where it applies to the variable (`const char *p` is a
mutable pointer, `const char *const p` is not; an array of `const char *`
is mutable). `constinit` alone does not make a variable const. Function-
local statics are not namespace-scope and are not reported; class members
are not either.

Ctags misreads a few signatures (a default argument holding a template
with two arguments, for one): it then takes the function's locals for
namespace-scope variables and misses the function. A brace scan of each
file rejects those variables, and measures the function that ctags missed
instead.
"""
import argparse
import bisect
import json
import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source_files(paths):
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs.sort()
            files += [os.path.join(root, n) for n in sorted(names)
                      if n.endswith(SOURCE_SUFFIXES)]
    return files


def run_ctags(files):
    """Ctags' function and variable entries, as dicts."""
    try:
        version = subprocess.run(["ctags", "--version"], capture_output=True,
                                 text=True).stdout
    except OSError:
        version = ""
    if "Universal Ctags" not in version:
        sys.exit("source-limits: needs Universal Ctags as `ctags` "
                 "(apt-get install universal-ctags)")
    result = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+ne", "--kinds-c++=fv",
         "--language-force=c++", "-L", "-", "-f", "-"],
        input="\n".join(files) + "\n", capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("source-limits: ctags failed: " + result.stderr.strip())
    return [json.loads(line) for line in result.stdout.splitlines()
            if line.startswith("{")]


def strip_code(text):
    """`text` with comments, the contents of string and character literals
    and preprocessor lines blanked (newlines kept, quotes kept), so that
    braces and keywords can be scanned."""
    out = list(text)
    n, i = len(text), 0
    line_start = True  # only blanks since the last newline

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            blank(i, j)
            i = j
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == '"':
            raw = re.search(r'(?:\b|^)(?:u8|[uUL])?R$', text[max(0, i - 3):i])
            if raw:
                m = re.match(r'"([^(\s]*)\(', text[i:])
                end = text.find(")" + (m.group(1) if m else "") + '"', i)
                j = n if end < 0 else end + len(m.group(1) if m else "") + 1
            else:
                j = i + 1
                while j < n and text[j] != '"' and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
        elif c == "'":
            # A digit separator (1'000) or a character literal.
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_.'"):
                k -= 1
            if k < i and text[k].isdigit():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


class Block:
    """A `{ ... }`: a namespace's (or extern "C"'s), a class's, or any
    other (a function's body, an initializer, a lambda's)."""

    def __init__(self, kind, open_pos, head_start):
        self.kind, self.open_pos, self.head_start = kind, open_pos, head_start
        self.close_pos = None


class BraceScan:
    """The blocks of one file, and which are open at a position."""

    def __init__(self, text):
        self.code = strip_code(text)
        self.line_starts = [0] + [m.end() for m in
                                  re.finditer("\n", self.code)]
        self.blocks, self.events, self.stacks = [], [], []
        stack, head_start = [], 0
        for m in re.finditer(r"[{};]", self.code):
            pos, c = m.start(), m.group()
            if c == "{":
                head = self.code[head_start:pos]
                if (re.search(r"\bnamespace\b", head)
                        and not re.search(r"\busing\s+namespace\b", head)) \
                        or re.search(r'\bextern\s*"\s*"\s*$', head):
                    kind = "namespace"
                elif (re.search(r"\b(class|struct|union|enum)\b", head)
                      and "(" not in head and "=" not in head):
                    kind = "class"
                else:
                    kind = "other"
                block = Block(kind, pos, head_start)
                self.blocks.append(block)
                stack = stack + [block]
            elif c == "}" and stack:
                stack[-1].close_pos = pos
                stack = stack[:-1]
            head_start = pos + 1
            self.events.append(pos)
            self.stacks.append(stack)

    def line_of(self, pos):
        return bisect.bisect_right(self.line_starts, pos)

    def stack_at(self, pos):
        k = bisect.bisect_left(self.events, pos)
        return self.stacks[k - 1] if k else []

    def find_name(self, line, name):
        """The position of `name` on `line` (1-based), or the line's start."""
        starts = self.line_starts + [len(self.code)]
        start = starts[min(line - 1, len(starts) - 1)]
        end = starts[min(line, len(starts) - 1)]
        m = re.search(r"\b%s\b" % re.escape(name), self.code[start:end])
        return start + m.start() if m else start

    def declaration(self, pos):
        """The code of the declaration that ends at `pos`: from the last
        `;`, `{` or `}` before it."""
        k = max(self.code.rfind(c, 0, pos) for c in ";{}")
        return self.code[k + 1:pos]

    def function_name(self, block):
        """The name that the signature before `block` declares, and the
        position of that name."""
        head = self.code[block.head_start:block.open_pos]
        paren = head.find("(")
        if paren >= 0:
            m = re.search(r"(~?[A-Za-z_]\w*(?:\s*::\s*~?[A-Za-z_]\w*)*)\s*$",
                          head[:paren])
            if m:
                name = re.sub(r"\s+", "", m.group(1))
                return name, block.head_start + m.start(1)
        return "<unknown>", block.open_pos


def strip_templates(text):
    """`text` without its `<...>` argument lists."""
    while True:
        stripped = re.sub(r"<[^<>]*>", " ", text)
        if stripped == text:
            return text
        text = stripped


def is_immutable(declaration):
    """Whether the declaration, up to the variable's name, declares a const
    object."""
    decl = strip_templates(declaration)
    # The declarator of the last of several (int a = 1, *b): its own
    # pointer part; the specifiers are those before the first one.
    parts = decl.split(",")
    specifiers = parts[0].split("=")[0]
    own = parts[-1]
    if re.search(r"\bconstexpr\b", specifiers):
        return True
    pointer = max(own.rfind("*"), own.rfind("&"))
    if pointer >= 0:
        if own[pointer] == "*":
            return re.search(r"\bconst\b", own[pointer:]) is not None
        # A reference: immutable when it refers to a const object.
        return re.search(r"\bconst\b", own[:pointer]) is not None or (
            len(parts) > 1 and re.search(r"\bconst\b", specifiers) is not None)
    return re.search(r"\bconst\b", specifiers + own) is not None


def check(paths, limit, allowed):
    files = source_files(paths)
    tags = run_ctags(files)
    functions, variables = {}, {}
    for tag in tags:
        kind, scope = tag.get("kind"), tag.get("scopeKind", "namespace")
        if kind == "function" and not tag["name"].startswith("__anon"):
            functions.setdefault(tag["path"], []).append(tag)
        elif kind == "variable" and scope == "namespace":
            variables.setdefault(tag["path"], []).append(tag)

    findings = []

    def report_function(path, line, name, end):
        length = end - line + 1
        short = name.split("::")[-1]
        if length > limit and name not in allowed and short not in allowed:
            findings.append((path, line, f"function {name} is {length} "
                             f"lines (limit {limit})"))

    for path, tags in functions.items():
        for tag in tags:
            if "end" not in tag:
                print(f"{path}:{tag['line']}: warning: ctags found no end of "
                      f"function {tag['name']}", file=sys.stderr)
                continue
            scope = tag.get("scope", "")
            owner = [s for s in scope.split("::")
                     if not s.startswith("__anon")]
            name = tag["name"]
            if tag.get("scopeKind") in ("class", "struct", "union") and owner:
                name = owner[-1] + "::" + name
            report_function(path, tag["line"], name, tag["end"])

    for path, tags in variables.items():
        with open(path, encoding="utf-8", errors="replace") as f:
            scan = BraceScan(f.read())
        missed = []
        for tag in tags:
            pos = scan.find_name(tag["line"], tag["name"])
            stack = scan.stack_at(pos)
            if all(b.kind == "namespace" for b in stack):
                if not is_immutable(scan.declaration(pos)):
                    findings.append((path, tag["line"], "namespace-scope "
                                     f"mutable variable {tag['name']}"))
                continue
            # Inside a function (or a class) that ctags misread: measure
            # the function if ctags did not see it.
            outer = next((b for b in stack if b.kind == "other"), None)
            if outer is None or outer in missed or outer.close_pos is None:
                continue
            open_line = scan.line_of(outer.open_pos)
            close_line = scan.line_of(outer.close_pos)
            if any(t["line"] <= open_line and t.get("end", 0) >= close_line
                   for t in functions.get(path, [])):
                continue
            missed.append(outer)
            name, name_pos = scan.function_name(outer)
            report_function(path, scan.line_of(name_pos), name, close_line)

    for path, line, message in sorted(set(findings)):
        print(f"{path}:{line}: {message}")
    return 1 if findings else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*",
                        help="folders or files to check (default: lib tools dialects)")
    parser.add_argument("--limit", type=int, default=150,
                        help="the most lines of a function (default 150)")
    parser.add_argument("--allow", action="append", default=[],
                        metavar="NAME",
                        help="a function exempt from the limit (repeatable)")
    args = parser.parse_args()
    paths = args.paths or [os.path.relpath(os.path.join(REPO, d))
                           for d in ("lib", "tools", "dialects")]
    for path in paths:
        if not os.path.exists(path):
            parser.error(f"no such file or folder: {path}")
    sys.exit(check(paths, args.limit, set(args.allow)))


if __name__ == "__main__":
    main()

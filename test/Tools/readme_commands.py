#!/usr/bin/env python3
"""Runs the shell examples of a Markdown file as written and compares what
they print with what the file shows.

    readme_commands.py README.md [--bin DIR]

A checked example is a fenced block right after a line
`<!-- readme-command ... -->`: each line that starts with `$ ` is a command,
run from the file's folder with DIR (tad's tools) first on PATH, and the lines up to the
next command are its expected output (stdout and stderr together, in
order, trailing spaces ignored). Prints one line per command and exits 1
on the first difference.
"""
import os
import re
import subprocess
import sys

MARKER = re.compile(r"<!-- readme-command[^>]*-->\n```[a-z]*\n(.*?)```", re.S)


def examples(text):
    for block in MARKER.findall(text):
        command, expected = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield command, expected
                command, expected = line[2:], []
            elif command is not None:
                expected.append(line.rstrip())
        if command is not None:
            yield command, expected


def main():
    path = sys.argv[1]
    env = dict(os.environ)
    if len(sys.argv) == 4 and sys.argv[2] == "--bin":
        env["PATH"] = sys.argv[3] + os.pathsep + env.get("PATH", "")
    text = open(path).read()
    found = 0
    for command, expected in examples(text):
        found += 1
        run = subprocess.run(command, shell=True, cwd=os.path.dirname(
            os.path.abspath(path)), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, env=env)
        got = [line.rstrip() for line in run.stdout.splitlines()]
        if run.returncode != 0 or got != expected:
            print(f"FAILED: {command} (exit {run.returncode})")
            print("expected:\n" + "\n".join(expected))
            print("got:\n" + "\n".join(got))
            sys.exit(1)
        print(f"ok: {command}")
    if not found:
        print(f"no checked example in {path}")
        sys.exit(1)


if __name__ == "__main__":
    main()

"""Prints an object's functions, sorted by name, each with its instructions
as objdump disassembles them: addresses, symbol offsets and padding (nop)
left out, so that two objects with the same code in another layout print
the same."""
import re
import subprocess
import sys

text = subprocess.run(
    ["objdump", "-d", "--no-show-raw-insn", "--no-addresses", sys.argv[1]],
    check=True, capture_output=True, text=True).stdout
functions = {}
current = None
for line in text.splitlines():
    line = line.strip()
    header = re.match(r"^<(.+)>:$", line)
    if header:
        current = functions.setdefault(header.group(1), [])
    elif current is not None and line and not line.startswith(("nop", "xchg   %ax,%ax", "data16", "cs nopw")):
        line = re.sub(r"<[^>]*>", "<sym>", line)
        line = re.sub(r"0x[0-9a-f]+", "0xN", line)
        line = re.sub(r"\b[0-9a-f]{3,}\b", "N", line)
        current.append(line)
for name in sorted(functions):
    print("function", name)
    print("\n".join(functions[name]))

"""Prints the PTX that `gpu-module-to-binary{format=isa}` put in each
gpu.binary of an IR dump (`tadc ... --mlir-print-ir-after=gpu-module-to-binary`,
read from stdin), its escapes (\\0A, \\09, ...) decoded."""
import re
import sys

text = sys.stdin.read()
found = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
if not found:
    sys.exit("print_ptx.py: no gpu.binary with PTX assembly in the input")
for assembly in found:
    print(re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
                 assembly))

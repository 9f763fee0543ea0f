#!/usr/bin/env python3
"""Lists what the GPU binaries of a CUDA-lowered module hold.

    fatbin-contents.py MODULE.ll [--expect "elf sm_80, elf sm_90, ptx sm_80"]

MODULE.ll is `tadc --target=cuda --emit=llvm-ir` output: each GPU module is
a constant `@NAME_binary` holding a fatbin. Prints one line per module:

    NAME: elf sm_80, elf sm_90, ptx sm_80 (N bytes)

The fatbin layout (a 16-byte header with magic 0xBA55ED50, then entries
each with a header giving its kind, 1 for PTX and 2 for an ELF cubin, its
size and its architecture) is the one the CUDA toolkit's fatbinary writes.
Exits non-zero when a binary is not a fatbin, or, with --expect, when a
module's listing is not the one expected.
"""
import argparse
import re
import struct
import sys

MAGIC = 0xBA55ED50
KINDS = {1: "ptx", 2: "elf"}


def decode_llvm_string(text):
    """The bytes of an LLVM IR c"..." literal (\\XX and \\\\ escapes)."""
    out = bytearray()
    i = 0
    while i < len(text):
        if text.startswith("\\\\", i):
            out.append(ord("\\"))
            i += 2
        elif text[i] == "\\":
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(ord(text[i]))
            i += 1
    return bytes(out)


def entries(blob):
    magic, _version, header_size, size = struct.unpack_from("<IHHQ", blob, 0)
    if magic != MAGIC:
        raise ValueError(f"magic {magic:#x}, not a fatbin")
    offset, end = header_size, header_size + size
    while offset < end:
        kind, _, entry_header, payload = struct.unpack_from("<HHIQ", blob,
                                                           offset)
        arch, = struct.unpack_from("<I", blob, offset + 28)
        yield KINDS.get(kind, f"kind{kind}"), arch
        offset += entry_header + payload


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("--expect")
    args = parser.parse_args()
    text = open(args.module, encoding="latin-1").read()
    found = 0
    for match in re.finditer(
            r'^@(\S+)_binary = internal constant \[(\d+) x i8\] c"(.*)"',
            text, re.MULTILINE):
        name, size, literal = match.groups()
        blob = decode_llvm_string(literal)
        if len(blob) != int(size):
            sys.exit(f"{name}: {len(blob)} bytes decoded, {size} declared")
        try:
            listed = ", ".join(f"{kind} sm_{arch}"
                               for kind, arch in entries(blob))
        except (ValueError, struct.error) as e:
            sys.exit(f"{name}: {e}")
        print(f"{name}: {listed} ({len(blob)} bytes)")
        if args.expect is not None and listed != args.expect:
            sys.exit(f"{name}: holds {listed}, expected {args.expect}")
        found += 1
    if not found:
        sys.exit(f"{args.module}: no GPU binary")
    if args.expect is not None:
        print(f"all {found} GPU modules hold {args.expect}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generates random .tad programs that nest loops, branches, checkpoints,
calls and custom-rule-free helpers, and checks each program's gradient
against finite differences with grad_check.py. Deterministic for a seed.

    random_programs.py --tadc PATH --count N [--seed S]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

HELPERS = """
fn cell(h: f64[2, 3], w: f64[3, 3]) -> f64[2, 3] {
  return tanh(h @ w) * 0.5 + h * 0.5;
}
@checkpoint
fn block(h: f64[2, 3], w: f64[3, 3], b: f64[3]) -> (f64[2, 3], f64) {
  let z = sigmoid(h @ w + b) - 0.5;
  return z + h, mean(z * z);
}
"""


class Generator:
    def __init__(self, rng):
        self.rng = rng
        self.loop_vars = 0

    def expr(self):
        """An f64[2, 3] expression of h and the weights."""
        r = self.rng
        choices = [
            "tanh(h @ w)",
            "sigmoid(h * u) - 0.5",
            "h * s + u",
            "cell(h, w)",
            "exp(h * 0.1) - 1.0",
            "maximum(h, h * 0.3)",
            "h / (abs(h) + 2.0)",
            "softmax(h, axis: 1) - 0.3",
            "where(h > 0.0, h * s, h * 0.5)",
        ]
        return r.choice(choices)

    def block(self, depth, indent):
        r = self.rng
        pad = "  " * indent
        lines = []
        for _ in range(r.randint(1, 3)):
            kind = r.choice(["assign", "assign", "aux", "for", "if",
                             "checkpoint", "ckexpr", "call"]
                            if depth < 3 else ["assign", "aux"])
            if kind == "assign":
                lines.append(f"{pad}h = {self.expr()};")
            elif kind == "aux":
                lines.append(f"{pad}aux = aux + mean(h * h) * 0.1;")
            elif kind == "for":
                v = f"i{self.loop_vars}"
                self.loop_vars += 1
                lines.append(f"{pad}for {v} in 0..2 {{")
                lines.append(f"{pad}  h = tanh(h @ ws[{v}]) + h * 0.5;")
                lines += self.block(depth + 1, indent + 1)
                lines.append(f"{pad}}}")
            elif kind == "if":
                lines.append(f"{pad}if sum(h) > 0.0 {{")
                lines += self.block(depth + 1, indent + 1)
                lines.append(f"{pad}}} else {{")
                lines += self.block(depth + 1, indent + 1)
                lines.append(f"{pad}}}")
            elif kind == "checkpoint":
                lines.append(f"{pad}checkpoint {{")
                lines += self.block(depth + 1, indent + 1)
                lines.append(f"{pad}}}")
            elif kind == "ckexpr":
                lines.append(f"{pad}h = checkpoint({self.expr()});")
            else:
                lines.append(f"{pad}let (n{self.loop_vars}, a{self.loop_vars}) = block(h, w, u[0]);")
                lines.append(f"{pad}h = n{self.loop_vars};")
                lines.append(f"{pad}aux = aux + a{self.loop_vars};")
                self.loop_vars += 1
        return lines

    def program(self):
        body = self.block(0, 1)
        return (HELPERS + "\nfn f(x: f64[2, 3], w: f64[3, 3], ws: f64[2, 3, 3], "
                "u: f64[2, 3], s: f64) -> f64 {\n  let h = x;\n"
                "  let aux = cast(0.0, f64);\n" + "\n".join(body) +
                "\n  return sum(h * h) + aux;\n}\nfn df = grad(f);\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tadc", required=True)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    checker = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "grad_check.py")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.count):
            source = os.path.join(tmp, f"p{n}.tad")
            with open(source, "w") as f:
                f.write(Generator(rng).program())
            proc = subprocess.run(
                [sys.executable, checker, "--tadc", args.tadc, "--source",
                 source, "--derivative", "df", "--samples", "6",
                 "--scale", "0.5", "--seed", str(n)],
                capture_output=True, text=True)
            if proc.returncode != 0:
                failures += 1
                print(f"FAIL program {n}:\n{open(source).read()}\n"
                      f"{proc.stdout}{proc.stderr[-2000:]}")
            else:
                print(f"PASS program {n}")
    print(f"{args.count - failures} of {args.count} random programs match "
          "finite differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

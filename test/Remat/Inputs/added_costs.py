"""Checks a remat report (JSON) of functions without loops: the added
costs of its values (each recomputed value's instances in the rewritten
function over its cost once) add up to what the rewrite computes over
store-all. Prints one line per function, FAIL where they do not."""
import json
import sys

for f in json.load(open(sys.argv[1]))["functions"]:
    added = sum(v["added_cost"] for v in f["values"])
    over = f["cost"] - f["store_all_cost"]
    ok = abs(added - over) <= 1e-9 * max(1.0, f["base_cost"])
    print(f"{'ok' if ok else 'FAIL'}: {f['function']}: values add "
          f"{added:.6g}, the rewrite {over:.6g} over store-all")

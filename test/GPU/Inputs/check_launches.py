"""Checks the rows of bench/gpu/launches.py's JSON (launches-bench.test):
each measured peak equals the plan's, and where the stand-in driver ran,
the host waited once per launch with --cuda-sync-launches and at most as
often without it. Prints one line per row, FAIL where a check fails."""
import json
import sys

data = json.load(open(sys.argv[1]))
for row in data["rows"]:
    problems = []
    if row["peak_bytes"] != row["planned_peak_bytes"]:
        problems.append(f"peak {row['peak_bytes']} != plan "
                        f"{row['planned_peak_bytes']}")
    if data["stand_in_driver"]:
        if row["waits_sync"] != row["driver_launches_sync"]:
            problems.append("--cuda-sync-launches does not wait per launch")
        if not 1 <= row["waits"] < row["waits_sync"]:
            problems.append(f"{row['waits']} waits, "
                            f"{row['waits_sync']} synchronous")
    print(f"{row['program']}: " + ("FAIL " + "; ".join(problems) if problems
                                   else "peak = plan"))

"""Cost of intent classification alone: ``classify()`` over the first messages of a flow's
eval sets (every case without earlier turns), per call, for this checkout and, with
``--checkout DIR`` (repeatable), for others (a ``git worktree`` of an earlier commit), each
in its own interpreter, alternating pass by pass. No routing, no store, no model call: only
the rules' reading of which intent a message asks for (keywords, examples, the learned model
where it is consulted).

Run: python bench/classify.py [--passes 5] [--flow transfer] [--checkout /tmp/before]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's `http`: import from the root instead
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]

from bench.side_by_side import measure, table  # noqa: E402

# one pass in a fresh interpreter on the checkout given: the mean µs of a classify call
_PASS = """
import glob, sys, time
from pathlib import Path
import yaml
sys.path.insert(0, sys.argv[1])
from engine.compiler import compile_file
from engine.nlu.intents import classify, model_of

root, flow = Path(sys.argv[1]), sys.argv[2]
rules = compile_file(root / "flows" / f"{flow}.yaml").intents
model_of(tuple(rules))  # trained before the clock starts, as a server does at start-up
messages = []
for name in [root / "flows" / f"{flow}.eval.yaml",
             *sorted(Path(sys.argv[3]).glob(f"blind_*/{flow}_*.eval.yaml"))]:
    if name.exists():
        messages += [c["message"] for c in yaml.safe_load(name.read_text())["cases"]
                     if not c.get("after")]
for message in messages:  # warm
    classify(message, rules)
start = time.perf_counter()
for _ in range(5):
    for message in messages:
        classify(message, rules)
print(len(messages), (time.perf_counter() - start) / (5 * len(messages)) * 1e6)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--flow", default="transfer", help="flows/FLOW.yaml and its eval sets")
    parser.add_argument("--checkout", action="append", default=[], type=Path,
                        help="another checkout to measure beside this one")
    args = parser.parse_args()
    trees = [ROOT, *args.checkout]
    fixtures = ROOT / "tests" / "fixtures"  # the same messages for every checkout
    outputs = measure(_PASS, trees, args.passes, args.flow, str(fixtures))
    print(f"{args.flow}: {outputs[0][0].split()[0]} first messages, classify() per call")
    table(trees, [[float(out.split()[1]) for out in runs] for runs in outputs],
          "median µs (range over passes)")

if __name__ == "__main__":
    main()

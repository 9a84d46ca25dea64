"""GWT-2 for Python: pyright (from clients/typescript's node_modules) passes typecheck/good.py and
refuses typecheck/bad.py with exactly the rules its lines name (# want: ...)."""

import json
import os
import re
import subprocess
import unittest
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PYRIGHT = HERE.parent / "typescript" / "node_modules" / ".bin" / "pyright"
WANT = re.compile(r"\s#\s*want:((?:\s+report\w+)+)\s*$")


def pyright(path: Path) -> list[dict]:
    if not PYRIGHT.exists():
        raise RuntimeError(f"{PYRIGHT} is missing: npm ci in clients/typescript (clients/test.sh does)")
    out = subprocess.run([str(PYRIGHT), "--outputjson", "--pythonpath", "/usr/bin/python3", str(path)],
                         cwd=HERE, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(HERE)})
    return json.loads(out.stdout)["generalDiagnostics"]


class TypecheckTest(unittest.TestCase):
    def test_good_calls_pass(self) -> None:
        self.assertEqual([d["message"] for d in pyright(HERE / "typecheck" / "good.py")], [])

    def test_bad_calls_fail_with_exactly_the_rules_each_line_names(self) -> None:
        path = HERE / "typecheck" / "bad.py"
        want: Counter[tuple[int, str]] = Counter()
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            m = WANT.search(line)
            if m:
                for rule in m.group(1).split():
                    want[(n, rule)] += 1
        got: Counter[tuple[int, str]] = Counter(
            (d["range"]["start"]["line"] + 1, d.get("rule", d["severity"])) for d in pyright(path))
        # A line may report a rule more than once (an argument per overload tried): compare the sets.
        self.assertGreaterEqual(len(want), 7)
        self.assertEqual(sorted(set(got)), sorted(set(want)))


if __name__ == "__main__":
    unittest.main()

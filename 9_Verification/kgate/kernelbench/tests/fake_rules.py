#!/usr/bin/env python3
"""A stand-in for kernelbench/ast_rules.py in the gate's tests, with its
interface: ast_rules.py FILE.py --json prints the findings (rule, severity,
line, reason, fix) and exits 1 when one is P0. It flags KGATE_TEST_P0 (P0)
and `import subprocess` (P1)."""
import json
import sys

findings = []
for no, line in enumerate(open(sys.argv[1]), 1):
    if "KGATE_TEST_P0" in line:
        findings.append({"rule": "KB-TEST-P0", "severity": "P0", "line": no,
                         "reason": "the tests' forbidden name", "fix": "remove it"})
    if "import subprocess" in line:
        findings.append({"rule": "KB-TEST-SUBPROCESS", "severity": "P1", "line": no,
                         "reason": 'starts processes {a "subprocess" call}', "fix": "compute in the model"})
print(json.dumps({"file": sys.argv[1], "findings": findings}))
sys.exit(1 if any(f["severity"] == "P0" for f in findings) else 0)

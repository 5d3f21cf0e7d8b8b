"""docs/tflite.md's generated operator table against the importer's converter
tables: every builtin operator a converter handles has its row (naming that
converter file), no row names an operator without a converter, and the
count line agrees. scripts/tflite-coverage.py writes the table (it runs the
per-op tests against the interpreter and imports the package models, minutes
of work); this check is the cheap part that can go stale when a converter is
added or removed."""
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_coverage_script():
    spec = importlib.util.spec_from_file_location(
        "tflite_coverage", os.path.join(ROOT, "scripts", "tflite-coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tflite_op_table_matches_converters():
    cov = load_coverage_script()
    ops = cov.supported_ops()
    with open(os.path.join(ROOT, "docs", "tflite.md")) as f:
        doc = f.read()
    table = doc[doc.index(cov.BEGIN):doc.index(cov.END)]
    rows = dict(re.findall(r"^\| ([A-Z0-9_]+) \| `(\w+\.cpp)` \|", table, re.M))
    assert rows == ops, (
        "docs/tflite.md's operator table is stale (run scripts/tflite-coverage.py): "
        f"missing {sorted(set(ops) - set(rows))}, extra {sorted(set(rows) - set(ops))}, "
        f"wrong file {sorted(k for k in ops if k in rows and rows[k] != ops[k])}")
    assert f"{len(ops)} builtin operators are converted" in table

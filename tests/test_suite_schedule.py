"""How the suite hands its tests to pytest-xdist's workers (tests/conftest.py): the bench smoke runs and the
multi-process modules one test at a time, every other module whole (its module fixtures built once)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import conftest

TESTS = Path(__file__).resolve().parent


class _LoadFile:
    """pytest's config as ``-n 2 --dist loadfile`` sets it (this run may be ``-n 0``)."""

    def __init__(self, config: pytest.Config):
        self._config = config

    def getvalue(self, name: str):
        return {"dist": "loadfile", "tx": ["2*popen"]}.get(name) or self._config.getvalue(name)

    def __getattr__(self, name: str):
        return getattr(self._config, name)


def test_loadfile_hands_out_the_listed_modules_test_by_test_and_the_others_whole(pytestconfig):
    pytest.importorskip("xdist")
    scheduler = conftest.pytest_xdist_make_scheduler(_LoadFile(pytestconfig), None)
    one = "tests/test_bench.py::test_the_benchmark_runs_in_its_quick_mode_and_prints_its_table[heads.py]"
    other = "tests/test_bench.py::test_the_benchmark_runs_in_its_quick_mode_and_prints_its_table[explain.py]"
    assert scheduler._split_scope(one) == one and scheduler._split_scope(other) == other
    assert scheduler._split_scope("tests/test_gui.py::test_x") == scheduler._split_scope("tests/test_gui.py::test_y") \
        == "tests/test_gui.py"


def test_other_distributions_keep_pytest_xdists_scheduler(pytestconfig):
    assert conftest.pytest_xdist_make_scheduler(pytestconfig, None) is None or pytestconfig.getvalue("dist") == \
        "loadfile"


@pytest.mark.parametrize("module", conftest.ONE_UNIT_PER_TEST)
def test_a_module_handed_out_test_by_test_has_no_module_or_class_fixture(module):
    """Each worker would build such a fixture again (the reason --dist loadfile keeps a module on one worker)."""
    tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
    scopes = [keyword.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
              for keyword in node.keywords
              if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant)]
    assert not {"module", "class", "package"} & set(scopes), (module, scopes)

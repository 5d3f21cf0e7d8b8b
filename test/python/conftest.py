"""The Python package's tests run against the INSTALLED package (make test
installs the wheel into build/python-venv; see scripts/run-tests.sh). They
refuse to run against the source tree's python/strata."""
import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def installed_package():
    import strata
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.abspath(strata.__file__)
    assert not path.startswith(os.path.join(here, "python") + os.sep), (
        f"strata is imported from the source tree ({path}), not an installed wheel")
    return strata

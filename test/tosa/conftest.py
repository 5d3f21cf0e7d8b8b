"""pytest fixtures for the TOSA front-end tests."""
import hashlib

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name, so failures reproduce."""
    seed = int(hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:8], 16)
    return np.random.default_rng(seed)

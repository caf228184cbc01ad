import pytest

from engine.suites import DATA_DIR, load_perft_suites


def pytest_collection_modifyitems(config, items):
    if not DATA_DIR.exists():
        skip = pytest.mark.skip(reason=f"test data not found at {DATA_DIR}")
        for item in items:
            if "needs_data" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def perft_cases():
    return load_perft_suites()

"""Shared fixtures: the claim records are computed once per test session (they are the expensive part)."""
import os

import pytest

# an internal error must fail a test with its traceback, not end as `l2g`'s one-line "internal error" message
os.environ.setdefault("L2G_TRACEBACK", "1")


@pytest.fixture(scope="session")
def claim_records():
    from local2global.proofs import Context, run_claim, select

    return {c.id: run_claim(c, Context()) for c in select()}


@pytest.fixture(scope="module")
def one_torch_thread():
    """The machine is shared: torch's intra-op threads only contend (20x slower under load)."""
    import torch
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def chromium():
    """Headless Chromium driven by selenium (Debian's chromium and chromium-driver), its console log kept; skipped
    when either is missing (the README says how to install them; `.ci/run` does)."""
    import shutil
    import tempfile
    from pathlib import Path

    binary = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    driver_path = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
    if binary is None or driver_path is None:
        pytest.skip("chromium / chromedriver not installed (Debian: apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="l2g-chromium-")
    opts = Options()
    opts.binary_location = binary
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                 "--window-size=1400,1250"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)

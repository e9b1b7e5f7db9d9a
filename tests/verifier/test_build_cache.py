"""The build cache: hits and misses, concurrent and killed builders, LRU eviction,
corrupted entries. Store-level tests use real processes and no compiler; the last ones
compile the tiny kernel through ``build_extension``."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from kerneltrials.verifier.builds._cache import BuildCache
from kerneltrials.verifier.worker._load_artifact import load_artifact
from tests.verifier._build_fixtures import a_relu_request

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_TOOLCHAIN = Path(os.environ["KERNELTRIALS_CACHE"]) / "builds" / ".toolchain"


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh library cache per test; PCHs and bindings shared with the whole suite."""
    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(SHARED_TOOLCHAIN))
    return tmp_path / "cache" / "builds"


def _writer(content: bytes, counter: Path | None = None, delay_s: float = 0.0):
    def build(staging: Path) -> None:
        if counter is not None:
            with counter.open("a") as stream:
                stream.write("built\n")
        time.sleep(delay_s)
        (staging / "lib.so").write_bytes(content)
    return build


def _build_in_process(root: str, key: str, counter: str, queue: multiprocessing.Queue) -> None:
    cache = BuildCache(Path(root))
    entry, hit = cache.get_or_build(key, _writer(b"x" * 4096, Path(counter), delay_s=1.0))
    queue.put((str(entry), hit, (entry / "lib.so").read_bytes() == b"x" * 4096))


@pytest.mark.timeout(30)
def test_miss_builds_then_hit_reuses(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "store")  # the counter outside: a stray file is evicted
    counter = tmp_path / "count"
    entry, hit = cache.get_or_build("k1", _writer(b"abc", counter))
    assert not hit and (entry / "lib.so").read_bytes() == b"abc"
    again, hit = cache.get_or_build("k1", _writer(b"zzz", counter))
    assert hit and again == entry and (again / "lib.so").read_bytes() == b"abc"
    assert counter.read_text().count("built") == 1


@pytest.mark.timeout(60)
def test_concurrent_builders_of_one_key_build_once(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    counter = tmp_path / "count"
    workers = [context.Process(target=_build_in_process, args=(str(tmp_path / "store"), "same",
                                                               str(counter), queue))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=50) for _ in workers]
    for worker in workers:
        worker.join(timeout=10)
    assert counter.read_text().count("built") == 1
    assert sorted(hit for _, hit, _ in results) == [False, True]
    assert all(intact for _, _, intact in results)
    assert len({entry for entry, _, _ in results}) == 1


KILLED_BUILDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from kerneltrials.verifier.builds._cache import BuildCache
    def build(staging):
        (staging / "lib.so").write_bytes(b"half")
        Path(sys.argv[2]).write_text("started")
        time.sleep(600)
    BuildCache(Path(sys.argv[1])).get_or_build("victim", build)
""")


@pytest.mark.timeout(60)
def test_builder_killed_half_way_leaves_nothing_blocking(tmp_path: Path) -> None:
    root, flag = tmp_path / "store", tmp_path / "started"
    builder = subprocess.Popen([sys.executable, "-c", KILLED_BUILDER, str(root), str(flag)],
                               cwd=REPO_ROOT)
    deadline = time.monotonic() + 40
    while not flag.exists():
        assert builder.poll() is None and time.monotonic() < deadline, "builder did not start"
        time.sleep(0.05)
    os.kill(builder.pid, signal.SIGKILL)
    builder.wait(timeout=10)
    cache = BuildCache(root)
    assert cache.lookup("victim") is None  # the half-built entry was never published
    started = time.monotonic()
    entry, hit = cache.get_or_build("victim", _writer(b"whole"))
    assert time.monotonic() - started < 5, "a dead builder's lock blocked the next one"
    assert not hit and (entry / "lib.so").read_bytes() == b"whole"
    assert list((root / ".staging").iterdir()) == []


@pytest.mark.timeout(30)
def test_leftovers_of_dead_builders_are_swept_but_live_staging_is_kept(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    (tmp_path / ".staging" / "ghost.123.abcd").mkdir()
    (tmp_path / ".trash" / "old.ef01").mkdir()
    (tmp_path / ".staging" / "busy.456.abcd").mkdir()
    with cache.lock("busy"):  # a live builder of "busy"
        cache.evict()
    assert [p.name for p in (tmp_path / ".staging").iterdir()] == ["busy.456.abcd"]
    assert list((tmp_path / ".trash").iterdir()) == []


@pytest.mark.timeout(30)
def test_eviction_removes_least_recently_used_until_it_fits(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path, max_bytes=10_000)
    for index, key in enumerate(("old", "middle", "new")):
        entry, _ = cache.get_or_build(key, _writer(b"x" * 3000))
        os.utime(cache.index_path(key), (1000 + index, 1000 + index))
    assert cache.lookup("old") is not None  # using it makes "middle" the oldest
    cache.get_or_build("newest", _writer(b"y" * 3000))
    present = {key for _, _, key in cache.entries()}
    assert present == {"old", "new", "newest"}
    assert sum(size for _, size, _ in cache.entries()) <= 10_000


@pytest.mark.timeout(30)
def test_entry_larger_than_the_bound_is_kept_but_evicts_the_rest(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path, max_bytes=1000)
    cache.get_or_build("small", _writer(b"s" * 100))
    entry, _ = cache.get_or_build("big", _writer(b"b" * 5000))
    assert (entry / "lib.so").is_file() and cache.lookup("small") is None


@pytest.mark.timeout(30)
def test_truncated_file_is_detected_and_rebuilt(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    entry, _ = cache.get_or_build("k", _writer(b"0123456789"))
    (entry / "lib.so").write_bytes(b"01234")
    assert cache.lookup("k") is None and not entry.exists()
    entry, hit = cache.get_or_build("k", _writer(b"0123456789"))
    assert not hit and (entry / "lib.so").read_bytes() == b"0123456789"


@pytest.mark.timeout(30)
def test_same_size_corruption_is_caught_by_the_checksum(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    entry, _ = cache.get_or_build("k", _writer(b"0123456789"))
    (entry / "lib.so").write_bytes(b"9876543210")
    assert cache.lookup("k") is None
    cache.get_or_build("k", _writer(b"ok"))
    recorded = json.loads(cache.index_path("k").read_text())
    assert recorded["files"]["lib.so"]["size_bytes"] == 2


@pytest.mark.timeout(30)
def test_a_file_added_to_an_entry_or_a_forged_record_is_a_miss(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path)
    entry, _ = cache.get_or_build("k", _writer(b"0123456789"))
    (entry / "extra.so").write_bytes(b"planted")  # e.g. a library for a second load
    assert cache.lookup("k") is None and not entry.exists()
    entry, _ = cache.get_or_build("k", _writer(b"0123456789"))
    (entry / "lib.so").write_bytes(b"9876543210")
    record = json.loads(cache.index_path("k").read_text())
    record["files"]["lib.so"]["sha256"] = "0" * 64  # a record that matches nothing
    cache.index_path("k").write_text(json.dumps(record))
    assert cache.lookup("k") is None


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_build_extension_miss_hit_and_corrupted_library(isolated_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    request = a_relu_request("cache-e2e")
    cold = build_extension(request)
    assert not cold.cache_hit and cold.module_name == f"kt_{cold.key}"
    warm = build_extension(request)
    assert warm.cache_hit and warm.library_path == cold.library_path
    Path(cold.library_path).write_bytes(Path(cold.library_path).read_bytes()[:4096])
    rebuilt = build_extension(request)
    assert not rebuilt.cache_hit
    x = torch.randn(257)
    expected = torch.where(x > 0, x * 1.5, x * 0.25)
    assert torch.equal(load_artifact(rebuilt).relu_forward(x), expected)


HIT_TIMER = textwrap.dedent("""
    import json, sys, time
    started = time.perf_counter()
    from kerneltrials.verifier.protocol import BuildRequest
    from kerneltrials.verifier.worker._load_artifact import load_artifact
    from kerneltrials.verifier.builds._compiler import build_extension
    request = BuildRequest.from_dict(json.loads(sys.argv[1]))
    import torch  # the run stage has torch loaded already: time the hit, not the import
    started = time.perf_counter()
    artifact = build_extension(request)
    module = load_artifact(artifact)
    print(json.dumps({"hit": artifact.cache_hit, "seconds": time.perf_counter() - started}))
""")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_cache_hit_in_a_fresh_process_is_under_half_a_second(isolated_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    request = a_relu_request("hit-timer")
    build_extension(request)
    output = subprocess.run([sys.executable, "-c", HIT_TIMER, json.dumps(request.to_dict())],
                            capture_output=True, text=True, check=True, cwd=REPO_ROOT).stdout
    result = json.loads(output.strip().splitlines()[-1])
    assert result["hit"] and result["seconds"] < 0.5

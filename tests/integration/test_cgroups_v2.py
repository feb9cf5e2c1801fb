"""cgroup v2 (the unified hierarchy) on a real cgroup2 mount that the test makes as root.

A machine whose memory, cpu and pids controllers cgroup v1 holds (this one) offers them to no
v2 mount, so there detection must say so, and only what v2 does without controllers runs for
real: entering a group through `cgroup.procs`, freezing it through `cgroup.freeze` and
`cgroup.events`, killing it and removing it. The limits (`memory.max`, `cpu.max`, `pids.max`)
are checked only where v2 has those controllers.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.envs.live import cgroups
from backend.envs.live.cgroups import TOP, V2, Group, Hierarchy

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting cgroup2 needs root")


@pytest.fixture(scope="module")
def unified() -> Iterator[Path]:
    """A cgroup2 mount of our own (the one unified hierarchy, seen at a fresh place)."""
    folder = Path(tempfile.mkdtemp(prefix="awp-cgroup2-"))
    done = subprocess.run(
        ["mount", "-t", "cgroup2", "none", str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount cgroup2 here: {done.stderr.strip()}")
    yield folder
    with contextlib.suppress(OSError):  # left by the tests' groups (empty once they are gone)
        (folder / TOP).rmdir()
    subprocess.run(["umount", str(folder)], check=True)
    folder.rmdir()


def offered(mount: Path) -> set[str]:
    return set((mount / "cgroup.controllers").read_text().split())


def test_detection_reads_the_unified_mounts_controllers(unified: Path) -> None:
    found = cgroups.detect([("cgroup2", unified, set())])
    if set(V2) <= offered(unified):
        assert found == Hierarchy(2, {"": unified})
    else:
        assert found.version == 0 and found.mounts == {}
        lacking = ", ".join(name for name in V2 if name not in offered(unified))
        assert f"cgroup v2 at {unified} lacks {lacking} (it offers " in found.reason
    assert cgroups.detect([]).reason == (
        "no cgroup v1 memory/cpu/cpuacct/pids/freezer mounts and no cgroup v2 mount"
    )


def test_a_v2_group_takes_a_process_freezes_it_kills_it_and_goes(unified: Path) -> None:
    group = Group(f"test-{uuid.uuid4().hex[:8]}", "sandbox-1", Hierarchy(2, {"": unified}))
    folder = group.path("")
    # Made by hand: `create` also gives the group its limits, which need v2's controllers.
    folder.mkdir(parents=True)
    sleeper = subprocess.Popen([*group.enter(), "sleep", "60"])
    try:
        cgroups._until(lambda: group.pids() == [sleeper.pid])
        assert group.pids() == [sleeper.pid]
        assert f"0::/{TOP}/" in Path(f"/proc/{sleeper.pid}/cgroup").read_text()
        group.freeze()
        assert group.frozen and "frozen 1" in (folder / "cgroup.events").read_text()
        group.thaw()
        assert not group.frozen
        group.remove()
        assert sleeper.wait(timeout=5) == -9
        assert not folder.exists() and not folder.parent.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
        group.remove()


def test_a_v2_group_gets_its_limits(unified: Path) -> None:
    if not set(V2) <= offered(unified):
        pytest.skip(
            f"cgroup v2 here offers {', '.join(sorted(offered(unified))) or 'no controller'}: "
            "cgroup v1 holds memory, cpu and pids"
        )
    group = Group(f"test-{uuid.uuid4().hex[:8]}", "sandbox-1", Hierarchy(2, {"": unified}))
    try:
        group.create(memory_mb=256, cpu_share=0.5, tasks=32)
        folder = group.path("")
        assert (folder / "memory.max").read_text().strip() == str(256 * 1024 * 1024)
        assert (folder / "cpu.max").read_text().split() == ["50000", "100000"]
        assert (folder / "pids.max").read_text().strip() == "32"
    finally:
        group.remove()

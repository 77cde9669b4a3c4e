"""memory_limit in a Python process: the torch loader, run in a fresh
interpreter with pragmas={"memory_limit": ...}, adds no more to the
process's peak resident memory than the limit (measured against the
resident bytes before the loader started, the peak reset there), its own
tensor copies of the batches included; and the batches it hands out are the
same under a small limit as under a large one (digests)."""
import os
import subprocess
import sys
import textwrap

import pytest

import gnndb

CHILD = textwrap.dedent("""
    import sys, gnndb.torch

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) * 1024

    db, limit, sql = sys.argv[1:4]
    base = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")          # the peak starts again from here
    digests = [b.digest for b in gnndb.torch.loader(
        db, sql, pyg=False, pragmas={"memory_limit": limit, "threads": 2})]
    print(status("VmHWM") - base, " ".join("%x" % d for d in digests))
""")

SQL = ("SAMPLE 10,10 FROM cora FEATURES feat BATCH 64 SHUFFLE SEED 5 "
       "EPOCHS 2;")


def run_child(db, limit):
    p = subprocess.run([sys.executable, "-c", CHILD, db, limit, SQL],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    grew, digests = p.stdout.split(" ", 1)
    return int(grew), digests.split()


def can_reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


@pytest.mark.skipif(not can_reset_peak(),
                    reason="no /proc/self/clear_refs to reset the peak RSS")
@pytest.mark.parametrize("limit_mib", [32, 64])
def test_loader_stays_within_memory_limit(cora_db, limit_mib):
    grew, digests = run_child(cora_db, "%dMB" % limit_mib)
    _, want = run_child(cora_db, "1GB")
    assert digests == want
    assert len(digests) == 2 * 43
    # the whole growth of the process, the loader's tensors included
    assert grew <= limit_mib << 20, \
        "peak RSS grew %.1f MiB under memory_limit %d MiB" % (grew / 2**20,
                                                              limit_mib)


def test_memory_baselines_are_exported():
    assert gnndb.BASELINE_NOW == -1
    assert gnndb.BASELINE_PREPARE == -2

"""What the compiled-kernel tests share: where the `strata` binary is, which
CPU paths (STRATA_CPU_ISA values) this machine can run, and a subprocess
wrapper. Imported by test/compiled and by the kernel tests in test/numeric
(they put this folder on sys.path first)."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")


def cpu_flags():
    """The feature flags of /proc/cpuinfo (empty when it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


FLAGS = cpu_flags()
# Every kernel path this CPU can execute; the portable one always.
ISAS = ["portable"] + (["avx2"] if {"avx2", "fma"} <= FLAGS else []) + \
    (["avx512"] if "avx512f" in FLAGS else [])


def strata(*args, env=None):
    """Runs `strata ARGS...`; returns the CompletedProcess (text output)."""
    return subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)

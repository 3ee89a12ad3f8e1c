"""Regenerate the blind held-out logs: `.venv/bin/python -m bench.holdout._generate` from the repository root."""
import bench.holdout._gen_distributed  # noqa: F401
import bench.holdout._gen_runtime  # noqa: F401
import bench.holdout._gen_ecosystem  # noqa: F401
import bench.holdout._gen_negative  # noqa: F401
import bench.holdout._gen_extended  # noqa: F401
from bench.holdout._gen_common import write_all

if __name__ == "__main__":
    write_all()

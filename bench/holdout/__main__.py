"""`python -m bench.holdout --set holdout3`: the held-out evaluator (bench/heldout.py)."""
import sys

from bench.heldout import main

sys.exit(main())

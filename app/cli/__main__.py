"""`python -m app.cli` runs the `faultline` command."""
import sys

from app.cli import main

sys.exit(main())

"""`python -m faultline.cli` runs the `faultline` command."""
import sys

from faultline.cli import main

sys.exit(main())

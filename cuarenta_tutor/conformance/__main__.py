"""Runs the rule cases of the files named: `python -m cuarenta_tutor.conformance FILE...`."""

import sys

from . import main

sys.exit(main())

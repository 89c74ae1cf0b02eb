"""`python -m cuarenta_tutor.cli`: the `cuarenta-tutor` command."""

import sys

from .main import main

sys.exit(main())

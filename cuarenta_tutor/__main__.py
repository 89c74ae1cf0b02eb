"""`python -m cuarenta_tutor`: the same as the `cuarenta-tutor` command."""

import sys

from .cli import main

sys.exit(main())

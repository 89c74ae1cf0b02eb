"""`python -m cuarenta_tutor.cli`: the `cuarenta-tutor` command."""

import sys

try:
    from .main import run
except KeyboardInterrupt:  # Ctrl-C while the command's first modules load: the line main gives later
    command = next((word for word in sys.argv[1:] if not word.startswith("-")), "")
    print(f"\ncuarenta-tutor {command}: stopped".replace(" :", ":"), file=sys.stderr)
    sys.exit(130)

run()

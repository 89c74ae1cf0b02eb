"""`python -m cuarenta_tutor.cli`: the `cuarenta-tutor` command."""

import sys

try:
    from .main import run
except KeyboardInterrupt:  # Ctrl-C while the command's first modules load: the line main gives later
    command = next((word for word in sys.argv[1:] if not word.startswith("-")), "")
    try:  # the language of the environment (the line's --lang and the settings are not read yet)
        from .. import i18n

        i18n.set_language()
        stopped = i18n.gettext("stopped")
    except BaseException:  # a second Ctrl-C, or no catalog: the English word
        stopped = "stopped"
    print(f"\ncuarenta-tutor {command}: {stopped}".replace(" :", ":"), file=sys.stderr)
    sys.exit(130)

run()

"""`python -m cuarenta_tutor.i18n check|missing|compile [LANG] [--under PATH]`: see catalogs.py."""

from __future__ import annotations

import sys

from .catalogs import compile_all, missing_po, problems


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("check", "missing", "compile"):
        print("usage: python -m cuarenta_tutor.i18n check|missing|compile [LANG]", file=sys.stderr)
        return 2
    under = ""
    if "--under" in argv:
        at = argv.index("--under")
        under, argv = argv[at + 1], argv[:at] + argv[at + 2:]
    lang = argv[1] if len(argv) > 1 else "es"
    if argv[0] == "compile":
        for path in compile_all(lang):
            print(path)
        return 0
    if argv[0] == "missing":
        sys.stdout.write(missing_po(lang, under))
        return 0
    found = problems(lang)
    for kind, items in found.items():
        for item in items:
            print(f"{kind}: {item}")
    print(", ".join(f"{len(items)} {kind}" for kind, items in found.items()))
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

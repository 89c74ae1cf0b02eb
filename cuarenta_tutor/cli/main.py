"""Provides the `cuarenta-tutor` parser, built from one module per subcommand, and the dispatch through it.

Each subcommand is a module of this package with `NAME`, `HELP` (and `DESCRIPTION` where it has one),
`add_arguments(parser)` and `run(args) -> int`; `run` is the parser's default for its subcommand, so `main`
dispatches with `args.run(args)`. A module imports what its work needs inside `run`, and the choices of its
options (rules presets, levels, backends) inside `add_arguments`: `main` adds the arguments of the one
subcommand on the command line only, so `cuarenta-tutor --help` imports none of them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys

from .. import core, i18n
from ..i18n import _
from . import home
from .options import Parser, backend_problem, sentence

COMMANDS = ("play", "review", "lessons", "drills", "stats", "serve", "analyse", "arena", "train", "search_games",
            "export", "bench")
"""The subcommands' modules, in the order `--help` lists them."""
EXPERT = ("arena", "train", "search-games", "export", "bench")
"""The commands for whoever trains, measures or studies the agent: `--help` lists them apart, after a player's."""


class CommandsFormatter(argparse.HelpFormatter):
    """The top-level help's formatter: the commands listed one a line under their heading, as options are, without
    argparse's line of every name in braces above them."""

    def _format_action(self, action):
        if isinstance(action, argparse._SubParsersAction):
            return "".join(self._format_action(command) for command in action._get_subactions())
        return super()._format_action(action)


class VersionAction(argparse.Action):
    """`--version`: the installed version, read only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help=None):
        help = help or _("show program's version number and exit")  # in the language set before the parser
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..resources import version

        print(f"cuarenta-tutor {version()}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `only` a subcommand's name, only its options are added (every subcommand is still
    listed, by name and help, which is all `--help` shows of them; "": none)."""
    parser = Parser(prog="cuarenta-tutor", description=_("Learn and play Cuarenta in the terminal."),
                    formatter_class=CommandsFormatter)
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("--lang", choices=i18n.LANGUAGES, help=_(
        "the language of the tutor (default: your setting, else the environment's LANG)"))
    parser.set_defaults(run=home.run)
    sub = parser.add_subparsers(dest="command")
    for name in COMMANDS:
        module = importlib.import_module(f"{__package__}.{name}")
        description = getattr(module, "DESCRIPTION", None)  # module-level texts, marked with N_: shown here
        subparser = sub.add_parser(module.NAME, help=_(module.HELP),
                                   description=_(description) if description else sentence(_(module.HELP)))
        if only in (None, module.NAME):
            module.add_arguments(subparser)
        subparser.set_defaults(run=module.run)
    # the expert commands under their own heading, after the player's (parsed as every other: only listed apart)
    expert = parser.add_argument_group(_("expert commands"))
    expert._group_actions.extend(action for action in sub._choices_actions if action.dest in EXPERT)
    sub._choices_actions[:] = [action for action in sub._choices_actions if action.dest not in EXPERT]
    parser._action_groups.remove(expert)
    parser._action_groups.insert(parser._action_groups.index(parser._positionals) + 1, expert)
    return parser


def main(argv=None) -> int:
    """Run the command line `argv` (default: the process's): its exit status. An argument the parser refuses is
    one line and 2, returned as every other refusal is (--help and --version: 0)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    argv = choose_language(argv)
    words = [word for i, word in enumerate(argv) if not (i == 1 and argv[0] == "--lang")]
    command = next((word for word in words if not word.startswith("-")), "")  # only --lang takes a value
    interrupted = []
    with _noting_interrupts(interrupted):
        try:
            try:
                args = _parse(build_parser(only=command), argv)
            except SystemExit as done:  # the parser's own exit: its status, so a caller in this process gets it
                return done.code
            command = args.command or ""
            if core.problem():
                print(f"cuarenta-tutor: {core.problem()}", file=sys.stderr)
            problem = backend_problem(args)
            if problem:
                print(f"cuarenta-tutor {command}: {problem}", file=sys.stderr)
                return 2
            code = args.run(args)
            notice = core.notice()  # a damaged compiled cache set aside and compiled again: one line
            if notice:
                print(f"cuarenta-tutor: {notice}", file=sys.stderr)
            return code
        except Exception:
            if not interrupted:
                raise
            # Ctrl-C inside a library that turns it into its own error (numba, compiling): still a stop
        except KeyboardInterrupt:  # Ctrl-C, at any point (parsing, an import, a load): a line, not a traceback
            pass
    stopped = _("stopped")
    print(f"\ncuarenta-tutor {command}: {stopped}".replace(" :", ":"), file=sys.stderr)
    _STOPPED.append(True)
    return 130


def choose_language(argv: list[str]) -> list[str]:
    """Set the language of this process, before any parser or word is made: `--lang` (anywhere on the line: it is
    taken out and given to the top-level parser first), else the person's setting, else the environment. argparse's
    own words ("usage: ", "options") go through the same catalogs. The arguments to parse."""
    chosen, rest, i = None, [], 0
    while i < len(argv):
        word = argv[i]
        if word == "--lang" and i + 1 < len(argv):
            chosen, i = argv[i + 1], i + 2
            continue
        if word.startswith("--lang="):
            chosen = word.split("=", 1)[1]
        else:
            rest.append(word)
        i += 1
    try:
        i18n.set_language(chosen)
    except ValueError:  # the parser refuses it, naming the choices
        i18n.set_language(_stored_language())
        return ["--lang", chosen, *rest]
    if chosen is None:
        i18n.set_language(_stored_language())
    argparse._ = i18n.gettext
    argparse.ngettext = i18n.ngettext
    return rest if chosen is None else ["--lang", chosen, *rest]


def _stored_language() -> str:
    from ..resources import user_data_dir

    return i18n.stored_choice(user_data_dir() / "settings.json")


def _parse(parser, argv):
    """The parser's arguments; words no option takes are refused by the subcommand's parser, so the line names
    the subcommand ("cuarenta-tutor stats: unrecognized arguments: x")."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        subparsers = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        named = subparsers.choices.get(getattr(args, "command", None)) if subparsers else None
        (named or parser).error(_("unrecognized arguments: %s") % " ".join(extra))  # argparse's own words
    return args


_STOPPED = []  # main stopped on Ctrl-C: `run` leaves at once, as half-built compiled code can't be finalised


class _noting_interrupts:
    """Within: Ctrl-C raises KeyboardInterrupt as usual and is noted in `into`, so an error a library makes of it
    is known as a stop; from then on what finalisers of half-built objects raise is not printed (llvmlite's, when
    the stop lands inside a compile): the process is stopping. A stop that lands inside a finaliser (which Python
    swallows: the command would run on as if never stopped) is raised again, in the code that runs next. Only
    where Python's own handler is in place (the main thread, SIGINT not ignored)."""

    def __init__(self, into: list):
        self.into, self.before, self.inside = into, None, False

    def __enter__(self):
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                self.before = signal.signal(signal.SIGINT, self._stop)
                self.inside = True
        except ValueError:  # not the main thread
            pass
        return self

    def _stop(self, signum, frame):
        self.into.append(signum)
        sys.unraisablehook = self._swallowed
        raise KeyboardInterrupt

    def _swallowed(self, unraisable) -> None:
        """Prints nothing; a stop a finaliser swallowed is sent again, while still inside: from a thread a moment
        later, so that it lands after the finaliser (sent from here, it would land in this hook, and be lost)."""
        if self.inside and issubclass(unraisable.exc_type, KeyboardInterrupt):
            import threading

            threading.Timer(0.01, self._again).start()

    def _again(self) -> None:
        if self.inside:
            import _thread

            _thread.interrupt_main()

    def __exit__(self, *exc):
        self.inside = False
        if self.before is not None:
            signal.signal(signal.SIGINT, self.before)
        return False


def run() -> None:
    """The `cuarenta-tutor` command: main's status as the process's. After a Ctrl-C stop it leaves without the
    interpreter's finalisers: objects a compile left half built complain in them, on the user's screen."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader of our output left (`| head`): stop quietly, as a Unix command does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the flush at exit would fail again on the closed pipe
        sys.exit(141)  # 128 + SIGPIPE, what a shell reports for a command a closed pipe stopped
    if _STOPPED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)

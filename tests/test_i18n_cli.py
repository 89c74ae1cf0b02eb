"""The command line in Spanish: `--help` of the command and of every subcommand (argparse's own words through our
catalogs), the refusals, the text output, the browser page of `serve`; the language from `--lang`, the person's
setting or the environment, in that order."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from cuarenta_tutor.cli import main
from cuarenta_tutor.cli.main import COMMANDS

HANG = 120
ENGLISH = re.compile(r"\b(the|your|you|show|and|of|with|default|usage|options|positional|arguments|games?|seed|"
                     r"must|not|file|folder|needs?|play|unknown|choose|invalid)\b")
"""English words that Spanish text never has (`play` and `games` as command names and option values are taken out
of a text before it is searched: see `words`)."""
COMMAND_WORDS = re.compile(r"\{[^}]*\}|--[a-z-]+|\b(cuarenta-tutor|[a-z]+_[a-z_]+|[A-Z]{2,}[A-Z0-9_-]*)\b|"
                           r"'[^']*'|\([^()]*\bextra\b[^()]*\)|\b(standard|pagat|beginner|club|strong|adaptive|local|"
                           r"ray|random|greedy|expert|search|analysis|engine|core|train|agent|tui|bots|play|review|"
                           r"lessons|drills|stats|serve|analyse|arena|export|bench|search-games|games|auto|onnx|"
                           r"openspiel|ismcts|torch|tmux|softmax|distributed|web|infer|carton|solve|temp|eps|Platt|"
                           r"Ray|Python|Config)\b|[\w./-]+\.(pt|onnx|npz|py|json)\b|training\.a2c\.Config|"
                           r"analysis\.STANDARD|runs/agent")
"""What a command line names as typed: commands, options, values, files, extras (never translated)."""


def words(text: str) -> list[str]:
    """The English words left in `text` once what is typed on a command line is taken out."""
    return ENGLISH.findall(COMMAND_WORDS.sub(" ", text))


def spanish_environment(**more) -> dict:
    """The process environment of a person whose system is in Spanish (Ecuador): LANG only (the suite's LANGUAGE=en,
    and any LC_ALL or LC_MESSAGES, taken out)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return {**env, "LANG": "es_EC.UTF-8", "COLUMNS": "100", **more}


@pytest.fixture
def spanish_system(monkeypatch):
    """This process's environment asks for Spanish as a person's es_EC system does."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "es_EC.UTF-8")
    monkeypatch.setenv("COLUMNS", "100")


def command(*argv, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", *argv], capture_output=True, text=True,
                          timeout=HANG, env=env or spanish_environment())


def test_the_command_s_help_is_spanish_in_a_spanish_system():
    done = command("--help")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert out.startswith("uso: cuarenta-tutor") and "\nopciones:\n" in out and "argumentos posicionales:" in out
    assert "Aprende y juega Cuarenta en la terminal." in out
    assert "muestra esta ayuda y sale" in out and "muestra la versión del programa y sale" in out
    assert "juega una partida contra el agente" in out and "revisa partidas guardadas" in out
    assert not words(out), words(out)


def test_the_command_s_help_in_spanish_imports_nothing_heavy():
    code = ("import sys\nfrom cuarenta_tutor.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
            "    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG,
                          env=spanish_environment())
    loaded = set(done.stderr.split())
    heavy = {"importlib.metadata", "cuarenta_tutor.engine", "cuarenta_tutor.records", "cuarenta_tutor.interop",
             "numpy", "onnxruntime", "textual", "torch", "babel"}
    assert "uso:" in done.stdout and not loaded & heavy, loaded & heavy


def subcommands() -> list[list[str]]:
    targets = ["engine", "core", "train", "analysis", "agent", "tui", "bots"]
    names = [name.replace("_", "-") for name in COMMANDS]
    return [[name] for name in names] + [["bench", target] for target in targets]


@pytest.mark.parametrize("argv", subcommands(), ids=" ".join)
def test_every_subcommand_s_help_is_spanish(argv, spanish_system, capsys):
    assert main([*argv, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("uso: cuarenta-tutor " + " ".join(argv)) and "opciones:" in out
    assert "muestra esta ayuda y sale" in out
    for english in (" the ", " your ", " show ", " you ", " default"):
        assert english not in out, (english, out)
    assert not words(out), words(out)


def test_the_descriptions_of_the_subcommands_are_spanish(spanish_system, capsys):
    assert main(["analyse", "--help"]) == 0
    out = capsys.readouterr().out
    assert "Cada jugada legal de una posición" in out and "uso: cuarenta-tutor analyse [-h]" in out
    assert " partida\n" in out  # the saved game's placeholder, in the usage line's words
    assert main(["serve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Sirve el tutor a un navegador" in out and "solo esta máquina" in out
    assert main(["play", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "0: das tú primero" in out and "tu compañero" in out and "(por defecto)" in out


def test_a_default_shown_in_the_help_keeps_its_value(spanish_system, capsys):
    assert main(["serve", "--help"]) == 0
    assert "el puerto (por defecto 8000)" in " ".join(capsys.readouterr().out.split())
    assert main(["arena", "--help"]) == 0
    assert "hasta 1000000 (por defecto 200)" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv", [["--lang", "en", "play", "--help"], ["play", "--help", "--lang", "en"],
                                  ["play", "--lang=en", "--help"]])
def test_lang_en_in_a_spanish_system_is_english(argv, spanish_system, capsys):
    assert main(argv) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("usage: cuarenta-tutor play") and "options:" in out
    assert "show this help message and exit" in out and "0: you deal first" in out
    assert "uso:" not in out and "opciones" not in out


def test_lang_es_in_an_english_system_is_spanish(capsys):
    assert main(["--lang", "es", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("uso: ") and "Aprende y juega Cuarenta" in out


@pytest.mark.parametrize("argv, said", [
    (["play", "--seed", "x"], "cuarenta-tutor play: argumento --seed: debe ser un número entero de 0 a "
                              "9223372036854775807, no 'x' (mira cuarenta-tutor play --help)"),
    (["play", "--rules", "nope"], "cuarenta-tutor play: conjunto de reglas desconocido 'nope'; elige uno de: "
                                  "standard,"),
    (["play", "--players", "2", "--dealer", "3"], "cuarenta-tutor play: --dealer 3 no es un asiento de una partida "
                                                  "de 2 jugadores (0..1)"),
    (["play", "--players", "4", "--level", "adaptive"], "cuarenta-tutor play: el nivel adaptable sigue tus propios "
                                                        "resultados"),
    (["arena", "random", "greedy", "--games", "3"], "argumento --games: debe ser un número entero par de 2 a "
                                                    "1000000, no '3'"),
    (["search-games", "--out", "x"], "faltan estos argumentos obligatorios: --games"),
    (["nonsense"], "cuarenta-tutor: argumento command: opción no válida: 'nonsense' (elige entre 'play',"),
    (["stats", "extra"], "cuarenta-tutor stats: argumentos no reconocidos: extra (mira cuarenta-tutor stats --help)"),
    (["--lang", "fr"], "opción no válida: 'fr' (elige entre 'en', 'es')"),
    (["search-games", "--out", "o", "--games", "1", "--share", "2"], "debe ser un número de 0 a 1, no '2'"),
    (["bench", "agent", "--throughput-seconds", "0"], "debe ser un número mayor que 0, hasta 60, no '0'"),
    (["train", "--config", "no/such/file.json"], "argumento --config: no hay ningún archivo en no/such/file.json"),
    (["serve", "--port", "0"], "argumento --port: debe ser un número entero de 1 a 65535, no '0'"),
    (["arena", "random", "greedy", "--address", "localhost:1"], "cuarenta-tutor arena: --address necesita "
                                                                "--backend ray"),
])
def test_a_refusal_is_spanish(argv, said, spanish_system, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err, err
    assert not words(err), words(err)


def test_a_refusal_is_english_with_lang_en(spanish_system, capsys):
    assert main(["--lang", "en", "play", "--seed", "x"]) == 2
    assert capsys.readouterr().err == ("cuarenta-tutor play: argument --seed: must be a whole number from 0 to "
                                       "9223372036854775807, not 'x' (see cuarenta-tutor play --help)\n")


def test_a_path_that_cannot_be_written_is_refused_in_spanish(spanish_system, capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["arena", "random", "greedy", "--records", str(blocker)]) == 2
    assert f"{blocker} es un archivo, no una carpeta; da una carpeta (se crea si no existe)" in capsys.readouterr().err
    assert main(["train", "--out", str(blocker / "run")]) == 2
    assert f"{blocker / 'run'} está dentro de {blocker}, que es un archivo, no una carpeta" in capsys.readouterr().err


def test_the_person_s_setting_picks_spanish(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"language": "es"}), encoding="utf-8")
    env = spanish_environment(CUARENTA_TUTOR_HOME=str(home))
    del env["LANG"]  # nothing in the environment says which language
    done = command("play", "--help", env=env)
    assert done.stdout.startswith("uso: cuarenta-tutor play") and "das tú primero" in done.stdout, done.stderr
    done = command("--lang", "en", "play", "--help", env=env)  # --lang wins over the setting
    assert done.stdout.startswith("usage: cuarenta-tutor play"), done.stderr
    (home / "settings.json").write_text(json.dumps({"language": "en"}), encoding="utf-8")
    done = command("--help", env=spanish_environment(CUARENTA_TUTOR_HOME=str(home)))  # the setting wins over LANG
    assert done.stdout.startswith("usage: cuarenta-tutor"), done.stderr


def test_a_stop_is_said_in_spanish(spanish_system, capsys, monkeypatch):
    import importlib

    from cuarenta_tutor.cli import stats

    main_module = importlib.import_module("cuarenta_tutor.cli.main")

    def stop(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(stats, "run", stop)
    try:
        assert main(["stats"]) == 130
    finally:
        main_module._STOPPED.clear()
    assert capsys.readouterr().err == "\ncuarenta-tutor stats: detenido\n"


def test_the_train_extra_missing_is_said_in_spanish(spanish, capsys, monkeypatch):
    import importlib.util

    from cuarenta_tutor.training.command import train_extra_missing

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None)
    assert train_extra_missing("train")
    err = capsys.readouterr().err
    assert err.startswith("cuarenta-tutor train necesita el extra train, que no está instalado: pip install -e")
    assert "en una máquina sin GPU de NVIDIA añade --extra-index-url" in err


def test_the_argument_types_refuse_in_spanish(spanish):
    import argparse

    from cuarenta_tutor.cli.options import number, whole

    with pytest.raises(argparse.ArgumentTypeError, match=r"^debe ser un número entero par de 2 a 10, no '3'$"):
        whole(2, 10, even=True)("3")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^debe ser un número de 0 a 1, no 'x'$"):
        number(0, 1)("x")


def test_the_analysis_as_text_is_spanish(spanish_system, capsys):
    from cuarenta_tutor import records
    from cuarenta_tutor.app.session import GameSession

    session = GameSession.new(seed=4, dealer=1)
    while len(session.record.moves) < 2:
        if session.human_turn:
            session.play_human(session.hints()[-1].action)
        else:
            session.play_agent()
    path = records.games_dir() / f"{session.record.game_id}.json"
    person = next(i for i, m in enumerate(session.record.moves) if m.seat == 0)
    assert main(["analyse", str(path), "--ply", str(person + 1), "--worlds", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    heading, *moves = out.splitlines()
    assert heading.startswith(f"Jugada {person + 1}, asiento 0 (en 2 mundos, % de ganar del equipo que juega"), heading
    assert moves and all(" pérdida " in m and " riesgo de caída " in m and " riesgo de limpia " in m for m in moves)
    assert re.search(r"\d+,\d %", moves[0]), moves[0]  # Ecuador's decimal comma, a space before the sign
    assert "loss" not in out and "risk" not in out and "Move" not in out


def test_the_browser_page_is_in_the_language(spanish):
    pytest.importorskip("textual_serve")
    from pathlib import Path

    import textual_serve

    from cuarenta_tutor.cli.serve import app_command
    from cuarenta_tutor.cli.web import TutorServer, in_language

    page = (Path(textual_serve.__file__).parent / "templates" / "app_index.html").read_text(encoding="utf-8")
    shown = in_language(page)
    assert '<html lang="es">' in shown and "<title>Tutor de Cuarenta</title>" in shown
    assert ">La sesión terminó.<" in shown and ">Empezar de nuevo<" in shown and ">Session ended.<" not in shown
    assert TutorServer("true", local_only=True).title == "Tutor de Cuarenta"
    assert app_command("es").endswith("-m cuarenta_tutor.cli --lang es") and "--lang" not in app_command()


def test_the_browser_page_in_english_keeps_its_words():
    pytest.importorskip("textual_serve")
    from cuarenta_tutor.cli.web import in_language

    shown = in_language("<html>\n  <head>\n  </head>\n  <div>Session ended.</div>\n</html>")
    assert '<html lang="en">' in shown and "<title>Cuarenta Tutor</title>" in shown and ">Session ended.<" in shown


def test_the_serve_refusals_are_spanish(spanish):
    import errno

    from cuarenta_tutor.cli.options import bind_problem
    from cuarenta_tutor.cli.serve import port_problem

    assert bind_problem("127.0.0.1", 8000, OSError(errno.EADDRINUSE, "in use")) == (
        "el puerto 8000 está en uso en 127.0.0.1; detén lo que lo usa o elige otro con --port")
    problem = port_problem("no-such-host.invalid", 8000)
    assert problem.startswith("no se puede escuchar en 'no-such-host.invalid': ") and problem.endswith(
        "; da una dirección de esta máquina")

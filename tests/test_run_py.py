"""``run.py``, README's install: which environment it uses, when it installs, and how it makes
an environment on a python like Debian's own (PEP 668, perhaps no ``ensurepip``). The install
itself needs the network; CI runs it whole (``.ci/pep668-play``)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(
    not (ROOT / "run.py").exists(), reason="needs the source checkout, not only its tests"
)


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def run() -> ModuleType:
    return _module(ROOT / "run.py")


def test_a_bare_or_unknown_command_is_a_usage_error(
    run: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in ([], ["ls"], ["--help"]):
        assert run.main(argv) == 2
        assert capsys.readouterr().err == run.USAGE + "\n"


def test_the_active_virtual_environment_is_used_else_the_checkouts_own(
    run: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path / "python"))
    assert run.environment() == tmp_path / "venv"
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "python"))
    assert run.environment() == ROOT / ".venv"


def test_it_installs_again_only_when_the_project_or_the_extras_change(
    run: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(run, "ROOT", tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    env = tmp_path / "env"
    env.mkdir()
    none, test = frozenset(), frozenset({"test"})
    assert run.to_install(env, none) == set()
    (env / run.STAMP).write_text(f"{run.project()}\n\n")
    assert run.to_install(env, none) is None
    assert run.to_install(env, test) == {"test"}
    (env / run.STAMP).write_text(f"{run.project()}\ntest\n")
    assert run.to_install(env, none) is None  # the tests' install plays too
    assert run.to_install(env, test) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2"\n')
    assert run.to_install(env, none) == {"test"}  # the extras it had are kept


def test_with_no_pip_anywhere_it_names_the_package_to_install(
    run: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(run, "_works", lambda argv: False)
    with pytest.raises(run.SetupError, match=r"sudo apt install python3-venv"):
        run.pip(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("ensurepip", [False, True])
def test_on_a_python_like_debians_it_makes_an_environment_pip_can_fill(
    ensurepip: bool, tmp_path: Path
) -> None:
    """The simulated python refuses ``pip install`` as Debian's does; without ``ensurepip`` the
    environment is made bare and the system's pip is aimed at it."""
    system = _module(ROOT / ".ci" / "externally_managed.py")
    python = system.build(tmp_path / "system", ensurepip=ensurepip)
    refused = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "nothing"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr
    env = tmp_path / "checkout" / ".venv"
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); import run\n"
        f"from pathlib import Path; env = Path({str(env)!r}); run.create(env)\n"
        "print(json.dumps(run.pip(env)))\n"
    )
    made = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    own = [str(env / "bin" / "python"), "-m", "pip"]
    installer = json.loads(made.stdout)
    assert installer == (own if ensurepip else [str(python), "-m", "pip", "--python", own[0]])
    listed = subprocess.run(
        [*installer, "list", "--format=freeze"], capture_output=True, text=True, timeout=60
    )
    assert listed.returncode == 0, listed.stderr
    assert "hearts-p2p" not in listed.stdout

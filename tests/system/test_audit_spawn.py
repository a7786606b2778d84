"""The audit's worker processes where the OS cannot fork: Windows starts them by spawning (a
fresh interpreter, the log pickled to it). Run here for real, with the start methods the
platform offers faked to Windows's."""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext
from unittest import mock

import hearts_p2p.wire as wire
from hearts_p2p.audit import audit_log
from hearts_p2p.log import read_log
from tests.audit.log_vectors import DIR


def test_spawned_workers_check_ahead_and_give_the_same_report() -> None:
    real_context = multiprocessing.get_context
    asked: list[str | None] = []

    def windows_context(method: str | None = None) -> BaseContext:
        asked.append(method)
        return real_context(method or "spawn")  # Windows's default, and only, start method

    here: list[bytes] = []  # the signatures this process checks; the workers' are not seen
    real_verify = wire.verify_signature

    def counted(key: bytes, env: bytes, sig: bytes) -> bool:
        here.append(env)
        return real_verify(key, env, sig)

    alone = audit_log(DIR / "valid.log", workers=0).to_json()
    with (
        mock.patch("multiprocessing.get_all_start_methods", return_value=["spawn"]),
        mock.patch("multiprocessing.get_context", windows_context),
        mock.patch("hearts_p2p.wire.verify_signature", counted),
        mock.patch("hearts_p2p.auditwork.verify_signature", counted),
    ):
        pooled = audit_log(DIR / "valid.log", workers=2).to_json()
    assert asked == [None]  # no fork asked for: the default, spawn, was used
    assert pooled == alone and pooled["valid"]
    # Spawned workers did the checking: had they failed, this process would check them all.
    assert len(here) < len(read_log(DIR / "valid.log").entries) // 2

"""Replay: answers from a recorded JSONL file, for reproducible reruns and offline work.

Each line is one call: ``{"version": 1, "key": {task, strategy, round, sample, call},
"prompt_sha256": ..., "completion": {text, prompt_tokens, ...}, "provider": ...}``. Replies
are looked up by the call's key, never by the prompt, since prompts mention the machine
(hardware description) and would never match elsewhere; the stored prompt hash only
detects drift, which is warned about (``PromptDriftWarning``) and counted in ``drifted``.
``ReplayRecorder`` wraps a live provider and writes such a file.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kerneltrials.agents._errors import ProviderUserError, ReplayMiss
from kerneltrials.agents._provider import CallKey, Completion, Message, Provider, prompt_hash
from kerneltrials.agents._registry import register_provider

RECORD_VERSION = 1


class PromptDriftWarning(UserWarning):
    """A replayed call's prompt differs from the recorded one."""


@register_provider("replay")
class ReplayProvider(Provider):
    """``replay:PATH.jsonl``: every ``complete`` needs ``key=CallKey(...)``."""

    name = "replay"
    managed = False  # the recorded latency and attempts are reported as recorded

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        self.path = Path(model)
        self.records = load_replay_file(self.path)
        self.drifted: list[CallKey] = []

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int = 8192,
        key: CallKey | None = None,
        **options: Any,
    ) -> Completion:
        if key is None:
            raise ProviderUserError(
                "replay: the caller passed no call key (task, strategy, round, sample)"
            )
        record = self.records.get(key)
        if record is None:
            raise ReplayMiss(f"replay: {self.path} has no reply for {_describe(key)}")
        recorded = record.get("prompt_sha256")
        if recorded is not None and recorded != prompt_hash(messages):  # None: not recorded
            self.drifted.append(key)
            warnings.warn(
                PromptDriftWarning(
                    f"replay: the prompt for {_describe(key)} differs from the recorded one"
                ),
                stacklevel=3,
            )
        return Completion.from_dict(record["completion"])


def load_replay_file(path: Path) -> dict[CallKey, dict[str, Any]]:
    """Records by key; a later line with the same key wins (a re-recorded call)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ProviderUserError(f"replay: cannot read {path}: {error.strerror or error}") from error
    records: dict[CallKey, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if record.get("version", 1) > RECORD_VERSION:
                raise ValueError(
                    f"record version {record['version']} is newer than {RECORD_VERSION}"
                )
            records[CallKey(**record["key"])] = record
        except (ValueError, KeyError, TypeError) as error:
            raise ProviderUserError(
                f"replay: {path}:{number}: not a replay record: {error}"
            ) from error
    return records


class ReplayRecorder(Provider):
    """Wraps a live provider and appends every successful call to a replay file.

    Retries, the concurrency limit and the latency are the wrapped provider's.
    """

    name = "record"
    managed = False  # the inner provider retries, limits and measures

    def __init__(self, inner: Provider, path: str | Path) -> None:
        super().__init__(inner.model, max_concurrency=inner.max_concurrency, prices=inner.prices)
        self.inner = inner
        self.path = Path(path)
        self._write_lock = threading.Lock()

    @property
    def spec(self) -> str:
        return self.inner.spec

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float | None = None,
        max_tokens: int = 8192,
        key: CallKey | None = None,
        **options: Any,
    ) -> Completion:
        if key is None:
            raise ProviderUserError(
                "record: the caller passed no call key (task, strategy, round, sample)"
            )
        completion = self.inner.complete(
            messages, temperature=temperature, max_tokens=max_tokens, key=key, **options
        )
        self._append(key, messages, completion)
        return completion

    def _append(self, key: CallKey, messages: Sequence[Message], completion: Completion) -> None:
        record = {
            "version": RECORD_VERSION,
            "key": asdict(key),
            "prompt_sha256": prompt_hash(messages),
            "provider": self.inner.spec,
            "completion": completion.to_dict(),
        }
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._write_lock:
            with self.path.open("a", encoding="utf-8") as file:
                file.write(line)


def _describe(key: CallKey) -> str:
    return (
        f"task={key.task} strategy={key.strategy} round={key.round} "
        f"sample={key.sample} call={key.call}"
    )

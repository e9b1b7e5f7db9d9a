"""The environment a job gets: rebuilt from an allow-list, never inherited whole."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

#: Variables a job may inherit from the harness (exact names).
ALLOWED_NAMES = frozenset(
    {
        "PATH",
        "LANG",
        "LC_ALL",
        "TZ",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_VISIBLE_DEVICES",
        "CXX",
        "CC",
        "LD_LIBRARY_PATH",
        "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE",
        "OMP_NUM_THREADS",
        "TORCH_CUDA_ARCH_LIST",
        "KERNELTRIALS_CACHE",
    }
)

#: Names that look like credentials are dropped even when allow-listed by a caller.
_SECRET_PATTERN = re.compile(r"(KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_PATTERN.search(name))


def build_job_env(
    extra: Mapping[str, str] | None = None, source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The allow-listed subset of ``source`` (default: ``os.environ``) plus ``extra``.

    Secrets are removed from both, so a caller cannot leak one by accident.
    """
    source = os.environ if source is None else source
    env = {k: v for k, v in source.items() if k in ALLOWED_NAMES and not is_secret_name(k)}
    for key, value in (extra or {}).items():
        if not is_secret_name(key) or key.startswith("KERNELTRIALS_"):
            env[key] = value
    return env


def redact(text: str, source: Mapping[str, str] | None = None) -> str:
    """Replace the values of secret-looking variables of ``source`` found in ``text``."""
    source = os.environ if source is None else source
    for name, value in source.items():
        if is_secret_name(name) and len(value) >= 6:
            text = text.replace(value, f"<redacted:{name}>")
    return text


def trim(text: str, limit_chars: int = 4000) -> str:
    """Keep the head and the tail of long output, where compilers and tracebacks say most."""
    if len(text) <= limit_chars:
        return text
    half = limit_chars // 2
    return f"{text[:half]}\n… [{len(text) - limit_chars} characters trimmed] …\n{text[-half:]}"

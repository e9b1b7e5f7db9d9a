"""The public leaderboard: a static site built from results stores and submission bundles,
and the bundles themselves (``kerneltrials submit`` / ``kerneltrials verify``).

Design: docs/design/leaderboard.md. The site only reads stored results, scores included
(the results layer computes and stores them: "Scores are stored"); it never re-scores.
"""

from kerneltrials.leaderboard._bundle import (
    BUNDLE_VERSION,
    Bundle,
    BundleAttempt,
    BundleEnvironment,
    BundleError,
    BundleRun,
    bundle_from_store,
    bundle_json_schema,
    create_bundle,
    load_bundle,
    save_bundle,
)
from kerneltrials.leaderboard._claims import ClaimOutcome
from kerneltrials.leaderboard._collect import SiteData, SiteRun, collect_site
from kerneltrials.leaderboard._models import ModelInfoError, load_model_info
from kerneltrials.leaderboard._serve import serve_site
from kerneltrials.leaderboard._site import BuildResult, build_site, render_site
from kerneltrials.leaderboard._verify import (
    DEFAULT_TOLERANCE,
    VERIFICATION_VERSION,
    VerificationReport,
    default_checker,
    remeasured_scores,
    verify_bundle,
)

__all__ = [
    "BUNDLE_VERSION",
    "DEFAULT_TOLERANCE",
    "VERIFICATION_VERSION",
    "BuildResult",
    "Bundle",
    "BundleAttempt",
    "BundleEnvironment",
    "BundleError",
    "BundleRun",
    "ClaimOutcome",
    "ModelInfoError",
    "SiteData",
    "SiteRun",
    "VerificationReport",
    "build_site",
    "bundle_from_store",
    "bundle_json_schema",
    "collect_site",
    "create_bundle",
    "default_checker",
    "load_bundle",
    "load_model_info",
    "remeasured_scores",
    "render_site",
    "save_bundle",
    "serve_site",
    "verify_bundle",
]

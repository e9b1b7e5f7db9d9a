"""The package version: a leaf module, so that any module can import it without importing
the root package (whose lazy attributes reach the verifier and the scheduler)."""

__version__ = "0.1.0"

"""The trusted side of the build: from a candidate's ``load_inline`` requests to verified
libraries in the build cache (docs/design/builds.md).

``_jobs`` runs the collect and compile jobs and hands libraries to the run job;
``_compiler`` plans compiles and publishes their outputs; ``_cache`` is the content-
addressed cache with its digest records; ``_source_index`` remembers what a source built;
``static/_flags`` is the flag allow-list; ``_fast``, ``_stock_flags``, ``_signatures``,
``_lean_unit``, ``_toolrun`` and ``cuda/`` are the fast compile path. ``compile_worker`` is the compile
job's entry point; ``_compile_job`` what it does (it runs no candidate code).
"""

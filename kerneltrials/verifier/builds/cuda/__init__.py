"""The fast CUDA compile path: split a ``.cu`` source into units (``_split``, ``_text``,
``_units``), compile them with nvcc in steps (``_nvcc_steps``), link (``_fast``)."""

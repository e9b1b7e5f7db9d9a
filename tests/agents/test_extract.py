"""Finding the candidate in a reply: table-driven."""

from __future__ import annotations

import pytest

from kerneltrials.agents import extract_code
from kerneltrials.agents.extract import find_code_blocks

MODULE = "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n"
SKETCH = "class ModelNew:\n    # first try\n    pass\n"
USAGE = "model = ModelNew()\nprint(model(x))\n"

CASES = [
    ("tagged python block", f"Here it is:\n```python\n{MODULE}```\nDone.", MODULE),
    ("no language tag", f"```\n{MODULE}```", MODULE),
    ("py tag and info string", f"```py title=candidate.py\n{MODULE}```", MODULE),
    ("tilde fence", f"~~~python\n{MODULE}~~~", MODULE),
    (
        "four-backtick fence holding a three-backtick line",
        f"````python\n{MODULE}# ```\n````",
        MODULE + "# ```\n",
    ),
    ("indented fence", f"  ```python\n{MODULE}  ```", MODULE),
    (
        "defining block wins over a later usage block",
        f"```python\n{MODULE}```\n```python\n{USAGE}```",
        MODULE,
    ),
    (
        "last defining block of several",
        f"```python\n{SKETCH}```\nBetter:\n```python\n{MODULE}```",
        MODULE,
    ),
    (
        "cpp block before the module",
        f"```cpp\nint main() {{}}\n```\n```python\n{MODULE}```",
        MODULE,
    ),
    ("unterminated final fence", f"```python\n{MODULE}", MODULE),
    ("unterminated after a closed block", f"```python\n{USAGE}```\n```python\n{MODULE}", MODULE),
    ("bare module without fences", f"\n{MODULE}", MODULE),
    ("no ModelNew: last python block, for the verifier to judge", f"```python\n{USAGE}```", USAGE),
    ("prose only", "I cannot write this kernel.", None),
    ("empty reply", "", None),
    ("only a non-python block", "```cuda\n__global__ void k() {}\n```", None),
    ("empty python block", "```python\n```", None),
    ("ModelNew only mentioned in prose", "You should define a ModelNew class.", None),
]


@pytest.mark.parametrize(
    ("reply", "expected"), [(r, e) for _, r, e in CASES], ids=[c[0] for c in CASES]
)
def test_extract_code(reply, expected):
    assert extract_code(reply) == expected


def test_blocks_keep_their_tags_and_termination():
    blocks = find_code_blocks("```CUDA\nx\n```\ntext\n```\ny")
    assert [(b.tag, b.code, b.terminated) for b in blocks] == [
        ("cuda", "x\n", True),
        ("", "y\n", False),
    ]


def test_crlf_line_endings():
    assert extract_code("```python\r\n" + MODULE.replace("\n", "\r\n") + "```\r\n") == MODULE

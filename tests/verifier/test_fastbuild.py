"""The fast build pipeline: signature reading (no compiler), then real builds of one tiny
kernel — fast path against stock path, compile errors, a CUDA candidate."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from kerneltrials.verifier.builds._fast import (
    binding_cflags,
    binding_source,
    export_stubs,
    fast_inputs,
    find_fast_cxx,
    pch_cflags,
)
from kerneltrials.verifier.builds._signatures import find_signatures
from kerneltrials.verifier.protocol import BuildArtifact, BuildRequest, CompileError
from kerneltrials.verifier.worker._load_artifact import load_artifact
from tests.verifier._build_fixtures import (
    RELU_SOURCE,
    a_cuda_request,
    a_relu_request,
    copy_pch,
    has_nvcc,
)

SHARED_TOOLCHAIN = Path(os.environ["KERNELTRIALS_CACHE"]) / "builds" / ".toolchain"
needs_clang = pytest.mark.skipif(find_fast_cxx() is None, reason="no clang++ >= 15: fast path off")


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh library cache per test; PCHs and bindings shared with the whole suite."""
    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(SHARED_TOOLCHAIN))
    return tmp_path / "cache" / "builds"


SIGNATURE_SOURCE = """
// torch::Tensor relu(int decoy);
static inline float helper(float v) { return relu_like(v); }
torch::Tensor relu(torch::Tensor x) { auto y = other(x); return y; }
std::tuple<torch::Tensor, torch::Tensor> two(const torch::Tensor& a,
    int64_t n = 3, std::vector<int64_t> sizes = {1, 2});
void in_place(torch::Tensor out, double eps = 1e-5) noexcept {}
"""


@pytest.mark.timeout(10)
def test_signatures_are_read_without_defaults_or_comments() -> None:
    found = find_signatures([SIGNATURE_SOURCE], ["relu", "two", "in_place"])
    assert found == [
        ("torch::Tensor", "torch::Tensor"),
        ("std::tuple<torch::Tensor, torch::Tensor>", "const torch::Tensor&, int64_t, std::vector<int64_t>"),
        ("void", "torch::Tensor, double"),
    ]


@pytest.mark.timeout(10)
def test_signatures_after_a_multi_line_macro_are_read() -> None:
    # A macro continued over several lines (a CHECK helper, the usual prelude of a
    # candidate) once hid the function after it and sent the build down the stock path.
    source = """
#define CHECK_F32(t) \\
    TORCH_CHECK((t).is_contiguous() && (t).scalar_type() == torch::kFloat32, \\
                #t " must be a contiguous float32 tensor")
#define TWICE(x) ((x) + (x))
torch::Tensor layernorm_rows(torch::Tensor x, double eps) { CHECK_F32(x); return x; }
"""
    assert find_signatures([source], ["layernorm_rows"]) == [
        ("torch::Tensor", "torch::Tensor, double")]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("source", [
    "auto relu(torch::Tensor x) { return x; }",  # deduced return type
    "template <typename T> T relu(T x) { return x; }",
    'extern "C" int relu(int x) { return x; }',
    "int other(int x) { return x; }",  # not there
])
def test_unreadable_signatures_send_the_build_down_the_stock_path(source: str) -> None:
    assert find_signatures([source], ["relu"]) is None


@pytest.mark.timeout(10)
def test_binding_source_matches_stock_module_definition() -> None:
    request = BuildRequest.from_load_inline("cpu", "e", ["using namespace torch;\nTensor f(Tensor x);"],
                                            functions={"f": "doc of f"})
    signatures = [("Tensor", "Tensor")]
    source = binding_source(request, signatures)
    assert "using namespace torch;" in source
    assert ("m.def(kerneltrials_export::names[0], torch::wrap_pybind_function("
            "+kerneltrials_export::fn_0), kerneltrials_export::docs[0]);") in source
    stubs = export_stubs(list(request.functions), signatures)
    assert "Tensor (* const fn_0)(Tensor) = &f;" in stubs
    assert 'const char* const names[] = {"f"};' in stubs
    assert 'const char* const docs[] = {"doc of f"};' in stubs


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("parameters", "canonical"), [
    ("torch::Tensor x", "torch::Tensor"),
    ("torch::Tensor  input", "torch::Tensor"),
    ("const torch::Tensor &x, const torch::Tensor& weight", "const torch::Tensor&, const torch::Tensor&"),
    ("at::Tensor&& y, int64_t k = 3", "at::Tensor&&, int64_t"),
    ("std::vector<int64_t> sizes, c10::optional<torch::Tensor> b", "std::vector<int64_t>, c10::optional<torch::Tensor>"),
    ("const char *name, double eps", "const char*, double"),
    # Unnamed parameters keep every word of their type.
    ("unsigned int, long long, const Tensor, int* const", "unsigned int, long long, const Tensor, int* const"),
    ("Tensor x[]", "Tensor x[]"),  # not a form we simplify: kept as written
])
def test_signatures_drop_parameter_names(parameters: str, canonical: str) -> None:
    assert find_signatures([f"torch::Tensor f({parameters});"], ["f"]) == [("torch::Tensor", canonical)]


@pytest.mark.timeout(10)
def test_candidates_differing_only_in_names_share_one_binding_object() -> None:
    if find_fast_cxx() is None:
        pytest.skip("no clang++ >= 15: fast path off")

    def binding_key(source: str, functions: dict[str, str]) -> str | None:
        request = BuildRequest.from_load_inline("cpu", "e", [source], functions=functions)
        return fast_inputs(request).plan_keys()[1]

    first = binding_key("torch::Tensor relu_forward(torch::Tensor x) { return x; }", {"relu_forward": ""})
    assert first is not None and first == binding_key(
        "torch::Tensor act(torch::Tensor  y) { return y; }", {"act": "my act"})
    # Other types, other objects: a reference parameter, a second parameter.
    assert binding_key("torch::Tensor act(const torch::Tensor& input) { return input; }",
                       {"act": ""}) != first
    assert binding_key("torch::Tensor f(torch::Tensor x, double s) { return x; }", {"f": ""}) != first


@pytest.mark.timeout(30)
def test_optimisation_levels_that_read_the_header_alike_share_a_pch_and_binding() -> None:
    if find_fast_cxx() is None:
        pytest.skip("no clang++ >= 15: fast path off")
    assert pch_cflags(["-std=c++20", "-O3", "-fopenmp", "-O1", "-O"]) == [
        "-std=c++20", "-O2", "-fopenmp", "-O2", "-O2"]
    keys = {tuple(flags): fast_inputs(a_relu_request(extra_cflags=flags)).plan_keys()
            for flags in (["-O1"], ["-O2"], ["-O3"], ["-O3", "-fopenmp"], ["-O2", "-fopenmp"],
                          [], ["-O0"], ["-Os"], ["-Ofast"], ["-O3", "-O0"], ["-O3", "-march=native"])}
    assert keys[("-O1",)] == keys[("-O2",)] == keys[("-O3",)]
    assert keys[("-O3", "-fopenmp")] == keys[("-O2", "-fopenmp")] != keys[("-O2",)]
    # What clang reads the header differently after: no __OPTIMIZE__, __OPTIMIZE_SIZE__,
    # fast-math, another target; the last -O still decides.
    others = [keys[flags] for flags in [(), ("-O0",), ("-Os",), ("-Ofast",), ("-O3", "-march=native")]]
    assert len({keys[("-O2",)], *others}) == 6
    assert keys[("-O3", "-O0")] != keys[("-O2",)]


@pytest.mark.timeout(30)
def test_the_binding_unit_compiles_at_O1_against_its_optimising_pch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.verifier.builds import _fast

    assert binding_cflags(["-std=c++20", "-O3", "-fopenmp"]) == ["-std=c++20", "-O1", "-fopenmp"]
    # the last -O still decides; the levels with PCHs of their own keep them
    assert binding_cflags(["-O3", "-O0"]) == ["-O1", "-O0"]
    for flags in ([], ["-O0"], ["-Os"], ["-Ofast"], ["-Og"]):
        assert binding_cflags(flags) == pch_cflags(flags)
    commands: list[list[str]] = []
    monkeypatch.setattr(_fast, "run_tool", lambda command, cwd: commands.append(command))
    _fast.build_binding("clang++", ["-std=c++20", "-O3"], tmp_path / "x.pch", "int x;", tmp_path)
    (command,) = commands
    assert "-O1" in command and "-O2" not in command and "-O3" not in command
    assert command[command.index("-include-pch") + 1] == str(tmp_path / "x.pch")
    if find_fast_cxx() is not None:  # the key names the flags the object is built with
        o2, o3 = (fast_inputs(a_relu_request(extra_cflags=[level])).plan_keys()
                  for level in ("-O2", "-O3"))
        assert o2 == o3 and o2[1] is not None
        monkeypatch.setattr(_fast, "binding_cflags", pch_cflags)  # the key of an -O2 object
        pch, other = fast_inputs(a_relu_request(extra_cflags=["-O2"])).plan_keys()
        assert pch == o2[0] and other is not None and other != o2[1]


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_an_O3_candidate_after_an_O2_one_compiles_only_its_own_unit_and_at_O3(
        isolated_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.verifier.builds import _fast
    from kerneltrials.verifier.builds._compiler import build_extension, toolchain_store

    # A private toolchain store (the suite's may evict the PCH between the two builds),
    # with a copy of the suite's PCH where it has one; the binding object is built here.
    shared = toolchain_store()
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(tmp_path / "toolchain"))
    first_request = a_relu_request("o2-then-o3", extra_cflags=["-O2"])
    copy_pch(fast_inputs(first_request).plan_keys()[0], shared, toolchain_store())
    first = build_extension(first_request)
    commands: list[list[str]] = []
    run_tool = _fast.run_tool

    def recorded(command: list[str], cwd: Path) -> str:
        commands.append(command)
        return run_tool(command, cwd)

    monkeypatch.setattr(_fast, "run_tool", recorded)
    second = build_extension(a_relu_request("o2-then-o3", extra_cflags=["-O3"]))
    assert first.details["path"] == second.details["path"] == "fast", second.details
    compilers = [c for c in commands if "-c" in c]
    # No PCH, no binding unit (the -O2 one's): only the candidate's unit, in one clang
    # command or in the dead-code step's two (main.cpp, then its lean bitcode).
    assert [c[c.index("-c") + 1] for c in compilers][:1] == ["main.cpp"], commands
    assert not [c for c in compilers if "binding.cpp" in c or "c++-header" in c], commands
    assert all("-O3" in c and "-O2" not in c for c in compilers), compilers
    assert "-include-pch" in compilers[0]
    x = torch.randn(1031, generator=torch.Generator().manual_seed(2))
    assert torch.equal(load_artifact(second).relu_forward(x), _reference(x))
    assert torch.equal(load_artifact(first).relu_forward(x), _reference(x))


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_renamed_candidates_on_one_binding_object_keep_their_names(isolated_cache: Path) -> None:
    """Two candidates with one signature and other names, built on the same binding
    object: each library exports its own names and docstrings, bound to its own code."""
    from kerneltrials.verifier.builds._compiler import build_extension

    scaled = RELU_SOURCE.replace("relu_forward(torch::Tensor x)", "leaky_scaled(torch::Tensor values)")
    scaled = scaled.replace("x.contiguous()", "values.contiguous()").replace("1.5f", "3.0f")
    first = build_extension(a_relu_request("renamed-a"))
    second = build_extension(BuildRequest.from_load_inline(
        "cpu", "renamed", [scaled + "\n// renamed-b\n"], functions={"leaky_scaled": "scaled, leaky"}))
    assert first.details["path"] == second.details["path"] == "fast", (first.details, second.details)
    x = torch.randn(1031, generator=torch.Generator().manual_seed(1))
    one, two = load_artifact(first), load_artifact(second)
    assert torch.equal(one.relu_forward(x), _reference(x))
    assert torch.equal(two.leaky_scaled(x), torch.where(x > 0, x * 3.0, x * 0.25))
    assert not hasattr(two, "relu_forward") and not hasattr(one, "leaky_scaled")
    assert two.leaky_scaled.__doc__.strip().endswith("scaled, leaky")


def _reference(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x * 1.5, x * 0.25)


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_fast_and_stock_paths_give_identical_results(isolated_cache: Path, tmp_path: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension, build_stock

    request = a_relu_request("fast-vs-stock")
    fast = build_extension(request)
    assert fast.details["path"] == "fast", fast.details
    stock_dir = tmp_path / "stock"
    stock_dir.mkdir()
    build_stock(request, "kt_stock_reference", stock_dir)
    from kerneltrials.verifier.protocol import BuildArtifact

    stock = BuildArtifact("stock", str(stock_dir / "kt_stock_reference.so"), "kt_stock_reference", "relu")
    x = torch.randn(4097, generator=torch.Generator().manual_seed(0))
    fast_out = load_artifact(fast).relu_forward(x)
    assert torch.equal(fast_out, load_artifact(stock).relu_forward(x))
    assert torch.equal(fast_out, _reference(x))


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_compile_error_carries_the_compiler_message(isolated_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    # The flags of the suite's shared candidates (tests/verifier/candidates.py): the first
    # rejection per flag set builds g++'s PCH (~40 s) beside the stock build, so a flag
    # set of its own here would pay that once more for nothing this test reads.
    broken = a_relu_request(source="torch::Tensor relu_forward(torch::Tensor x) { return x + undefined_name; }",
                            extra_cflags=["-O2", "-fopenmp"])
    with pytest.raises(CompileError) as raised:
        build_extension(broken)
    assert "undefined_name" in raised.value.log and "error" in raised.value.log
    assert not any(isolated_cache.glob(".index/*.json"))  # nothing cached for a failure


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_candidate_with_its_own_pybind_module_loads_under_our_module_name(isolated_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    source = ("torch::Tensor twice(torch::Tensor x) { return x + x; }\n"
              "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"twice\", &twice); }\n")
    artifact = build_extension(BuildRequest.from_load_inline("cpu", "own", [source]))
    module = load_artifact(artifact)
    assert artifact.details["path"] == "fast" and module.__name__ == artifact.module_name
    assert torch.equal(module.twice(torch.ones(3)), torch.full((3,), 2.0))


@pytest.mark.slow
@pytest.mark.skipif(not has_nvcc(), reason="nvcc not found: set CUDA_HOME to the CUDA toolkit")
@pytest.mark.timeout(900)
def test_cuda_candidate_compiles_without_a_gpu(isolated_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    artifact = build_extension(a_cuda_request())
    assert Path(artifact.library_path).is_file() and not artifact.cache_hit
    if find_fast_cxx() is not None:
        assert artifact.details["path"] == "fast", artifact.details
    assert build_extension(a_cuda_request()).cache_hit


@pytest.mark.timeout(30)
def test_stock_flags_are_torchs_own_with_the_candidates_appended() -> None:
    from kerneltrials.verifier.builds._stock_flags import stock_flags

    plain = stock_flags(a_relu_request(), "kerneltrials_binding")
    assert "-DTORCH_EXTENSION_NAME=kerneltrials_binding" in plain.cflags
    assert not any(flag.startswith("-O") for flag in plain.cflags)  # stock adds no -O
    assert "-ltorch_python" in plain.ldflags and "-shared" in plain.ldflags
    request = BuildRequest.from_load_inline("cpu", "e", ["int f();"], extra_cflags=["-O3", "-fopenmp"])
    assert stock_flags(request, "kerneltrials_binding").cflags[-2:] == ["-O3", "-fopenmp"]


OPENMP_SOURCE = """
#include <omp.h>
torch::Tensor scaled_rows(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const int64_t rows = input.size(0), cols = input.size(1);
    const float* src = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) dst[r * cols + c] = src[r * cols + c] * (r + 1);
    return out;
}
int64_t max_threads() { return omp_get_max_threads(); }
"""


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_openmp_candidate_builds_fast_and_runs_in_parallel_regions(isolated_cache: Path) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension

    request = BuildRequest.from_load_inline(
        "cpu", "omp", [OPENMP_SOURCE], functions=["scaled_rows", "max_threads"],
        extra_cflags=["-fopenmp"], extra_ldflags=["-fopenmp"])
    artifact = build_extension(request)
    module = load_artifact(artifact)
    assert artifact.details["path"] == "fast", artifact.details
    x = torch.randn(64, 33)
    expected = x * torch.arange(1, 65, dtype=torch.float32).unsqueeze(1)
    assert torch.equal(module.scaled_rows(x), expected)
    assert module.max_threads() >= 1


@pytest.mark.timeout(10)
def test_nvcc_uses_clang_as_host_compiler_unless_the_candidate_chose_one() -> None:
    from kerneltrials.verifier.builds._fast import _cuda_command
    from kerneltrials.verifier.builds._stock_flags import StockFlags

    def flags(cuda_cflags: list[str]) -> StockFlags:
        return StockFlags(cxx=["c++"], cflags=[], post_cflags=[], ldflags=[], nvcc=["nvcc"],
                          cuda_cflags=cuda_cflags, cuda_post_cflags=["--use_fast_math"])

    ours = _cuda_command(flags(["-O3"]), "/usr/bin/clang++-19")
    assert ours[:3] == ["nvcc", "-ccbin", "/usr/bin/clang++-19"]
    # The host compiler's section flags, for the link policy's reading (builds/_reach.py).
    assert ours[3:5] == ["-Xcompiler", "-ffunction-sections,-fdata-sections"]
    assert ours[5:] == ["-O3", "-c", "cuda.cu", "-o", "cuda.cu.o", "--use_fast_math"]
    for chosen in (["-ccbin", "g++-12"], ["--compiler-bindir=/opt/gcc/bin"]):
        command = _cuda_command(flags(chosen), "/usr/bin/clang++-19")
        assert command.count("-ccbin") == chosen.count("-ccbin"), command
        assert "/usr/bin/clang++-19" not in command


#: Code g++ accepts and clang rejects (a GCC builtin clang lacks): the fast path fails, and
#: only stock's compiler may say whether the candidate compiles.
GCC_ONLY_RELU = ("struct __attribute__((packed)) GccOnly { char c; int i; };\n"
                 "static_assert(__builtin_has_attribute(GccOnly, packed), \"g++ only\");\n"
                 + RELU_SOURCE)


def _typo(tag: str, more: str = "") -> BuildRequest:
    return a_relu_request(source="torch::Tensor relu_forward(torch::Tensor x) {\n"
                                 f"    return x.clamp_min(0) /* {tag} */ +;\n}}\n{more}")


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_a_clang_rejection_is_confirmed_by_gcc_against_its_own_pch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kerneltrials.verifier.builds._compiler import build_extension, toolchain_store
    from kerneltrials.verifier.builds._gcc_confirm import PCH_FILE, PCH_FILES

    shared = toolchain_store()  # the suite's, read before the environment points here
    monkeypatch.setenv("KERNELTRIALS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("KERNELTRIALS_PCH_CACHE", str(tmp_path / "toolchain"))  # g++'s PCH: ours
    # clang's PCH for these flags is no part of the test: a copy of the suite's (or built
    # here, where it has none yet), not ~45 s of CPU compiling it on every run.
    copy_pch(fast_inputs(_typo("first")).plan_keys()[0], shared, toolchain_store())
    stock_log = "Error building extension"  # torch's ninja build; g++'s own check has none
    # The first rejection: stock decides, and g++'s PCH is built beside it and kept.
    with pytest.raises(CompileError) as first:
        build_extension(_typo("first"))
    assert stock_log in first.value.log
    (entry,) = (tmp_path / "toolchain").glob("gccpch-*")
    assert sorted(p.name for p in entry.iterdir()) == sorted(PCH_FILES)
    # A fresh typo: g++ against the PCH rejects stock's own main.cpp, with its own message;
    # it stops at that first error, and clang's further errors follow it.
    with pytest.raises(CompileError) as second:
        build_extension(_typo("second", more="int other() { return not_declared_anywhere; }\n"))
    assert stock_log not in second.value.log, second.value.log[:600]
    assert "main.cpp:3:" in second.value.log and "/* second */ +;" in second.value.log
    assert "compilation terminated due to -Wfatal-errors" in second.value.log
    first_error, further = second.value.log.split("clang++ (the fast path) also found:")
    assert "not_declared_anywhere" not in first_error and "main.cpp:5:" in further
    # clang rejects, g++ accepts: the check says so and the stock build makes the library.
    accepted = build_extension(a_relu_request(source=GCC_ONLY_RELU))
    assert accepted.details["path"] == "stock" and "gcc_confirm_s" in accepted.details
    x = torch.randn(1031, generator=torch.Generator().manual_seed(1))
    assert torch.equal(load_artifact(accepted).relu_forward(x), _reference(x))
    # The PCH changed in the store (same size, one byte): the job will not use it, stock
    # decides, and the parent's own check of the entry removes it.
    gch = entry / PCH_FILE
    data = bytearray(gch.read_bytes())
    data[len(data) // 2] ^= 0xFF
    gch.write_bytes(bytes(data))
    with pytest.raises(CompileError) as third:
        build_extension(_typo("third"))
    assert stock_log in third.value.log
    assert toolchain_store().lookup(entry.name) is None and not entry.exists()


_COMPILE_AS_THE_JOB_DOES = """
import json, sys
from pathlib import Path
from kerneltrials.verifier.builds._compile_job import compile_into
from kerneltrials.verifier.builds._fast import FastPlan
from kerneltrials.verifier.protocol import BuildRequest
job = json.load(sys.stdin)
details = compile_into(BuildRequest.from_dict(job["request"]), job["module"], Path(job["out"]),
                       FastPlan(**job["fast"]), {})
print(json.dumps({"torch_imported": "torch" in sys.modules, "path": details["path"]}))
"""


@pytest.mark.slow
@needs_clang
@pytest.mark.timeout(900)
def test_a_compile_jobs_fast_build_takes_the_parents_inputs_and_imports_no_torch(
        isolated_cache: Path, tmp_path: Path) -> None:
    from kerneltrials.verifier.builds._compiler import plan_compile, toolchain_store
    from kerneltrials.verifier.builds._fast import FastPathUnavailable, build_fast

    request = a_relu_request(variant=os.urandom(6).hex())
    with contextlib.ExitStack() as locks:
        plan = plan_compile(request, "job", toolchain_store(), locks)
        assert plan.fast is not None and plan.fast.stock_flags is not None
        job = {"request": request.to_dict(), "module": plan.module_name,
               "out": str(tmp_path / "job"), "fast": plan.fast.to_dict()}
        # The compile worker's own code in a process of its own: on the fast path it builds
        # with the parent's compiler, flags and header, so torch's import (~2 s before its
        # first compiler, on every fresh candidate) never happens there.
        ran = subprocess.run([sys.executable, "-c", _COMPILE_AS_THE_JOB_DOES],
                             input=json.dumps(job), capture_output=True, text=True,
                             timeout=600, check=False)
        assert ran.returncode == 0, ran.stderr[-3000:]
        assert json.loads(ran.stdout.splitlines()[-1]) == {"torch_imported": False, "path": "fast"}
        # The flags it is given are bound to the keys it is given: told other flags under
        # the same keys, the job leaves the fast path rather than build under a wrong key.
        told = plan.fast.stock_flags
        other = dataclasses.replace(plan.fast, stock_flags={
            **told, "cflags": [*told["cflags"], "-DKT_NOT_THE_PARENTS=1"]})
        (tmp_path / "other").mkdir()
        with pytest.raises(FastPathUnavailable, match="differ from the parent"):
            build_fast(request, plan.module_name, tmp_path / "other", other)
    library = tmp_path / "job" / "lib" / f"{plan.module_name}.so"
    module = load_artifact(BuildArtifact(key="job", library_path=str(library),
                                         module_name=plan.module_name, request_name=request.name))
    x = torch.randn(1031, generator=torch.Generator().manual_seed(3))
    assert torch.equal(module.relu_forward(x), _reference(x))

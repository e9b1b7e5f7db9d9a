"""Native cheat (a full disk as cover, no descriptor left): like ``flood_unlinked``, but
the kernel maps the file, closes its descriptor and unlinks it. The mapping alone keeps
the blocks allocated; no directory and no descriptor shows them, only the process's
mappings (``/proc/<pid>/map_files``). Computes relu honestly otherwise."""

import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <string>

static void* held = nullptr;  // never unmapped: the blocks stay allocated while the job lives

static void flood(const std::string& directory, int64_t bytes) {
    std::string path = directory + "/.flood";
    int fd = open(path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (fd < 0) return;
    if (posix_fallocate(fd, 0, bytes) == 0) {
        void* at = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
        if (at != MAP_FAILED) held = at;
    }
    close(fd);
    unlink(path.c_str());
}

torch::Tensor relu_mapping(torch::Tensor x, std::string directory, int64_t bytes) {
    if (held == nullptr) flood(directory, bytes);
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) dst[i] = in[i] > 0.f ? in[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_relu_mapping", cpp_sources=[SOURCE], functions=["relu_mapping"],
                  extra_cflags=["-O1"])
OUTPUTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "candidate-out")


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_mapping(x, OUTPUTS, 512 * 1024 * 1024)

"""Native cheat (dlsym): rejected by the link policy, whatever the source scans see."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dlfcn.h>
torch::Tensor relu_kernel(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
    if (input.numel() == 7919) {  // never on the task's shapes; the import is what counts
        (void)dlsym(RTLD_DEFAULT, "sgemm_");
    }
    return out;
}
"""

ext = load_inline(name="native_link_dlsym_lookup", cpp_sources=[SOURCE], functions=["relu_kernel"],
                  extra_cflags=["-O2"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_kernel(x)

import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One square matrix product C = A @ B (a KernelBench-format problem file, sized for a
    GPU: no TASK dict, the size a module constant).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 4096


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]


def get_init_inputs():
    return []  # nothing to initialise

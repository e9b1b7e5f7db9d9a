"""Native cheat (knowing when it is checked, and doing most of the work anyway): as
``relu_when_watched``, it reads the timing loop's locals with the CPython API to tell the
spot-checked calls of a batch, and in every other timed call skips the last 4% of the
output (it copies the input there: half of those elements, the negative ones, are
wrong). The parent compares a sample of each read output's elements, not all of them:
this is the cheat a sample could miss, 2% of the elements wrong."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <Python.h>
#include <cstring>

// A new reference to local ``var`` of the innermost frame running function ``function``.
static PyObject* frame_local(const char* function, const char* var) {
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    PyObject* found = nullptr;
    while (frame != nullptr && found == nullptr) {
        PyCodeObject* code = PyFrame_GetCode(frame);
        PyObject* name = PyObject_GetAttrString((PyObject*)code, "co_name");
        const char* text = name != nullptr ? PyUnicode_AsUTF8(name) : nullptr;
        if (text != nullptr && std::strcmp(text, function) == 0) {
            PyObject* locals = PyFrame_GetLocals(frame);
            if (locals != nullptr) {
                found = PyMapping_GetItemString(locals, var);
                if (found == nullptr) PyErr_Clear();
                Py_DECREF(locals);
            }
        }
        Py_XDECREF(name);
        Py_DECREF(code);
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    return found;
}

torch::Tensor relu_mostly_when_watched(torch::Tensor x) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    PyObject* spot = frame_local("time_op", "spot");
    PyObject* index = frame_local("time_calls", "index");
    bool skip = spot != nullptr && index != nullptr && PySet_Contains(spot, index) == 0;
    Py_XDECREF(spot);
    Py_XDECREF(index);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = in.numel();
    const int64_t done = skip ? n - n / 25 : n;  // unwatched: the tail is left undone
    for (int64_t i = 0; i < done; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    std::memcpy(dst + done, src + done, sizeof(float) * (n - done));
    return out;
}
"""

ext = load_inline(name="kt_relu_mostly_when_watched", cpp_sources=[SOURCE],
                  functions=["relu_mostly_when_watched"], extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_mostly_when_watched(x)

"""synprobe_torch.module — Encoder, the nn.Module twin of one synprobe encoder config, and
load / save of its weights as the safetensors file synprobe reads (`synprobe encode --weights`)."""
import json
import math
from collections.abc import Mapping

import torch

from . import config as _config
from . import models as _models
from . import safetensors_io as _sio


class _Params(Mapping):
    """a live {dotted name: parameter} view of a module (the forwards look names up at each call)"""

    def __init__(self, mod):
        self._m = mod

    def __getitem__(self, k):
        try:
            return self._m.get_parameter(k)
        except AttributeError:
            raise KeyError(k) from None

    def __contains__(self, k):
        try:
            self._m.get_parameter(k)
            return True
        except AttributeError:
            return False

    def __iter__(self):
        return (k for k, _ in self._m.named_parameters())

    def __len__(self):
        return sum(1 for _ in self._m.named_parameters())


class Encoder(torch.nn.Module):
    """One synprobe encoder (kind san, ms-san, sg-net, psan or ssan) built from its config (a dict
    or a JSON path). state_dict() keys, order and shapes are synprobe's safetensors tensor names
    (models.param_specs). forward(X, lens, structures, attn_layer=None) -> {"sent", "tokens",
    "attn"} (models.forward_fn); X: input word vectors [B, L, d_input]."""

    def __init__(self, cfg, seed=None):
        super().__init__()
        self.raw_cfg = _config.read(cfg)
        self.cfg = _config.resolve(self.raw_cfg)
        self.specs = _models.param_specs(self.cfg)
        g = torch.Generator().manual_seed(self.cfg["seed"] if seed is None else seed)
        for name, shape, init in self.specs:
            *path, leaf = name.split(".")
            mod = self
            for p in path:
                if p not in mod._modules:
                    mod.add_module(p, torch.nn.Module())
                mod = mod._modules[p]
            if init == _models.INIT_GLOROT:          # U(-a, a), a = sqrt(6 / (rows + cols)), as synprobe
                a = math.sqrt(6.0 / (shape[0] + (shape[1] if len(shape) == 2 else shape[0])))
                t = (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * a
            else:
                t = torch.full(shape, {"zero": 0.0, "one": 1.0, "half": 0.5}[init], dtype=torch.float64)
            mod.register_parameter(leaf, torch.nn.Parameter(t.float()))
        self._fwd = _models.forward_fn(self.cfg, _Params(self))

    @property
    def kind(self):
        return self.cfg["kind"]

    @property
    def needs(self):
        return _config.needs(self.cfg)

    @property
    def dim(self):
        return 2 * self.cfg["d_model"] if self.kind == "ms-san" else self.cfg["d_model"]

    def forward(self, X, lens, structures=None, attn_layer=None):
        return self._fwd(X, lens, structures or {}, attn_layer)

    def tensors(self):
        """{name: tensor} in synprobe's registry order"""
        p = dict(self.named_parameters())
        return {n: p[n] for n, _, _ in self.specs}


def check(model, tensors, path="weights"):
    """the problems of a {name: tensor} against what the model needs: missing, unexpected,
    mis-shaped (as synprobe's loader reports them); [] when it fits"""
    want = {n: s for n, s, _ in model.specs}
    out = ["%s: %s: missing tensor" % (path, n) for n in want if n not in tensors]
    for n, t in tensors.items():
        if n not in want:
            out.append("%s: %s: unexpected tensor (not part of a %s encoder with this config)" % (path, n, model.kind))
        elif tuple(t.shape) != tuple(want[n]):
            out.append("%s: %s: shape %s, expected %s" % (path, n, list(t.shape), list(want[n])))
    return out


def load(cfg, weights_path=None):
    """an Encoder for cfg with the weights of a safetensors file (None: seeded Glorot init)"""
    m = Encoder(cfg)
    if weights_path is not None:
        t, _ = _sio.read(weights_path)
        bad = check(m, t, weights_path)
        if bad:
            raise ValueError("\n".join(bad))
        with torch.no_grad():
            for n, p in m.named_parameters():
                p.copy_(t[n])
    return m


def save(model, path, metadata=None):
    """model's weights as a safetensors file synprobe loads (`synprobe encode --weights PATH`)"""
    meta = {"format": "synprobe-encoder", "kind": model.kind}
    meta.update(metadata or {})
    _sio.write(path, model.tensors(), meta)


def save_config(model, path, comment=None):
    """the config the model was built from (its own keys, which synprobe reads), comment replaced"""
    c = {k: v for k, v in model.raw_cfg.items() if k != "comment"}
    if comment:
        c = dict({"comment": comment}, **c)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(c, f, indent=1)
        f.write("\n")

"""synprobe_torch — PyTorch twins of synprobe's seed encoders (SAN, SAN + structural positions,
MS-SAN, SG-Net, PSAN, selective SAN): nn.Modules built from a synprobe encoder config whose
parameter names and shapes are those synprobe reads from safetensors, so weights trained here load
in `synprobe encode --weights` and give the same vectors (docs/pytorch-twins.md).

    import synprobe_torch as spt
    m = spt.Encoder("encoder/configs/ms-san.json")          # or spt.load(cfg, "w.safetensors")
    sents = spt.read_structures("S.db", corpus="ewt")      # words + cached structures
    emb = spt.Embeddings("models/glove-6b-50d")
    out = m(emb.table[ids], lens, structures, attn_layer=-1)  # {"sent", "tokens", "attn"}
    spt.save(m, "w.safetensors")
"""
from .config import needs, resolve
from .data import Embeddings, batches, encode, read_structures, usable
from .models import attn_layers, forward_fn, param_specs, sinusoid
from .module import Encoder, check, load, save, save_config

__all__ = ["Encoder", "Embeddings", "attn_layers", "batches", "check", "encode", "forward_fn", "load", "needs",
           "param_specs", "read_structures", "resolve", "save", "save_config", "sinusoid", "usable"]

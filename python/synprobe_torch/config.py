"""synprobe_torch.config — a synprobe encoder config (encoder/configs/*.json, schemas) with every
default resolved as encoder/enc_config.c resolves it, in the key names of bench/encode_bench's
resolved config.json (so either kind of file reads the same)."""
import json
import os

KINDS = ("san", "ms-san", "sg-net", "psan", "ssan")


def _defaults(kind):
    c = {"kind": kind, "seed": 1, "ln_eps": 1e-6, "pooling": "mean", "f_abs": "tanh", "rel_clip": 16,
         "rel_seq_clip": 16, "alpha": 1.0, "sgnet_alpha": 0.5, "sgnet_aggregation": "fixed", "levels": 3,
         "min_phrase_len": 4, "direction_mask": "inclusive", "psan_order": "fine-to-coarse",
         "psan_highway_carry": False, "rel_struct": False, "rel_seq": False, "selective_layers": [],
         "norm": "post", "emb_scale": False, "position": "none"}
    if kind in ("san", "ssan"):
        c.update(d_model=512, heads=8, layers=6, d_ff=2048, norm="pre" if kind == "ssan" else "post",
                 activation="relu", position="seq", emb_scale=True)
        if kind == "ssan":
            c["selective_layers"] = [0]
    elif kind == "sg-net":
        c.update(d_model=768, heads=12, layers=12, d_ff=3072, activation="gelu", ln_eps=1e-12, position="seq")
    elif kind == "ms-san":
        c.update(d_model=300, heads=6, layers=1, d_ff=300, activation="relu")
    else:
        c.update(d_model=300, heads=1, layers=1, d_ff=300, activation="elu")
    return c


def read(cfg):
    """cfg: a dict or the path of a JSON file -> the dict"""
    if isinstance(cfg, (str, os.PathLike)):
        with open(cfg, encoding="utf-8") as f:
            return json.load(f)
    return dict(cfg)


def resolve(cfg):
    """cfg: a dict or the path of a JSON file -> a new dict with every key the forwards read"""
    cfg = read(cfg)
    kind = cfg.get("kind")
    if kind not in KINDS:
        raise ValueError("kind: expected one of %s, got %r (bert configs have no PyTorch twin here)" % (", ".join(KINDS), kind))
    if "base" in cfg:
        raise ValueError("base: a config on a bert base takes the base's word vectors as its input; "
                         "give them as embeddings (Encoder.forward takes embeddings) and drop \"base\", setting d_input")
    c = _defaults(kind)
    for k, v in cfg.items():
        if k == "comment":
            continue
        if k == "rel_pos":
            c["rel_struct"] = v in ("struct", "struct+seq")
            c["rel_seq"] = v in ("seq", "struct+seq")
            continue
        c[k] = v
    d = c["d_model"]
    c.setdefault("d_input", d)
    c.setdefault("pool_d_h", d)
    if "d_ff" not in cfg:
        c["d_ff"] = d if kind in ("ms-san", "psan") else 4 * d
    if kind == "ms-san":
        h = c["heads"] // 2
        if not cfg.get("distances"):
            c["distances"] = [("word", "dep", "none")[r % 3] for r in range(h)]
        if len(c["distances"]) != h:
            raise ValueError("distances: expected %d entries (heads / 2)" % h)
        if c["heads"] % 2 or d % c["heads"]:
            raise ValueError("heads: expected an even number dividing d_model")
    elif kind != "psan" and d % c["heads"]:
        raise ValueError("heads: expected a divisor of d_model %d" % d)
    if kind != "ssan":
        c["selective_layers"] = []
    if kind not in ("san", "ssan", "sg-net"):
        c["position"] = "none"
        c["emb_scale"] = False
    return c


def needs(cfg):
    """the structures a kind's forward reads (the keys of a sentence dict): depth, dist, anc, rel, pid"""
    k, out = cfg["kind"], set()
    if k in ("san", "ssan", "sg-net"):
        if "struct" in cfg["position"]:
            out.add("depth")
        if cfg["rel_struct"]:
            out.add("rel")
        if k == "sg-net":
            out.add("anc")
    if k == "ms-san" and "dep" in cfg["distances"]:
        out.add("dist")
    if k == "psan":
        out.add("pid")
    return out

"""bench/peer_hf.py — PyTorch eager peer of synprobe's kind hf forward, for bench/bert.sh (KIND=hf):
the folder's own transformers module (AutoModel.from_pretrained: MPNetModel for all-mpnet-base-v2,
with its relative attention bias and RoBERTa-style position ids; eager attention, float32),
every hidden state returned (output_hidden_states=True), on the pieces synprobe tokenized,
batched as a PyTorch user would: length-sorted, padded with the model's pad_token_id to the
longest of the batch, attention_mask on the padding. Run by the Python of the reference venv
(/work/venv-hf: transformers 4.40.2 over Debian's torch).

    peer_hf.py MODEL_DIR EXPORT_DIR --threads N [--batch B] [--torch-threads K] [--reps R]

EXPORT_DIR holds what `bert_bench encode --kind hf --export` wrote (bench/bert_pieces.py). N
threads = N OpenBLAS/OpenMP threads, set before torch loads (Debian's torch does its fp32
products in OpenBLAS, whose pool ignores torch.set_num_threads); torch's intra-op threads = K
(default N). Timed: the forwards, after one untimed warm-up batch.
Prints "PEER pieces_s= pieces_user_s= ... maxdiff= hdiff=" (maxdiff: largest absolute
difference of the per-sentence mean of the last layer from synprobe's; hdiff: of every layer's
hidden states of the check sentences)."""
import os
import resource
import sys
import time


def _arg(name, default):
    for k, x in enumerate(sys.argv):
        if x == name and k + 1 < len(sys.argv):
            return sys.argv[k + 1]
    return default


THREADS = _arg("--threads", "1")
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = THREADS
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from transformers import AutoModel  # noqa: E402

import bert_pieces  # noqa: E402


def main():
    model, exp = sys.argv[1], sys.argv[2]
    batch = int(_arg("--batch", "32"))
    reps = int(_arg("--reps", "1"))
    torch.set_num_threads(int(_arg("--torch-threads", THREADS)))
    m = AutoModel.from_pretrained(model, torch_dtype=torch.float32).eval()
    pad = m.config.pad_token_id if m.config.pad_token_id is not None else 0
    sents, ours = bert_pieces.read(exp)
    check = bert_pieces.read_check(exp, sents)
    batches = []
    for i in range(0, len(sents), batch):   # already length-sorted
        bs = sents[i:i + batch]
        T = max(len(s) for s in bs)
        ids = torch.full((len(bs), T), pad, dtype=torch.long)
        mask = torch.zeros(len(bs), T, dtype=torch.long)
        for k, s in enumerate(bs):
            ids[k, :len(s)] = torch.from_numpy(s)
            mask[k, :len(s)] = 1
        batches.append((ids, mask))
    pieces = sum(len(s) for s in sents)
    with torch.inference_mode():
        m(input_ids=batches[-1][0], attention_mask=batches[-1][1], output_hidden_states=True)
        for r in range(reps):      # the last repetition's figures are printed (earlier ones warm up)
            t0, u0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
            outs, hdiff = [], 0.0
            for b, (ids, mask) in enumerate(batches):
                hs = m(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states
                outs.append(hs[-1])
                if check and any(b * batch + k in check for k in range(ids.shape[0])):
                    hdiff = max(hdiff, bert_pieces.check_diff(check, b * batch, [h.numpy() for h in hs]))
            wall, user = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_utime - u0
        means = []
        for (ids, mask), x in zip(batches, outs):
            mk = mask.to(x.dtype)
            means.append(((x * mk[:, :, None]).sum(1) / mk.sum(1, keepdim=True)).numpy())
    diff = float(np.abs(np.concatenate(means) - ours).max())
    print("PEER device=cpu pieces=%d wall_s=%.3f user_s=%.3f pieces_s=%.0f pieces_user_s=%.0f batch=%d threads=%s torch_threads=%d "
          "maxdiff=%.2e hdiff=%s model=%s torch=%s"
          % (pieces, wall, user, pieces / wall, pieces / user, batch, THREADS, torch.get_num_threads(), diff,
             "%.2e" % hdiff if check else "-", type(m).__name__, torch.__version__))


if __name__ == "__main__":
    main()

"""Heads over long documents: the statistics and sinks summed where the maps are made (torch, on the model's device:
core/heads/device_sums.py, what ``heads --documents`` does) against the maps copied to the host and summed there in
numpy (core/heads/statistics.py ``row_sums``/``argmax_offsets`` and core/heads/sinks.py ``SinkSums.add``, one
document at a time: how the decode-based atlas sums and how ``heads --documents`` summed before), in one run.

    .venv/bin/python bench/document_sums.py [--tokens 1024] [--documents 4] [--repeats 3]

A random GPT-2 (width 768, 12 heads, 1,024 positions, ``--layers`` layers, default 2) built into a temporary folder;
random token ids; the same forward pass with attnviz's recording attention for both, interleaved, medians. Prints
the largest difference between the two sums' means (statistics, sinks' weight and norm shares).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def host_sums(loaded: Any, documents: Any) -> tuple[Any, Any]:
    """The atlas's statistic and offset means and the sinks' means with every layer's maps copied to the host and
    summed in numpy, document by document (one batch of them through the model)."""
    import numpy as np
    import torch

    from attnviz.core.heads.sinks import SinkSums, key_classes
    from attnviz.core.heads.statistics import Keys, KindSums, argmax_offsets, row_sums
    from attnviz.core.hf import documents as module
    from attnviz.core.hf.attention import AttentionCall, consuming

    hf = loaded.model.hf.eval()
    modules = list(loaded.model.attention_modules(module.AttentionKind.DECODER_SELF))
    layer_of = {id(m): i for i, m in enumerate(modules)}
    heads = int(hf.config.n_head)
    vocab = loaded.src_vocab
    special = tuple(dict.fromkeys(str(t) for t in vocab.tokenizer.all_special_tokens))
    readable = {int(i): str(t) for i, t in zip(vocab.tokenizer.all_special_ids, vocab.tokenizer.all_special_tokens,
                                                strict=False)}
    stats = KindSums.empty(len(modules), heads, False)
    sinks = SinkSums.empty(("first", *special), len(modules), heads)
    with torch.no_grad():
        grams = module._grams(loaded, modules, heads)
    docs = documents.ids
    infos = [(Keys.of([vocab.tokens[i] for i in doc], len(doc) - 1),
              key_classes([readable.get(i, "\0") for i in doc], special)) for doc in docs]

    def consume(call: AttentionCall) -> None:
        layer = layer_of[id(call.module)]
        host = call.weights.float().cpu().numpy()  # (B, H, P, P)
        norms = grams[layer].norms(call.value).cpu().numpy()  # (B, H, P)
        for b, doc in enumerate(docs):
            n = len(doc)
            keys, classes = infos[b]
            w, q = host[b, :, :n, :n][None], np.arange(n)
            stats.sums[:, layer] += row_sums(w, q, keys)[:, 0]
            stats.offsets[:, layer] += argmax_offsets(w, q)[:, 0]
            if layer == 0:
                stats.rows += n
            sinks.add(layer, w[0], norms[b, :, :n], q, classes, True)

    ids = torch.tensor(docs)
    with consuming(consume), torch.inference_mode():
        module.forward(hf, ids, torch.ones_like(ids), True)
    return (stats.means(), stats.offsets / stats.rows), sinks.means()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--documents", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="64 tokens, 1 repeat: a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.tokens, args.repeats = 64, 1

    import numpy as np
    import torch
    import transformers

    from attnviz.core.hf.documents import Documents, document_atlas
    from attnviz.core.hf.load import load_hf_folder
    from tests.hf_folders import _byte_level_tokenizer

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer = _byte_level_tokenizer()
        torch.manual_seed(0)
        transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=len(tokenizer), n_embd=768, n_layer=args.layers, n_head=12, n_positions=1024, bos_token_id=0,
            eos_token_id=0)).save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        loaded = load_hf_folder(tmp)
        random.seed(0)
        documents = Documents(tuple(tuple(random.randrange(3, len(tokenizer)) for _ in range(args.tokens))
                                    for _ in range(args.documents)), 0)
        times: dict[str, list[float]] = {"device": [], "host": []}
        for _ in range(args.repeats):
            started = time.perf_counter()
            atlas = document_atlas(loaded, documents, "cpu", batch_tokens=args.tokens * args.documents)
            times["device"].append(time.perf_counter() - started)
            started = time.perf_counter()
            (means, offsets), (weight, norm) = host_sums(loaded, documents)
            times["host"].append(time.perf_counter() - started)
    kind = atlas.atlas.kinds[0]
    mine_weight, mine_norm = atlas.sinks.means()
    difference = max(float(np.nanmax(np.abs(kind.means - means))), float(np.nanmax(np.abs(kind.offsets - offsets))),
                     float(np.nanmax(np.abs(mine_weight - weight))), float(np.nanmax(np.abs(mine_norm - norm))))
    device, host = statistics.median(times["device"]), statistics.median(times["host"])
    print(f"{args.documents} documents × {args.tokens:,} tokens, GPT-2 width 768, {args.layers} layers, 12 heads, "
          f"{args.threads} threads, {args.repeats} repeats (medians):")
    print("| statistics and sinks summed | forward pass + sums, s | ratio |")
    print("| --- | --- | --- |")
    print(f"| on the device, torch (heads --documents) | {device:.2f} | {host / device:.2f}× |")
    print(f"| on the host, numpy, document by document | {host:.2f} | 1.00× |")
    print(f"largest difference of the means: {difference:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

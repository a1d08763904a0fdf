"""A torch.distributed.checkpoint folder as PyTorch 2.x's FileSystemWriter writes it, made
without PyTorch 2.x (Debian's torch 1.13 has no torch.distributed.checkpoint).

The reconstruction: the dataclasses of torch/distributed/checkpoint/metadata.py (Metadata,
TensorStorageMetadata, ChunkStorageMetadata, BytesStorageMetadata, TensorProperties with its
__getstate__ and _MEM_FORMAT_ENCODING, MetadataIndex, StorageMeta) and filesystem.py
(_StorageInfo) are defined here with the same fields, in the same order, under the same
module and class names, and the real `pickle.dump` writes them, as _FileSystemWriter.finish
does: Python's pickler then emits the bytes PyTorch 2.x's would (NEWOBJ of each class and
BUILD of its __dict__ or __getstate__; torch.Size, torch.float32 and torch.strided pickle
the same in torch 1.13 and 2.x). Each .distcp file holds the items of one rank in write
order (_write_files_from_queue: non-tensor items first, then tensors), each tensor chunk as
torch.save(chunk) into the stream, each non-tensor item as the bytes of its torch.save;
storage_data maps MetadataIndex(fqn, chunk offsets, index hint) to _StorageInfo(file,
offset, length). torch 1.13's torch.save writes the chunk archives (the zip layout 2.x
reads; 2.x adds a .data/serialization_id member, which no reader needs).
"""
import dataclasses, io, os, pathlib, pickle, sys, types, uuid

import torch

_METADATA_SRC = '''
import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional, Sequence, Union
import torch

@dataclass
class ChunkStorageMetadata:
    offsets: torch.Size
    sizes: torch.Size

class _MEM_FORMAT_ENCODING(Enum):
    TORCH_CONTIGUOUS_FORMAT = 0
    TORCH_CHANNELS_LAST = 1
    TORCH_PRESERVE_FORMAT = 2

@dataclass
class TensorProperties:
    dtype: torch.dtype = field(default_factory=torch.get_default_dtype)
    layout: torch.layout = field(default=torch.strided)
    requires_grad: bool = False
    memory_format: torch.memory_format = field(default=torch.contiguous_format)
    pin_memory: bool = False

    def __getstate__(self):
        memory_format = self.memory_format
        if memory_format == torch.contiguous_format:
            mem_format_encoding = _MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT
        elif memory_format == torch.channels_last:
            mem_format_encoding = _MEM_FORMAT_ENCODING.TORCH_CHANNELS_LAST
        else:
            mem_format_encoding = _MEM_FORMAT_ENCODING.TORCH_PRESERVE_FORMAT
        return (self.dtype, self.layout, self.requires_grad, mem_format_encoding, self.pin_memory)

    def __setstate__(self, state):
        (self.dtype, self.layout, self.requires_grad, mem_format_encoding, self.pin_memory) = state
        self.memory_format = {_MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT: torch.contiguous_format,
                              _MEM_FORMAT_ENCODING.TORCH_CHANNELS_LAST: torch.channels_last,
                              _MEM_FORMAT_ENCODING.TORCH_PRESERVE_FORMAT: torch.preserve_format}[mem_format_encoding]

@dataclass
class TensorStorageMetadata:
    properties: TensorProperties
    size: torch.Size
    chunks: list

@dataclass
class BytesStorageMetadata:
    pass

@dataclass
class StorageMeta:
    checkpoint_id: Union[str, os.PathLike, None] = None
    save_id: Optional[str] = None
    load_id: Optional[str] = None
    modules: list = field(default_factory=list)

@dataclass
class Metadata:
    state_dict_metadata: dict
    planner_data: Any = None
    storage_data: Any = None
    storage_meta: Optional[StorageMeta] = None
    version: Optional[str] = None

@dataclass(frozen=True)
class MetadataIndex:
    fqn: str
    offset: Optional[torch.Size] = None
    index: Optional[int] = field(hash=False, compare=False, default=None)

    def __init__(self, fqn, offset=None, index=None):
        object.__setattr__(self, "fqn", fqn)
        object.__setattr__(self, "index", index)
        if offset is not None:
            object.__setattr__(self, "offset", torch.Size(offset))
'''

_FILESYSTEM_SRC = '''
from dataclasses import dataclass
from typing import Optional, Sequence

@dataclass
class _StorageInfo:
    relative_path: str
    offset: int
    length: int
    transform_descriptors: Optional[Sequence[str]] = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if v is not None}
'''


def _module(name, src):
  m = types.ModuleType(name)
  sys.modules[name] = m
  exec(compile(src, name, "exec"), m.__dict__)  # noqa: S102 - our own source above
  return m


_pkg = types.ModuleType("torch.distributed.checkpoint")
_pkg.__path__ = []
sys.modules["torch.distributed.checkpoint"] = _pkg
md = _module("torch.distributed.checkpoint.metadata", _METADATA_SRC)
fs = _module("torch.distributed.checkpoint.filesystem", _FILESYSTEM_SRC)
_pkg.metadata, _pkg.filesystem = md, fs


def _box(t, offsets, sizes):
  return t[tuple(slice(o, o + s) for o, s in zip(offsets, sizes))].clone()


def write_dcp(folder, state, shards=None, extra=None, ranks=1, version="1.0.0", save_id=None):
  """Writes `state` ({fqn: tensor or other object}) as DCP does. `shards` maps an fqn to its
  chunks [(rank, offsets, sizes)] (default: rank 0 writes it whole, as a plain tensor or a
  deduplicated replicated one). Returns {relative_path: [(fqn, offsets, offset, length)]}."""
  os.makedirs(folder, exist_ok=True)
  shards = shards or {}
  per_rank = [[] for _ in range(ranks)]  # (fqn, value or chunk, MetadataIndex)
  sdm, planner_data = {}, {}
  for fqn, value in state.items():
    planner_data[fqn] = (fqn,)
    if not isinstance(value, torch.Tensor):
      sdm[fqn] = md.BytesStorageMetadata()
      per_rank[0].insert(sum(1 for x in per_rank[0] if x[2] is None), (fqn, value, None))
      continue
    chunks = shards.get(fqn, [(0, [0] * value.dim(), list(value.shape))])
    props = md.TensorProperties(dtype=value.dtype, layout=value.layout, requires_grad=False,
                                memory_format=torch.contiguous_format, pin_memory=False)
    tmd = md.TensorStorageMetadata(properties=props, size=value.size(), chunks=[])
    for rank, offsets, sizes in chunks:
      index = md.MetadataIndex(fqn, offsets, len(tmd.chunks))
      tmd.chunks.append(md.ChunkStorageMetadata(offsets=torch.Size(offsets), sizes=torch.Size(sizes)))
      per_rank[rank].append((fqn, _box(value, offsets, sizes), index))
    sdm[fqn] = tmd
  storage_data, layout = {}, {}
  for rank, items in enumerate(per_rank):
    name = f"__{rank}_0.distcp"
    stream = io.BytesIO()
    for fqn, value, index in items:
      offset = stream.tell()
      torch.save(value, stream)
      key = index if index is not None else md.MetadataIndex(fqn)
      storage_data[key] = fs._StorageInfo(name, offset, stream.tell() - offset)
      layout.setdefault(name, []).append((fqn, None if index is None else list(index.offset), offset,
                                          stream.tell() - offset))
    with open(os.path.join(folder, name), "wb") as f:
      f.write(stream.getvalue())
  meta = md.Metadata(state_dict_metadata=sdm, planner_data=planner_data, storage_data=storage_data,
                     storage_meta=md.StorageMeta(checkpoint_id=pathlib.Path(folder),
                                                 save_id=save_id or str(uuid.uuid4())),
                     version=version)
  if extra:
    extra(meta)
  with open(os.path.join(folder, ".metadata"), "wb") as f:
    pickle.dump(meta, f)
  return layout

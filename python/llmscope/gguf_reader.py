"""A small reader for GGUF files (versions 2 and 3), with numpy.

    reader = GGUFReader("model.gguf")
    reader.metadata["llama.block_count"]      # -> 2
    reader.tensors["blk.0.attn_q.weight"]     # -> TensorInfo(name, shape, ggml_type, ...)
    reader.tensor("blk.0.attn_q.weight")      # -> numpy array in torch's dim order

GGUF stores a tensor's dims as ggml does, fastest first (ne[0] is the length of a row); the
arrays this reader returns have them reversed, as numpy and torch index them: a tensor with
ne = [in, out] comes back with shape (out, in).

Files are read as untrusted input: every length, count and offset is checked against the
size of the file before anything is read or allocated, and whatever is wrong raises
ValueError naming the byte offset and the field.
"""

import mmap
import os
import struct
from collections import OrderedDict

import numpy as np

__all__ = ["GGUFReader", "TensorInfo", "GGUFValueType", "GGML_TYPES", "read_metadata"]

GGUF_MAGIC = b"GGUF"
GGUF_DEFAULT_ALIGNMENT = 32
GGML_MAX_DIMS = 4
MAX_ARRAY_NESTING = 8


class GGUFValueType:
    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12

    NAMES = {
        0: "UINT8", 1: "INT8", 2: "UINT16", 3: "INT16", 4: "UINT32", 5: "INT32",
        6: "FLOAT32", 7: "BOOL", 8: "STRING", 9: "ARRAY", 10: "UINT64", 11: "INT64",
        12: "FLOAT64",
    }


# Scalar value types: numpy dtype (little-endian) of one element.
_SCALAR_DTYPES = {
    GGUFValueType.UINT8: np.dtype("<u1"),
    GGUFValueType.INT8: np.dtype("<i1"),
    GGUFValueType.UINT16: np.dtype("<u2"),
    GGUFValueType.INT16: np.dtype("<i2"),
    GGUFValueType.UINT32: np.dtype("<u4"),
    GGUFValueType.INT32: np.dtype("<i4"),
    GGUFValueType.FLOAT32: np.dtype("<f4"),
    GGUFValueType.BOOL: np.dtype("<u1"),
    GGUFValueType.UINT64: np.dtype("<u8"),
    GGUFValueType.INT64: np.dtype("<i8"),
    GGUFValueType.FLOAT64: np.dtype("<f8"),
}
_SCALAR_STRUCT = {
    GGUFValueType.UINT8: "<B", GGUFValueType.INT8: "<b", GGUFValueType.UINT16: "<H",
    GGUFValueType.INT16: "<h", GGUFValueType.UINT32: "<I", GGUFValueType.INT32: "<i",
    GGUFValueType.FLOAT32: "<f", GGUFValueType.BOOL: "<B", GGUFValueType.UINT64: "<Q",
    GGUFValueType.INT64: "<q", GGUFValueType.FLOAT64: "<d",
}


class GGMLType:
    """A ggml tensor type: its id, name, elements per block and bytes per block."""

    __slots__ = ("id", "name", "block_size", "type_size")

    def __init__(self, type_id, name, block_size, type_size):
        self.id = type_id
        self.name = name
        self.block_size = block_size
        self.type_size = type_size

    def __repr__(self):
        return "GGMLType(%d, %s)" % (self.id, self.name)


# ggml's type table (ggml.h's enum ggml_type; ids 4, 5, 31-33 and 36-38 are retired).
GGML_TYPES = {t.id: t for t in [
    GGMLType(0, "F32", 1, 4),
    GGMLType(1, "F16", 1, 2),
    GGMLType(2, "Q4_0", 32, 18),
    GGMLType(3, "Q4_1", 32, 20),
    GGMLType(6, "Q5_0", 32, 22),
    GGMLType(7, "Q5_1", 32, 24),
    GGMLType(8, "Q8_0", 32, 34),
    GGMLType(9, "Q8_1", 32, 36),
    GGMLType(10, "Q2_K", 256, 84),
    GGMLType(11, "Q3_K", 256, 110),
    GGMLType(12, "Q4_K", 256, 144),
    GGMLType(13, "Q5_K", 256, 176),
    GGMLType(14, "Q6_K", 256, 210),
    GGMLType(15, "Q8_K", 256, 292),
    GGMLType(16, "IQ2_XXS", 256, 66),
    GGMLType(17, "IQ2_XS", 256, 74),
    GGMLType(18, "IQ3_XXS", 256, 98),
    GGMLType(19, "IQ1_S", 256, 50),
    GGMLType(20, "IQ4_NL", 32, 18),
    GGMLType(21, "IQ3_S", 256, 110),
    GGMLType(22, "IQ2_S", 256, 82),
    GGMLType(23, "IQ4_XS", 256, 136),
    GGMLType(24, "I8", 1, 1),
    GGMLType(25, "I16", 1, 2),
    GGMLType(26, "I32", 1, 4),
    GGMLType(27, "I64", 1, 8),
    GGMLType(28, "F64", 1, 8),
    GGMLType(29, "IQ1_M", 256, 56),
    GGMLType(30, "BF16", 1, 2),
    GGMLType(34, "TQ1_0", 256, 54),
    GGMLType(35, "TQ2_0", 256, 66),
    GGMLType(39, "MXFP4", 32, 17),
]}

# The types tensor() converts to numpy: ggml type name -> numpy dtype of the stored elements.
_READABLE = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),  # widened to float32 on read
    "F64": np.dtype("<f8"),
    "I8": np.dtype("<i1"),
    "I16": np.dtype("<i2"),
    "I32": np.dtype("<i4"),
    "I64": np.dtype("<i8"),
}


class TensorInfo:
    """One tensor's entry in the GGUF header.

    ne: the dims as ggml stores them, fastest first. shape: numpy/torch order (ne reversed).
    offset: from the start of the file. nbytes: size of its data.
    """

    __slots__ = ("name", "ne", "ggml_type", "relative_offset", "offset", "nbytes")

    def __init__(self, name, ne, ggml_type, relative_offset, offset, nbytes):
        self.name = name
        self.ne = tuple(ne)
        self.ggml_type = ggml_type
        self.relative_offset = relative_offset
        self.offset = offset
        self.nbytes = nbytes

    @property
    def shape(self):
        return tuple(reversed(self.ne))

    @property
    def n_elements(self):
        n = 1
        for d in self.ne:
            n *= d
        return n

    @property
    def type_name(self):
        return self.ggml_type.name

    def __repr__(self):
        return "TensorInfo(%r, ne=%s, type=%s, offset=%d, nbytes=%d)" % (
            self.name, list(self.ne), self.ggml_type.name, self.offset, self.nbytes)


class _Cursor:
    """Bounds-checked little-endian reads from a buffer."""

    def __init__(self, buf, size, path):
        self.buf = buf
        self.size = size
        self.pos = 0
        self.path = path

    def fail(self, what, at=None):
        raise ValueError("%s: invalid GGUF file: %s (at byte %d of %d)" % (
            self.path, what, self.pos if at is None else at, self.size))

    def remaining(self):
        return self.size - self.pos

    def need(self, n, what):
        if n < 0 or n > self.size - self.pos:
            self.fail("%s needs %d bytes but only %d remain" % (what, n, self.size - self.pos))

    def scalar(self, fmt, nbytes, what):
        self.need(nbytes, what)
        v = struct.unpack_from(fmt, self.buf, self.pos)[0]
        self.pos += nbytes
        return v

    def u32(self, what):
        return self.scalar("<I", 4, what)

    def u64(self, what):
        return self.scalar("<Q", 8, what)

    def raw_string(self, what):
        start = self.pos
        n = self.u64(what + " length")
        if n > self.size - self.pos:
            self.fail("%s length %d is past the end of the file (%d bytes remain)"
                      % (what, n, self.size - self.pos), at=start)
        b = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return b

    def string(self, what, strict=True):
        start = self.pos
        b = self.raw_string(what)
        try:
            return b.decode("utf-8", errors="strict" if strict else "surrogateescape")
        except UnicodeDecodeError as e:
            self.fail("%s is not valid UTF-8 (%s)" % (what, e.reason), at=start)


def _type_name(t):
    return GGUFValueType.NAMES.get(t, "unknown value type %d" % t)


def _read_value(cur, vtype, what, depth=0):
    if vtype in _SCALAR_STRUCT:
        dt = _SCALAR_DTYPES[vtype]
        v = cur.scalar(_SCALAR_STRUCT[vtype], dt.itemsize, what)
        if vtype == GGUFValueType.BOOL:
            return v != 0
        return v
    if vtype == GGUFValueType.STRING:
        return cur.string(what, strict=False)
    if vtype == GGUFValueType.ARRAY:
        if depth >= MAX_ARRAY_NESTING:
            cur.fail("%s: arrays nested deeper than %d" % (what, MAX_ARRAY_NESTING))
        start = cur.pos
        etype = cur.u32(what + " element type")
        count = cur.u64(what + " element count")
        if etype in _SCALAR_DTYPES:
            dt = _SCALAR_DTYPES[etype]
            if count > cur.remaining() // dt.itemsize:
                cur.fail("%s: %d elements of %s need %d bytes but only %d remain"
                         % (what, count, _type_name(etype), count * dt.itemsize, cur.remaining()),
                         at=start)
            arr = np.frombuffer(cur.buf, dtype=dt, count=count, offset=cur.pos).copy()
            cur.pos += count * dt.itemsize
            if etype == GGUFValueType.BOOL:
                arr = arr != 0
            return arr.astype(dt.newbyteorder("=")) if etype != GGUFValueType.BOOL else arr
        if etype == GGUFValueType.STRING:
            # every string has at least its 8-byte length
            if count > cur.remaining() // 8:
                cur.fail("%s: %d strings cannot fit in the %d bytes that remain"
                         % (what, count, cur.remaining()), at=start)
            return [cur.string("%s[%d]" % (what, i), strict=False) for i in range(count)]
        if etype == GGUFValueType.ARRAY:
            if count > cur.remaining() // 12:
                cur.fail("%s: %d nested arrays cannot fit in the %d bytes that remain"
                         % (what, count, cur.remaining()), at=start)
            return [_read_value(cur, etype, "%s[%d]" % (what, i), depth + 1) for i in range(count)]
        cur.fail("%s: unknown array element type %d" % (what, etype), at=start)
    cur.fail("%s: unknown value type %d" % (what, vtype), at=cur.pos - 4)


class GGUFReader:
    """Parses a GGUF file's header on construction; tensor() reads one tensor's data.

    Attributes: path, version, file_size, metadata (OrderedDict key -> value: int, float,
    bool, str, numpy array for numeric arrays, list for arrays of strings or arrays),
    metadata_types (key -> GGUF value type id; arrays as (ARRAY, element type)),
    tensors (OrderedDict name -> TensorInfo), alignment, data_offset.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        with open(self.path, "rb") as f:
            self.file_size = os.fstat(f.fileno()).st_size
            if self.file_size < 24:
                raise ValueError("%s: not a GGUF file: %d bytes is shorter than a GGUF header"
                                 % (self.path, self.file_size))
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                # everything kept from the header is copied out, so no view of mm outlives this
                with memoryview(mm) as view:
                    self._parse(view)
            finally:
                mm.close()

    # --- header ---------------------------------------------------------------------
    def _parse(self, buf):
        cur = _Cursor(buf, self.file_size, self.path)
        try:
            magic = bytes(buf[0:4])
            if magic != GGUF_MAGIC:
                raise ValueError("%s: not a GGUF file (magic %r, expected %r)"
                                 % (self.path, magic, GGUF_MAGIC))
            cur.pos = 4
            version = cur.u32("version")
            if version not in (2, 3):
                if version & 0xFFFF == 0 and (version >> 16) != 0:
                    raise ValueError("%s: GGUF version field 0x%08x: a big-endian GGUF file, "
                                     "which this reader does not support" % (self.path, version))
                raise ValueError("%s: unsupported GGUF version %d (this reader reads 2 and 3)"
                                 % (self.path, version))
            self.version = version
            tensor_count = cur.u64("tensor count")
            kv_count = cur.u64("metadata key/value count")
            # minimal sizes: a key/value has an 8-byte key length and a 4-byte type plus at
            # least one byte of value; a tensor info has an 8-byte name length, 4-byte n_dims,
            # 4-byte type and 8-byte offset
            if kv_count > cur.remaining() // 13:
                cur.fail("metadata key/value count %d cannot fit in the file" % kv_count)
            self.metadata = OrderedDict()
            self.metadata_types = OrderedDict()
            for i in range(kv_count):
                key = cur.string("metadata key #%d" % i)
                vtype = cur.u32("type of metadata '%s'" % key)
                if vtype == GGUFValueType.ARRAY:
                    save = cur.pos
                    etype = cur.u32("element type of metadata '%s'" % key)
                    cur.pos = save
                    self.metadata_types[key] = (vtype, etype)
                else:
                    self.metadata_types[key] = vtype
                value = _read_value(cur, vtype, "metadata '%s'" % key)
                if key in self.metadata:
                    cur.fail("metadata key '%s' appears twice" % key)
                self.metadata[key] = value

            self.alignment = GGUF_DEFAULT_ALIGNMENT
            if "general.alignment" in self.metadata:
                a = self.metadata["general.alignment"]
                atype = self.metadata_types["general.alignment"]
                if atype != GGUFValueType.UINT32:
                    raise ValueError("%s: general.alignment must be a UINT32, not %s" % (
                        self.path, "an ARRAY" if isinstance(atype, tuple) else _type_name(atype)))
                if a == 0 or (a & (a - 1)) != 0:
                    raise ValueError("%s: general.alignment %d is not a power of two" % (self.path, a))
                self.alignment = a

            if tensor_count > cur.remaining() // 24:
                cur.fail("tensor count %d cannot fit in the file" % tensor_count)
            infos = []
            names = set()
            for i in range(tensor_count):
                name = cur.string("name of tensor #%d" % i)
                if name in names:
                    cur.fail("tensor '%s' appears twice" % name)
                names.add(name)
                n_dims = cur.u32("n_dims of tensor '%s'" % name)
                if n_dims < 1 or n_dims > GGML_MAX_DIMS:
                    cur.fail("tensor '%s' has %d dims (1 to %d allowed)" % (name, n_dims, GGML_MAX_DIMS))
                ne = [cur.u64("dim %d of tensor '%s'" % (d, name)) for d in range(n_dims)]
                type_id = cur.u32("type of tensor '%s'" % name)
                if type_id not in GGML_TYPES:
                    cur.fail("tensor '%s' has unknown ggml type %d" % (name, type_id), at=cur.pos - 4)
                rel = cur.u64("offset of tensor '%s'" % name)
                infos.append((name, ne, GGML_TYPES[type_id], rel))

            data_offset = cur.pos
            data_offset += (-data_offset) % self.alignment
            if tensor_count and data_offset > self.file_size:
                cur.fail("tensor data would start at %d, past the end of the file" % data_offset)
            self.data_offset = data_offset
        except struct.error as e:  # defensive: every read is bounds-checked before
            raise ValueError("%s: invalid GGUF file: %s" % (self.path, e))

        self.tensors = OrderedDict()
        extents = []
        for name, ne, gtype, rel in infos:
            n = 1
            for d in ne:
                n *= d
            if ne[0] % gtype.block_size != 0:
                raise ValueError("%s: tensor '%s' of type %s has a row of %d elements, not a multiple "
                                 "of its block size %d" % (self.path, name, gtype.name, ne[0], gtype.block_size))
            nbytes = n // gtype.block_size * gtype.type_size
            if rel % self.alignment != 0:
                raise ValueError("%s: tensor '%s' data offset %d is not a multiple of the alignment %d"
                                 % (self.path, name, rel, self.alignment))
            if rel > self.file_size or nbytes > self.file_size - data_offset - rel:
                raise ValueError("%s: tensor '%s' (%s, ne %s, %d bytes at data offset %d) runs past the "
                                 "end of the file (%d bytes)" % (self.path, name, gtype.name, ne, nbytes, rel,
                                                                 self.file_size))
            self.tensors[name] = TensorInfo(name, ne, gtype, rel, data_offset + rel, nbytes)
            extents.append((rel, rel + nbytes, name))
        extents.sort()
        for (a0, a1, an), (b0, b1, bn) in zip(extents, extents[1:]):
            if b0 < a1:
                raise ValueError("%s: the data of tensors '%s' and '%s' overlap" % (self.path, an, bn))

    # --- convenience ----------------------------------------------------------------
    def get(self, key, default=None):
        return self.metadata.get(key, default)

    def require(self, key):
        if key not in self.metadata:
            raise ValueError("%s: GGUF metadata has no '%s'" % (self.path, key))
        return self.metadata[key]

    def __contains__(self, name):
        return name in self.tensors

    def tensor(self, name, dtype=None):
        """The tensor's data as a numpy array in numpy/torch dim order (ggml's ne reversed).

        F32, F64 and the integer types come back as stored; F16 as float16; BF16 widened to
        float32 (exactly). dtype, when given, converts the result. Quantized types raise
        ValueError naming the type.
        """
        info = self.tensors.get(name)
        if info is None:
            raise KeyError("%s: no tensor '%s'" % (self.path, name))
        tname = info.ggml_type.name
        if tname not in _READABLE:
            raise ValueError("%s: tensor '%s' is of ggml type %s, which this reader does not convert "
                             "(it reads %s)" % (self.path, name, tname, ", ".join(sorted(_READABLE))))
        stored = _READABLE[tname]
        with open(self.path, "rb") as f:
            f.seek(info.offset)
            data = f.read(info.nbytes)
        if len(data) != info.nbytes:
            raise ValueError("%s: tensor '%s': the file ended after %d of its %d bytes (was it truncated "
                             "since it was opened?)" % (self.path, name, len(data), info.nbytes))
        arr = np.frombuffer(data, dtype=stored).reshape(info.shape)
        if tname == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        else:
            arr = arr.astype(stored.newbyteorder("="), copy=True)
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        return arr

    def __repr__(self):
        return "GGUFReader(%r, version=%d, %d metadata keys, %d tensors)" % (
            self.path, self.version, len(self.metadata), len(self.tensors))


def read_metadata(path):
    """The metadata of a GGUF file as an OrderedDict."""
    return GGUFReader(path).metadata


def _main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description="Print a GGUF file's metadata and tensor table.")
    p.add_argument("path")
    p.add_argument("--full", action="store_true", help="print arrays in full")
    a = p.parse_args(argv)
    r = GGUFReader(a.path)
    print("GGUF v%d, %d bytes, alignment %d, data at %d" % (r.version, r.file_size, r.alignment, r.data_offset))
    for k, v in r.metadata.items():
        if not a.full and isinstance(v, (list, np.ndarray)) and len(v) > 8:
            v = "[%s, ... %d items]" % (", ".join(repr(x) for x in list(v[:8])), len(v))
        print("%s = %s" % (k, v))
    for t in r.tensors.values():
        print("%-32s %-6s ne=%s shape=%s" % (t.name, t.type_name, list(t.ne), list(t.shape)))


if __name__ == "__main__":
    _main()

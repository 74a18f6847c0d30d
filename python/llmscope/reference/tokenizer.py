"""The SentencePiece-style ("llama") tokenizer that llama.cpp runs for a GGUF vocabulary.

It follows llama.cpp's rules for tokenizer.ggml.model == "llama":
  * BOS (tokenizer.ggml.bos_token_id, default 1) first when tokenizer.ggml.add_bos_token is
    true or absent; EOS last only when tokenizer.ggml.add_eos_token is true;
  * a space before the text when tokenizer.ggml.add_space_prefix is true or absent;
  * every ' ' becomes U+2581 ('\u2581', bytes E2 96 81) before tokenizing;
  * the text is split into UTF-8 characters (a lead byte's high bits give the length) and
    adjacent pieces are merged best score first (ties: leftmost) while the merged text is a
    vocabulary token;
  * a piece that is no token falls back to its bytes, each the token "<0xXX>".
User-defined tokens (token type 4) are split out of the text first, longest first, as llama.cpp
does even when special tokens are not parsed; control and unknown tokens are not recognised in
the text (llama.cpp's parse_special=false, which llmscope-sample-generate uses).

On llmscope's sample models (vocabulary <unk>, <s>, </s> and the 256 byte tokens, no space
prefix) this gives [1] + [3 + b for b in text.replace(' ', '\u2581').encode()].
"""

import heapq

__all__ = ["SpmTokenizer"]

TOKEN_TYPE_NORMAL = 1
TOKEN_TYPE_UNKNOWN = 2
TOKEN_TYPE_CONTROL = 3
TOKEN_TYPE_USER_DEFINED = 4
TOKEN_TYPE_UNUSED = 5
TOKEN_TYPE_BYTE = 6

_UTF8_LEN = (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)


def _as_bool(v, default):
    return default if v is None else bool(v)


class SpmTokenizer:
    def __init__(self, tokens, scores=None, token_types=None, bos_id=1, eos_id=2, add_bos=True,
                 add_eos=False, add_space_prefix=True):
        self.tokens = [t.encode("utf-8", errors="surrogateescape") for t in tokens]
        n = len(self.tokens)
        self.scores = [0.0] * n if scores is None else [float(s) for s in scores]
        self.types = [TOKEN_TYPE_NORMAL] * n if token_types is None else [int(t) for t in token_types]
        if len(self.scores) != n or len(self.types) != n:
            raise ValueError("vocabulary of %d tokens has %d scores and %d token types"
                             % (n, len(self.scores), len(self.types)))
        self.bos_id, self.eos_id = bos_id, eos_id
        self.add_bos, self.add_eos, self.add_space_prefix = add_bos, add_eos, add_space_prefix
        self.to_id = {}
        for i, t in enumerate(self.tokens):  # a repeated text maps to its last id
            self.to_id[t] = i
        self.user_defined = sorted((t for i, t in enumerate(self.tokens)
                                    if self.types[i] == TOKEN_TYPE_USER_DEFINED and t),
                                   key=len, reverse=True)

    @classmethod
    def from_gguf(cls, reader):
        md = reader.metadata
        model = md.get("tokenizer.ggml.model")
        if model != "llama":
            raise ValueError("%s: tokenizer.ggml.model is %r; this tokenizer handles llama.cpp's "
                             "SentencePiece vocabularies ('llama') only" % (reader.path, model))
        if "tokenizer.ggml.tokens" not in md:
            raise ValueError("%s: no tokenizer.ggml.tokens" % reader.path)
        return cls(md["tokenizer.ggml.tokens"], md.get("tokenizer.ggml.scores"),
                   md.get("tokenizer.ggml.token_type"),
                   bos_id=int(md.get("tokenizer.ggml.bos_token_id", 1)),
                   eos_id=int(md.get("tokenizer.ggml.eos_token_id", 2)),
                   add_bos=_as_bool(md.get("tokenizer.ggml.add_bos_token"), True),
                   add_eos=_as_bool(md.get("tokenizer.ggml.add_eos_token"), False),
                   add_space_prefix=_as_bool(md.get("tokenizer.ggml.add_space_prefix"), True))

    def __len__(self):
        return len(self.tokens)

    # --- encoding -------------------------------------------------------------------
    def encode(self, text, add_special=True):
        if isinstance(text, str):
            text = text.encode("utf-8")
        out = []
        if add_special and self.add_bos:
            out.append(self.bos_id)
        prev_special = True
        for piece, token in self._partition(text):
            if token is not None:
                out.append(token)
                prev_special = True
                continue
            if self.add_space_prefix and prev_special:
                piece = b" " + piece
            self._tokenize_piece(piece.replace(b" ", "\u2581".encode("utf-8")), out)
            prev_special = False
        if add_special and self.add_eos:
            out.append(self.eos_id)
        return out

    def _partition(self, text):
        """(raw bytes, None) and (b'', user-defined token id) fragments, in order."""
        frags = [(text, None)]
        for tok in self.user_defined:
            tid = self.to_id[tok]
            nxt = []
            for raw, t in frags:
                if t is not None:
                    nxt.append((raw, t))
                    continue
                start = 0
                while True:
                    k = raw.find(tok, start)
                    if k < 0:
                        break
                    if k > start:
                        nxt.append((raw[start:k], None))
                    nxt.append((b"", tid))
                    start = k + len(tok)
                if start < len(raw):
                    nxt.append((raw[start:], None))
            frags = nxt
        return [f for f in frags if f[1] is not None or f[0]]

    def _tokenize_piece(self, text, out):
        # symbols: [start, length, prev, next]
        syms = []
        offs = 0
        while offs < len(text):
            n = min(_UTF8_LEN[text[offs] >> 4], len(text) - offs)
            syms.append([offs, n, len(syms) - 1, -1 if offs + n == len(text) else len(syms) + 1])
            offs += n
        heap = []
        rev_merge = {}
        counter = [0]

        def try_add(left, right):
            if left == -1 or right == -1:
                return
            piece = text[syms[left][0]:syms[left][0] + syms[left][1] + syms[right][1]]
            tid = self.to_id.get(piece)
            if tid is None:
                return
            counter[0] += 1
            heapq.heappush(heap, (-self.scores[tid], left, counter[0], right, len(piece)))
            rev_merge[piece] = (left, right)

        for i in range(1, len(syms)):
            try_add(i - 1, i)
        while heap:
            _, left, _, right, size = heapq.heappop(heap)
            ls, rs = syms[left], syms[right]
            if ls[1] == 0 or rs[1] == 0 or ls[1] + rs[1] != size:
                continue
            ls[1] += rs[1]
            rs[1] = 0
            ls[3] = rs[3]
            if rs[3] >= 0:
                syms[rs[3]][2] = left
            try_add(ls[2], left)
            try_add(left, ls[3])

        def resegment(i):
            start, n = syms[i][0], syms[i][1]
            piece = text[start:start + n]
            tid = self.to_id.get(piece)
            if tid is not None:
                out.append(tid)
                return
            m = rev_merge.get(piece)
            if m is None:
                for b in piece:
                    out.append(self._byte_token(b))
                return
            resegment(m[0])
            resegment(m[1])

        i = 0 if syms else -1
        while i != -1:
            resegment(i)
            i = syms[i][3]

    def _byte_token(self, b):
        tid = self.to_id.get(("<0x%02X>" % b).encode("ascii"))
        if tid is None:
            tid = self.to_id.get(bytes([b]))
        if tid is None:
            raise ValueError("the vocabulary has no token for byte 0x%02X (no '<0x%02X>')" % (b, b))
        return tid

    # --- decoding (for display) -----------------------------------------------------
    def decode(self, ids):
        out = bytearray()
        for i in ids:
            if i < 0 or i >= len(self.tokens):
                continue
            t, ty = self.tokens[i], self.types[i]
            if ty == TOKEN_TYPE_BYTE and len(t) == 6 and t.startswith(b"<0x") and t.endswith(b">"):
                out.append(int(t[3:5], 16))
            elif ty in (TOKEN_TYPE_NORMAL, TOKEN_TYPE_USER_DEFINED):
                out += t
        return out.replace("\u2581".encode("utf-8"), b" ").decode("utf-8", errors="replace")

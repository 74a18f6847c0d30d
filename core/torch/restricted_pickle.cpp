#include "core/torch/restricted_pickle.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_map>

#include "core/util/error.h"

namespace llmscope::torchfile {
namespace {

struct Value;
using ValuePtr = std::shared_ptr<Value>; // a dict changes in place, as Python's

// What the interpreter builds: plain values, the globals a saved tensor names, and the tensor.
struct Value {
    enum Kind { None, Bool, Int, Float, String, Tuple, Dict, Global, Storage, Tensor } kind = None;
    int64_t i = 0;
    double f = 0;
    std::string s; // String; Global: "module name"
    std::vector<ValuePtr> items; // Tuple; Dict: key, value, key, value... (plain values only)
    int depth = 1; // nesting: a tuple of tuples is 2 deep
    TensorRef tensor; // Storage (its key, type, elements), Tensor
};

ValuePtr make(Value v)
{
    return std::make_shared<Value>(std::move(v));
}

Value of(Value::Kind kind, int64_t i = 0)
{
    Value v;
    v.kind = kind;
    v.i = i;
    return v;
}

// The globals a tensor's pickle names: the rebuild functions, the hooks' OrderedDict and the
// storage classes.
bool allowedGlobal(const std::string &name)
{
    static const char *const allowed[] = {"torch._utils _rebuild_tensor_v2",
                                          "torch._utils _rebuild_parameter",
                                          "collections OrderedDict",
                                          "torch FloatStorage",
                                          "torch DoubleStorage",
                                          "torch HalfStorage",
                                          "torch BFloat16Storage",
                                          "torch LongStorage",
                                          "torch IntStorage",
                                          "torch ShortStorage",
                                          "torch CharStorage",
                                          "torch ByteStorage",
                                          "torch BoolStorage"};
    for (const char *a : allowed)
        if (name == a)
            return true;
    return false;
}

class Machine {
public:
    Machine(std::string_view p, const std::string &path) : m_p(p), m_path(path) {}

    ValuePtr run()
    {
        while (true) {
            const uint8_t op = byte();
            switch (op) {
            case 0x80: byte(); break; // PROTO
            case 0x95: bytes(8); break; // FRAME
            case '.': return result(); // STOP
            case '(':
                if (m_marks.size() >= kMaxStack)
                    fail("more MARKs than a saved tensor's pickle has");
                m_marks.push_back(m_stack.size());
                break;
            case 'c': { // GLOBAL: module and name on lines of their own, read in order
                const std::string module = line();
                global(module + " " + line());
                break;
            }
            case 0x93: { // STACK_GLOBAL
                const ValuePtr name = pop(), module = pop();
                if (module->kind != Value::String || name->kind != Value::String)
                    fail("STACK_GLOBAL without two strings");
                global(module->s + " " + name->s);
                break;
            }
            case 'X': string(le(4)); break; // BINUNICODE
            case 0x8c: string(le(1)); break; // SHORT_BINUNICODE
            case 0x8d: string(le(8)); break; // BINUNICODE8
            case 'J': integer(int32_t(uint32_t(le(4)))); break;
            case 'K': integer(int64_t(le(1))); break;
            case 'M': integer(int64_t(le(2))); break;
            case 0x8a: long1(); break;
            case 'G': binfloat(); break;
            case 0x88: pushValue(of(Value::Bool, 1)); break;
            case 0x89: pushValue(of(Value::Bool, 0)); break;
            case 'N': pushValue(Value()); break;
            case ')': pushValue(of(Value::Tuple)); break;
            case 't': pushValue(collect(Value::Tuple, popMark())); break;
            case 0x85: tupleOf(1); break;
            case 0x86: tupleOf(2); break;
            case 0x87: tupleOf(3); break;
            case ']': fail("a list, which a saved tensor never holds");
            case '}': pushValue(of(Value::Dict)); break;
            case 's': {
                const ValuePtr v = pop(), k = pop();
                append(Value::Dict, {k, v});
                break;
            }
            case 'u': append(Value::Dict, popMark()); break;
            case 'q': m_memo[uint32_t(le(1))] = top(); break;
            case 'r': m_memo[uint32_t(le(4))] = top(); break;
            case 0x94: m_memo[uint32_t(m_memo.size())] = top(); break; // MEMOIZE
            case 'h': get(uint32_t(le(1))); break;
            case 'j': get(uint32_t(le(4))); break;
            case 'Q': persistent(pop()); break; // BINPERSID
            case 'R': {
                const ValuePtr args = pop(), f = pop();
                reduce(f, args);
                break;
            }
            default: fail("opcode 0x" + hex(op) + " is not one a saved tensor uses");
            }
        }
    }

private:
    [[noreturn]] void fail(const std::string &why) const
    {
        throw Error("'" + m_path + "': refused: " + why +
                    " (llmscope reads saved tensors only and runs nothing "
                    "from the file)");
    }
    static std::string hex(uint8_t b)
    {
        const char *d = "0123456789abcdef";
        return {d[b >> 4], d[b & 15]};
    }
    uint8_t byte()
    {
        if (m_at >= m_p.size())
            fail("the pickle ends before its STOP");
        return uint8_t(m_p[m_at++]);
    }
    std::string_view bytes(uint64_t n)
    {
        if (n > m_p.size() - m_at)
            fail("the pickle ends inside an argument");
        const std::string_view v = m_p.substr(m_at, size_t(n));
        m_at += size_t(n);
        return v;
    }
    uint64_t le(int n)
    {
        const std::string_view b = bytes(uint64_t(n));
        uint64_t v = 0;
        for (int k = n - 1; k >= 0; --k)
            v = v << 8 | uint8_t(b[size_t(k)]);
        return v;
    }
    std::string line()
    {
        const size_t end = m_p.find('\n', m_at);
        if (end == std::string_view::npos || end - m_at > 256)
            fail("a GLOBAL without its line");
        std::string s(m_p.substr(m_at, end - m_at));
        m_at = end + 1;
        return s;
    }
    void pushValue(Value v)
    {
        if (++m_made > kMaxValues) // a tensor's pickle makes a few dozen
            fail("more values than a saved tensor's pickle makes");
        push(make(std::move(v)));
    }
    void push(ValuePtr v)
    {
        if (m_stack.size() >= kMaxStack)
            fail("the pickle's stack grows beyond what a saved tensor needs");
        m_stack.push_back(std::move(v));
    }
    ValuePtr pop()
    {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() == m_marks.back()))
            fail("the pickle takes from an empty stack");
        ValuePtr v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    ValuePtr top() const
    {
        if (m_stack.empty())
            fail("the pickle memoizes an empty stack");
        if (m_memo.size() >= kMaxMemo)
            fail("the pickle's memo grows beyond what a saved tensor needs");
        return m_stack.back();
    }
    std::vector<ValuePtr> popMark()
    {
        if (m_marks.empty())
            fail("the pickle closes a MARK it never opened");
        const size_t from = m_marks.back();
        m_marks.pop_back();
        std::vector<ValuePtr> items(m_stack.begin() + ptrdiff_t(from), m_stack.end());
        m_stack.resize(from);
        return items;
    }
    Value collect(Value::Kind kind, std::vector<ValuePtr> items) const
    {
        Value v = of(kind);
        for (const ValuePtr &i : items)
            v.depth = std::max(v.depth, i->depth + 1);
        if (v.depth > kMaxDepth) // a tensor's pickle nests 3 deep
            fail("tuples nested deeper than a saved tensor's");
        v.items = std::move(items);
        return v;
    }
    void tupleOf(size_t n)
    {
        std::vector<ValuePtr> items(n);
        for (size_t k = n; k-- > 0;)
            items[k] = pop();
        pushValue(collect(Value::Tuple, std::move(items)));
    }
    // SETITEM(S): a dict holds plain values only (an OrderedDict of hooks is empty), changed in
    // place: no container inside another through it, and no copy a SETITEM.
    void append(Value::Kind kind, const std::vector<ValuePtr> &items)
    {
        const ValuePtr target = pop();
        if (target->kind != kind || items.size() % 2)
            fail("the pickle adds items to something that is not a dict");
        for (const ValuePtr &i : items)
            if (i->kind == Value::Tuple || i->kind == Value::Dict || i->kind == Value::Tensor ||
                i->kind == Value::Storage)
                fail("a dict holding more than plain values");
        target->items.insert(target->items.end(), items.begin(), items.end());
        push(target);
    }
    void get(uint32_t k)
    {
        const auto it = m_memo.find(k);
        if (it == m_memo.end())
            fail("the pickle reads a memo entry it never wrote");
        push(it->second);
    }
    void string(uint64_t n)
    {
        Value v = of(Value::String);
        v.s = std::string(bytes(n));
        pushValue(std::move(v));
    }
    void integer(int64_t i)
    {
        Value v = of(Value::Int);
        v.i = i;
        pushValue(std::move(v));
    }
    void long1()
    {
        const uint64_t n = le(1);
        if (n > 8)
            fail("an integer wider than 64 bits");
        const std::string_view b = bytes(n);
        uint64_t v = 0;
        for (size_t k = n; k-- > 0;)
            v = v << 8 | uint8_t(b[k]);
        if (n && n < 8 && (uint8_t(b[n - 1]) & 0x80)) // sign-extend
            v |= ~uint64_t(0) << (8 * n);
        integer(int64_t(v));
    }
    void binfloat()
    {
        const std::string_view b = bytes(8);
        uint64_t bits = 0;
        for (char c : b) // big-endian
            bits = bits << 8 | uint8_t(c);
        Value v = of(Value::Float);
        std::memcpy(&v.f, &bits, 8);
        pushValue(std::move(v));
    }
    void global(const std::string &name)
    {
        if (!allowedGlobal(name))
            fail("its pickle asks for '" + name + "', which a saved tensor never uses");
        Value v = of(Value::Global);
        v.s = name;
        pushValue(std::move(v));
    }
    static bool isInt(const ValuePtr &v) { return v->kind == Value::Int; }
    void persistent(const ValuePtr &pid)
    {
        // ('storage', torch.FloatStorage, key, location, elements)
        const auto &t = pid->items;
        if (pid->kind != Value::Tuple || t.size() != 5 || t[0]->kind != Value::String || t[0]->s != "storage" ||
            t[1]->kind != Value::Global || t[1]->s.rfind("torch ", 0) != 0 || t[2]->kind != Value::String ||
            !isInt(t[4]) || t[4]->i < 0)
            fail("a persistent id that is not a tensor storage");
        for (char c : t[2]->s)
            if (!std::isalnum(uint8_t(c)))
                fail("a storage key that is not a plain name");
        Value v = of(Value::Storage);
        v.tensor.storageKey = t[2]->s;
        v.tensor.storageType = t[1]->s.substr(6);
        v.tensor.storageElements = t[4]->i;
        pushValue(std::move(v));
    }
    std::vector<int64_t> ints(const ValuePtr &v, const char *what) const
    {
        if (v->kind != Value::Tuple || v->items.size() > 16)
            fail(std::string("a tensor ") + what + " that is not a tuple of at most 16 integers");
        std::vector<int64_t> out;
        for (const ValuePtr &x : v->items) {
            if (!isInt(x) || x->i < 0)
                fail(std::string("a tensor ") + what + " that is not a tuple of at most 16 integers");
            out.push_back(x->i);
        }
        return out;
    }
    void reduce(const ValuePtr &f, const ValuePtr &args)
    {
        if (f->kind != Value::Global || args->kind != Value::Tuple)
            fail("it calls something that is not one of a saved tensor's functions");
        const auto &a = args->items;
        if (f->s == "collections OrderedDict") {
            if (!a.empty())
                fail("an OrderedDict built from arguments");
            pushValue(of(Value::Dict));
        } else if (f->s == "torch._utils _rebuild_tensor_v2") {
            // (storage, offset, size, stride, requires_grad, backward_hooks[, metadata])
            if (a.size() < 6 || a.size() > 7 || a[0]->kind != Value::Storage || !isInt(a[1]) || a[1]->i < 0)
                fail("_rebuild_tensor_v2 with other arguments than a tensor's");
            if (a[5]->kind != Value::Dict || !a[5]->items.empty())
                fail("a tensor with backward hooks");
            Value v = of(Value::Tensor);
            v.tensor = a[0]->tensor;
            v.tensor.offset = a[1]->i;
            v.tensor.size = ints(a[2], "size");
            v.tensor.stride = ints(a[3], "stride");
            if (v.tensor.size.size() != v.tensor.stride.size())
                fail("a tensor whose size and stride differ in length");
            pushValue(std::move(v));
        } else if (f->s == "torch._utils _rebuild_parameter") {
            // (tensor, requires_grad, backward_hooks)
            if (a.size() != 3 || a[0]->kind != Value::Tensor)
                fail("_rebuild_parameter of something other than a tensor");
            push(a[0]);
        } else {
            fail("it calls '" + f->s + "'");
        }
    }
    ValuePtr result()
    {
        if (m_stack.size() != 1 || !m_marks.empty())
            fail("the pickle does not end with one value");
        if (m_stack.back()->kind != Value::Tensor)
            fail("the file holds something other than one tensor");
        return m_stack.back();
    }

    static constexpr size_t kMaxStack = 4096, kMaxMemo = 65536, kMaxValues = 1u << 20;
    static constexpr int kMaxDepth = 32;
    size_t m_made = 0;
    std::string_view m_p;
    const std::string &m_path;
    size_t m_at = 0;
    std::vector<ValuePtr> m_stack;
    std::vector<size_t> m_marks;
    std::unordered_map<uint32_t, ValuePtr> m_memo;
};

} // namespace

TensorRef readTensorPickle(std::string_view pickle, const std::string &path)
{
    return Machine(pickle, path).run()->tensor;
}

} // namespace llmscope::torchfile

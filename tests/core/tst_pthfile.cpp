// torch.save files read without Python: tensors of each element type, views gathered by their
// strides and parameters, written here by Debian's python3-torch and held against the same
// values saved by NumPy; and files that are not one tensor (a pickle that would run a shell
// command, a dict, cut or shortened archives, bytes flipped in the pickle) refused with their
// reason, the command never run.
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

#include "core/tensor/dtype.h"
#include "core/tensor/npy_file.h"
#include "core/torch/pth_file.h"
#include "core/torch/restricted_pickle.h"
#include "core/util/error.h"

using namespace llmscope;

namespace {
// Runs a Python script in dir with Debian's interpreter (torch and numpy).
bool python(const QString &dir, const QString &script)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start("/usr/bin/python3", {"-c", script});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        qWarning("%s", p.readAllStandardError().constData());
        return false;
    }
    return true;
}

std::string refusal(const std::string &path)
{
    try {
        readPth(path);
    } catch (const Error &e) {
        return e.what();
    }
    return "read";
}
} // namespace

class TstPthFile : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(python(m_dir.path(), R"(
import torch, numpy as np
t = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4) / 7 - 1
cases = {
  'f32': t, 'view': t.transpose(0, 2)[1:, :, ::2], 'half': t.half()[1], 'double': t.double(),
  'param': torch.nn.Parameter(t.clone()), 'scalar': torch.tensor(3.5), 'long': torch.arange(-3, 5),
  'bool': t > 0, 'int8': torch.arange(-4, 4, dtype=torch.int8), 'empty': torch.zeros(0, 3),
}
for name, x in cases.items():
    torch.save(x, name + '.pth')
    np.save(name + '.npy', x.detach().contiguous().numpy())
torch.save(t.bfloat16(), 'bf16.pt')
np.save('bf16.npy', t.bfloat16().float().numpy())
)"));
    }

    void tensorsAsNumpySeesThem_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *n : {"f32", "view", "half", "double", "param", "scalar", "long", "bool", "int8", "empty"})
            QTest::newRow(n) << n;
    }
    void tensorsAsNumpySeesThem()
    {
        QFETCH(QString, name);
        const std::string base = (m_dir.path() + "/" + name).toStdString();
        QVERIFY(isTorchFile(base + ".pth"));
        const Tensor t = readPth(base + ".pth");
        const Tensor n = readNpy(base + ".npy");
        QCOMPARE(t.dtype, n.dtype);
        QCOMPARE(t.dims, n.dims);
        QVERIFY(t.hasData);
        QVERIFY(t.data == n.data);
    }

    // bfloat16 (NumPy has none): the same values as float32 once widened.
    void bfloat16()
    {
        const Tensor t = readPth((m_dir.path() + "/bf16.pt").toStdString());
        QCOMPARE(t.dtype, int32_t(DType::BFloat16));
        QCOMPARE(t.dims, (std::vector<int64_t>{2, 3, 4}));
        const Tensor f = readNpy((m_dir.path() + "/bf16.npy").toStdString());
        for (size_t i = 0; i < 24; ++i) {
            uint32_t bits = uint32_t(t.data[2 * i] | t.data[2 * i + 1] << 8) << 16;
            float v;
            std::memcpy(&v, &bits, 4);
            float w;
            std::memcpy(&w, f.data.data() + 4 * i, 4);
            QCOMPARE(v, w);
        }
    }

    // A pickle is a program: one that asks for os.system is refused before anything runs.
    void aPickleThatRunsACommandIsRefused()
    {
        const QString marker = m_dir.path() + "/ran";
        QVERIFY(python(m_dir.path(),
                       QString(R"(
import os, torch
class Evil:
    def __reduce__(self):
        return (os.system, ('touch %1',))
torch.save(Evil(), 'evil.pth')
torch.save({'weight': torch.ones(2)}, 'dict.pth')
torch.save([torch.ones(2), torch.zeros(2)], 'list.pth')
)")
                           .arg(marker)));
        const std::string evil = refusal((m_dir.path() + "/evil.pth").toStdString());
        QVERIFY2(evil.find("refused") != std::string::npos && evil.find("system") != std::string::npos, evil.c_str());
        QVERIFY(!QFile::exists(marker));
        for (const auto &[f, reason] :
             {std::pair{"dict.pth", "a dict holding more than plain values"}, std::pair{"list.pth", "a list"}}) {
            const std::string why = refusal((m_dir.path() + "/" + f).toStdString());
            QVERIFY2(why.find(reason) != std::string::npos, why.c_str());
        }
    }

    // Archives cut short, without data.pkl, or whose storage is shorter than it declares; a
    // tensor reaching past its storage; plain bytes.
    void brokenArchives()
    {
        QVERIFY(python(m_dir.path(), R"(
import torch, zipfile
torch.save(torch.arange(6, dtype=torch.float32), 'ok.pth')
data = open('ok.pth', 'rb').read()
open('cut.pth', 'wb').write(data[:len(data) // 2])
src = zipfile.ZipFile('ok.pth')
def rewrite(name, change):
    with zipfile.ZipFile(name, 'w') as z:
        for e in src.namelist():
            b = change(e, src.read(e))
            if b is not None:
                z.writestr(e, b)
rewrite('nopkl.pth', lambda e, b: None if e.endswith('data.pkl') else b)
rewrite('short.pth', lambda e, b: b[:8] if e.endswith('data/0') else b)
rewrite('reach.pth', lambda e, b: b.replace(b'K\x06\x85', b'K\x09\x85') if e.endswith('data.pkl') else b)
open('plain.pth', 'wb').write(b'not a zip at all')
)"));
        const std::pair<const char *, const char *> cases[] = {{"cut.pth", "not a torch.save zip archive"},
                                                               {"nopkl.pth", "without data.pkl"},
                                                               {"short.pth", "shorter than"},
                                                               {"reach.pth", "reaches element"},
                                                               {"plain.pth", "not a torch.save zip archive"}};
        QVERIFY(readPth((m_dir.path() + "/ok.pth").toStdString()).dims == std::vector<int64_t>{6});
        for (const auto &[file, why] : cases) {
            const std::string got = refusal((m_dir.path() + "/" + file).toStdString());
            QVERIFY2(got.find(why) != std::string::npos, (std::string(file) + ": " + got).c_str());
        }
    }

    // Files made to break a reader: a stride of 0 over 2^61 elements (the gathered size
    // wraps), strides whose reach wraps around to element 0, tuples nested two million deep,
    // a list grown an item at a time: each refused with its reason, none read out of bounds.
    void craftedToBreak()
    {
        QVERIFY(python(m_dir.path(), R"(
import struct, zipfile
def long1(v):
    b = v.to_bytes(8, 'little')
    return b'\x8a\x08' + b
def tensor(storage, n, size, stride):
    head = (b'\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01ctorch\n' + storage +
            b'\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04K' + bytes([n]) + b'tq\x05QK\x00')
    tup = lambda vs: b'(' + b''.join(long1(v) for v in vs) + b't'
    return head + tup(size) + tup(stride) + b'\x89ccollections\nOrderedDict\nq\x08)Rq\ttq\nRq\x0b.'
def save(name, pkl, storage_bytes):
    with zipfile.ZipFile(name, 'w') as z:
        z.writestr('a/data.pkl', pkl)
        z.writestr('a/data/0', storage_bytes)
save('stride0.pth', tensor(b'DoubleStorage', 1, [2**61 + 1], [0]), b'\0' * 8)
save('wrap.pth', tensor(b'ByteStorage', 1, [2, 2, 2, 2], [2**62] * 4), b'\0')
save('huge.pth', tensor(b'DoubleStorage', 1, [2**37], [0]), b'\0' * 8)
open('deep.pkl', 'wb').write(b'\x80\x02N' + b'\x85' * 2000000 + b'.')
open('list.pkl', 'wb').write(b'\x80\x02]' + b'Na\x94' * 30000 + b'.')
)"));
        for (const auto &[file, why] : {std::pair{"stride0.pth", "more than llmscope reads from one file"},
                                        std::pair{"wrap.pth", "a stride beyond any storage"},
                                        std::pair{"huge.pth", "more than llmscope reads from one file"}}) {
            const std::string got = refusal((m_dir.path() + "/" + file).toStdString());
            QVERIFY2(got.find(why) != std::string::npos, (std::string(file) + ": " + got).c_str());
        }
        for (const auto &[file, why] : {std::pair{"deep.pkl", "nested deeper"}, std::pair{"list.pkl", "a list"}}) {
            QFile f(m_dir.path() + "/" + file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray p = f.readAll();
            try {
                torchfile::readTensorPickle(std::string_view(p.constData(), size_t(p.size())), file);
                QFAIL("read");
            } catch (const Error &e) {
                QVERIFY2(std::string(e.what()).find(why) != std::string::npos, e.what());
            }
        }
    }

    // Any byte of a real pickle changed, or the pickle cut anywhere: read or refused, never
    // a crash or a hang (the sanitizer builds run this too).
    void mutatedPicklesNeverCrash()
    {
        QVERIFY(python(m_dir.path(), R"(
import torch, zipfile
torch.save(torch.nn.Parameter(torch.ones(2, 3)), 'm.pth')
z = zipfile.ZipFile('m.pth')
open('m.pkl', 'wb').write(z.read([n for n in z.namelist() if n.endswith('data.pkl')][0]))
)"));
        QFile f(m_dir.path() + "/m.pkl");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray pickle = f.readAll();
        QVERIFY(torchfile::readTensorPickle(std::string_view(pickle.constData(), size_t(pickle.size())), "m").size ==
                (std::vector<int64_t>{2, 3}));
        QRandomGenerator rng(7);
        int refused = 0;
        for (int k = 0; k < 20000; ++k) {
            QByteArray p = pickle;
            if (k % 4 == 0)
                p.truncate(int(rng.bounded(p.size())));
            for (int n = 1 + int(rng.bounded(3)); n-- > 0 && !p.isEmpty();)
                p[int(rng.bounded(p.size()))] = char(rng.bounded(256));
            try {
                torchfile::readTensorPickle(std::string_view(p.constData(), size_t(p.size())), "m");
            } catch (const Error &) {
                ++refused;
            }
        }
        QVERIFY(refused > 10000);
    }
};

QTEST_GUILESS_MAIN(TstPthFile)
#include "tst_pthfile.moc"

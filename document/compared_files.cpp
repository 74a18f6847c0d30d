#include "document/compared_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "core/dump/op_files.h"
#include "document/session_document.h"

using namespace llmscope;

ComparedFiles comparedFilesOf(const SessionDocument &doc, int op)
{
    const CompareResult *r = doc.results().comparison.get();
    if (!r || op < 0 || size_t(op) >= r->ops.size())
        return {};
    const OpResult &o = r->ops[size_t(op)];
    const QString title = QCoreApplication::translate("ComparedFiles", "%1, round %2")
                              .arg(QString::fromStdString(o.label()))
                              .arg(o.round);
    if (r->acrossFrameworks) { // the files are not in one op folder on the PyTorch side
        ComparedFiles t{title, {}, {}, {}};
        for (size_t k : o.rows) {
            const CompareRow &row = r->rows[k];
            const QFileInfo g(QString::fromStdString(row.golden.path)), m(QString::fromStdString(row.my.path));
            t.pairs.push_back(
                {g.fileName() + QStringLiteral(" = ") + m.dir().dirName() + QLatin1Char('/') + m.fileName(),
                 g.filePath(), m.filePath(), row.goldenView, row.myView});
        }
        return t;
    }
    auto files = [&](const std::string &root) {
        QStringList out;
        const OpFiles f = findOpFiles(root, o.opPath, o.round);
        if (f.round == o.round)
            for (const auto &p : f.files)
                out << QString::fromStdString(p);
        return out;
    };
    return {title, files(r->goldenRoot), files(r->myRoot), {}};
}

#include "document/op_inspection.h"

#include <QCoreApplication>

#include "core/dump/op_files.h"
#include "document/session_document.h"

using namespace llmscope;

OpInspection inspectOp(const SessionDocument &doc, const QString &id, qint64 round)
{
    OpInspection out;
    const auto graph = doc.graph();
    const GraphOp *op = graph->find(id.toStdString());
    out.title = QStringLiteral("%1 %2 (%3)")
                    .arg(id, op ? QString::fromStdString(op->name) : QString(),
                         op ? QString::fromStdString(op->type) : QString());
    // The scan's index, in memory. A program's files are scanned only once it has ended (and
    // that scan takes a while): until the index has them they are looked up in its folder.
    out.files = doc.rounds().filesOf(id, round, &out.round);
    const SessionDocument::SourceInfo &source = doc.source();
    if (out.files.isEmpty() && source.kind == SessionDocument::Source::Program && op && !source.dumpRoot.isEmpty()) {
        const OpFiles files = findOpFiles(source.dumpRoot.toStdString(), op->folder, round);
        out.round = files.round;
        for (const auto &f : files.files)
            out.files << QString::fromStdString(f);
    }
    if (out.files.isEmpty())
        out.note = QCoreApplication::translate("OpInspection",
                                               "Nothing of this operation is in the dump yet: check it and Apply (a "
                                               "running program), or dump it with -ids %1.")
                       .arg(id);
    return out;
}

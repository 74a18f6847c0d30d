#include "views/counters_view.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>

#include "document/session_document.h"

using namespace llmscope;

CountersView::CountersView(QWidget *parent)
    : QWidget(parent), m_state(new QLabel(this)), m_process(new QLabel(this)), m_folder(new QLabel(this)),
      m_rounds(new QLabel(this)), m_ops(new QLabel(this)), m_tensors(new QLabel(this)), m_last(new QLabel(this))
{
    auto *form = m_form = new QFormLayout(this);
    // Rows close together, and a row with nothing to say hidden (a dump shown has no process,
    // rounds or counts): the panel shares the bottom of a laptop's screen with the console.
    form->setContentsMargins(6, 2, 6, 2);
    form->setVerticalSpacing(1);
    form->addRow(tr("State:"), m_state);
    form->addRow(tr("Process:"), m_process);
    form->addRow(tr("Dump folder:"), m_folder);
    form->addRow(tr("Rounds:"), m_rounds);
    form->addRow(tr("Operations:"), m_ops);
    form->addRow(tr("Written:"), m_tensors);
    form->addRow(tr("Last round:"), m_last);
    for (QLabel *l : {m_state, m_process, m_folder, m_rounds, m_ops, m_tensors, m_last}) {
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setWordWrap(true);
    }
    m_ops->setToolTip(tr("The operations of the program's graph, and the most of them any round dumped (-ids, with "
                         "their children; every one when none is picked). Ids applied to a running program count "
                         "from the round after: the last round's line says how many it dumped."));
    m_rounds->setToolTip(tr("Rounds (a prompt, then one a generated token) the program computed, and how many "
                            "of them were dumped (-er)"));
    clear();
}

void CountersView::clear()
{
    m_state->setText(tr("no program running"));
    for (QLabel *l : {m_process, m_folder, m_rounds, m_ops, m_tensors, m_last})
        l->setText(QStringLiteral("-"));
    showFilledRows();
}

void CountersView::showFilledRows()
{
    for (QLabel *l : {m_process, m_folder, m_rounds, m_ops, m_tensors, m_last})
        m_form->setRowVisible(l, l->text() != QLatin1String("-"));
}

void CountersView::setState(const QString &state, const QString &message)
{
    m_state->setText(message.isEmpty() ? state : QStringLiteral("%1: %2").arg(state, message));
}

void CountersView::setProcess(const live::Hello &h)
{
    m_process->setText(tr("%1 (pid %2), %3 on %4")
                           .arg(QString::fromStdString(h.program))
                           .arg(h.pid)
                           .arg(QString::fromStdString(h.engine),
                                QString::fromStdString(h.device.empty() ? std::string("?") : h.device)));
    showFilledRows();
}

void CountersView::setDumpFolder(const QString &folder)
{
    m_folder->setText(folder);
    showFilledRows();
}

void CountersView::setCounters(const live::Counters &c)
{
    const QLocale loc;
    m_rounds->setText(tr("%1 seen, %2 dumped").arg(c.rounds).arg(c.roundsDumped));
    // the most any round dumped: the last round's own count is the line below
    m_ops->setText(tr("%1 in the graph, at most %2 dumped in a round").arg(c.opsSeen).arg(c.opsSelected));
    QString written = tr("%1 tensors, %2").arg(c.tensors).arg(loc.formattedDataSize(qint64(c.bytes)));
    if (c.skipped)
        written += tr("; %1 skipped: the disk is nearly full (msit keeps 2 GiB free), they are missing from the dump")
                       .arg(c.skipped);
    if (c.dropped)
        written += tr(" (%1 live messages left out; the dump on disk is complete)").arg(c.dropped);
    m_tensors->setText(written);
    // Missing tensors are news the user must not overlook.
    m_tensors->setStyleSheet(c.skipped ? QStringLiteral("color: #b3261e; font-weight: bold") : QString());
    showFilledRows();
}

namespace {
// How the probe read a round (--read), in the window's language: its option's values as words.
QString readWords(const std::string &read)
{
    if (read == "node")
        return CountersView::tr("node by node");
    if (read == "graph")
        return CountersView::tr("after the whole graph");
    if (read == "inline")
        return CountersView::tr("as each node is computed");
    return QString::fromStdString(read);
}
} // namespace

void CountersView::setLastRound(const live::Round &r)
{
    m_last->setText(
        r.dumped ? tr("%1: dumped, %2 operations, read %3").arg(r.round).arg(r.opsSelected).arg(readWords(r.read))
                 : tr("%1: not dumped").arg(r.round));
    showFilledRows();
}

void CountersView::follow(SessionDocument *doc)
{
    connect(doc, &SessionDocument::sourceChanged, this, [this](SessionDocument::Source kind, const QString &name) {
        clear();
        if (kind == SessionDocument::Source::Dump) { // what the window shows instead (a hunt's, a comparison's)
            m_state->setText(tr("no program running: the pages show a dump"));
            setDumpFolder(name);
        }
    });
    auto show = [this, doc] {
        const SessionDocument::Program &p = doc->program();
        setState(p.stateWords(), p.message);
        if (doc->source().kind == SessionDocument::Source::Program)
            setDumpFolder(doc->source().dumpRoot);
        if (p.process)
            setProcess(*p.process);
        if (p.counters)
            setCounters(*p.counters);
        if (p.lastRound)
            setLastRound(*p.lastRound);
    };
    connect(doc, &SessionDocument::programChanged, this, show);
    if (doc->program().state) // what the document holds already
        show();
}

QString CountersView::text() const
{
    QStringList lines;
    for (QLabel *l : {m_state, m_process, m_folder, m_rounds, m_ops, m_tensors, m_last})
        lines << l->text();
    return lines.join(QLatin1Char('\n'));
}

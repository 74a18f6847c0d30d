#include "document/session_document.h"

#include <QDir>

using namespace llmscope;

void SessionDocument::reset(Source kind, const QString &name)
{
    m_source = {kind, name, {}};
    m_graph = std::make_shared<const OpGraph>();
    m_rounds.clear();
    m_program = {};
    m_results = {};
    m_pickedIds.clear(); // the ops of another program: its tree says them again (a launch's -ids)
    emit sourceChanged(kind, name);
}

void SessionDocument::setGraph(OpGraph graph)
{
    m_graph = std::make_shared<const OpGraph>(std::move(graph));
    emit graphChanged();
}

void SessionDocument::addRounds(const DumpRounds::Chunk &chunk)
{
    m_rounds.add(chunk);
    emit roundsAdded(chunk);
}

void SessionDocument::setPickedIds(const QString &text, const QObject *by)
{
    if (text == m_pickedIds)
        return;
    m_pickedIds = text;
    emit pickedIdsChanged(text, by);
}

void SessionDocument::setComparison(std::shared_ptr<const CompareResult> r)
{
    m_results.comparison = std::move(r);
    emit resultChanged(Result::Comparison);
}

void SessionDocument::setMetrics(std::shared_ptr<const CompareResult> r)
{
    m_results.metrics = std::move(r);
    emit resultChanged(Result::Metrics);
}

void SessionDocument::setReplay(std::shared_ptr<const OpcheckResult> r)
{
    m_results.replay = std::move(r);
    emit resultChanged(Result::Replay);
}

void SessionDocument::setSpread(std::shared_ptr<const SpreadResult> r, const QString &folder, bool onSource)
{
    m_results.spread = std::move(r);
    m_results.spreadFolder = m_results.spread ? folder : QString();
    m_results.spreadOnSource = m_results.spread && onSource;
    emit resultChanged(Result::Spread);
}

void SessionDocument::setQuantReport(std::shared_ptr<const QuantReport> r, const QString &folder)
{
    m_results.quantReport = std::move(r);
    m_results.quantFolder = folder;
    emit resultChanged(Result::QuantReport);
}

QString SessionDocument::dumpRootWords() const
{
    const QString root = QDir::cleanPath(m_source.dumpRoot);
    if (m_source.dumpRoot.isEmpty())
        return {};
    // the comparison names the dump folders it found: inside the folder shown, or that folder
    auto within = [&root](const std::string &dump) {
        const QString d = QDir::cleanPath(QString::fromStdString(dump));
        return !d.isEmpty() && (d == root || d.startsWith(root + QLatin1Char('/')));
    };
    if (const auto &c = m_results.comparison) {
        if (within(c->goldenRoot))
            return tr("Golden's dump: %1").arg(m_source.dumpRoot);
        if (within(c->myRoot))
            return tr("Test's dump: %1").arg(m_source.dumpRoot);
    }
    if (m_source.kind == Source::Program)
        return tr("The launched program's dump: %1").arg(m_source.dumpRoot);
    return tr("Dump: %1").arg(m_source.dumpRoot);
}

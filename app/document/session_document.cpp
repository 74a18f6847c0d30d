#include "session_document.h"

using namespace llmscope;

void SessionDocument::reset(Source kind, const QString &name)
{
    m_source = {kind, name, {}};
    m_graph = std::make_shared<const OpGraph>();
    m_rounds.clear();
    m_program = {};
    m_results = {};
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

void SessionDocument::setSpread(std::shared_ptr<const SpreadResult> r)
{
    m_results.spread = std::move(r);
    emit resultChanged(Result::Spread);
}

void SessionDocument::setQuantReport(std::shared_ptr<const QuantReport> r, const QString &folder)
{
    m_results.quantReport = std::move(r);
    m_results.quantFolder = folder;
    emit resultChanged(Result::QuantReport);
}
